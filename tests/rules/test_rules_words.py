"""Numbers in sentences: articles and plurals."""

from __future__ import annotations

import pytest

from chickenfoot.rules.words import article, count


@pytest.mark.parametrize(("n", "art"), [(0, "a"), (1, "a"), (7, "a"), (8, "an"), (9, "a"), (11, "an"),
                                        (12, "a"), (18, "an"), (80, "an"), (100, "a"), (800, "an"),
                                        (11_000, "an"), (1100, "a")])
def test_article(n, art):
    assert article(n) == art


def test_count():
    assert [count(n, "tile") for n in (0, 1, 2)] == ["0 tiles", "1 tile", "2 tiles"]
    assert count(1, "possible tile") == "1 possible tile"
    assert count(3, "match", "matches") == "3 matches"



def test_option_values_in_plain_words() -> None:
    from chickenfoot.rules.words import option_choice

    assert option_choice("draw", "may-play") == "Draw one, may play it"
    assert option_choice("missing_double", "draw-until-found") == "Everyone draws in turn until it turns up"
    assert option_choice("set", "none") == "Chosen from the number of players"
    assert option_choice("set", "12") == "Double-12"
    assert option_choice("end_when_foot_dead", "false") == "No"
    assert option_choice("toes", "3") == "3"

def test_an_open_end_in_words() -> None:
    from chickenfoot.rules.words import open_end

    assert open_end(4, "9-4", 1, "line", True) == "4 on 9-4"
    assert open_end(9, "9-9", 5, "hub", True) == "9 on 9-9, 5 spokes to go"
    assert open_end(7, "7-7", 1, "foot", True) == "7 on 7-7, 1 toe to go"
    assert open_end(4, "3-4", 1, "line", False) == "4 on 3-4, closed for now"
