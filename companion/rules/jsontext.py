"""Reading JSON that someone else wrote (a scorekeeper file, an import, a layout file).

``json.loads`` trusts its input in two ways that a hostile or broken file turns into a
traceback: nesting (``'[' * 100000`` exhausts the recursion limit, and a few hundred levels that
do parse break ``json.dumps`` on the next save) and number size (a 5,000-digit integer hits
Python's int-conversion limit; ``1e999`` becomes infinity). :func:`loads` checks both on the
text before parsing, at C speed (regular expressions, no per-number hook), and refuses with a
:class:`JSONLimitError` (an :class:`InputError`, so a ``ValueError`` too) naming the limit.
Syntax errors stay ``json.JSONDecodeError``, as from ``json.loads``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .errors import InputError

#: Deepest nesting of arrays and objects accepted (the project's files need under 10).
MAX_DEPTH = 64
#: Most digits in a row in a number (scores and ids need under 10).
MAX_DIGITS = 30

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_INNERMOST = re.compile(r"\[[^\[\]{}]*\]|\{[^\[\]{}]*\}")
_LONG_NUMBER = re.compile(r"\d{" + str(MAX_DIGITS + 1) + ",}")


class JSONLimitError(InputError):
    """JSON nested too deeply, holding a number too long to be one the project wrote, or an
    object with one key twice."""


def check_limits(text: str) -> None:
    """Raise :class:`JSONLimitError` when ``text`` nests deeper than :data:`MAX_DEPTH` or holds a
    number of more than :data:`MAX_DIGITS` digits in a row."""
    bare = _STRING.sub('""', text)  # brackets and digits inside strings are text
    if _LONG_NUMBER.search(bare):
        raise JSONLimitError(f"it holds a number longer than {MAX_DIGITS} digits")
    for _ in range(MAX_DEPTH):
        if "[" not in bare and "{" not in bare:
            return
        bare, n = _INNERMOST.subn("0", bare)
        if n == 0:  # unbalanced: json.loads says where, unless it would recurse that deep first
            if bare.count("[") + bare.count("{") <= MAX_DEPTH:
                return
            break
    if "[" in bare or "{" in bare:
        raise JSONLimitError(f"it is nested more than {MAX_DEPTH} levels deep")


def _no_constant(name: str) -> Any:
    raise JSONLimitError(f"it holds {name}, which is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise JSONLimitError(f"it holds {text[:20]}, too large for a floating-point number")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json.loads keeps the last of two equal keys without a word: in a scorekeeper file that
    # is a match silently gone (a hand repair that pasted an entry under a key already used)
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise JSONLimitError(f"it holds the key {twice[:40]!r} twice in one object")
    return obj


def loads(data: str | bytes) -> Any:
    """``json.loads`` with the limits above (no NaN or Infinity, no key twice in an object);
    a byte-order mark before bytes (an editor that writes one: Notepad) is read past."""
    text = data.decode("utf-8-sig") if isinstance(data, bytes | bytearray) else data
    check_limits(text)
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite,
                          object_pairs_hook=_unique_keys)
    except RecursionError:  # pragma: no cover - check_limits refuses this first
        raise JSONLimitError(f"it is nested more than {MAX_DEPTH} levels deep") from None
