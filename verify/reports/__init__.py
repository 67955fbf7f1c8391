"""Every output format in one place: tables, Markdown, JSON, JUnit XML; which report has
which, and the function that writes it: the registry, :mod:`verify.reports.formats`.

Text an entry controls (labels, case names, verdict messages and details, stderr
tails, names and flags from entry.toml) goes through :mod:`verify.report_escape`
for its format; JSON escapes every control character itself.
"""
