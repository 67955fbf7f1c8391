"""The greedy shrinker alone, on pure predicates (no program runs)."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from verify.fuzz.shrink import one_at_a_time, shrink


def smaller_ints(n: int):
    """Halve first (a big cut), then one less."""
    if n > 0:
        yield n // 2
        yield n - 1


def test_an_integer_shrinks_to_the_threshold_of_its_failure():
    shrunk = shrink(1000, smaller_ints, one_at_a_time(lambda n: n >= 37))
    assert shrunk.value == 37 and not shrunk.exhausted
    assert shrunk.steps > 0 and shrunk.tries >= shrunk.steps


def drop_one(items: tuple[int, ...]):
    for index in range(len(items)):
        yield items[:index] + items[index + 1:]


def test_a_list_keeps_only_what_the_failure_needs():
    failing = (5, 1, 9, 4, 9, 2)
    shrunk = shrink(failing, drop_one, one_at_a_time(lambda items: 9 in items and 4 in items))
    assert sorted(shrunk.value) == [4, 9]


def test_a_value_with_no_failing_step_is_already_minimal():
    shrunk = shrink((1, 2), drop_one, one_at_a_time(lambda items: items == (1, 2)))
    assert shrunk.value == (1, 2) and shrunk.steps == 0 and shrunk.tries == 2


def test_the_budget_of_tries_stops_the_shrink_and_says_so():
    shrunk = shrink(10**6, lambda n: [n - 1] if n else [], one_at_a_time(lambda n: n > 0), max_tries=50)
    assert shrunk.exhausted and shrunk.tries == 50 and shrunk.value == 10**6 - 50


def test_a_variant_that_passed_is_not_run_again():
    runs: list[int] = []

    def fails(n: int) -> bool:
        runs.append(n)
        return n >= 3

    shrink(8, lambda n: [0, 1, 2, n - 1] if n else [], one_at_a_time(fails))
    assert runs.count(0) == runs.count(1) == runs.count(2) == 1


@given(st.lists(st.integers(0, 20), max_size=12).map(tuple), st.integers(1, 5), st.integers(0, 20))
def test_batches_take_the_same_steps_as_one_at_a_time(items, batch, needle):
    def fails(values):
        return needle in values

    alone = shrink(items, drop_one, one_at_a_time(fails))
    together = shrink(items, drop_one, lambda variants: [fails(v) for v in variants], batch=batch)
    assert (together.value, together.steps, together.tries) == (alone.value, alone.steps, alone.tries)
    if needle in items:
        assert alone.value == (needle,)
    else:
        assert alone.value == items and alone.steps == 0
