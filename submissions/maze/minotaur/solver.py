"""The Minotaur's solver: depth-first explorer that prefers the goal's direction.

Persistent (entry.toml says so): one process walks one maze, reading one
7-line state after another and answering one line each, so it remembers the
cells it visited and the way back (its stack). From the current cell it takes
the unvisited neighbour closest (Manhattan) to the end, ties in the order
up, left, right, down; at a dead end it backs up one cell.

A depth-first search cannot be rebuilt from the fog map alone (the map does
not say which cells were visited nor in which order), hence persistent. If a
step failed (the controller kept it in place) it just sees the same cell again.
"""
import sys


def main():
    visited = set()
    stack = []
    while True:
        lines = [sys.stdin.readline() for _ in range(7)]
        if not lines[6]:
            return
        end = tuple(map(int, lines[2].split()))
        here = tuple(map(int, lines[5].split()))
        offered = [tuple(map(int, m.split())) for m in lines[6].split(",")]
        visited.add(here)
        if here in stack:
            del stack[stack.index(here) + 1:]
        else:
            stack.append(here)
        fresh = [cell for cell in offered if cell not in visited]
        if fresh:
            move = min(fresh, key=lambda cell: abs(cell[0] - end[0]) + abs(cell[1] - end[1]))
        elif len(stack) > 1:
            move = stack[-2]
        else:  # everything seen from here (cannot happen in a valid maze): wander
            move = offered[0]
        print(*move, flush=True)


main()
