"""The practice screen's state without UI, over a real practice round: choices before the deal,
a round played to its end through the session (moves chosen from the hint, draws and passes when
stuck), refusals with the rules core's reasons, and the scorekeeper's penalties at the end."""

from __future__ import annotations

import pytest

from chickenfoot.app.practice_session import PracticeError, PracticeSession, PracticeSetup
from chickenfoot.match.model import Match
from chickenfoot.practice import Practice
from chickenfoot.rules import Tile, get_rules


def test_setup_seats_bots_rules_and_seed():
    s = PracticeSetup("pagat", seats=4, bot="lookahead", seed=7)
    assert s.names() == ["You", "Bot 1", "Bot 2", "Bot 3"] and s.bots == {1, 2, 3}
    assert s.problems() == []
    assert any(line.startswith("With 4 players: double-9 set") for line in s.summary())
    s.set_bot_seat(2, False)  # a second person at the table
    assert s.names() == ["Player 0", "Bot 1", "Player 2", "Bot 3"]
    two = s.start()  # people take turns on one device: the screen names whose turn it is
    assert two.waiting and two.status() == f"Your turn, {two.who}: choose a tile, then an open end."
    assert two.who in ("Player 0", "Player 2") and two.hand() == two.practice.hand(two.practice.to_act)
    s.set_bot_seat(0, True)
    s.set_bot_seat(2, True)
    assert s.problems() == ["every seat is a bot: keep at least one seat for a person"]
    with pytest.raises(PracticeError, match="every seat is a bot"):
        s.start()
    for bad in ("1", "9", "x"):
        with pytest.raises(PracticeError):
            s.set_seats(bad)
    with pytest.raises(PracticeError, match="unknown bot"):
        s.set_bot("clever")
    with pytest.raises(PracticeError, match="whole number"):
        s.set_seed("4.5")
    s.set_seats(8)
    assert s.summary()[-1].startswith("With 8 players: double-12 set")
    s.form.set_preset("chickie-sixes")  # a preset for two: eight seats is a problem it names
    assert s.problems() == ["Chickie Sixes is for at most 2 players"]
    s.set_seats(2)
    s.form.set_option("zero_zero", "50")
    assert s.problems() == [] and s.rules.zero_zero == 50
    s.set_seed("123")
    sess = s.start()
    assert sess.practice.seed == 123 and sess.practice.rules.zero_zero == 50


def _deal(seed: int = 3, preset: str = "pagat", bot: str = "greedy") -> PracticeSession:
    s = PracticeSetup(preset, seats=4, bot=bot, seed=seed)
    return s.start()


def test_the_same_deal_number_deals_the_same_round():
    a, b = _deal(11), _deal(11)
    assert a.hand() == b.hand() and a.practice.events == b.practice.events


def test_a_refused_play_keeps_the_rules_reason_and_changes_nothing():
    sess = _deal()
    assert sess.waiting
    with pytest.raises(PracticeError, match="choose a tile"):
        sess.play_on(sess.open_ends()[0].target)
    hand = sess.hand()
    legal = {(p.tile, p.target) for p in sess.practice.hint()}
    bad = next(((t, e.target) for t in hand for e in sess.open_ends() if (t, e.target) not in legal), None)
    assert bad is not None
    before = len(sess.practice.events)
    sess.choose(bad[0])
    assert sess.selected == bad[0]
    assert sess.play_on(bad[1]) is False
    verdict = sess.practice.state.table.judge(*bad)
    assert sess.refusal == verdict.message and len(sess.practice.events) == before
    assert sess.selected == bad[0]  # still chosen: try another end
    with pytest.raises(PracticeError, match="not in your hand"):
        sess.choose(next(t for t in (Tile(a, b) for a in range(10) for b in range(a, 10)) if t not in hand))


def _play_round(sess: PracticeSession, use_tap: bool = True) -> int:
    """Play the person's moves from the hint (by tapping the drawing when asked), drawing and
    passing when nothing fits. Returns how many moves the person made."""
    moves = 0
    tapped = False
    while not sess.over:
        assert sess.waiting
        hint = sess.practice.hint()
        if hint:
            p = hint[0]
            if sess.selected != p.tile:
                sess.choose(p.tile)
            if use_tap and not tapped:
                pic, png = sess.picture()
                assert png.startswith(b"\x89PNG")
                m = next(m for m in pic.board.ends if m.end.target == p.target)
                assert sess.tap(*pic.to_pixels(m.spot.x, m.spot.y)) is True
                tapped = True
            else:
                assert sess.play_on(p.target) is True, sess.refusal
        elif sess.practice.can_draw:
            # the headline says the one move there is
            assert sess.status().endswith("nothing in your hand fits, so draw a tile."), sess.status()
            assert sess.draw() is True
        else:
            assert sess.status().endswith(("it fits nowhere, so pass.", "the boneyard is empty, so pass.")), \
                sess.status()
            assert sess.pass_turn() is True
        moves += 1
        assert moves < 200
    return moves


def test_a_round_against_three_bots_is_played_to_the_end_and_scored_like_a_match():
    sess = _deal(5)
    sess.show_hint()
    assert sess.hint_shown and sess.hint() == ["9-3 on 9-9", "9-6 on 9-9"]
    assert sess.status() == "Your turn: choose a tile, then an open end."
    assert sess.needs() == ["The 9-9 still needs 4 spokes before anything else."]
    moves = _play_round(sess)
    assert moves > 0 and sess.over
    assert sess.recent() and sess.recent()[-1].kind == "end"
    lines = sess.results()
    p = sess.practice
    # the same scorer as a real match: a Match fed the same hands gives the same penalties
    names = [s.name for s in p.seats]
    m = Match.new(names, get_rules("pagat"))
    out = None if p.state.out is None else names[p.state.out]
    scored = m.add_round(tiles={n: [str(t) for t in h] for n, h in zip(names, p.state.hands, strict=True)
                                if n != out}, out=out, blocked=out is None)
    assert [x.penalty for x in lines] == list(scored.rounds[-1].penalties)
    # each hand's tiles are shown with it, so its penalty can be counted along
    assert [x.tiles for x in lines] == [tuple(sorted(h)) for h in p.state.hands]
    assert [x.penalty for x in lines] == [get_rules("pagat").penalty(x.tiles) for x in lines]
    assert [x.total for x in lines] == [x.penalty for x in lines]
    assert sess.match_words() == f"Round 1 of {scored.planned_rounds}."
    # the fixed line at the end: how it ended, then the person's own penalty
    mine = next(x for x in lines if not x.bot)
    word = "point" if mine.penalty == 1 else "points"
    assert sess.ending() == f"{sess.status()} Your penalty: {mine.penalty} {word}."
    # continue as a match: round 2 with this one's totals; play again: round 1 afresh
    nxt = sess.next_round()
    assert nxt.practice.round_index == 1 and not nxt.over
    _play_round(nxt, use_tap=False)
    assert [x.total for x in nxt.results()] == [a.penalty + b.penalty for a, b in
                                                zip(lines, nxt.results(), strict=True)]
    again = sess.again(99)
    assert again.practice.round_index == 0 and again.practice.seed == 99


@pytest.mark.parametrize("bot", ["random", "lookahead"])
def test_every_bot_kind_plays_a_round_through_the_session(bot: str):
    sess = _deal(2, "double-chicken-foot", bot)
    _play_round(sess, use_tap=False)
    assert len(sess.results()) == 4


def test_a_tap_beside_every_open_end_is_refused():
    sess = _deal(8)
    pic, _ = sess.picture()
    with pytest.raises(PracticeError, match="not an open end"):
        sess.tap(*pic.to_pixels(0.0, 0.0))
    assert isinstance(sess.practice, Practice)


def test_the_end_of_a_round_names_each_persons_penalty():
    s = PracticeSetup("pagat", seats=4, bot="greedy", seed=11)
    s.set_bot_seat(2, False)  # two people take turns on one device
    sess = s.start()
    _play_round(sess, use_tap=False)
    people = [x for x in sess.results() if not x.bot]
    assert [x.name for x in people] == ["Player 0", "Player 2"]
    assert sess.ending() == (f"{sess.status()} Penalties: Player 0 {people[0].penalty}, "
                             f"Player 2 {people[1].penalty}.")
