"""Export (JSON lossless, CSV one row per player per round), import checks, statistics."""

from __future__ import annotations

import csv
import io
import json

import pytest

from chickenfoot.match import (
    CSV_COLUMNS,
    Match,
    MatchDataError,
    dumps_json,
    export_csv,
    loads_json,
    player_stats,
    read_export,
)
from chickenfoot.rules import get_rules


def finished(players: list[str], rounds: list[dict], **options: object) -> Match:
    m = Match.new(players, get_rules("double-chicken-foot", options or None))
    for r in rounds:
        m = m.add_round(**r)
    return m


def _short_match() -> Match:
    return finished(
        ["Ann", "Bob", "Cy"],
        [
            {"tiles": {"Ann": "0-0,1-2", "Bob": "4-4"}, "out": "Cy"},
            {"penalties": {"Ann": 0, "Bob": 7, "Cy": 2}, "blocked": True},
        ],
        start_double=1,  # two rounds: 1-1 then 0-0
    )


def test_json_export_import_round_trip_is_lossless() -> None:
    a = _short_match()
    b = Match.new(["Di", "Ed"], get_rules("chickie-sixes"))
    b = b.add_round(tiles={"Di": "0-0"}, out="Ed", holder="Di").undo()
    text = dumps_json([a, b])
    back = loads_json(text)
    assert back == [a, b]
    assert back[1].can_redo
    assert json.loads(text)["format"] == "chickenfoot-matches"


def test_read_export_accepts_a_single_match_or_a_list() -> None:
    a = _short_match()
    assert read_export(a.to_dict()) == [a]
    assert read_export([a.to_dict()]) == [a]


def test_bad_imports_are_refused_whole() -> None:
    a = _short_match()
    with pytest.raises(MatchDataError, match="not JSON"):
        loads_json("{nope")
    with pytest.raises(MatchDataError, match="this is a CSV export, for spreadsheets: matches are imported from the JSON"):
        loads_json(export_csv([a]))  # the app's own CSV, taken for the JSON export
    with pytest.raises(MatchDataError, match="twice"):
        read_export({"matches": [a.to_dict(), a.to_dict()]})
    with pytest.raises(MatchDataError, match="newer"):
        read_export({"format": "chickenfoot-matches", "version": 99, "matches": []})
    with pytest.raises(MatchDataError, match="not a Chicken Foot"):
        read_export({"format": "other", "matches": []})
    # some other program's JSON: said to hold no matches, and where exports come from
    with pytest.raises(MatchDataError, match=r"^not a Chicken Foot export: the file holds no matches \(an export "
                       r"made by Export in the app's History or by the command chickenfoot match export"):
        loads_json('{"hello": [1, 2, 3]}')


def test_csv_one_row_per_player_per_round() -> None:
    m = finished(["Ann", "Bob", "Cy"], [
        {"tiles": {"Ann": "0-0,1-2", "Bob": "4-4"}, "out": "Cy"},
        {"penalties": {"Ann": 0, "Bob": 7, "Cy": 2}, "blocked": True},
    ])
    rows = list(csv.DictReader(io.StringIO(export_csv([m]))))
    assert len(rows) == 2 * 3
    assert tuple(rows[0]) == CSV_COLUMNS
    ann1 = rows[0]
    assert (ann1["player"], ann1["penalty"], ann1["tiles"], ann1["double"]) == (
        "Ann", "53", "0-0 1-2", "9-9")
    assert rows[2]["went_out"] == "1" and rows[3]["blocked"] == "1"
    assert [r["total"] for r in rows[3:]] == ["53", "15", "2"]
    assert [r["rank"] for r in rows[3:]] == ["3", "2", "1"]


def test_csv_names_that_a_spreadsheet_would_run_are_written_as_text() -> None:
    # "=" cannot be in a name; "+", "-" and "@" can, and start a formula in a spreadsheet
    m = finished(["+cmd|'/C calc'!A0", "-Cy", "@Di", "Ed-Flo"], [
        {"penalties": {"-Cy": 4, "@Di": 5, "Ed-Flo": 6}, "out": "+cmd|'/C calc'!A0"}])
    names = [r["player"] for r in csv.DictReader(io.StringIO(export_csv([m])))]
    assert names == ["'+cmd|'/C calc'!A0", "'-Cy", "'@Di", "Ed-Flo"]


def test_a_one_round_match_says_its_one_round_was_played() -> None:
    m = finished(["Ann", "Bob"], [{"penalties": {"Bob": 30}, "out": "Ann"}], match_length="single")
    assert "its one round played" in m.outcome().reason


def test_player_stats_across_matches() -> None:
    m1 = _short_match()  # Ann 53+0, Bob 8+7, Cy 0+2 -> Cy wins
    m2 = finished(["ann", "Bob"], [{"penalties": {"Bob": 30}, "out": "ann"}],
                  match_length="single")
    active = Match.new(["Ann", "Bob"], get_rules()).add_round(penalties={"Ann": 70}, out="Bob")
    gone = Match.new(["Ann", "Bob"], get_rules()).add_round(
        penalties={"Ann": 1}, out="Bob").abandon()
    stats = {s.player.casefold(): s for s in player_stats([m1, m2, active, gone])}
    ann, bob, cy = stats["ann"], stats["bob"], stats["cy"]
    assert (ann.matches_played, ann.matches_won, bob.matches_won, cy.matches_won) == (2, 1, 0, 1)
    assert ann.rounds_played == 4 and ann.rounds_out == 1  # abandoned match left out
    assert ann.caught_with_double_blank == 1
    # the 0-0 is known in rounds whose hand was entered as tiles, or gone out: not in typed ones
    typed = player_stats([Match.new(["Ann", "Bob"], get_rules()).add_round(penalties={"Ann": 70}, out="Bob")])
    assert {x.player: x.rounds_tiles_known for x in typed} == {"Ann": 0, "Bob": 1}
    assert ann.rounds_tiles_known >= 1
    assert ann.worst_penalty == 70 and ann.average_penalty == round((53 + 0 + 0 + 70) / 4, 2)
    assert ann.best_match_total == 0 and bob.best_match_total == 15
    assert cy.matches_played == 1 and cy.average_penalty == 1.0
    assert bob.rounds_out == 1
    # the match still being played counts as one in progress (the abandoned one does not)
    assert (ann.matches_in_progress, bob.matches_in_progress, cy.matches_in_progress) == (1, 1, 0)


def test_draws_counted_apart_from_wins() -> None:
    m = finished(["Ann", "Bob"], [{"penalties": {"Ann": 3, "Bob": 3}, "blocked": True}],
                 match_length="single")
    s = {x.player: x for x in player_stats([m])}
    assert s["Ann"].matches_drawn == 1 and s["Ann"].matches_won == 0
