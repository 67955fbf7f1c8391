"""Theseus's architect: a recursive-backtracker maze (a perfect maze: one path
between any two cells, (N-1)^2 walls), with start and end at the two ends of
its longest path (found by two breadth-first searches).

Input: "size seed" on stdin (or as two arguments). Same size and seed, same maze.
"""
import random
import sys
from collections import deque


def read_request():
    words = sys.stdin.readline().split() or sys.argv[1:]
    size = int(words[0])
    seed = words[1] if len(words) > 1 else "0"
    return size, seed


def carve(size, rng):
    """Open passages by a depth-first walk; returns the set of opened cell pairs."""
    opened = set()
    seen = {(0, 0)}
    stack = [(0, 0)]
    while stack:
        r, c = stack[-1]
        fresh = [(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                 if 0 <= r + dr < size and 0 <= c + dc < size and (r + dr, c + dc) not in seen]
        if not fresh:
            stack.pop()
            continue
        nxt = rng.choice(fresh)
        opened.add(frozenset(((r, c), nxt)))
        seen.add(nxt)
        stack.append(nxt)
    return opened


def farthest(size, opened, origin):
    dist = {origin: 0}
    queue = deque([origin])
    while queue:
        r, c = queue.popleft()
        for nxt in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nxt not in dist and frozenset(((r, c), nxt)) in opened:
                dist[nxt] = dist[(r, c)] + 1
                queue.append(nxt)
    return max(dist, key=lambda cell: (dist[cell], cell))


def main():
    size, seed = read_request()
    rng = random.Random(f"theseus-{size}-{seed}")
    opened = carve(size, rng)
    start = farthest(size, opened, (0, 0))
    end = farthest(size, opened, start)
    horizontal = "".join("0" if frozenset(((r, c), (r + 1, c))) in opened else "1"
                         for r in range(size - 1) for c in range(size))
    vertical = "".join("0" if frozenset(((r, c), (r, c + 1))) in opened else "1"
                       for r in range(size) for c in range(size - 1))
    print(size)
    print(*start)
    print(*end)
    print(horizontal)
    print(vertical)


main()
