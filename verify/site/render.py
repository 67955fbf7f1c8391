"""Pages from Jinja2 templates (autoescaped), written into a site folder with its static files.

The site's own templates (the index, the entry page, the parts every replay shares) are named
by their file name; a contest's are named ``"package:path"`` (its presenter's
:class:`~verify.contests.contract.Page` and drawings) and read from that package, so a
contest brings its templates in its own folder.

Everything an entry names or prints reaches a page through a template variable, where
autoescaping turns ``< > & " '`` into entities, after :func:`visible` has shown its
control characters as escapes; replay data goes into the page as JSON through ``tojson``
(which escapes ``< > & '``) and the page's script puts it on screen with ``textContent``
only. The site loads nothing from the network: one script and one stylesheet, copied in.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from verify.contests.contract import Drawing, Presenter
from verify.errors import InputError
from verify.report_escape import visible

STATIC_FILES = ("site.js", "site.css")


class _Templates(jinja2.BaseLoader):
    """The site's templates by name; ``"package:path"`` from that package's files."""

    def __init__(self) -> None:
        self.site = jinja2.PackageLoader("verify.site", "templates")

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str | None, Any]:
        if ":" not in template:
            return self.site.get_source(environment, template)
        try:
            text = resource(template).decode("utf-8")
        except (ModuleNotFoundError, OSError):
            raise jinja2.TemplateNotFound(template) from None
        return text, None, lambda: True


def resource(name: str) -> bytes:
    """The file ``"package:path"`` of a package (a contest's template, script or styles)."""
    package, _, path = name.partition(":")
    return resources.files(package).joinpath(path).read_bytes()


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=_Templates(),
        autoescape=jinja2.select_autoescape(["html", "svg"], default_for_string=True, default=True),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    environment.filters["visible"] = lambda text: visible(str(text), lines=True)
    environment.filters["seconds"] = lambda value: "" if value is None else f"{value:.2f} s"
    environment.filters["mib"] = lambda value: "" if not value else f"{value / (1 << 20):.1f} MiB"
    environment.filters["draw"] = lambda drawing: draw(drawing)
    return environment


ENVIRONMENT = _environment()


def render(template: str, **values: Any) -> str:
    return ENVIRONMENT.get_template(template).render(**values)


def draw(drawing: Drawing) -> Markup:
    """A contest's picture (SVG), rendered from its template."""
    return Markup(render(drawing.template, **drawing.values))


def slug(text: str) -> str:
    """A file name for ``text`` (an entry label, a case name): safe characters, and a short hash
    so that two names never share a file."""
    readable = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")[:40] or "x"
    return f"{readable}-{hashlib.sha256(text.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}"


class Site:
    """A site folder: pages written relative to it, the static files written once: the site's
    script and stylesheet, each followed by those of the ``presenters`` whose pages it holds."""

    def __init__(self, folder: Path, presenters: Iterable[Presenter] = ()):
        self.folder = folder
        self.pages: list[Path] = []
        shown = list(dict.fromkeys(presenters))
        extra = {"site.js": sorted({s for p in shown for s in p.scripts}),
                 "site.css": sorted({s for p in shown for s in p.styles})}
        (folder / "static").mkdir(parents=True, exist_ok=True)
        for name in STATIC_FILES:
            data = resources.files("verify.site").joinpath("static", name).read_bytes()
            data += b"".join(resource(part) for part in extra[name])
            (folder / "static" / name).write_bytes(data)

    def write(self, relative: str, template: str, **values: Any) -> str:
        """Write the page ``relative`` (e.g. ``entries/x.html``) from ``template``; return ``relative``."""
        depth = relative.count("/")
        text = render(template, root="../" * depth, **values)
        path = self.folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as error:
            raise InputError(f"cannot write the page {str(path)!r}: {error.strerror or error}") from None
        self.pages.append(path)
        return relative
