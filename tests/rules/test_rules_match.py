"""Matches: round sequence, scoring, loss total, winners and every tie-break."""

from __future__ import annotations

from chickenfoot.rules import decide_winners, get_rules, simulate, simulate_match


def test_draw_tie_break_seed_000():
    r = get_rules("double-chicken-foot")
    assert decide_winners(r, [10, 12, 30], [[0, 12, 30], [10, 0, 0]]) == ([0], "win", "lowest-total")
    assert decide_winners(r, [10, 10, 30], [[0, 10, 30], [10, 0, 0]]) == ([0, 1], "draw", "tied")


def test_zero_rounds_then_lowest_non_zero_round_seed_002():
    r = get_rules("pagat")
    rounds = [[0, 5, 9], [0, 0, 9], [20, 15, 0]]  # totals 20, 20, 18 -> seat 2 simply lowest
    assert decide_winners(r, [20, 20, 18], rounds)[0] == [2]
    # Equal totals: seat 0 has two zero rounds, seat 1 one.
    rounds = [[0, 5], [0, 15], [20, 0]]
    assert decide_winners(r, [20, 20], rounds) == ([0], "win", "most-zero-rounds")
    # Same number of zero rounds: the lowest non-zero round wins (seat 1's 3).
    rounds = [[0, 0], [8, 3], [4, 9]]
    assert decide_winners(r, [12, 12], rounds) == ([1], "win", "lowest-non-zero-round")
    # Still tied: a draw.
    rounds = [[0, 0], [5, 7], [7, 5]]
    assert decide_winners(r, [12, 12], rounds) == ([0, 1], "draw", "tied")


def test_no_tie_break_shares_first_place():
    r = get_rules("gameweave")
    assert decide_winners(r, [7, 7, 9], [[7, 7, 9]]) == ([0, 1], "shared", "tied")


def test_full_half_single_and_start_double():
    assert len(simulate_match(get_rules("double-chicken-foot"), 4, 1).rounds) == 10
    assert len(simulate_match(get_rules("double-chicken-foot"), 7, 1).rounds) == 13
    assert len(simulate_match(get_rules("chickie-sixes"), 2, 1).rounds) == 7
    half = simulate_match(get_rules("double-chicken-foot", {"match_length": "half"}), 4, 1)
    assert [r.round_double for r in half.rounds] == [9, 8, 7, 6, 5]
    single = simulate_match(get_rules("pagat", {"match_length": "single"}), 5, 1)
    assert [r.round_double for r in single.rounds] == [9]
    custom = simulate_match(get_rules("gameweave", {"start_double": 4}), 3, 1)
    assert [r.round_double for r in custom.rounds] == [4, 3, 2, 1, 0]


def test_loss_total_ends_the_match_and_names_the_loser():
    r = get_rules("double-chicken-foot", {"loss_total": 40})
    m = simulate_match(r, 4, 3, "random")
    assert m.ended_by == "loss-total" and m.losers
    assert all(m.totals[i] > 40 for i in m.losers)
    assert len(m.rounds) < 10
    assert min(m.totals) == m.totals[m.winners[0]]


def test_match_record_totals_and_json_shape():
    data = simulate(get_rules("chickie-sixes"), 2, 11, matches=2, bot="random")
    assert [m["match"] for m in data["matches"]] == [1, 2]
    m = data["matches"][0]
    running = [0, 0]
    for rnd in m["rounds"]:
        running = [a + b for a, b in zip(running, rnd["penalties"], strict=True)]
        assert rnd["totals"] == running
        assert set(rnd) >= {"round", "round_double", "hub", "first_player", "plays", "turns", "end",
                            "out", "hands", "boneyard", "penalties"}
        assert all(set(p) == {"tile", "on", "seat"} for p in rnd["plays"])
    assert m["totals"] == running
    assert data == simulate(get_rules("chickie-sixes"), 2, 11, matches=2, bot="random")
    assert data != simulate(get_rules("chickie-sixes"), 2, 12, matches=2, bot="random")
