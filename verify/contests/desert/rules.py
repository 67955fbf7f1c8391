"""The numbers and names of the desert crossing's rules, in one place.

The engine (:mod:`.engine`) plays turns with them, and the compiled replay loop
(``kernel.c``, through :mod:`.kernel_build`) is compiled with them: neither writes a rule's number itself.
"""
from __future__ import annotations

CAPACITY = 5        # the most the traveller can carry
TILE_LIMIT = 9      # the most a tile other than S can hold
START_WATER = 5     # the traveller starts full

# the water actions of a turn: pick up n units, drop n units, or fill up
PICK, DROP, FILL = "pick", "drop", "fill"

# a move: its letter -> (row step, column step); rows grow downwards
DELTAS: dict[str, tuple[int, int]] = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
DIRECTIONS = tuple(DELTAS)
