"""The engine's shuffle and the random bot draw exactly the numbers ``random.Random`` would."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from chickenfoot.rules.bots import RandomBot
from chickenfoot.rules.seeded import below, shuffle


@given(st.integers(0, 2**64), st.integers(0, 200))
def test_shuffle_is_random_shuffle(seed: int, size: int):
    mine, theirs = list(range(size)), list(range(size))
    a, b = random.Random(seed), random.Random(seed)
    shuffle(mine, a)
    b.shuffle(theirs)
    assert mine == theirs and a.getstate() == b.getstate()


@given(st.integers(0, 2**64), st.lists(st.integers(2, 300), min_size=1, max_size=30))
def test_below_and_the_random_bot_are_randrange(seed: int, sizes: list[int]):
    a, b, c = random.Random(seed), random.Random(seed), random.Random(seed)
    bot = RandomBot(c)
    for n in sizes:
        legal = list(range(n))
        assert below(a, n) == b.randrange(n) == bot.choose(None, legal)  # type: ignore[arg-type]
    assert a.getstate() == b.getstate() == c.getstate()
    assert bot.choose(None, ["only"]) == "only" and c.getstate() == b.getstate()  # type: ignore[arg-type]


class _Counting(random.Random):
    """A subclass: seeded.py must fall back to its own methods."""


def test_other_generators_use_their_own_methods():
    deck, ref = list(range(50)), list(range(50))
    shuffle(deck, _Counting(5))
    random.Random(5).shuffle(ref)
    assert deck == ref and below(_Counting(3), 10) == random.Random(3).randrange(10)
