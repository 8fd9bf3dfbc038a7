"""What the command line says to a player: its version, no library's name, a tile too big
called too big, tiles low half first, no doubled brackets, preset names in any case, a round's
warnings once, and a cluttered photo's counted tiles first with the rest in one line."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

from chickenfoot.cli.main import DISTRIBUTION, main
from chickenfoot.cli.score_cmd import photo_lines, round_warnings, short_names
from chickenfoot.rules import get_rules
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.reading import Reading, TileReading

ROOT = Path(__file__).resolve().parents[2]
BOARD = str(ROOT / "docs" / "board.json")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_version_is_the_installed_distributions() -> None:
    done = subprocess.run([sys.executable, "-m", "chickenfoot", "--version"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"chickenfoot {importlib.metadata.version(DISTRIBUTION)}\n"
    assert re.fullmatch(r"chickenfoot \d+\.\d+\.\d+\S*\n", done.stdout)


def test_a_file_that_is_no_picture_is_told_without_a_librarys_name(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    notes = tmp_path / "hand.jpg"
    notes.write_text("these are my notes, not a photo")
    code, out, err = _run(capsys, "score", str(notes))
    assert code == 2 and out == ""
    assert "hand.jpg: not an image" in err
    assert "pillow" not in err.lower()


@pytest.mark.parametrize("tile", ["99999999999999999999-1", "4-12345678901234567890", "4-99"])
def test_a_tile_with_a_huge_number_is_too_big_not_badly_written(capsys: pytest.CaptureFixture[str],
                                                                 tile: str) -> None:
    code, _, err = _run(capsys, "check", BOARD, "--play", tile, "--on", "9-1")
    assert code == 2
    assert "no domino set has a half above 18" in err
    assert "write it like" not in err


def test_a_number_of_any_length_is_read_as_a_number() -> None:
    from chickenfoot.rules import Tile
    from chickenfoot.rules.errors import InvalidTileError

    assert Tile.parse("0" * 5000 + "7-04") == Tile(4, 7)  # zeros in front change nothing
    for text in ("9" * 5000 + "-1", "1-" + "0" * 4999 + "19"):
        with pytest.raises(InvalidTileError, match="no domino set has a half above 18"):
            Tile.parse(text)


def test_titles_with_brackets_are_not_followed_by_more(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "rules", "pagat")
    assert code == 0 and out.splitlines()[0] == "Chicken Foot (pagat-style), preset pagat"
    code, out, _ = _run(capsys, "simulate", "--rules", "pagat", "--players", "3", "--seed", "1")
    assert code == 0 and out.startswith("Chicken Foot (pagat-style), preset pagat, 3 players")
    code, out, _ = _run(capsys, "check", BOARD, "--rules", "pagat", "-o", "spokes=6")
    assert out.startswith("Rules: Chicken Foot (pagat-style), preset pagat with spokes=6, double-9 set")
    for text in (out, *(_run(capsys, "rules", name)[1] for name in ("pagat", "gameweave"))):
        assert ") (" not in text


@pytest.mark.parametrize("name", ["Pagat", "PAGAT", " pagat ", "Double-Chicken-Foot", "chickie_sixes"])
def test_preset_names_in_any_case(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, err = _run(capsys, "rules", name, "--json")
    assert code == 0, err
    assert '"name": "' + name.strip().lower().replace("_", "-") + '"' in out
    code, out, err = _run(capsys, "simulate", "--rules", name, "--players", "2", "--seed", "1", "--json")
    assert code == 0, err
    assert get_rules(name).name == name.strip().lower().replace("_", "-")


def test_an_unknown_preset_is_still_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "rules", "Pagatt")
    assert code == 2 and "unknown rules preset 'Pagatt'" in err


def _tile(a: int, b: int, x: float, conf: float = 0.9, **kw: object) -> TileReading:
    return TileReading(a, b, conf, OrientedBox(x, 100, 80, 40, 0.0), **kw)  # type: ignore[arg-type]


def _cluttered() -> Reading:
    """A reading as the reader gives one of a cluttered table: two sure tiles lying high half
    first, one to check, one asked about, possible tiles not counted (one with no pips on a
    half, as a face-down tile or a picture of a tile has), and a back."""
    tiles = [_tile(11, 2, 100), _tile(12, 1, 200), _tile(9, 8, 300, 0.5, needs_review=True),
             _tile(0, 0, 400, 0.4, question="Is this the 0-0 (50) or a face-down tile?")]
    candidates = [_tile(6, 3, 500, 0.1, uncounted="not pips", not_pips=0.9),
                  _tile(10, 9, 600, 0.1, uncounted="unsure"), _tile(7, 4, 700, 0.2, uncounted="overlap")]
    return Reading.scored(tiles, candidates, get_rules(), (1000, 800), ["1 face-down tile seen and not counted"],
                          face_down=1, backs=[OrientedBox(800, 100, 80, 40, 0.0)])


def test_a_cluttered_photo_lists_its_counted_tiles_and_sums_up_the_rest() -> None:
    lines = photo_lines("table.jpg", _cluttered())
    assert lines[0] == "table.jpg: 2 tiles, 26 pips, penalty at least 26, 2 to check"
    rows = [line for line in lines[1:] if re.match(r"\s+\(?\s*\d+-\d+", line)]
    assert len(rows) == 2  # as many rows as the headline counts
    assert [row.split()[0] for row in rows] == ["2-11", "1-12"]  # low half first, as in JSON
    rest = [line for line in lines if "not counted:" in line]
    assert rest == ["  also found, not counted: 1 face down; 2 to check (8-9, 0-0); 3 possible tiles "
                    "(--all lists them)"]
    assert lines[-1] == "  warning: 1 face-down tile seen and not counted"


def test_all_lists_every_tile_low_half_first_and_calls_no_tile_print() -> None:
    lines = photo_lines("table.jpg", _cluttered(), list_all=True)
    text = "\n".join(lines)
    assert len([line for line in lines if re.match(r"\s+\(?\s*\d+-\d+", line)]) == 7
    for shown in ("2-11", "1-12", "8-9", "0-0", "(3-6)", "(9-10)", "(4-7)"):
        assert shown in text.replace("( ", "(").replace(" )", ")")
    for as_it_lies in ("11-2", "12-1", "9-8", "6-3", "10-9", "7-4"):
        assert as_it_lies not in text
    # no pips on a half: a back looks so too, so it is never called print
    assert "(no pips seen: face down, or not a tile)" in text and "print" not in text
    assert "CHECK (not counted)" in text and "ASK: Is this the 0-0 (50) or a face-down tile?" in text
    assert "(possible tile)" in text and "(overlaps a surer tile)" in text
    assert not any("also found" in line for line in lines)


def test_tiles_seen_in_two_photos_are_warned_once_by_file_name() -> None:
    names = ["/some/long/folder/left hand.jpg", "/another/folder/right.jpg", "/x/third.png"]
    same = [_tile(a, b, 100 * i) for i, (a, b) in enumerate([(4, 0), (3, 1), (3, 2), (4, 2), (6, 2), (6, 3)])]
    one, two = (Reading.scored(same, [], get_rules(), (1000, 800)) for _ in range(2))
    third = Reading.scored([_tile(6, 3, 50), _tile(5, 5, 150)], [], get_rules(), (1000, 800))
    warnings = round_warnings(names, [one, two, third], get_rules())
    assert warnings == [
        "0-4, 1-3, 2-3, 2-4, 2-6 read in 2 photos (left hand.jpg and right.jpg): a set has one of each",
        "3-6 read in 3 photos (left hand.jpg, right.jpg, third.png): a set has one",
    ]
    assert not any("/" in w for w in warnings)


def test_a_round_total_with_a_tile_counted_in_two_photos_is_never_said_plainly() -> None:
    from chickenfoot.cli.score_cmd import total_headline

    rules = get_rules()
    left = Reading.scored([_tile(4, 0, 0), _tile(3, 1, 100)], [], rules, (1000, 800))
    right = Reading.scored([_tile(6, 2, 0)], [], rules, (1000, 800))
    again = Reading.scored([_tile(3, 1, 300), _tile(5, 5, 400)], [], rules, (1000, 800))
    assert total_headline([left, right]) == "penalty 16"
    assert total_headline([left, right, again]) == ("penalty 30 as counted, not sure: 1 tile counted in more "
                                                    "than one photo")
    assert total_headline([left, Reading.scored([], [], rules, (1000, 800))]) == (
        "penalty at least 8, 1 photo with nothing read")


def test_photos_sharing_a_file_name_keep_their_paths() -> None:
    assert short_names(["a/hand.jpg", "b/hand.jpg", "c/other.jpg", "c/other.jpg"]) == [
        "a/hand.jpg", "b/hand.jpg", "other.jpg", "other.jpg"]
