"""The unit tests start no program (program_guard.py says why and how)."""
from __future__ import annotations

import pytest
from program_guard import refuse_program_starts


@pytest.fixture(autouse=True, scope="module")
def no_program_starts():
    """Module-wide, so that a module's own fixtures are held to it too."""
    with pytest.MonkeyPatch.context() as patch:
        refuse_program_starts(patch)
        yield
