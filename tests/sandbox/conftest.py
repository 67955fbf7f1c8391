"""Fixtures of the sandbox tests."""
from __future__ import annotations

import pytest

from verify.runner import forkserver


@pytest.fixture
def zygoted(monkeypatch) -> list[bool]:
    """Whether each fork-server step from now on goes through a zygote, in order (True: it did)."""
    seen: list[bool] = []
    serve = forkserver.ForkServer.step

    def counted(self, *args, **kwargs):
        try:
            return serve(self, *args, **kwargs)
        finally:
            seen.append(self.zygote is not None)

    monkeypatch.setattr(forkserver.ForkServer, "step", counted)
    monkeypatch.delenv("VERIFY_FORKSERVER", raising=False)
    return seen
