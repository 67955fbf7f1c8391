"""Arrow path (Signpost): read a puzzle on standard input, print the solved board.

How it solves it
----------------
A solution is a chain 1 -> 2 -> ... -> N through every cell, each step going
from a cell to some cell on that cell's ray. Put a virtual START node in front
of the cell of 1 and the chain says: every cell has exactly one predecessor,
and every node but the arrowless last cell has exactly one successor.

For every node the solver keeps candidate sets, as Python ints used as bitsets
(bit i set: cell i, or number i, is still possible):

    succ[c]   the cells that may follow c    (at first: the cells on c's ray)
    pred[c]   the nodes that may precede c   (at first: START and the cells whose ray holds c)
    nums[c]   the numbers c may hold         (its given number, N on the last cell, else any free number)

and, for every number k, where[k]: the cells that may hold k.

Propagation applies these rules until none of them removes anything:

    1. a -> b stays possible only while some number of a is one less than some number of b;
    2. c may hold k only if some possible predecessor may hold k-1 and some
       possible successor k+1;
    3. a node with a single possible successor b is b's only predecessor, and
       a cell with a single possible predecessor a is a's only successor;
    4. a cell with a single possible number is the only cell for that number,
       and a number with a single possible cell is that cell's only number;
    5. a fixed link joins two chains of fixed links into one: the end of that
       chain may not lead back to its beginning (no loops);
    6. an empty set is a contradiction.

When every cell is down to one number, that is the solution. When propagation
stalls before, the search guesses: it takes the node with the fewest possible
successors, the cell with the fewest possible predecessors or the number with
the fewest possible cells, whichever has fewest alternatives, and tries each
alternative on a copy of the sets, depth first.
"""
import sys

ARROWS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
STEPS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


class Contradiction(Exception):
    """The candidate sets admit no solution (a wrong guess, or an unsolvable puzzle)."""


def members(mask):
    """The indices of the bits set in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def single(mask):
    """True when exactly one bit of ``mask`` is set."""
    return mask != 0 and mask & (mask - 1) == 0


class Candidates:
    """The candidate sets at one point of the search (see the module docstring), and the
    chains of fixed links: ``first[t]`` is the first node of the chain that ends at
    ``t``, ``last[h]`` the last node of the chain that begins at ``h``; ``fixed`` holds
    the nodes whose successor is fixed."""

    def __init__(self, succ, pred, nums, where, first, last, fixed):
        self.succ, self.pred, self.nums, self.where = succ, pred, nums, where
        self.first, self.last, self.fixed = first, last, fixed

    def copy(self):
        return Candidates(self.succ[:], self.pred[:], self.nums[:], self.where[:],
                          self.first[:], self.last[:], self.fixed)


class Solver:
    def __init__(self, rows, cols, arrows, givens):
        """``arrows``: a direction index per cell (None for the last cell); ``givens``: cell -> number."""
        self.size = size = rows * cols
        self.start = size                     # the virtual START node comes after the cells
        self.end = arrows.index(None)         # the cell without an arrow, which holds N
        succ = [0] * size + [(1 << size) - 1]
        pred = [1 << self.start] * size + [0]
        for cell, arrow in enumerate(arrows):
            if arrow is None:
                continue
            step_row, step_col = STEPS[arrow]
            row, col = divmod(cell, cols)
            row, col = row + step_row, col + step_col
            while 0 <= row < rows and 0 <= col < cols:
                succ[cell] |= 1 << (row * cols + col)
                pred[row * cols + col] |= 1 << cell
                row, col = row + step_row, col + step_col
        fixed_numbers = dict(givens)
        fixed_numbers[self.end] = size
        free = (1 << (size + 1)) - 2                      # the numbers 1..N ...
        for number in fixed_numbers.values():
            free &= ~(1 << number)                        # ... that no cell is given
        nums = [1 << fixed_numbers[cell] if cell in fixed_numbers else free for cell in range(size)]
        nums.append(1)                                    # START holds 0
        where = [0] * (size + 1)
        for cell, numbers in enumerate(nums):
            for number in members(numbers):
                where[number] |= 1 << cell
        nodes = list(range(size + 1))
        self.initial = Candidates(succ, pred, nums, where, nodes, nodes[:], 0)

    # ------------------------------------------------------------ propagation

    def propagate(self, state, todo):
        """Apply the rules at the nodes of the bitset ``todo``, and at every node whose
        sets change meanwhile, until nothing changes. Raises Contradiction."""
        while todo:
            low = todo & -todo
            todo ^= low
            todo |= self.revise(state, low.bit_length() - 1)

    def revise(self, state, node):
        """Rules 1, 2, 3 and 5 at one node; returns the nodes to look at again."""
        succ, pred, nums = state.succ, state.pred, state.nums
        again = 0
        # rule 1: drop the links whose numbers cannot follow one another
        for after in members(succ[node]):
            if not (nums[node] << 1) & nums[after]:
                again |= self.unlink(state, node, after)
        for before in members(pred[node]):
            if not (nums[before] << 1) & nums[node]:
                again |= self.unlink(state, before, node)
        # rule 2: keep the numbers the remaining links allow
        allowed = -1
        if node != self.start:
            from_before = 0
            for before in members(pred[node]):
                from_before |= nums[before] << 1
            allowed &= from_before
        if node != self.end:
            from_after = 0
            for after in members(succ[node]):
                from_after |= nums[after] >> 1
            allowed &= from_after
        again |= self.restrict(state, node, nums[node] & allowed)
        # rule 3: a single successor or predecessor makes the link
        if single(pred[node]):
            before = pred[node].bit_length() - 1
            for after in members(succ[before] & ~(1 << node)):
                again |= self.unlink(state, before, after)
        if single(succ[node]):
            after = succ[node].bit_length() - 1
            for before in members(pred[after] & ~(1 << node)):
                again |= self.unlink(state, before, after)
            if not state.fixed >> node & 1:
                again |= self.join(state, node, after)
        return again

    def unlink(self, state, before, after):
        """``after`` cannot follow ``before``; returns both, to look at again."""
        state.succ[before] &= ~(1 << after)
        state.pred[after] &= ~(1 << before)
        if not state.succ[before] or not state.pred[after]:
            raise Contradiction
        return 1 << before | 1 << after

    def join(self, state, before, after):
        """Rule 5: the fixed link ``before`` -> ``after`` joins their chains into one,
        whose last node may not lead back to its first."""
        state.fixed |= 1 << before
        head, tail = state.first[before], state.last[after]
        state.last[head], state.first[tail] = tail, head
        if state.succ[tail] >> head & 1:
            return self.unlink(state, tail, head)
        return 0

    def restrict(self, state, cell, numbers):
        """Narrow the numbers of ``cell`` to ``numbers``, with rule 4; returns the nodes
        whose rules may now remove more."""
        nums, where = state.nums, state.where
        removed = nums[cell] & ~numbers
        if not removed:
            return 0
        if not numbers:
            raise Contradiction
        nums[cell] = numbers
        again = 1 << cell | state.succ[cell] | state.pred[cell]
        for number in members(removed):
            where[number] &= ~(1 << cell)
            if not where[number]:
                raise Contradiction
            if single(where[number]):                   # the only cell left for this number
                again |= self.restrict(state, where[number].bit_length() - 1, 1 << number)
        if single(numbers):                             # the only number left for this cell
            for other in members(where[numbers.bit_length() - 1] & ~(1 << cell)):
                again |= self.restrict(state, other, nums[other] & ~numbers)
        return again

    # ------------------------------------------------------------ search

    def solve(self):
        """The number of every cell, or None when the puzzle has no solution."""
        state = self.initial.copy()
        try:
            self.propagate(state, (1 << (self.size + 1)) - 1)
        except Contradiction:
            return None
        return self.search(state)

    def search(self, state):
        guesses = self.guesses(state)
        if not guesses:
            return [numbers.bit_length() - 1 for numbers in state.nums[:self.size]]
        for guess in guesses:
            child = state.copy()
            try:
                self.propagate(child, guess(child))
            except Contradiction:
                continue
            found = self.search(child)
            if found is not None:
                return found
        return None

    def guesses(self, state):
        """The alternatives of the open choice that has fewest (each a function that makes
        it on a copy of the sets and returns the nodes to propagate from); none when every
        cell has its number."""
        fewest, choice = None, None
        for kind, sets in (("successor", state.succ), ("predecessor", state.pred), ("number", state.where)):
            for index, options in enumerate(sets):
                count = options.bit_count()
                if count > 1 and (fewest is None or count < fewest):
                    fewest, choice = count, (kind, index)
        if choice is None:
            return []
        kind, index = choice
        if kind == "successor":
            return [self.link(index, after) for after in members(state.succ[index])]
        if kind == "predecessor":
            return [self.link(before, index) for before in members(state.pred[index])]
        return [self.place(index, cell) for cell in members(state.where[index])]

    def link(self, before, after):
        def make(state):
            again = 1 << before | 1 << after
            for other in members(state.succ[before] & ~(1 << after)):
                again |= self.unlink(state, before, other)
            for other in members(state.pred[after] & ~(1 << before)):
                again |= self.unlink(state, other, after)
            return again
        return make

    def place(self, number, cell):
        def make(state):
            return self.restrict(state, cell, 1 << number)
        return make


# ---------------------------------------------------------------- input and output

def read_puzzle(text):
    """The contest's text format: the size line (``N`` or ``ROWS COLS``), then one line
    per row of cells such as ``0SE`` (number, 0 if not given, then arrow; the last cell
    has no arrow). Returns rows, cols, arrows (direction indices, None for the last
    cell), givens (cell -> number) and the size line."""
    lines = text.split("\n")
    size = lines[0].split()
    rows, cols = int(size[0]), int(size[-1])
    arrows, givens = [], {}
    for token in " ".join(lines[1:rows + 1]).split():
        name = token.lstrip("0123456789")
        number = int(token[:len(token) - len(name)])
        if number:
            givens[len(arrows)] = number
        arrows.append(ARROWS.index(name) if name else None)
    return rows, cols, arrows, givens, lines[0].strip()


def main():
    rows, cols, arrows, givens, size_line = read_puzzle(sys.stdin.read())
    sys.setrecursionlimit(10_000 + 4 * rows * cols)
    numbers = Solver(rows, cols, arrows, givens).solve()
    if numbers is None:
        sys.exit("no solution")
    print(size_line)
    for row in range(rows):
        print(" ".join(f"{numbers[cell]}{'' if arrows[cell] is None else ARROWS[arrows[cell]]}"
                       for cell in range(row * cols, (row + 1) * cols)))


if __name__ == "__main__":
    main()
