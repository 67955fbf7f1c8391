"""Options shared by the commands that run programs."""
from __future__ import annotations

from typing import Any, Callable

import click

SANDBOX_HELP = ("Isolation policy: auto (bubblewrap when it works, refuse when it is installed but "
                "broken), bwrap (bubblewrap or exit 2), none (no bubblewrap). Default: $VERIFY_SANDBOX, else auto.")


def _configure_sandbox(context: click.Context, parameter: click.Parameter, value: str | None) -> str | None:
    from verify.runner import configure_isolation
    configure_isolation(value)       # SandboxUnavailable: one line, exit 2, before any run
    return value


def sandbox_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """--sandbox auto|bwrap|none, applied as soon as it is parsed (the command gets no argument)."""
    return click.option("--sandbox", type=click.Choice(["auto", "bwrap", "none"]), default=None,
                        expose_value=False, callback=_configure_sandbox, help=SANDBOX_HELP)(function)
