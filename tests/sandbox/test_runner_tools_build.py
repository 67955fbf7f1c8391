"""verify's own C tools (verify/runner/helper.py): compiled once into the cache, in a folder
named after the digest of every source they are built from, so that a change to a source one
of them includes (verify-forkserver links verify-init's code in) builds it again."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from verify.runner.helper import compiled_tool

pytestmark = pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc")), reason="needs a C compiler")


def test_a_changed_included_source_builds_the_tool_again(tmp_path):
    included = tmp_path / "greeting.c"
    source = tmp_path / "tool.c"
    source.write_text('#include <stdio.h>\n#include "greeting.c"\nint main(void) { puts(GREETING); return 0; }\n')
    cache = tmp_path / "cache"
    built = []
    for greeting in ("hello", "again"):
        included.write_text(f'#define GREETING "{greeting}"\n')
        # (a fresh path each time: the built tool is remembered per source path for the process)
        copy = tmp_path / f"tool-{greeting}.c"
        shutil.copy(source, copy)
        tool = compiled_tool(copy, "tool", "verify-tool", cache, includes=[included])
        assert tool is not None
        built.append(tool)
        assert subprocess.run([tool], capture_output=True).stdout == f"{greeting}\n".encode()
    assert Path(built[0]).parent != Path(built[1]).parent
    included.write_text('#define GREETING "hello"\n')
    assert compiled_tool(tmp_path / "tool-hello.c", "tool", "verify-tool", cache, includes=[included]) == built[0]
