"""Every bad input reported in issue 31, on the command line: one line, exit 2, and the file it
was given (or the one it would have written) unchanged. Plus the promises around them: one
``-o/--option`` everywhere, layout files that keep their options, a description for everything
in ``--help``."""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

import pytest
from PIL import Image

from chickenfoot.cli.main import build_parser, main
from chickenfoot.storage import Repository

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"
HAND = ROOT / "tests" / "data" / "hand.jpg"
TABLE = ROOT / "tests" / "data" / "table.jpg"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _exit_2(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = _run(capsys, *argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chickenfoot: error: "), err
    assert "Traceback" not in out + err
    return lines[0]


def _copy(tmp_path: Path, kind: str, name: str) -> tuple[Path, bytes]:
    dst = tmp_path / name
    shutil.copy(CORPUS / kind / name, dst)
    return dst, dst.read_bytes()


@pytest.mark.parametrize("name", ["deep.json", "bignum-counter.json", "bad-change-counter.json"])
def test_damaged_scorekeeper_files(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    db, before = _copy(tmp_path, "db", name)
    if name != "bad-change-counter.json":  # (a save repairs the counter: only reading can fail)
        line = _exit_2(capsys, "match", "new", "--players", "Ann,Bob", "--db", str(db))
        assert str(db) in line
        _exit_2(capsys, "match", "list", "--db", str(db))
        _exit_2(capsys, "db", "check", "--db", str(db))
    else:  # `db check` lists what `db info` trips on (it said "ok" before)
        code, out, _ = _run(capsys, "db", "check", "--db", str(db))
        assert code == 1 and "bad change counter" in out
        _exit_2(capsys, "db", "info", "--db", str(db))
    assert db.read_bytes() == before


def test_a_huge_number_inside_a_stored_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, before = _copy(tmp_path, "db", "bignum-in-match.json")
    mid = json.loads(before)["matches"]["1"]["id"]
    assert "cannot be read (it holds a number longer than 30 digits)" in _exit_2(
        capsys, "match", "show", mid[:6], "--db", str(db))
    assert db.read_bytes() == before


@pytest.mark.parametrize("name", ["deep.json", "bignum.json", "layout-file.json"])
def test_imports_that_are_not_exports(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    db = tmp_path / "m.json"
    _run(capsys, "match", "new", "--players", "Ann,Bob", "--db", str(db))
    before = db.read_bytes()
    line = _exit_2(capsys, "match", "import", str(CORPUS / "import" / name), "--db", str(db))
    assert db.read_bytes() == before
    if name == "layout-file.json":
        assert "this is a layout file" in line and "KeyError" not in line


@pytest.mark.parametrize("name", ["deep.json", "bignum.json", "nan.json"])
def test_check_of_broken_layout_files(capsys: pytest.CaptureFixture[str], name: str) -> None:
    _exit_2(capsys, "check", str(CORPUS / "layout" / name))


def test_restore_onto_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    shutil.copy(CORPUS / "db" / "seed-one-match.json", tmp_path / "games.bak")
    assert "is a folder" in _exit_2(capsys, "db", "restore", "--db", str(folder))
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_read_only_and_shared_files_keep_their_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.json"
    _run(capsys, "match", "new", "--players", "Ann,Bob", "--db", str(db))
    os.chmod(db, 0o664)
    assert _run(capsys, "match", "new", "--players", "Cy,Di", "--db", str(db))[0] == 0
    assert db.stat().st_mode & 0o777 == 0o664  # was recreated as 0600 by every save
    os.chmod(db, 0o444)
    before = db.read_bytes()
    assert "read-only" in _exit_2(capsys, "match", "new", "--players", "Ed,Flo", "--db", str(db))
    assert db.read_bytes() == before and db.stat().st_mode & 0o777 == 0o444


@pytest.mark.parametrize("name", ["strip-850-to-1.jpg", "strip-1-to-850.jpg", "strip-830x1.png",
                                  "tiff-bad-dimensions.tif", "tiff-bad-tag-type.tif"])
def test_photos_that_broke_the_reader(capsys: pytest.CaptureFixture[str], name: str) -> None:
    _exit_2(capsys, "score", str(CORPUS / "image" / name))


def test_exit_2_writes_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    layout, drawn = tmp_path / "L.json", tmp_path / "A.png"
    line = _exit_2(capsys, "table", str(TABLE), "--play", "4-15", "--on", "9-4", "--save", str(layout),
                   "--annotate", str(drawn))
    assert "4-15 is not in a double-" in line
    assert not layout.exists() and not drawn.exists()
    # a play against a tile that is not on the table is a verdict (exit 1), not unusable input:
    # the reading and its pictures are the answer, and are written
    code, out, err = _run(capsys, "table", str(TABLE), "--play", "4-7", "--on", "9-4", "--save", str(layout),
                          "--annotate", str(drawn))
    assert code == 1 and "[unknown-target]" in out and err == ""
    assert layout.exists() and drawn.exists()


def test_output_places_are_checked_first_and_refused_the_same_way(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "is a folder" in _exit_2(capsys, "score", str(HAND), "--annotate", str(tmp_path))
    missing = tmp_path / "missing"
    for argv in (["score", str(HAND), "--annotate", str(missing / "x.png")],
                 ["table", str(TABLE), "--save", str(missing / "L.json")],
                 ["match", "export", "--all", "--db", str(tmp_path / "m.json"), "--out", str(missing / "x.json")]):
        assert f"there is no folder {missing} (it is not created)" in _exit_2(capsys, *argv)
    assert not missing.exists()
    assert "unknown kind of file .txt" in _exit_2(capsys, "score", str(HAND), "--annotate",
                                                  str(tmp_path / "x.txt"))


def test_the_match_id_may_follow_the_penalties(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.json")
    with Repository.open(db) as repo:
        mid = repo.create_match(["Ann", "Bob"]).id
    code, _, err = _run(capsys, "match", "round", "--penalty", "Ann=12", mid[:6], "--out", "Bob", "--db", db)
    assert code == 0, err
    code, _, err = _run(capsys, "match", "edit", "--penalty", "Ann=14", mid[:6], "1", "--db", db)
    assert code == 0, err
    with Repository.open(db) as repo:
        assert repo.get(mid).rounds[0].penalties == (14, 0)
    assert "give the match id" in _exit_2(capsys, "match", "round", "--penalty", "Ann=1", "--db", db)


def test_one_option_spelling_everywhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.json")
    for spelling in ("zero-zero=25", "zero_zero=25"):
        code, out, _ = _run(capsys, "match", "new", "--players", "Ann,Bob", "-o", spelling, "--db", db, "--json")
        assert code == 0
    with Repository.open(db) as repo:
        assert {m.rules.zero_zero for m in repo.all_matches()} == {25}
    code, out, _ = _run(capsys, "rules", "pagat", "-o", "zero_zero=25", "--json")
    data = json.loads(out)
    assert data["changed_options"] == {"zero-zero": 25} and data["options"]["zero-zero"] == 25
    assert "option 'zero-zero'" in _exit_2(capsys, "rules", "pagat", "-o", "zero_zero=7")
    # every command that takes rules takes -o
    for command in ("rules", "check", "simulate", "score", "table"):
        assert any("-o" in a.option_strings for a in _subparser(command)._actions), command
    assert any("-o" in a.option_strings for a in _subparser("match", "new")._actions)


def test_layout_files_keep_their_options_and_check_takes_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "L.json"
    code, _, err = _run(capsys, "table", str(TABLE), "-o", "spokes=4", "--save", str(saved))
    assert code in (0, 1), err
    assert json.loads(saved.read_text())["options"] == {"spokes": 4}
    code, out, _ = _run(capsys, "check", str(saved), "--json")
    assert json.loads(out)["spokes"]["need"] == 4  # judged with 4 spokes, as it was read
    code, out, _ = _run(capsys, "check", str(saved), "-o", "spokes=6", "--json")
    assert json.loads(out)["spokes"]["need"] == 6


def _subparser(*names: str) -> argparse.ArgumentParser:
    parser = build_parser()
    for name in names:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return parser


def test_every_command_and_argument_is_described_in_help() -> None:
    missing = []

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        if path and not parser.description:
            missing.append(f"{path}: no description")
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, f"{path} {name}".strip())
            elif action.help is None and not isinstance(action, argparse._HelpAction):
                missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}: no help")

    walk(build_parser(), "")
    assert missing == []
    assert "unique start" in _subparser("match", "show").format_help()


def test_importing_a_picture_says_it_is_no_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "ann.png"
    Image.new("RGB", (4, 4)).save(png)
    line = _exit_2(capsys, "match", "import", str(png), "--db", str(tmp_path / "m.json"))
    assert f"{png} is not a text (JSON) file" in line and "codec" not in line


def test_a_name_left_out_between_commas_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.json"
    line = _exit_2(capsys, "match", "new", "--players", "Ann,,Bob", "--db", str(db))
    assert "has an empty name" in line and not db.exists()


def test_an_output_never_writes_over_the_photo_it_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / "hand.jpg"
    shutil.copy(HAND, photo)
    table = tmp_path / "table.png"
    Image.open(TABLE).save(table)
    # several photos are annotated as OUT-1.jpg, OUT-2.jpg: photos named so are inputs too
    first, second = tmp_path / "p-1.jpg", tmp_path / "p-2.jpg"
    shutil.copy(HAND, first)
    shutil.copy(HAND, second)
    before = {p: p.read_bytes() for p in (photo, table, first, second)}
    for argv in (["score", str(photo), "--annotate", str(photo)],
                 ["score", str(first), str(second), "--annotate", str(tmp_path / "p.jpg")],
                 ["table", str(table), "--annotate", str(table)],
                 ["table", str(table), "--draw", str(table)]):
        line = _exit_2(capsys, *argv)
        assert "not written over" in line, line
    assert {p: p.read_bytes() for p in before} == before
    assert sorted(tmp_path.iterdir()) == sorted(before)
