"""The board layout: every tile drawn once, nowhere two overlapping, open ends marked and
found by a tap, judged plays placed where the tile would go, drawings that only grow."""

from __future__ import annotations

import itertools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chickenfoot.board import from_layout, from_report, from_round, layout_table, picture
from chickenfoot.board.geometry import Board
from chickenfoot.rules import PRESETS, Layout, Tile, check_layout, get_rules, make_bot, new_round
from chickenfoot.rules.engine import RoundState

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def no_overlaps(board: Board) -> None:
    spots = list(board.spots())
    for (i, a), (j, b) in itertools.combinations(enumerate(spots), 2):
        assert not a.overlaps(b, 0.0), f"spots {i} and {j} overlap"


@st.composite
def rounds(draw) -> RoundState:
    """A round of any preset and player count, played by seeded bots for some or all turns."""
    name = draw(st.sampled_from(sorted(PRESETS)))
    rules = get_rules(name, draw(st.sampled_from([{}, {"spokes": 3}, {"spokes": 6}, {"toes": 4}, {"toes": 2}])))
    players = draw(st.integers(rules.min_players, rules.max_players))
    seed = draw(st.integers(0, 10_000))
    k = draw(st.integers(0, len(rules.round_doubles(players)) - 1))
    state = new_round(rules, players, k, random.Random(seed))
    bots = [make_bot(draw(st.sampled_from(["random", "greedy"])), random.Random(seed + s)) for s in range(players)]
    for _ in range(draw(st.integers(0, 400))):
        if state.terminal:
            break
        legal = state.legal_actions()
        state.apply(legal[0] if len(legal) == 1 else bots[state.current].choose(state, legal), check=False)
    return state


@SETTINGS
@given(rounds())
def test_every_tile_once_and_nothing_overlaps(state: RoundState):
    board = from_round(state)
    table = state.table
    assert [p.tile for p in board.pieces] == table.tiles()
    for p in board.pieces:
        assert p.far == table.value[p.tile]
        if p.on is not None:
            assert p.on == table.parent[p.tile] and p.near == table.value[p.on]
            assert p.kind == ("foot" if p.tile.is_double else "spoke" if p.on == table.hub
                              else "toe" if p.on.is_double else "line")
    assert len(board.ends) == sum(e.slots for e in table.open_ends())
    no_overlaps(board)


@SETTINGS
@given(rounds())
def test_a_tap_on_a_mark_finds_its_open_end(state: RoundState):
    board = from_round(state)
    pic = picture(board, scale=30)
    for mark in board.ends:
        assert board.end_at(mark.spot.x, mark.spot.y) is mark
        assert pic.end_at(*pic.to_pixels(mark.spot.x, mark.spot.y)) is mark
    _x0, _y0, x1, y1 = board.bounds()
    assert board.end_at(x1 + 5, y1 + 5) is None
    assert pic.end_at(-50, -50) is None


@SETTINGS
@given(rounds(), st.data())
def test_a_legal_play_is_drawn_where_the_tile_then_lies(state: RoundState, data):
    plays = [a for a in state.legal_actions() if not isinstance(a, str)]
    if not plays:
        return
    play = data.draw(st.sampled_from(plays))
    report = check_layout(state.layout(), state.rules)
    judged = from_report(report, (play.tile, play.target))
    assert judged.ghost is not None and judged.ghost.legal and judged.ghost.spot is not None
    no_overlaps(judged)
    after = state.child(play)
    assert from_round(after).piece(play.tile).spot == judged.ghost.spot
    # the drawing only grows: every tile already drawn stays where it was
    before = {p.tile: p.spot for p in from_round(state).pieces}
    assert all(p.spot == before[p.tile] for p in from_round(after).pieces if p.tile in before)


@st.composite
def messy_layouts(draw) -> Layout:
    """Layouts as a photo or a careless hand gives them: tiles on any tile that shows the number,
    too many spokes or toes, two tiles on one line end, tiles on tiles that are not there."""
    top = draw(st.sampled_from([6, 9, 12]))
    hub = draw(st.integers(0, top))
    tiles = [Tile(a, b) for a in range(top + 1) for b in range(a, top + 1) if (a, b) != (hub, hub)]
    order = draw(st.permutations(tiles))[: draw(st.integers(0, min(60, len(tiles))))]
    placed = [Tile(hub, hub)]
    plays = []
    for t in order:
        fits = [p for p in placed if t.has(p.low) or t.has(p.high)]
        on = draw(st.sampled_from(fits)) if fits and draw(st.integers(0, 9)) else draw(st.sampled_from(tiles))
        plays.append((t, on))
        placed.append(t)
    rules = draw(st.sampled_from(sorted(PRESETS)))
    return Layout.build(Tile(hub, hub), plays, rules=rules, set=top, ordered=draw(st.booleans()))


@SETTINGS
@given(messy_layouts(), st.data())
def test_wrong_layouts_draw_without_overlaps(layout: Layout, data):
    report = check_layout(layout)
    play = None
    if layout.plays and data.draw(st.booleans()):
        play = (data.draw(st.sampled_from([p.tile for p in layout.plays])), data.draw(st.sampled_from(report.table.tiles())))
    board = from_report(report, play)
    no_overlaps(board)
    assert {p.tile for p in board.pieces} == set(report.table.tiles())
    assert set(board.loose) == {p.tile for p in layout.plays} - set(report.table.tiles())
    flagged = {p.tile for p in report.problems}
    assert all(p.flagged == (p.tile in flagged) for p in board.pieces)


def test_spokes_leave_the_hub_one_way_each():
    for spokes, want in ((4, [-90, 0, 90, 180]), (6, [-90, -30, 30, 90, 150, 210]), (3, [-90, 30, 150])):
        plays = [(f"9-{i}", "9-9") for i in range(spokes)]
        board = from_layout(Layout.build("9-9", plays), get_rules("pagat", {"spokes": spokes}))
        assert [round(p.heading) for p in board.pieces[1:]] == want
        assert not board.ends or all(m.end.kind == "line" for m in board.ends)


def test_a_later_double_lies_across_its_line_with_its_toes_splayed():
    plays = [(f"9-{i}", "9-9") for i in range(1, 5)] + [("4-4", "9-4"), ("4-1", "4-4"), ("4-2", "4-4"), ("4-3", "4-4")]
    board = from_layout(Layout.build("9-9", plays, rules="pagat"))
    foot = board.piece("4-4")
    assert foot.kind == "foot" and round(foot.spot.angle - foot.heading) == 90
    toes = [board.piece(t) for t in ("4-1", "4-2", "4-3")]
    assert [round(t.heading - foot.heading) for t in toes] == [-45, 0, 45]
    assert all(t.kind == "toe" and t.near == 4 for t in toes)


def test_unknown_target_play_has_no_place_and_open_marks_stay():
    board = from_layout(Layout.build("9-9", [("9-4", "9-9")], rules="pagat"), play=("7-6", "6-6"))
    assert board.ghost is not None and board.ghost.spot is None and board.ghost.verdict.code == "unknown-target"
    assert sorted((m.end.kind, m.end.playable) for m in board.ends) == [
        ("hub", True)] * 3 + [("line", False)]  # three free spokes, and the 9-4 for later
    assert layout_table(check_layout(Layout.build("9-9")).table).ends  # an empty hub: all spokes open

