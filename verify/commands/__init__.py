"""What the commands do, below the command line: orchestration, no rules, no click.

``check`` and ``rank`` (code golf) run entries through an injected
:class:`~verify.grading.Runner`; ``langs`` self-tests the languages.
"""
