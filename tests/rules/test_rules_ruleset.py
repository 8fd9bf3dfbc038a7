"""Rule sets as data: presets per seed, options from strings, JSON round trip, clear errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chickenfoot.rules import (
    OPTIONS,
    PRESETS,
    InvalidOptionError,
    InvalidTileError,
    PlayerCountError,
    RuleSet,
    Tile,
    UnknownPresetError,
    full_set,
    get_rules,
    parse_tiles,
    set_size,
)


def test_tile_notation_round_trips_in_every_spelling():
    for text in ("4-7", "7-4", "4:7", "7|4", " 4 - 7 ", "[4|7]"):
        t = Tile.parse(text)
        assert t == Tile(4, 7) and str(t) == "4-7"
    assert repr(Tile(7, 4)) == "Tile(4, 7)"
    assert eval(repr(Tile(0, 12))) == Tile(0, 12)
    assert Tile(6, 6).is_double and Tile(6, 6).pips == 12
    assert parse_tiles("3-4, 0-0 5:6") == [Tile(3, 4), Tile(0, 0), Tile(5, 6)]
    assert parse_tiles("3x4 5x6") == [Tile(3, 4), Tile(5, 6)]  # as Tile.parse reads 3x4


@pytest.mark.parametrize("bad", ["4", "4-", "a-b", "-1-3", "4-7-2", "19-3", ""])
def test_unreadable_tiles_name_the_text(bad):
    with pytest.raises(InvalidTileError):
        Tile.parse(bad)


@pytest.mark.parametrize("top", [6, 9, 12, 15, 18])
def test_full_set_sizes(top):
    tiles = full_set(top)
    assert len(tiles) == len(set(tiles)) == set_size(top)


def test_double_chicken_foot_deal_table_and_sets_from_seed_000():
    r = PRESETS["double-chicken-foot"]
    assert [r.deal_size(p) for p in range(2, 9)] == [20, 14, 11, 9, 7, 10, 9]
    assert [r.set_for(p) for p in range(2, 9)] == [9] * 5 + [12, 12]
    assert r.spokes == 6 and r.toes == 3 and r.zero_zero == 50 and r.tie_break == "draw"
    assert r.round_doubles(4) == list(range(9, -1, -1))
    assert r.round_doubles(8) == list(range(12, -1, -1))


def test_other_presets_follow_their_seeds():
    g, p, c = PRESETS["gameweave"], PRESETS["pagat"], PRESETS["chickie-sixes"]
    assert (g.set, g.hand_size, g.spokes, g.start, g.first_player) == (9, 7, 6, "holder", "after-holder")
    assert (p.spokes, p.hand_size, p.tie_break) == (4, 7, "zero-rounds")
    assert (c.set, c.hand_size, c.spokes, c.draw, c.end_when_foot_dead) == (6, 5, 4, "must-play", True)
    assert c.round_doubles(2) == list(range(6, -1, -1))
    assert c.missing_double == "next-highest"


def test_options_from_cli_strings_and_match_length():
    r = get_rules("double-chicken-foot", {"zero-zero": "25", "match-length": "half", "loss-total": "150"})
    assert (r.zero_zero, r.loss_total) == (25, 150)
    assert r.round_doubles(4) == [9, 8, 7, 6, 5]
    assert get_rules("double-chicken-foot", {"match_length": "single"}).round_doubles(3) == [9]
    assert get_rules("double-chicken-foot", {"start-double": "6"}).round_doubles(3) == [6, 5, 4, 3, 2, 1, 0]
    # "none" is a value of tie-break, and the absence of a value for loss-total.
    r2 = get_rules("pagat", {"tie-break": "none", "loss-total": "none"})
    assert r2.tie_break == "none" and r2.loss_total is None


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"spokes": "5"}, "spokes"),
        ({"zero-zero": "10"}, "zero-zero"),  # one spelling: as typed on the command line
        ({"draw": "sometimes"}, "may-play"),
        ({"colour": "red"}, "unknown rule option"),
        ({"set": "10"}, "6, 9, 12, 15, 18"),
        ({"toes": "x"}, "whole number"),
    ],
)
def test_bad_options_say_what_is_allowed(options, fragment):
    with pytest.raises(InvalidOptionError, match=fragment):
        get_rules("double-chicken-foot", options)


def test_unknown_preset_lists_the_presets():
    with pytest.raises(UnknownPresetError, match="double-chicken-foot"):
        get_rules("mexican-train")


def test_player_counts_checked_against_tiles():
    with pytest.raises(PlayerCountError):
        PRESETS["chickie-sixes"].check_players(3)
    with pytest.raises(PlayerCountError, match="not enough"):
        get_rules("gameweave", {"hand-size": "20"}).check_players(6)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_json_round_trip_of_every_preset(name):
    r = PRESETS[name]
    assert RuleSet.from_dict(r.to_dict()) == r


def test_from_dict_refuses_wrong_shapes():
    base = PRESETS["pagat"].to_dict()
    for bad in ({"deal_table": [[9, 4]]}, {"set_by_players": "ab"}, {"colour": 1}):
        with pytest.raises(InvalidOptionError):
            RuleSet.from_dict({**base, **bad})


@given(
    zero=st.sampled_from([0, 25, 50]),
    hand=st.lists(st.sampled_from(full_set(9)), unique=True, max_size=20),
)
def test_penalty_is_pips_with_zero_zero_per_rules(zero, hand):
    r = get_rules("double-chicken-foot", {"zero-zero": zero})
    expected = sum(t.pips for t in hand) + (zero if Tile(0, 0) in hand else 0)
    assert r.penalty(hand) == expected


def test_every_option_has_a_sentence_and_rules_describe_themselves():
    assert all(o.help.endswith(".") for o in OPTIONS.values())
    for r in PRESETS.values():
        lines = r.describe()
        assert any(str(r.spokes) in line and "spokes" in line for line in lines)
        assert any(f"0-0 counts {r.zero_zero}" in line for line in lines)


def test_the_description_says_what_the_engine_does_with_a_centre_start_and_a_start_double():
    """after-holder with the double placed in the centre: nobody placed it, and the engine falls
    back to the rotating seat; a start double above a set chosen by the player count is capped."""
    centre = get_rules("double-chicken-foot", {"first-player": "after-holder"})
    assert centre.start.value == "centre"
    assert "Nobody placed the double, so the first turn moves one seat each round." in centre.describe()
    assert not any("after whoever placed" in line for line in centre.describe())
    held = get_rules("pagat")
    assert held.start.value == "holder" and "The player after whoever placed the double plays first." in held.describe()
    high = get_rules("pagat", {"start-double": 12})
    assert high.top_double(4) == 9
    assert any("starting from 12-12 (or the set's highest double, if lower)" in line for line in high.describe())
