"""Every relative link of README.md and docs/**/*.md resolves inside the repository.

A link is an inline link or image, ``[text](target)`` / ``![alt](target)``, or a
reference definition, ``[label]: target``, outside code (fenced and indented code
blocks, code spans). Absolute URLs (http:, https:, mailto:) are not followed. Any
other target is a path relative to the file that holds the link: it must exist and,
every symbolic link resolved, lie inside the repository (``../../shared/x.md`` from
docs/ does not). A ``#fragment`` on a Markdown target (or a bare ``#fragment``, for
the file itself) must name one of that file's headings, slugged as GitHub slugs
them: the heading's text, lowercased, every character but letters, digits, spaces,
``-`` and ``_`` dropped, spaces turned into ``-``; a repeated heading gets ``-1``,
``-2``, ... The checker itself is tested on planted broken links (the last tests).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]

EXTERNAL = ("http:", "https:", "mailto:")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
REFERENCE = re.compile(r"^ {0,3}\[((?:[^\[\]\\]|\\.)+)\]:[ \t]*(<[^>\n]*>|\S+)")
# [text](target "title"): the text may hold one level of brackets, the target one
# level of parentheses, or be written <like this>.
INLINE = re.compile(
    r"(?<![\\\]])!?\[(?P<text>(?:[^\[\]\\]|\\.|\[(?:[^\[\]\\]|\\.)*\])*)\]"
    r"\(\s*(?P<target><[^>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
)
HTML_ANCHOR = re.compile(r"<a\s[^>]*\b(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)


@dataclass(frozen=True)
class Link:
    file: Path
    line: int
    target: str

    def __str__(self) -> str:
        where = self.file.relative_to(ROOT) if self.file.is_relative_to(ROOT) else self.file
        return f"{where}:{self.line}: {self.target}"


def _strip_code_spans(line: str) -> str:
    """The line with every code span's content blanked (same length, so columns hold)."""
    out, i = [], 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line):
            out.append(line[i:i + 2])
            i += 2
            continue
        if line[i] == "`":
            run = len(line[i:]) - len(line[i:].lstrip("`"))
            closing = re.compile(r"(?<!`)" + "`" * run + r"(?!`)")
            match = closing.search(line, i + run)
            if match:
                out.append(" " * (match.end() - i))
                i = match.end()
                continue
            out.append("`" * run)
            i += run
            continue
        out.append(line[i])
        i += 1
    return "".join(out)


def prose_lines(text: str, blank_code_spans: bool = True) -> list[tuple[int, str]]:
    """(line number, line) of everything outside code blocks (code spans blanked unless told)."""
    result = []
    fence: str | None = None
    previous_blank = True
    in_indented_code = False
    for number, line in enumerate(text.splitlines(), start=1):
        if fence is not None:
            stripped = line.lstrip(" ")
            if stripped.startswith(fence) and not stripped.strip(fence[0]).strip():
                fence = None
            previous_blank = False
            continue
        opening = FENCE.match(line)
        if opening:
            fence = opening.group(1)
            in_indented_code = False
            continue
        blank = not line.strip()
        indented = line.startswith("    ") or line.startswith("\t")
        if indented and (previous_blank or in_indented_code) and not blank:
            in_indented_code = True
            previous_blank = False
            continue
        if not blank:
            in_indented_code = False
        previous_blank = blank
        result.append((number, _strip_code_spans(line) if blank_code_spans else line))
    return result


def find_links(path: Path) -> list[Link]:
    links = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        reference = REFERENCE.match(line)
        if reference:
            links.append(Link(path, number, reference.group(2)))
            continue
        for match in INLINE.finditer(line):
            links.append(Link(path, number, match.group("target")))
    return links


def _heading_text(raw: str) -> str:
    """What GitHub renders of a heading's Markdown (the text its slug is made from)."""
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", raw)   # links, images
    text = re.sub(r"<[^>]+>", "", text)                                        # inline HTML
    text = text.replace("`", "")
    text = re.sub(r"\\(.)", r"\1", text)
    return text


def slug(heading: str) -> str:
    """GitHub's anchor for a heading (before the -1, -2 of repeats)."""
    text = _heading_text(heading).strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor a Markdown file offers: its headings' slugs, and HTML name/id anchors."""
    text = path.read_text(encoding="utf-8")
    seen: dict[str, int] = {}
    found: set[str] = set()

    def add(heading: str) -> None:
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")

    lines = prose_lines(text, blank_code_spans=False)
    for index, (number, line) in enumerate(lines):
        atx = HEADING.match(line)
        if atx:
            add(atx.group(2) or "")
            continue
        following = lines[index + 1] if index + 1 < len(lines) else None
        if (following is not None and following[0] == number + 1 and line.strip()
                and SETEXT.match(following[1]) and not line.lstrip().startswith(("|", ">", "-", "*", "+"))):
            add(line.strip())
        found.update(HTML_ANCHOR.findall(line))
    return found


def problem(link: Link, root: Path = ROOT) -> str | None:
    """Why LINK is broken, or None when it resolves inside ROOT."""
    target = link.target
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if target.lower().startswith(EXTERNAL):
        return None
    if SCHEME.match(target):
        return "not a relative link (only http:, https: and mailto: URLs may leave the repository)"
    path_part, _, fragment = target.partition("#")
    path_part = unquote(path_part.split("?", 1)[0])
    fragment = unquote(fragment)
    if not path_part:
        destination = link.file
    else:
        if path_part.startswith("/"):
            return "an absolute path (write it relative to the file)"
        destination = (link.file.parent / path_part).resolve()
        if not destination.is_relative_to(root.resolve()):
            return f"leads outside the repository (to {destination})"
        if not destination.exists():
            return f"no such file or folder: {destination.relative_to(root.resolve())}"
    if fragment and destination.is_file() and destination.suffix.lower() in (".md", ".markdown"):
        if fragment not in anchors(destination):
            return f"no heading gives the anchor #{fragment} in {destination.name}"
    return None


def doc_files(root: Path = ROOT) -> list[Path]:
    files = [root / "README.md"] if (root / "README.md").exists() else []
    return files + sorted((root / "docs").rglob("*.md"))


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    return [f"{link}: {reason}" for link in find_links(path)
            if (reason := problem(link, root)) is not None]


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    broken = broken_links(path)
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_docs_have_links_to_check():
    links = [link for path in doc_files() for link in find_links(path)]
    relative = [link for link in links if not link.target.lower().startswith(EXTERNAL)]
    assert len(relative) >= 10, links
    assert any("#" in link.target for link in relative)


def test_the_contest_rules_ship_with_the_project():
    for contest in ("desert", "maze", "arrows"):
        rules = ROOT / "docs" / "rules" / f"{contest}.md"
        assert rules.is_file()
        targets = {link.target.partition("#")[0] for link in find_links(ROOT / "docs" / f"{contest}.md")}
        assert f"rules/{contest}.md" in targets


# ------------------------------------------------------------ the checker itself


def _repo(tmp_path: Path, doc: str) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "other.md").write_text(
        "# Other page\n\n## Inputs the judge reads\n\n## `verify check ENTRY...`\n\n"
        "## Repeated\n\n## Repeated\n\nSetext heading\n--------------\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# Top\n", encoding="utf-8")
    (tmp_path / "docs" / "page.md").write_text(doc, encoding="utf-8")
    (tmp_path.parent / "outside.md").write_text("# Outside\n", encoding="utf-8")
    return tmp_path / "docs" / "page.md"


@pytest.mark.parametrize("doc", [
    "See [the rules](rules/missing.md).\n",
    "See [the spec](../../outside.md).\n",
    "See [the spec](../../outside.md#outside).\n",
    "![a picture](img/nothing.png)\n",
    "[ref]: missing.md\n",
    "See [x](other.md#no-such-heading).\n",
    "See [x](#nowhere).\n",
    "See [x](/etc/passwd).\n",
    "See [x](file:///etc/passwd).\n",
    "A table | [cell](missing.md) |\n",
    "See [`code` in the text](nope.md \"a title\").\n",
])
def test_a_planted_broken_link_fails(tmp_path, doc):
    page = _repo(tmp_path, doc)
    assert len(broken_links(page, tmp_path)) == 1, find_links(page)


@pytest.mark.parametrize("doc", [
    "See [other](other.md), [top](../README.md) and [the folder](.).\n",
    "See [x](other.md#inputs-the-judge-reads) and [y](other.md#verify-check-entry).\n",
    "See [x](other.md#repeated), [y](other.md#repeated-1), [z](other.md#setext-heading).\n",
    "# Page\n\nSee [x](#page) and [site](https://example.com/a(b)) or <https://example.com>.\n",
    "[ref]: other.md#other-page\n[mail]: mailto:someone@example.com\n",
    "Code is not a link: `[x](missing.md)`.\n\n```\n[x](missing.md)\n```\n\n    [x](missing.md)\n",
    "Escaped: \\[x](missing.md).\n",
])
def test_good_links_pass(tmp_path, doc):
    page = _repo(tmp_path, doc)
    assert broken_links(page, tmp_path) == []


@pytest.mark.parametrize("heading, expected", [
    ("Inputs the judge reads", "inputs-the-judge-reads"),
    ("`verify check ENTRY...`", "verify-check-entry"),
    ("Maze matches and fog (per step)", "maze-matches-and-fog-per-step"),
    ("Runs 05:00-05:22 UTC (load 2.1)", "runs-0500-0522-utc-load-21"),
    ("Entries: entry.toml, languages, `verify check`, `verify rank`, scores",
     "entries-entrytoml-languages-verify-check-verify-rank-scores"),
    ("snake_case and [a link](x.md)", "snake_case-and-a-link"),
])
def test_github_slugs(heading, expected):
    assert slug(heading) == expected
