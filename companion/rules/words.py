"""Numbers in sentences: "an 8", "1 tile", "3 tiles" (never "a 8" or "tile(s)")."""

from __future__ import annotations


def article(n: int) -> str:
    """The article before a number said aloud: "an" for 8, 11, 18, 80-89, 800-899...; else "a"."""
    digits = str(abs(n))
    return "an" if digits.startswith("8") or (len(digits) in (2, 5) and digits[:2] in ("11", "18")) \
        else "a"


def count(n: int, word: str, plural: str | None = None) -> str:
    """``n`` and ``word``, plural unless there is exactly one: "1 tile", "0 tiles", "2 tiles"."""
    return f"{n} {word}" if n == 1 else f"{n} {plural or word + 's'}"
