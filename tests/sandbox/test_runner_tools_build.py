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


def _linked_statically(tool: str) -> bool:
    """No PT_INTERP program header: the executable names no dynamic loader (64-bit ELF)."""
    data = Path(tool).read_bytes()
    assert data[:5] == b"\x7fELF\x02"
    offset, size, count = (int.from_bytes(data[at:at + width], "little")
                           for at, width in ((0x20, 8), (0x36, 2), (0x38, 2)))
    kinds = [int.from_bytes(data[offset + k * size:offset + k * size + 4], "little") for k in range(count)]
    return 3 not in kinds


def test_a_tool_is_linked_statically_where_the_c_library_allows_and_dynamically_else(tmp_path, monkeypatch):
    from verify.runner import helper
    source = tmp_path / "tool.c"
    source.write_text('#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n')
    static = compiled_tool(source, "tool", "verify-tool", tmp_path / "cache")
    assert static is not None and subprocess.run([static], capture_output=True).stdout == b"hi\n"
    libc_a = subprocess.run([shutil.which("cc") or "gcc", "-print-file-name=libc.a"], capture_output=True,
                            text=True).stdout.strip()
    assert _linked_statically(static) == Path(libc_a).is_file()
    # a C library without a static build (the flag refused here): the dynamic build, working
    monkeypatch.setattr(helper, "LINKINGS", (("-static", "-no-such-linker-flag"), ()))
    other = tmp_path / "other.c"
    shutil.copy(source, other)
    dynamic = compiled_tool(other, "tool", "verify-tool", tmp_path / "cache")
    assert dynamic is not None and not _linked_statically(dynamic)
    assert subprocess.run([dynamic], capture_output=True).stdout == b"hi\n"
