"""entry.toml: every mistake is one line naming the field."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
import echo_contest  # noqa: E402

from verify.entries import find_entries, load_entry  # noqa: E402
from verify.errors import EntryError  # noqa: E402

REPO = Path(__file__).parents[2]


@pytest.fixture(autouse=True)
def echo(monkeypatch):
    echo_contest.install(monkeypatch)


def entry_with(tmp_path, toml: str, files=("cat.py",)) -> Path:
    folder = tmp_path / "echo" / "mine"
    folder.mkdir(parents=True)
    for name in files:
        (folder / name).write_text("import sys\nsys.stdout.write(sys.stdin.read())\n")
    (folder / "entry.toml").write_text(toml)
    return folder


def error_of(folder: Path) -> str:
    with pytest.raises(EntryError) as caught:
        load_entry(folder)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_good_entry_loads(tmp_path):
    folder = entry_with(tmp_path, 'name = "Mine"\ncontest = "echo"\nlanguage = "python"\nsource = "cat.py"\n'
                                  'flags = ["-u"]\ninput = "args"\nauthor = "me"\n')
    entry = load_entry(folder / "entry.toml")
    assert (entry.name, entry.label, entry.flags, entry.input, entry.author) == \
        ("Mine", "echo/mine", ("-u",), "args", "me")
    assert entry.source == folder / "cat.py"          # scored there; run on a copy of it alone
    assert entry.program.source.read_bytes() == (folder / "cat.py").read_bytes() and entry.program.workdir != folder


def test_name_defaults_to_the_folder(tmp_path):
    folder = entry_with(tmp_path, 'contest = "echo"\nlanguage = "python"\nsource = "cat.py"\n')
    assert load_entry(folder).name == "mine"


@pytest.mark.parametrize("toml, expected", [
    ('language = "python"\nsource = "cat.py"\n', "echo/mine: contest: missing"),
    ('contest = "chess"\nlanguage = "python"\nsource = "cat.py"\n', "echo/mine: contest: unknown contest 'chess'"),
    ('contest = 3\n', "echo/mine: contest: expected a string, not an integer"),
    ('contest = "echo"\nlanguage = "cobol"\nsource = "cat.py"\n', "echo/mine: language: unknown language 'cobol'"),
    ('contest = "echo"\nlanguage = "python"\nsource = "nope.py"\n', "echo/mine: source: no such file 'nope.py'"),
    ('contest = "echo"\nlanguage = "python"\nsource = "../../x.py"\n', "echo/mine: source: '../../x.py' is outside"),
    ('contest = "echo"\nlanguage = "python"\n', "echo/mine: source: missing"),
    ('contest = "echo"\nsource = "cat.py"\n', "echo/mine: language: missing"),
    ('contest = "echo"\n', "echo/mine: language: missing (a code-golf entry needs language and source)"),
    ('contest = "echo"\nlanguage = "python"\nsource = "cat.py"\ncolour = "red"\n', "echo/mine: colour: unknown field"),
    ('contest = "echo"\nlanguage = "python"\nsource = "cat.py"\nflags = "-n"\n', "echo/mine: flags: expected list, not a string"),
    ('contest = "echo"\nlanguage = "python"\nsource = "cat.py"\nflags = [1]\n', "echo/mine: flags: expected a list of strings"),
    ('contest = "echo"\nlanguage = "python"\nsource = "cat.py"\ninput = "file"\n', "echo/mine: input: expected \"stdin\" or \"args\""),
    ('contest = "echo"\nlanguage = "python"\nsource = "cat.py"\nname = ""\n', "echo/mine: name: empty"),
    ('contest = "echo"\nlanguage = "python"\nsource = "cat.py"\n[echo]\ndemo = "gone.txt"\n', "echo/mine: echo.demo: no such file"),
    ('contest = "echo"\nlanguage = "python"\nsource = "cat.py"\necho = 1\n', "echo/mine: echo: expected a table"),
    ('contest = "echo"\nlanguage = "python"\nsource = "cat.py"\n[desert]\nnotation = "standard"\n', "echo/mine: desert: unknown field"),
    ('contest = "echo\n', "echo/mine: entry.toml is not valid TOML"),
])
def test_each_mistake_names_its_field(tmp_path, toml, expected):
    assert error_of(entry_with(tmp_path, toml)).startswith(expected)


@pytest.mark.parametrize("keys", ['challenge = "echo"\n', 'contest = "echo"\nchallenge = "echo"\n'])
def test_the_key_challenge_names_the_contest_too(tmp_path, keys):
    entry = load_entry(entry_with(tmp_path, keys + 'language = "python"\nsource = "cat.py"\n'))
    assert (entry.contest.name, entry.label) == ("echo", "echo/mine")


@pytest.mark.parametrize("toml, expected", [
    ('contest = "echo"\nchallenge = "desert"\n', "echo/mine: contest and challenge name different contests"),
    ('contest = "echo"\nchallenge = 3\n', "echo/mine: contest and challenge name different contests"),
    ('challenge = "chess"\n', "echo/mine: challenge: unknown contest 'chess'"),
    ('challenge = 3\n', "echo/mine: challenge: expected a string, not an integer"),
])
def test_a_mistake_in_the_key_challenge_names_it(tmp_path, toml, expected):
    assert error_of(entry_with(tmp_path, toml + 'language = "python"\nsource = "cat.py"\n')).startswith(expected)


def test_missing_folder_and_missing_toml(tmp_path):
    assert error_of(tmp_path / "echo" / "ghost") == "echo/ghost: no such entry folder"
    (tmp_path / "echo" / "empty").mkdir(parents=True)
    assert error_of(tmp_path / "echo" / "empty") == "echo/empty: no entry.toml in the folder"


def test_find_entries_by_contest(tmp_path):
    entry_with(tmp_path, 'contest = "echo"\nlanguage = "python"\nsource = "cat.py"\n')
    assert find_entries(tmp_path, "echo") == [tmp_path / "echo" / "mine"]
    assert find_entries(tmp_path, "desert") == []


def test_every_bundled_entry_loads():
    folders = find_entries(REPO / "submissions")
    assert folders
    for folder in folders:
        entry = load_entry(folder)
        assert entry.contest.name == folder.parent.name
