"""``chickenfoot table PHOTO``: the shipped models on the rendered table photo (tests/data/table.jpg),
the exit codes, the saved layout file, the annotated picture, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from chickenfoot.cli.main import main
from chickenfoot.rules.layout import Layout

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "tests" / "data" / "table.jpg"
TRUTH = Layout.from_dict(json.loads((ROOT / "tests" / "data" / "table.json").read_text())["layout"])

needs_models = pytest.mark.skipif(not (ROOT / "models" / "reader.json").exists(), reason="shipped models not built")


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _joints(layout_dict: dict) -> set[tuple[str, str]]:
    return {(p["tile"], p["on"]) for p in layout_dict["plays"]}


TRUE_JOINTS = {(str(p.tile), str(p.on)) for p in TRUTH.plays}


@needs_models
def test_text_report_of_a_legal_table(capsys):
    code, out, err = _run(["table", str(PHOTO), "--hub", "3-3", "--rules", "double-chicken-foot"], capsys)
    assert code == 0, err
    assert "15 tiles read; hub 3-3; 14 tiles joined to it" in out
    assert "Hub 3-3: 6 of 6 spokes" in out
    assert "No problems: the layout is legal." in out


@needs_models
def test_json_save_annotate_and_check_the_saved_file(tmp_path: Path, capsys):
    saved, drawn = tmp_path / "table-layout.json", tmp_path / "table.png"
    code, out, err = _run(["table", str(PHOTO), "--json", "--save", str(saved), "--annotate", str(drawn),
                           "--rules", "double-chicken-foot"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["hub"] == "3-3" and data["tiles_read"] == 15 and data["loose"] == []
    assert _joints(data["layout"]) == TRUE_JOINTS
    assert data["report"]["legal"] is True and data["report"]["spokes"]["complete"] is True
    assert len(data["joints"]) == 14 and {"tile", "on", "index", "on_index"} <= set(data["joints"][0])
    assert data["saved"] == str(saved) and data["annotated"] == str(drawn)
    with Image.open(drawn) as im:
        assert im.size == (960, 720)
    lay = Layout.load(saved)
    assert lay.ordered is False and lay.rules == "double-chicken-foot" and lay.set == 9
    code, out, _ = _run(["check", str(saved)], capsys)  # the file is one `check` reads
    assert code == 0 and "No problems" in out


@needs_models
def test_judging_one_more_play_on_the_photographed_table(capsys):
    code, out, _ = _run(["table", str(PHOTO), "--hub", "3", "--play", "0-9", "--on", "7-9"], capsys)
    assert code == 0
    assert "Play 9-0 on 7-9: legal [ok]" in out
    code, out, _ = _run(["table", str(PHOTO), "--hub", "3-3", "--play", "0-3", "--on", "3-3", "--json"], capsys)
    assert code == 1
    assert json.loads(out)["play"]["code"] == "end-taken"  # the hub has its six spokes


@needs_models
def test_the_wrong_hub_breaks_rules_and_exits_1(capsys):
    code, out, _ = _run(["table", str(PHOTO), "--hub", "7-7"], capsys)
    assert code == 1
    assert "hub 7-7" in out and "[hub-incomplete]" in out


@needs_models
def test_a_hub_not_in_the_photo_falls_back_with_a_warning(capsys):
    code, out, _ = _run(["table", str(PHOTO), "--hub", "2-2", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["hub"] == "3-3"
    assert any("no 2-2, the hub named, was read" in w for w in data["warnings"])


@needs_models
def test_a_photo_without_a_double_exits_2(tmp_path: Path, capsys):
    blank = tmp_path / "felt.png"
    Image.new("RGB", (320, 240), (30, 110, 50)).save(blank)
    code, _, err = _run(["table", str(blank)], capsys)
    assert code == 2
    assert err.startswith("chickenfoot: error: no double was read") and len(err.strip().splitlines()) == 1


@needs_models
def test_a_play_on_a_tile_not_read_is_a_verdict_and_says_where_to_look(capsys):
    code, out, _ = _run(["table", str(PHOTO), "--play", "1-8", "--on", "8-8"], capsys)
    assert code == 1
    assert "[unknown-target] There is no 8-8 on the table" in out and "--annotate" in out
    code, out, _ = _run(["table", str(PHOTO), "--play", "1-8", "--on", "8-8", "--json"], capsys)
    assert code == 1 and json.loads(out)["play"]["code"] == "unknown-target"


@needs_models
def test_draw_the_photographed_table_as_a_board(tmp_path: Path, capsys):
    out = tmp_path / "board.svg"
    code, text, err = _run(["table", str(PHOTO), "--hub", "3-3", "--play", "0-9", "--on", "7-9",
                            "--draw", str(out)], capsys)
    assert code == 0, err
    assert f"drawing written to {out}" in text
    svg = out.read_text()
    assert svg.count("<polygon") >= 15 and "9-0 on 7-9: legal." in svg


def test_bad_input_exits_2_with_one_line(tmp_path: Path, capsys):
    text = tmp_path / "table.jpg"
    text.write_text("not a photo")
    for argv, words in (
        (["table", str(text)], "not an image"),
        (["table", str(tmp_path / "missing.jpg")], "missing.jpg"),
        (["table", str(PHOTO), "--play", "4-7"], "--play and --on go together"),
        (["table", str(PHOTO), "--hub", "3-4"], "must be a double"),
        (["table", str(PHOTO), "--hub", "x"], "x"),
        (["table", str(PHOTO), "--hub", "\u00b2"], "cannot read"),  # a digit to isdigit, not to int()
        (["table", str(PHOTO), "--draw", str(tmp_path / "board.jpg")], "unknown kind of file .jpg; use .svg or .png"),
    ):
        code, _, err = _run(argv, capsys)
        assert code == 2, argv
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("chickenfoot: error:"), err
        assert words in lines[0], (argv, err)
