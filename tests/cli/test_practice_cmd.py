"""``chickenfoot practice``: scripted moves, a whole round through standard input, refusals,
the match, the drawing, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from chickenfoot.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "chickenfoot", "practice", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_scripted_moves_print_the_state_as_json(capsys: pytest.CaptureFixture[str]):
    assert main(["practice", "--rules", "pagat", "--seed", "3", "--moves", "hint; draw; pass", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"] == "pagat" and data["seed"] == 3 and data["to_act"] == 0
    assert [e["text"] for e in data["events"]][:5] == [
        "Bot 1 placed 9-9 in the centre.", "Bot 2 played 9-0 on 9-9.", "Bot 3 played 9-1 on 9-9.",
        "You drew 0-3.", "You passed."]
    assert data["hand"] == ["0-2", "0-3", "1-1", "1-3", "1-5", "1-6", "2-3", "2-5"]
    assert data["can_draw"] is True and data["hint"] == [] and "refused" not in data


def test_a_refused_script_move_exits_1_with_the_reason(capsys: pytest.CaptureFixture[str]):
    assert main(["practice", "--rules", "pagat", "--seed", "3", "--moves", "0-2 on 9-0; draw", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["refused"] == {"move": "0-2 on 9-0", "code": "hub-incomplete",
                               "message": "The 9-9 still needs 2 more spokes before anything else."}
    assert main(["practice", "--rules", "pagat", "--seed", "3", "--moves", "pass"]) == 1
    assert "Not allowed [must-draw]" in capsys.readouterr().out


def test_a_whole_round_through_standard_input():
    """A script at the prompt: read the state (one JSON line), answer with a move, to the end."""
    proc = subprocess.Popen([sys.executable, "-m", "chickenfoot", "practice", "--rules", "double-chicken-foot",
                             "--players", "4", "--seed", "8", "--json"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin and proc.stdout
    moves = 0
    try:
        while True:
            state = json.loads(proc.stdout.readline())
            if "end" in state:
                break
            if state["hint"]:
                move = json.dumps({"play": state["hint"][0]["tile"], "on": state["hint"][0]["on"]})
            else:
                move = "draw" if state["can_draw"] else "pass"
            proc.stdin.write(move + "\n")
            proc.stdin.flush()
            moves += 1
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
    assert moves > 3 and state["end"] in ("out", "blocked")
    assert len(state["penalties"]) == 4 and state["totals"] == state["penalties"]


def test_text_prompt_answers_each_move():
    res = cli("--rules", "pagat", "--seed", "3", stdin="hint\nfoo\ndraw\n")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert out.count("Your move:") == 4 and "Hint: no tile fits; draw." in out
    assert "error: cannot read the move 'foo'" in out and "You drew 0-3." in out


def test_match_goes_on_to_the_next_round(tmp_path: Path):
    moves = "; ".join(["draw", "pass"] * 2 + ["quit"])
    res = cli("--rules", "pagat", "-o", "match-length=single", "--seed", "3", "--bot", "random", "--moves", moves,
              "--match", "--draw", str(tmp_path / "t.svg"), "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["drawing"] == str(tmp_path / "t.svg") and (tmp_path / "t.svg").read_text().startswith("<svg")


@pytest.mark.parametrize("args, fragment", [
    (["--bot", "clever"], "unknown bot 'clever'"),
    (["--bots", "1,x"], "--bots takes seat numbers"),
    (["--players", "12"], "players, not 12"),
    (["--players", str(10**9)], "players, not 1000000000"),
    (["--draw", "out.bmp"], "unknown kind of file .bmp; use .svg or .png"),
    (["--moves", "fly away"], "cannot read 'fly' as a tile"),
    (["--moves", "dance"], "cannot read the move 'dance'"),
])
def test_bad_input_exits_2_with_one_line(args: list[str], fragment: str):
    res = cli("--seed", "1", *args)
    assert res.returncode == 2 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0]
