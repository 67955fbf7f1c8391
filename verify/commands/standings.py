"""An entry's line on its code-golf leaderboard, as ``verify rank`` and the HTML site both show it."""
from __future__ import annotations

from verify.commands.history import first_added
from verify.commands.jobs import EntryCheck
from verify.entries import Entry
from verify.errors import VerifyError
from verify.golf import Score, Standing, score_entry
from verify.results import CheckResult


def entry_standing(check: EntryCheck, outcome: CheckResult, flag_rule: str = "penalty") -> Standing:
    """``check``'s standing from ``outcome`` (its own run or a stored one), scored under the
    contest's ``flag_rule``; its tie-break is when git first saw the entry."""
    entry = check.entry
    score, why_not = _score(entry, "" if outcome.passed else outcome.why_not, flag_rule)
    return Standing(label=check.label, name=entry.name if entry else check.label,
                    language=(entry.language or "") if entry else "", score=score, passed=outcome.passed,
                    why_not=why_not, added=first_added(entry.folder) if entry else None,
                    cases=len(outcome.results), entry=entry)


def _score(entry: Entry | None, why_not: str, flag_rule: str) -> tuple[Score | None, str]:
    """The entry's score, or None and why (a source changed since the entry loaded, a
    character outside its language's code page)."""
    if entry is None or entry.source is None:
        return None, why_not
    try:
        return score_entry(entry, flag_rule), why_not
    except VerifyError as error:
        return None, str(error)
