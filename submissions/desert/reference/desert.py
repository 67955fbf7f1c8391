"""Reference entry for the desert crossing: solves any valid map (readable, not golfed).

Strategy. S holds infinite water and there are no walls, so walk a shortest path
p[0] = S, ..., p[d] = E and push caches of water outward along it:

- a *trip* to p[j] leaves S full, picks up 1 unit on each cache p[1..j-1] on the
  way out (so it stays full), drops up to 3 units on p[j], and walks back,
  picking up 1 unit only when it runs dry; it needs 2 units on every cache before p[j];
- ``ensure(j, need)`` makes trips to p[j] until it holds ``need`` units, first
  making sure (farthest first) that every cache before it holds 2;
- the final walk needs 1 unit on p[1..d-5] and then walks the last 5 squares on
  what it carries, arriving on E with the last unit.

Drops never make a tile exceed 9 (the water already on a tile counts as cache).
Before winning it dies once or twice, by distinct routes, to be watched.
"""
import sys

DELTAS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


class Traveller:
    """Plays turns on a copy of the map, checking the rules, and writes them down."""

    def __init__(self, rows, out=None):
        self.rows = rows
        self.out = out                                 # where turns go (None: kept in self.lines)
        self.water = [[int(ch) if ch.isdigit() else 0 for ch in row] for row in rows]
        self.visited = set()
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch == "S":
                    self.start = (r, c)
                elif ch == "E":
                    self.end = (r, c)
        self.position = self.start
        self.carried = 5
        self.lines = []

    def move(self, direction, amount=0):
        """One turn: move, drink one unit, pick up (amount > 0) or drop (amount < 0)."""
        dr, dc = DELTAS[direction]
        r, c = self.position[0] + dr, self.position[1] + dc
        assert 0 <= r < len(self.rows) and 0 <= c < len(self.rows[0]), "off the grid"
        self.position = (r, c)
        self.visited.add((r, c))
        self.carried -= 1
        assert self.carried >= 0
        self.lines.append(f"{direction}{'+' if amount >= 0 else '-'}{abs(amount)}")
        if self.out is not None and len(self.lines) >= 65536:
            self.flush()
        if self.position == self.end:
            return
        if self.position != self.start:
            assert 0 <= self.water[r][c] - amount <= 9, "tile over 9 or below 0"
            self.water[r][c] -= amount
        self.carried += amount
        assert 0 <= self.carried <= 5, "carrying more than 5"

    def flush(self):
        """Write the turns so far (long crossings print millions of turns: keep memory flat)."""
        if self.lines:
            self.out.write("\n".join(self.lines))
            self.out.write("\n")
            self.lines = []

    def final_map(self):
        out = []
        for r, row in enumerate(self.rows):
            line = []
            for c, ch in enumerate(row):
                if ch in "SE":
                    line.append(ch)
                elif self.water[r][c]:
                    line.append(str(self.water[r][c]))
                else:
                    line.append("#" if (r, c) in self.visited else ".")
            out.append("".join(line))
        return out


def shortest_path(start, end):
    """Directions of a shortest walk: vertical first, then horizontal."""
    (sr, sc), (er, ec) = start, end
    vertical = ("D" if er > sr else "U") * abs(er - sr)
    horizontal = ("R" if ec > sc else "L") * abs(ec - sc)
    return vertical + horizontal


OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}


class Crossing:
    """The caching strategy along one path; ``cache[i]`` is the water on p[i]."""

    def __init__(self, traveller, directions):
        self.t = traveller
        self.directions = directions
        self.squares = [traveller.start]
        for d in directions:
            r, c = self.squares[-1]
            self.squares.append((r + DELTAS[d][0], c + DELTAS[d][1]))

    def cache(self, i):
        r, c = self.squares[i]
        return self.t.water[r][c]

    def trip(self, j, drop):
        """From S (full) to p[j], drop ``drop`` units there, back to S and fill up."""
        t = self.t
        for i in range(1, j):
            t.move(self.directions[i - 1], 1)         # drink one, take one: still full
        t.move(self.directions[j - 1], -drop)
        for i in range(j - 1, 0, -1):
            dry = t.carried == 1                       # will be 0 after drinking
            t.move(OPPOSITE[self.directions[i]], 1 if dry else 0)
        t.move(OPPOSITE[self.directions[0]], 6 - t.carried)  # S is infinite: fill up on arrival

    def ensure(self, j, need):
        while self.cache(j) < need:
            for i in range(j - 1, 0, -1):
                self.ensure(i, 2)
            self.trip(j, min(3, 9 - self.cache(j)))

    def win(self):
        d = len(self.directions)
        for i in range(d - 5, 0, -1):
            self.ensure(i, 1)
        for i, direction in enumerate(self.directions, start=1):
            self.t.move(direction, 1 if i <= d - 5 else 0)


def print_attempt(traveller, out):
    traveller.out = out
    traveller.flush()
    out.write("\n".join(traveller.final_map()))
    out.write("\n")


def deaths(rows):
    """One or two short deaths by distinct routes (none when S's only neighbour is E)."""
    t = Traveller(rows)
    found = []
    for direction in "UDLR":
        r, c = t.start[0] + DELTAS[direction][0], t.start[1] + DELTAS[direction][1]
        if 0 <= r < len(rows) and 0 <= c < len(rows[0]) and (r, c) != t.end:
            pacing = Traveller(rows)                   # pace between S and a neighbour until dry
            for step in range(5):
                pacing.move(direction if step % 2 == 0 else OPPOSITE[direction], 0)
            found.append(pacing)
            break
    path = shortest_path(t.start, t.end)
    if len(path) > 5:
        walker = Traveller(rows)                       # walk towards E without taking any water
        for direction in path[:5]:
            walker.move(direction, 0)
        found.append(walker)
    return found


def main():
    text = sys.stdin.read() if len(sys.argv) < 2 else sys.argv[1]
    rows = text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    out = sys.stdout
    for dead in deaths(rows):
        print_attempt(dead, out)
    traveller = Traveller(rows, out)
    Crossing(traveller, shortest_path(traveller.start, traveller.end)).win()
    assert traveller.position == traveller.end
    print_attempt(traveller, out)


if __name__ == "__main__":
    main()
