"""Every language of languages.toml: its echo self-test runs (when it is installed), and
the table itself is well formed."""
import pytest

from verify.runner import MissingInterpreter, languages
from verify.runner.languages import expand, language_for_extension
from verify.runner.selftest import check_language

REQUIRED = {"python", "perl", "javascript", "c", "c++", "java", "rust", "bash", "awk", "tcl"}


def test_the_table_has_the_required_languages_and_distinct_extensions():
    table = languages()
    assert REQUIRED <= set(table)
    extensions = [ext for lang in table.values() for ext in lang.extensions]
    assert len(extensions) == len(set(extensions))
    assert language_for_extension(".pl").key == "perl" and language_for_extension("cpp").key == "c++"


def test_flags_and_args_expand_to_zero_or_more_words():
    template = ("{interpreter}", "{flags}", "{source}", "{args}")
    assert expand(template, {"interpreter": "perl", "source": "a.pl"}, {"flags": [], "args": []}) == ["perl", "a.pl"]
    assert expand(template, {"interpreter": "perl", "source": "a.pl"},
                  {"flags": ["-n", "-l"], "args": ["x y"]}) == ["perl", "-n", "-l", "a.pl", "x y"]


@pytest.mark.parametrize("key", sorted(REQUIRED))
def test_self_test_echoes_its_input(key):
    language = languages()[key]
    try:
        language.tools()
    except MissingInterpreter as error:
        pytest.skip(str(error))
    status = check_language(language)
    assert status.found and status.version
    assert status.selftest == "ok"
