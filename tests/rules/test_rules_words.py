"""Numbers in sentences: articles and plurals."""

from __future__ import annotations

import pytest

from companion.rules.words import article, count


@pytest.mark.parametrize(("n", "art"), [(0, "a"), (1, "a"), (7, "a"), (8, "an"), (9, "a"), (11, "an"),
                                        (12, "a"), (18, "an"), (80, "an"), (100, "a"), (800, "an"),
                                        (11_000, "an"), (1100, "a")])
def test_article(n, art):
    assert article(n) == art


def test_count():
    assert [count(n, "tile") for n in (0, 1, 2)] == ["0 tiles", "1 tile", "2 tiles"]
    assert count(1, "possible tile") == "1 possible tile"
    assert count(3, "match", "matches") == "3 matches"
