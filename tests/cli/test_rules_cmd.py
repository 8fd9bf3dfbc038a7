"""``chickenfoot rules``, ``check`` and ``simulate`` through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from chickenfoot.cli.main import main
from chickenfoot.rules import Tile

ROOT = Path(__file__).resolve().parents[2]
SPOKES = [{"tile": f"9-{i}", "on": "9-9"} for i in range(6)]


def write(tmp_path: Path, data: object, name: str = "layout.json") -> str:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(p)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "chickenfoot", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# ----------------------------------------------------------------------------- rules
def test_rules_lists_presets(capsys: pytest.CaptureFixture[str]):
    assert main(["rules", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == ["double-chicken-foot", "gameweave", "pagat", "chickie-sixes"]
    assert main(["rules"]) == 0
    assert "chickie-sixes" in capsys.readouterr().out


def test_rules_name_json_prints_one_in_full(capsys: pytest.CaptureFixture[str]):
    assert main(["rules", "pagat", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["name"] == "pagat" and data["spokes"] == 4 and data["tie_break"] == "zero-rounds"
    assert any("four" in s or "4 spokes" in s for s in data["describe"])
    assert main(["rules", "chickie-sixes", "-o", "zero-zero=25", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["zero_zero"] == 25


# ----------------------------------------------------------------------------- check
def test_check_legal_layout_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = write(tmp_path, {"rules": "double-chicken-foot", "hub": "9-9",
                            "plays": [*SPOKES, {"tile": "4-4", "on": "9-4"}, {"tile": "4:1", "on": "4-4"}]})
    assert main(["check", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["legal"] and data["problems"] == []
    assert data["spokes"]["have"] == 6 and data["open_foot"]["tile"] == "4-4"
    assert {"on": "4-4", "value": 4, "slots": 2, "kind": "foot", "playable_now": True} in data["open_ends"]
    assert main(["check", path]) == 0
    out = capsys.readouterr().out
    assert "Open foot: 4-4 needs 2 more toes" in out and "No problems" in out


def test_check_reports_every_problem_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = write(tmp_path, {"hub": "9-9", "plays": [
        {"tile": "9-4", "on": "9-9"}, {"tile": "4-1", "on": "9-4"}, {"tile": "9-4", "on": "9-9"},
        {"tile": "2-3", "on": "9-9"}]})
    assert main(["check", path, "--json"]) == 1
    codes = [p["code"] for p in json.loads(capsys.readouterr().out)["problems"]]
    assert codes == ["hub-incomplete", "already-played", "no-match"]


@pytest.mark.parametrize("play, on, code, message", [
    ("0-6", "9-0", "foot-incomplete", "The 4-4 still needs 2 toes before anything else."),
    ("4:7", "7-7", "unknown-target", "There is no 7-7 on the table to play 4-7 on."),  # a verdict too
])
def test_check_play_not_legal_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str], play: str, on: str,
                                     code: str, message: str):
    path = write(tmp_path, {"hub": "9-9", "plays": [*SPOKES, {"tile": "4-4", "on": "9-4"},
                                                   {"tile": "4-1", "on": "4-4"}]})
    assert main(["check", path, "--play", "7-4", "--on", "4-4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["play"]["code"] == "ok"
    assert main(["check", path, "--play", play, "--on", on, "--json"]) == 1
    got = json.loads(capsys.readouterr().out)["play"]
    assert got == {"tile": str(Tile.parse(play)), "on": str(Tile.parse(on)), "legal": False, "code": code,
                   "message": message}
    assert main(["check", path, "--play", play, "--on", on]) == 1
    assert f"not legal [{code}] {message}" in capsys.readouterr().out


def test_check_rules_override_and_unordered(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    plays = [{"tile": "3-5", "on": "9-3"}, *SPOKES[:4]]
    path = write(tmp_path, {"hub": "9-9", "ordered": False, "plays": plays})
    assert main(["check", path, "--rules", "pagat"]) == 0
    assert main(["check", path]) == 1  # six spokes needed by default
    capsys.readouterr()


def test_check_a_play_of_a_tile_the_set_must_hold_when_the_file_names_no_set(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """A file naming no set, under rules whose set goes by the player count: the tile proposed
    is in someone's hand, so the set holds it (double-12 for a 9-10), as if it lay on the table."""
    path = write(tmp_path, {"hub": "9-9", "plays": [{"tile": "9-1", "on": "9-9"}]})
    assert main(["check", path, "--play", "10-9", "--on", "9-9", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["set"] == 12 and data["play"]["legal"] and data["play"]["code"] == "ok"
    # said, since a mistyped tile would pass for a bigger set just the same
    assert data["set_note"] == ('The layout names no set, so 9-10 makes it a double-12 set; in a double-9 set '
                                'there is no 9-10 (write "set": 9 in the file to judge it so).')
    assert main(["check", path, "--play", "10-9", "--on", "9-9"]) == 0
    assert data["set_note"] in capsys.readouterr().out
    assert main(["check", path, "--play", "9-5", "--on", "9-9", "--json"]) == 0
    assert "set_note" not in json.loads(capsys.readouterr().out)


def test_check_keeps_the_files_options_when_its_preset_is_named_in_other_capitals(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    plays = [{"tile": f"9-{i}", "on": "9-9"} for i in range(6)]
    path = write(tmp_path, {"rules": "pagat", "options": {"spokes": 6}, "hub": "9-9", "plays": plays[:4]})
    for name in ("pagat", "Pagat", "PAGAT"):
        assert main(["check", path, "--rules", name, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["spokes"]["need"] == 6, name


@pytest.mark.parametrize("content, args, fragment", [
    ('{"hub": "9-9", "plays": [', [], "is not valid JSON"),
    ({"hub": "9-9"}, ["--rules", "nope"], "unknown rules preset 'nope'"),
    ({"hub": "9-9", "set": 9, "plays": [{"tile": "9-10", "on": "9-9"}]}, [], "9-10 is not in a double-9 set"),
    ({"hub": "9-9", "rules": "gameweave"}, ["--play", "9-10", "--on", "9-9"], "not in a double-9 set"),
    ({"hub": "9-9", "rules": "gameweave"}, ["--play", "9-4", "--on", "12-12"], "12-12 is not in a double-9 set"),
    ({"hub": "9-9", "plays": [{"tile": "9-x", "on": "9-9"}]}, [], "cannot read '9-x' as a tile"),
    ({"hub": "9-9"}, ["--play", "9-4"], "--play and --on go together"),
    ({"hub": "9-8"}, [], "the hub must be a double"),
])
def test_check_unusable_input_exit_2_one_line(tmp_path: Path, content: object, args: list[str],
                                              fragment: str):
    path = write(tmp_path, content)
    res = run_cli("check", path, *args)
    assert res.returncode == 2, res.stdout + res.stderr
    line = one_line_error(res.stderr)
    assert line.startswith("chickenfoot: error:") and fragment in line
    assert res.stdout == ""


@pytest.mark.parametrize("name", ["table.svg", "table.png"])
def test_check_draw_writes_the_board(tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]):
    path = write(tmp_path, {"hub": "9-9", "plays": [*SPOKES, {"tile": "4-4", "on": "9-4"}]})
    out = tmp_path / name
    assert main(["check", path, "--play", "0-6", "--on", "9-0", "--draw", str(out), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["drawing"] == str(out)
    data = out.read_bytes()
    assert data.startswith(b"<svg") if name.endswith(".svg") else data.startswith(b"\x89PNG")
    if name.endswith(".svg"):
        assert b"0-6 on 9-0: not legal. The 4-4 still" in data and b"needs 3 toes before" in data
    assert main(["check", path, "--draw", str(out)]) == 0
    assert f"drawing written to {out}" in capsys.readouterr().out


@pytest.mark.parametrize("out, fragment", [
    ("board.gif", "unknown kind of file .gif; use .svg or .png"),
    ("nowhere/board.png", "nowhere (it is not created)"),
])
def test_check_bad_draw_exit_2_and_nothing_written(tmp_path: Path, out: str, fragment: str):
    path = write(tmp_path, {"hub": "9-9", "plays": SPOKES})
    res = run_cli("check", path, "--draw", str(tmp_path / out))
    assert res.returncode == 2 and res.stdout == ""
    assert fragment in one_line_error(res.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["layout.json"]


@pytest.mark.parametrize("args, code", [
    (["rules", "nope", "--json"], "unknown-preset"),
    (["check", "gone.json", "--json"], "layout"),
    (["simulate", "--players", "1", "--json"], "player-count"),
    (["check", "--json"], "usage"),
    (["simulate", "--bogus", "--json"], "usage"),
])
def test_every_error_with_json_prints_json(args: list[str], code: str):
    res = run_cli(*args)
    assert res.returncode == 2
    data = json.loads(res.stdout)
    assert data["error"]["code"] == code and data["exit"] == 2 and data["error"]["message"]
    assert data["error"]["message"] in one_line_error(res.stderr)


def test_check_missing_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["check", str(tmp_path / "gone.json")]) == 2
    assert "does not exist" in one_line_error(capsys.readouterr().err)


def test_both_tile_orders_and_separators_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = write(tmp_path, {"hub": "9:9", "plays": [{"tile": "4-9", "on": "9:9"}]})
    assert main(["check", path, "--play", "9:7", "--on", "9-9", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["play"]["code"] == "ok" and data["problems"] == [] and not data["spokes"]["complete"]


# -------------------------------------------------------------------------- simulate
def test_simulate_same_seed_byte_identical():
    args = ["simulate", "--rules", "chickie-sixes", "--players", "2", "--seed", "5", "--matches", "2",
            "--json"]
    a, b = run_cli(*args), run_cli(*args)
    assert a.returncode == 0 and a.stdout == b.stdout
    data = json.loads(a.stdout)
    assert len(data["matches"]) == 2 and data["rules"]["name"] == "chickie-sixes"
    c = run_cli("simulate", "--rules", "chickie-sixes", "--players", "2", "--seed", "6", "--json")
    assert c.stdout != a.stdout


def test_simulate_record_and_layouts_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["simulate", "--rules", "pagat", "--players", "4", "--seed", "1", "--bot", "random",
                 "--option", "draw=must-play", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"]["draw"] == "must-play" and data["bot"] == "random"
    match = data["matches"][0]
    assert [r["round_double"] for r in match["rounds"]] == [f"{d}-{d}" for d in range(9, -1, -1)]
    assert match["winners"] and len(match["totals"]) == 4
    for rnd in match["rounds"][:3]:
        layout = {"rules": "pagat", "hub": rnd["hub"], "plays": rnd["plays"]}
        assert main(["check", write(tmp_path, layout), "--json"]) == 0
        capsys.readouterr()
        assert rnd["end"] in ("out", "blocked")
        assert len(rnd["hands"]) == 4 and isinstance(rnd["boneyard"], list)


def test_simulate_players_default_fits_the_rules(capsys: pytest.CaptureFixture[str]):
    assert main(["simulate", "--rules", "chickie-sixes", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["players"] == 2


def test_simulate_text(capsys: pytest.CaptureFixture[str]):
    assert main(["simulate", "--players", "3", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "round 10: hub 0-0" in out and ("wins" in out or "draw" in out)


@pytest.mark.parametrize("args, fragment", [
    (["--rules", "chickie-sixes", "--players", "3"], "Chickie Sixes is for 2 players, not 3"),
    (["--option", "spokes=5"], "option 'spokes'"),
    (["--option", "nonsense"], "must be written KEY=VALUE"),
    (["--matches", "0"], "--matches must be 1 or more"),
    (["--matches", str(10**9)], "--matches 1000000000 is more than 200, the most one simulate plays with greedy bots"),
    (["--matches", "201", "--bot", "random"], "more than 200, the most one simulate plays with random bots"),
    (["--matches", "6", "--bot", "lookahead"], "--matches 6 is more than 5, the most one simulate plays with lookahead"),
    (["--rules", "nope"], "unknown rules preset"),
])
def test_simulate_bad_input_exit_2(args: list[str], fragment: str, capsys: pytest.CaptureFixture[str]):
    assert main(["simulate", *args]) == 2
    assert fragment in one_line_error(capsys.readouterr().err)


def test_simulate_bad_bot_is_a_usage_error():
    res = run_cli("simulate", "--bot", "clever")
    assert res.returncode == 2 and "invalid choice" in one_line_error(res.stderr.splitlines()[-1])


def test_rules_name_each_source_as_a_player_knows_it(capsys: pytest.CaptureFixture[str]):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "Source: “Chickie Sixes”, EngravedDominoes.com." in out and "seed 0" not in out
    assert main(["rules", "gameweave"]) == 0
    assert "Source: “Chickenfoot”, Gameweave edition" in capsys.readouterr().out


def test_options_changed_are_written_as_they_are_typed(capsys) -> None:  # type: ignore[no-untyped-def]
    from chickenfoot.cli.main import main

    assert main(["rules", "pagat", "-o", "end_when_foot_dead=true"]) == 0
    assert "Options changed: end-when-foot-dead=true" in capsys.readouterr().out.splitlines()


def test_every_bot_has_a_cap_on_matches():
    from chickenfoot.cli.rules_cmd import BOT_NAMES, MAX_MATCHES

    assert set(MAX_MATCHES) == set(BOT_NAMES)
    assert MAX_MATCHES["lookahead"] < MAX_MATCHES["greedy"]
