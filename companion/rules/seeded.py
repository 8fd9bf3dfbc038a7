"""``random.Random``'s shuffle and randrange, drawing exactly the same numbers, without its
per-call overhead (about half of a simulated round's set-up and a third of a random bot's turn).

Seeded results must not change, so these are used only for a plain ``random.Random``, whose
``shuffle`` and ``randrange(n)`` draw through ``_randbelow_with_getrandbits``; anything else
(a subclass, ``SystemRandom``) gets its own methods. tests/rules pins the equality.
"""

from __future__ import annotations

import random
from collections.abc import MutableSequence
from typing import Any

_Random = random.Random
# (i, i + 1, bits needed for i + 1) for every swap of a deck of up to 200 tiles, last first.
_STEPS = [(i, i + 1, (i + 1).bit_length()) for i in range(200)]


def shuffle(deck: MutableSequence[Any], rng: random.Random) -> None:
    """``rng.shuffle(deck)``."""
    if type(rng) is not _Random or len(deck) > len(_STEPS):
        rng.shuffle(deck)
        return
    getrandbits = rng.getrandbits
    for i, n, k in reversed(_STEPS[1:len(deck)]):
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]


def below(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` for ``n >= 1``."""
    if type(rng) is not _Random:
        return rng.randrange(n)
    getrandbits = rng.getrandbits
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r
