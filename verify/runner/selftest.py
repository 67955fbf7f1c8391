"""`verify langs`: is each language installed, which version, does a tiny program run?"""
from __future__ import annotations

import os
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from verify.errors import VerifyError
from verify.runner.build import CompileError, Program
from verify.runner.languages import Language, MissingInterpreter, expand, languages
from verify.runner.limits import Limits
from verify.runner.run import run_program

SELFTEST_LIMITS = Limits(wall_time=60, cpu_time=30)


@dataclass
class LanguageStatus:
    key: str
    name: str
    found: bool
    version: str = ""
    selftest: str = ""          # "ok" or why not
    path: str = ""
    seconds: float = 0.0        # how long the self-test took (a compiled language: build and run)

    @property
    def ok(self) -> bool:
        return self.found and self.selftest == "ok"


def probe_version(language: Language, tools: dict[str, str]) -> str:
    argv = expand(language.version, tools, {"flags": [], "args": []})
    try:
        out = subprocess.run(argv, input=language.version_stdin.encode(), capture_output=True, timeout=20,
                             env={**os.environ, **language.env})
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"(version probe failed: {error})"
    text = (out.stdout + b"\n" + out.stderr).decode("utf-8", "replace")
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def check_language(language: Language, limits: Limits = SELFTEST_LIMITS) -> LanguageStatus:
    status = LanguageStatus(language.key, language.name, False)
    try:
        tools = language.tools()
    except MissingInterpreter as error:
        status.selftest = str(error)
        return status
    status.found = True
    status.path = tools.get("interpreter") or tools.get("compiler", "")
    status.version = probe_version(language, tools)
    started = time.monotonic()
    try:
        _selftest(language, limits, status)
    finally:
        status.seconds = round(time.monotonic() - started, 2)
    return status


def _selftest(language: Language, limits: Limits, status: LanguageStatus) -> None:
    """Run the language's self-test program on its input; status.selftest says how it went."""
    given = language.selftest_input.encode()
    wanted = given if language.selftest_output is None else language.selftest_output.encode()
    with tempfile.TemporaryDirectory(prefix="verify-selftest-") as folder:
        Path(folder).chmod(0o755)
        source = Path(folder) / f"selftest.{language.extensions[0]}"
        source.write_text(language.selftest)
        source.chmod(0o644)
        try:
            result = run_program(Program(language.key, source), stdin=given, limits=limits)
        except CompileError as error:
            status.selftest = f"compile error: {error}"
            return
        except VerifyError as error:
            status.selftest = str(error)
            return
    if result.stdout == wanted and result.exit_code == 0:
        status.selftest = "ok"
    else:
        why = result.stderr_tail.strip().splitlines()[-1:] or [f"exit {result.exit_code}, signal {result.signal}"]
        status.selftest = f"self-test failed: printed {(result.stdout or b'')[:40]!r}; {why[0][:120]}"


def check_languages(keys: list[str] | None = None) -> list[LanguageStatus]:
    table = languages()
    chosen = keys or list(table)
    unknown = [k for k in chosen if k not in table]
    if unknown:
        raise VerifyError(f"unknown language {unknown[0]!r} (known: {', '.join(sorted(table))})")
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda key: check_language(table[key]), chosen))
