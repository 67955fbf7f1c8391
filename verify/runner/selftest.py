"""`verify langs`: is each language installed, which version, does a tiny program run?

The self-test builds and runs under the isolation in force, and its build is cached under
that isolation's name: whether a language builds depends on it (a compiler writing to a
fixed /tmp path builds in a private /tmp, not without one), so a build made under one
isolation never answers for another."""
from __future__ import annotations

import subprocess
import tempfile
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from verify.errors import VerifyError
from verify.runner.build import CompileError, Program, prepare
from verify.runner.isolation import Isolation
from verify.runner.languages import Language, MissingInterpreter, expand, languages
from verify.runner.limits import Limits
from verify.runner.run import run_prepared
from verify.runner.sandbox import TMP_PLACEHOLDER

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


def probe_version(language: Language, tools: dict[str, str], environment: Mapping[str, str]) -> str:
    """The first line the toolchain's version command prints, run (trusted, outside any
    sandbox) in `environment` with the language's own variables over it."""
    argv = expand(language.version, tools, {"flags": [], "args": []})
    with tempfile.TemporaryDirectory(prefix="verify-version-") as tmp:
        env = {**environment, **{name: value.replace(TMP_PLACEHOLDER, tmp) for name, value in language.env.items()}}
        try:
            out = subprocess.run(argv, input=language.version_stdin.encode(), capture_output=True, timeout=20,
                                 env=env)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"(version probe failed: {error})"
    text = (out.stdout + b"\n" + out.stderr).decode("utf-8", "replace")
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def check_language(language: Language, limits: Limits = SELFTEST_LIMITS, *, isolation: Isolation,
                   environment: Mapping[str, str], cache: Path | None = None) -> LanguageStatus:
    """Is `language` installed, its version (probed in `environment`), and does its self-test
    pass under `isolation` (built in `cache`, None: cache_root())?"""
    status = LanguageStatus(language.key, language.name, False)
    try:
        tools = language.tools()
    except MissingInterpreter as error:
        status.selftest = str(error)
        return status
    status.found = True
    status.path = tools.get("interpreter") or tools.get("compiler", "")
    status.version = probe_version(language, tools, environment)
    started = time.monotonic()
    try:
        _selftest(language, limits, isolation, status, cache)
    finally:
        status.seconds = round(time.monotonic() - started, 2)
    return status


def _selftest(language: Language, limits: Limits, isolation: Isolation, status: LanguageStatus,
              cache: Path | None) -> None:
    """Build (cached under the isolation's name) and run the language's self-test program on
    its input; status.selftest says how it went."""
    given = language.selftest_input.encode()
    wanted = given if language.selftest_output is None else language.selftest_output.encode()
    with tempfile.TemporaryDirectory(prefix="verify-selftest-") as folder:
        Path(folder).chmod(0o755)
        source = Path(folder) / f"selftest.{language.extensions[0]}"
        source.write_text(language.selftest)
        source.chmod(0o644)
        try:
            prepared = prepare(Program(language.key, source), isolation=isolation, build_key=isolation.name,
                               cache=cache)
            result = run_prepared(prepared, stdin=given, limits=limits, isolation=isolation)
        except CompileError as error:
            status.selftest = f"compile error: {error}"
            return
        except VerifyError as error:
            status.selftest = str(error)
            return
    if result.stdout == wanted and result.exit_code == 0:
        status.selftest = "ok"
    else:
        why = (language.find_error_line(result.stderr_head, result.stderr_tail)
               or f"exit {result.exit_code}, signal {result.signal}")
        status.selftest = f"self-test failed: printed {(result.stdout or b'')[:40]!r}; {why[:120]}"


def check_languages(keys: list[str] | None = None, *, isolation: Isolation, environment: Mapping[str, str],
                    cache: Path | None = None) -> list[LanguageStatus]:
    """check_language for each of `keys` (None: every language), under `isolation`."""
    table = languages()
    chosen = keys or list(table)
    unknown = [k for k in chosen if k not in table]
    if unknown:
        raise VerifyError(f"unknown language {unknown[0]!r} (known: {', '.join(sorted(table))})")
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda key: check_language(table[key], isolation=isolation,
                                                                  environment=environment, cache=cache), chosen))
