"""Theseus's solver: stateless frontier explorer (the contest's per-step protocol).

It keeps no memory: each step it reads the fog map and heads for the most
promising place to learn something. From the current cell it searches
(breadth-first) through walls known to be open; if the end is reachable that
way it walks there, otherwise it picks the reachable cell with an unknown wall
that minimises (distance to it) + (Manhattan distance from it to the end),
ties broken by the Manhattan distance, then by row and column. It answers the
first move of the way there. The answer depends only on the state shown, so
the solver scores the same run as a new process per step or as one process
reading state after state (it loops until end of input, flushing each answer).
"""
import sys
from collections import deque


def neighbours(n, h, v, r, c):
    if r > 0 and h[(r - 1) * n + c] == "0":
        yield r - 1, c
    if c > 0 and v[r * (n - 1) + c - 1] == "0":
        yield r, c - 1
    if c < n - 1 and v[r * (n - 1) + c] == "0":
        yield r, c + 1
    if r < n - 1 and h[r * n + c] == "0":
        yield r + 1, c


def has_unknown_wall(n, h, v, r, c):
    return ((r > 0 and h[(r - 1) * n + c] == "?") or (r < n - 1 and h[r * n + c] == "?")
            or (c > 0 and v[r * (n - 1) + c - 1] == "?") or (c < n - 1 and v[r * (n - 1) + c] == "?"))


def choose(lines):
    n = int(lines[0])
    end = tuple(map(int, lines[2].split()))
    h, v = lines[3].strip(), lines[4].strip()
    here = tuple(map(int, lines[5].split()))
    offered = [tuple(map(int, m.split())) for m in lines[6].split(",")]
    parent = {here: None}
    dist = {here: 0}
    queue = deque([here])
    while queue:
        cell = queue.popleft()
        for nxt in neighbours(n, h, v, *cell):
            if nxt not in parent:
                parent[nxt] = cell
                dist[nxt] = dist[cell] + 1
                queue.append(nxt)
    if end in parent:
        target = end
    else:
        def cost(cell):
            to_end = abs(cell[0] - end[0]) + abs(cell[1] - end[1])
            return dist[cell] + to_end, to_end, cell
        frontier = [cell for cell in parent if cell != here and has_unknown_wall(n, h, v, *cell)]
        if not frontier:
            return offered[0]
        target = min(frontier, key=cost)
    while parent[target] != here:
        target = parent[target]
    return target


def main():
    while True:
        lines = [sys.stdin.readline() for _ in range(7)]
        if not lines[6]:
            return
        print(*choose(lines), flush=True)


main()
