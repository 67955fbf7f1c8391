"""The command line's contract: exit codes and one-line errors."""
from click.testing import CliRunner

from verify import Status, Verdict, contests
from verify.cli import main
from verify.errors import EntryError, VerifyError


def test_help_lists_judge():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    assert "judge" in result.output


def test_verify_error_is_one_line():
    assert "\n" not in str(VerifyError("line one\nline two"))
    assert str(EntryError("desert/golf", "language", "unknown language 'cobol'")) == \
        "desert/golf: language: unknown language 'cobol'"


def test_unknown_contest_names_the_known_ones():
    try:
        contests.get("chess")
    except VerifyError as error:
        assert "chess" in str(error) and "known:" in str(error)
    else:
        raise AssertionError("no error for an unknown contest")


def test_verdict_round_trip():
    verdict = Verdict.wrong("attempt 1, turn 2 at (0,1): off the grid", attempts=1)
    assert not verdict.accepted
    assert verdict.to_dict()["status"] == "wrong"
    assert Status.TIME_LIMIT.short == "TLE"
