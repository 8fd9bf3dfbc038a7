"""`chickenfoot match ...`, `stats`, `db ...` end to end on a real file."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from chickenfoot.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


class CLI:
    def __init__(self, db: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.db, self.capsys = db, capsys

    def __call__(self, *argv: str, db: bool = True) -> tuple[int, str, str]:
        args = list(argv) + (["--db", str(self.db)] if db else [])
        code = main(args)
        out, err = self.capsys.readouterr()
        return code, out, err

    def json(self, *argv: str) -> object:
        code, out, err = self(*argv, "--json")
        assert code == 0, err
        return json.loads(out)

    def new(self, players: str = "Ann,Bob,Cy", *extra: str) -> str:
        data = self.json("match", "new", "--players", players, *extra)
        assert isinstance(data, dict)
        return str(data["id"])


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> CLI:
    return CLI(tmp_path / "scores.json", capsys)


def test_show_json_has_everything_the_app_needs(cli: CLI) -> None:
    mid = cli.new()
    show = cli.json("match", "show", mid[:5])
    assert isinstance(show, dict)
    assert show["current_double"] == 9 and show["first_player"] == "Ann"
    assert show["deal_size"] == 14 and show["over"] is False and show["winners"] == []
    assert show["current_round"]["double_tile"] == "9-9"
    assert [(s["player"], s["total"], s["rank"]) for s in show["standings"]] == [
        ("Ann", 0, 1), ("Bob", 0, 1), ("Cy", 0, 1)]
    r = cli.json("match", "round", mid, "--penalty", "Ann=12", "--tiles", "Bob=3-4,0-0",
                 "--out", "Cy")
    assert isinstance(r, dict)
    assert [(s["player"], s["total"], s["rank"]) for s in r["standings"]] == [
        ("Ann", 12, 2), ("Bob", 57, 3), ("Cy", 0, 1)]
    assert r["current_double"] == 8 and r["first_player"] == "Bob"
    assert r["rounds"][0]["tiles"] == {"Bob": ["3-4", "0-0"]}


def test_a_whole_match_to_the_winner_with_edit_undo_redo(cli: CLI) -> None:
    mid = cli.new("Ann,Bob", "--option", "match-length=half", "--option", "zero-zero=25")
    for _ in range(5):
        code, out, err = cli("match", "round", mid, "--penalty", "Bob=10", "--out", "Ann")
        assert code == 0, err
    show = cli.json("match", "show", mid)
    assert show["over"] and show["winners"] == ["Ann"] and show["current_round"] is None
    assert show["standings"][1]["total"] == 50
    code, _, err = cli("match", "round", mid, "--penalty", "Bob=1", "--out", "Ann")
    assert code == 2 and "over" in err
    edited = cli.json("match", "edit", mid, "2", "--tiles", "Ann=0-0,6-6", "--out", "Bob")
    assert edited["rounds"][1]["penalties"] == {"Ann": 37, "Bob": 0}
    assert edited["winners"] == ["Ann"]  # 37 < 40: still Ann
    edited = cli.json("match", "edit", mid, "3", "--penalty", "Ann=30", "--out", "Bob")
    assert edited["winners"] == ["Bob"]  # 67 > 30: Bob now
    undone = cli.json("match", "undo", mid)
    assert undone["winners"] == ["Ann"] and undone["can_redo"]
    assert cli.json("match", "redo", mid)["winners"] == ["Bob"]
    code, out, _ = cli("match", "show", mid)
    assert code == 0 and "winner: Bob" in out


def test_after_holder_rules_with_held(cli: CLI) -> None:
    mid = cli.new("Ann,Bob,Cy", "--rules", "gameweave")
    show = cli.json("match", "show", mid)
    assert show["first_player"] is None and "after whoever" in show["current_round"][
        "first_player_rule"]
    assert "draw one tile" in show["current_round"]["missing_double_rule"]
    assert cli.json("match", "held", mid, "Cy")["first_player"] == "Ann"
    r = cli.json("match", "round", mid, "--penalty", "Ann=1,Bob=2", "--out", "Cy")
    assert r["rounds"][0]["holder"] == "Cy" and r["rounds"][0]["first_player"] == "Ann"
    r = cli.json("match", "round", mid, "--penalty", "Ann=1", "Bob=2", "--blocked",
                 "--penalty", "Cy=0", "--held", "Bob")
    assert r["rounds"][1]["first_player"] == "Cy"


@pytest.mark.parametrize(
    "argv",
    [
        ["round", "{id}", "--penalty", "Ann=12", "--out", "Cy"],  # Bob missing
        ["round", "{id}", "--penalty", "Ann=x", "Bob=1", "--out", "Cy"],
        ["round", "{id}", "--penalty", "Ann=-3", "Bob=1", "--out", "Cy"],
        ["round", "{id}", "--penalty", "Ann=1", "Bob=1", "--out", "Cy", "--blocked"],
        ["round", "{id}", "--tiles", "Ann=1-2", "Bob=2-1", "--out", "Cy"],
        ["round", "{id}", "--tiles", "Ann=1-99", "Bob=2-1", "--out", "Cy"],
        ["round", "{id}", "--penalty", "Ann", "--out", "Cy"],
        ["round", "{id}", "--penalty", "Zed=1", "Ann=1", "Bob=1", "--out", "Cy"],
        ["round", "nope", "--penalty", "Ann=1", "Bob=1", "--out", "Cy"],
        ["edit", "{id}", "1", "--penalty", "Ann=1"],  # there is no round 1 yet
        ["undo", "{id}"],
        ["new", "--players", "Ann"],
        ["new", "--players", "Ann,Bob", "--rules", "nope"],
        ["new", "--players", "Ann,Bob", "--option", "zero-zero=7"],
        ["new", "--players", "Ann,ann"],
        ["import", "{missing}"],
    ],
)
def test_unusable_input_one_line_exit_2_nothing_written(cli: CLI, argv: list[str]) -> None:
    mid = cli.new()
    before = cli.db.read_bytes()
    args = [a.format(id=mid, missing=cli.db.with_name("nothing.json")) for a in argv]
    code, _, err = cli("match", *args)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("chickenfoot")
    assert "Traceback" not in err
    assert cli.db.read_bytes() == before


def test_export_import_round_trip_and_csv(cli: CLI, tmp_path: Path) -> None:
    a = cli.new()
    cli("match", "round", a, "--tiles", "Ann=0-0,1-2", "Cy=", "--penalty", "Bob=0", "--out", "Cy")
    b = cli.new("Di,Ed", "--rules", "chickie-sixes")
    one = tmp_path / "one.json"
    assert cli("match", "export", a[:6], "--out", str(one))[0] == 0
    assert [m["id"] for m in json.loads(one.read_text())["matches"]] == [a]
    everything = tmp_path / "all.json"
    assert cli("match", "export", "--all", "--out", str(everything))[0] == 0
    code, out, _ = cli("match", "export", a, "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 3 and rows[0]["penalty"] == "53" and rows[1]["penalty"] == "0"

    other = CLI(tmp_path / "other.json", cli.capsys)
    rep = other.json("match", "import", str(everything))
    assert set(rep["added"]) == {a, b}
    rep = other.json("match", "import", str(everything))
    assert rep["added"] == [] and set(rep["unchanged"]) == {a, b}
    assert len(other.json("match", "list")) == 2
    assert other.json("match", "show", a) == cli.json("match", "show", a)


def test_list_abandon_resume_delete_round_stats(cli: CLI) -> None:
    a = cli.new()
    b = cli.new("Di,Ed")
    cli("match", "round", b, "--penalty", "Di=5", "--out", "Ed")
    assert cli.json("match", "abandon", a)["status"] == "abandoned"
    assert [r["id"] for r in cli.json("match", "list", "--status", "abandoned")] == [a]
    assert cli.json("match", "resume", a)["status"] == "active"
    assert cli.json("match", "delete-round", b)["rounds_played"] == 0
    cli("match", "undo", b)
    stats = cli.json("stats")
    di = next(s for s in stats if s["player"] == "Di")
    assert di["rounds_played"] == 1 and di["worst_penalty"] == 5
    code, out, _ = cli("stats", "--player", "ed")
    assert code == 0 and "Ed" in out
    head, ed = out.splitlines()
    assert head.split() == ["player", "played", "won", "drawn", "going", "rounds", "out", "0-0", "avg", "worst", "best"]
    # Ed went out of the one round: his hand is known (no 0-0); Di's was typed, so unknown
    assert ed.split()[:8] == ["Ed", "0", "0", "0", "1", "1", "1", "0"]
    assert cli("stats", "--player", "di")[1].splitlines()[1].split()[7] == "-"
    code, out, _ = cli("match", "list")
    assert a[:8] in out and b[:8] in out


def test_damaged_file_then_db_restore(cli: CLI) -> None:
    a = cli.new()
    cli.new("Di,Ed")
    cli.db.write_bytes(cli.db.read_bytes()[:40])
    code, _, err = cli("match", "list")
    assert code == 2 and str(cli.db) in err and "db restore" in err and ".bak" in err
    rest = cli.json("db", "restore")
    assert rest["matches"] == 1 and Path(rest["damaged_copy"]).exists()
    assert cli.json("match", "show", a)["id"] == a
    assert cli.json("db", "check")["problems"] == []
    assert cli.json("db", "info")["matches"] == 1


def test_db_restore_leaves_a_file_that_reads_fine_unless_forced(cli: CLI) -> None:
    """The backup is one save older: restoring it over a healthy file would undo that save, so
    it is refused (nothing changed) unless --force."""
    a = cli.new("Ann,Bob")
    cli.json("match", "round", a, "--penalty", "Bob=5", "--out", "Ann")
    before = cli.db.read_bytes()
    code, _, err = cli("db", "restore")
    assert code == 2 and "reads back fine (1 match)" in err and "pass --force" in err
    assert cli.db.read_bytes() == before
    rest = cli.json("db", "restore", "--force")
    assert Path(rest["damaged_copy"]).read_bytes() == before
    assert cli.json("match", "show", a)["rounds_played"] == 0  # the backup: one save older


def test_db_restore_twice_keeps_each_replaced_file(cli: CLI) -> None:
    """Two restores in one second: the second replaced file is kept beside the first, never
    over it (the first is the damaged file kept for repair)."""
    cli.new("Ann,Bob")
    cli.new("Di,Ed")
    cli.db.write_bytes(cli.db.read_bytes()[:40])
    damaged = cli.db.read_bytes()
    first = Path(cli.json("db", "restore")["damaged_copy"])
    second = Path(cli.json("db", "restore", "--force")["damaged_copy"])
    assert first != second and first.read_bytes() == damaged and second.exists()


def test_export_refuses_to_write_over_the_scorekeeper_file(cli: CLI) -> None:
    cli.new("Ann,Bob")
    before = cli.db.read_bytes()
    for target in (cli.db, Path(str(cli.db) + ".bak")):
        code, _, err = cli("match", "export", "--all", "--out", str(target))
        assert code == 2 and "is the scorekeeper file" in err
    assert cli.db.read_bytes() == before and cli.json("db", "check")["problems"] == []


def test_export_refuses_to_write_over_another_scorekeeper_file_or_its_lock(cli: CLI, tmp_path: Path) -> None:
    cli.new("Ann,Bob")
    other = CLI(tmp_path / "other.json", cli.capsys)
    other.new("Cy,Di")
    other.new("Ed,Fay")  # a save: other.json.bak and other.json.lock beside it
    kept = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("other.json")}
    assert set(kept) >= {"other.json", "other.json.bak", "other.json.lock"}
    for name in kept:
        code, _, err = cli("match", "export", "--all", "--out", str(tmp_path / name))
        assert code == 2 and "is a scorekeeper file (or a lock or copy kept of one), not written over" in err, name
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("other.json")} == kept
    old = tmp_path / "old-export.json"
    assert cli("match", "export", "--all", "--out", str(old))[0] == 0
    assert cli("match", "export", "--all", "--out", str(old))[0] == 0  # an export is written over as before


def test_an_export_edited_to_an_id_in_capitals_is_refused_and_such_an_id_is_found_as_listed(
        cli: CLI, tmp_path: Path) -> None:
    a = cli.new("Ann,Bob")
    out = tmp_path / "x.json"
    assert cli("match", "export", a, "--out", str(out))[0] == 0
    data = json.loads(out.read_text())
    data["matches"][0]["id"] = a.upper()
    out.write_text(json.dumps(data))
    code, _, err = cli("match", "import", str(out))
    assert code == 2 and f"entry 1 has the id '{a.upper()}'" in err and "was the file edited?" in err
    assert [m["id"] for m in cli.json("match", "list")] == [a]


def test_import_reads_an_export_saved_with_a_byte_order_mark(cli: CLI, tmp_path: Path) -> None:
    """An export opened and saved again in an editor that writes a UTF-8 byte-order mark."""
    mid = cli.new("Ann,Bob")
    cli.json("match", "round", mid, "--penalty", "Bob=5", "--out", "Ann")
    code, text, _ = cli("match", "export", mid)
    assert code == 0
    saved = tmp_path / "notepad.json"
    saved.write_bytes(b"\xef\xbb\xbf" + text.encode())
    other = CLI(tmp_path / "other.json", cli.capsys)
    assert other.json("match", "import", str(saved))["added"] == [mid]
    assert other.json("match", "show", mid)["rounds_played"] == 1


def test_a_linked_scorekeeper_file_is_saved_through_the_link(cli: CLI, tmp_path: Path) -> None:
    """A scorekeeper file kept elsewhere (a synced folder) and linked: saves update the file the
    link points at, and the link stays a link."""
    real = tmp_path / "synced" / "games.json"
    real.parent.mkdir()
    cli.new("Ann,Bob")
    cli.db.rename(real)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    linked = CLI(link, cli.capsys)
    linked.new("Cy,Di")
    assert link.is_symlink() and len(json.loads(real.read_text())["matches"]) == 2
    assert Path(str(real) + ".bak").is_file() and not Path(str(link) + ".bak").exists()


def test_env_variable_and_db_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    env_db = tmp_path / "env.json"
    monkeypatch.setenv("CHICKENFOOT_DB", str(env_db))
    assert main(["match", "new", "--players", "Ann,Bob", "--json"]) == 0
    capsys.readouterr()
    assert env_db.exists()
    flag_db = tmp_path / "flag.json"
    assert main(["match", "new", "--players", "Ann,Bob", "--db", str(flag_db)]) == 0
    assert flag_db.exists()
    capsys.readouterr()
    assert main(["match", "list", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 1


def test_real_cli_process(tmp_path: Path) -> None:
    db = tmp_path / "p.json"

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "chickenfoot", *argv, "--db", str(db)],
                              cwd=ROOT, capture_output=True, text=True, timeout=60)

    made = run("match", "new", "--players", "Ann,Bob", "--json")
    assert made.returncode == 0, made.stderr
    mid = json.loads(made.stdout)["id"]
    bad = run("match", "round", mid, "--penalty", "Ann=oops", "--out", "Bob")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    ok = run("match", "show", mid[:4], "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["current_double"] == 9


def test_an_empty_hand_for_a_player_who_did_not_go_out_is_refused(cli: CLI) -> None:
    mid = cli.new()
    before = cli.db.read_bytes()
    code, out, err = cli("match", "round", mid, "--tiles", "Ann=1-2", "Cy=", "--penalty", "Bob=4", "--out", "Bob")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Cy has no tiles left, but Bob went out" in err
    assert cli.db.read_bytes() == before
    code, _, err = cli("match", "round", mid, "--tiles", "Ann=1-2", "Cy=", "--penalty", "Bob=4", "--blocked")
    assert code == 0, err


def test_a_penalty_no_dealt_hand_can_count_needs_sure(cli: CLI) -> None:
    mid = cli.new("Ann,Bob,Cy,Di", "--rules", "pagat")
    before = cli.db.read_bytes()
    code, out, err = cli("match", "round", mid, "--penalty", "Ann=300,Bob=3,Cy=4", "--out", "Di")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "300 points for Ann is more than 7 tiles of a double-9 set can count (at most 147)" in err
    assert "--sure" in err
    assert cli.db.read_bytes() == before
    code, _, err = cli("match", "round", mid, "--penalty", "Ann=150,Bob=3,Cy=4", "--out", "Di", "--sure")
    assert code == 0, err
    shown = cli.json("match", "show", mid)
    assert isinstance(shown, dict) and shown["rounds"][0]["penalties"]["Ann"] == 150
    # an edit asks about the players it changes only
    code, _, err = cli("match", "edit", mid, "1", "--penalty", "Bob=200")
    assert code == 2 and "200 points for Bob" in err and "Ann" not in err
    assert cli("match", "edit", mid, "1", "--penalty", "Bob=20")[0] == 0


def test_an_abandoned_match_is_shown_as_abandoned_not_with_its_next_round(cli: CLI) -> None:
    a = cli.new("Ann,Bob")
    cli.json("match", "round", a, "--penalty", "Bob=5", "--out", "Ann")
    cli("match", "abandon", a)
    code, out, _ = cli("match", "show", a)
    assert code == 0 and f"abandoned (resume with `chickenfoot match resume {a[:8]}`)" in out
    assert "next: round" not in out


def test_a_hand_spoilt_match_is_named_and_can_be_deleted_alone(cli: CLI) -> None:
    """One match entry spoilt by hand: showing it names the ways out (delete that match, fix
    it, or restore the backup, which undoes the last save too); `match delete ID --yes`
    removes it alone, and the other match, saved after the backup, is untouched."""
    bad = cli.new("Ann,Bob")
    good = cli.new("Cy,Di")
    cli.json("match", "round", good, "--penalty", "Di=5", "--out", "Cy")
    data = json.loads(cli.db.read_text())
    for doc in data["matches"].values():
        if doc["id"] == bad:
            doc["match"] = doc["match"].replace('"players":["Ann","Bob"]', '"players":"Ann"')
    cli.db.write_text(json.dumps(data))
    code, _, err = cli("match", "show", bad)
    assert code == 2 and f"chickenfoot match delete {bad[:8]} --yes" in err and "undoes the last save" in err
    # the commands over every match leave it out and say so; the rest are there
    for argv in (("stats",), ("match", "export", "--all")):
        code, out, err = cli(*argv, "--json")
        assert code == 0 and f"1 match cannot be read and is left out ({bad[:8]})" in err, argv
        assert "Cy" in out and "Ann" not in out
    # a save since the spoiling: the backup holds it too, and restoring says so
    cli.new("Ed,Flo")
    before = cli.db.read_bytes()
    code, _, err = cli("db", "restore")  # it would undo that save and mend nothing: refused
    assert code == 2 and "does not read back fine either" in err and "mend nothing" in err, err
    assert cli.db.read_bytes() == before
    code, out, _ = cli("db", "restore", "--force", "--json")
    assert code == 1 and any(bad in p for p in json.loads(out)["problems"])
    code, _, err = cli("match", "delete", bad)
    assert code == 2 and "add --yes" in err
    assert cli.json("match", "delete", bad, "--yes") == {"deleted": bad}
    assert [m["id"] for m in cli.json("match", "list")] == [good]
    assert cli.json("match", "show", good)["rounds_played"] == 1
    assert cli.json("db", "check")["problems"] == []


def test_an_entry_without_an_id_blocks_nothing_and_is_deleted_by_its_number(cli: CLI) -> None:
    """A match entry whose id was cut by hand: the other match lists, shows and saves; the
    commands over every match say it is left out; `db check` names it by its entry number with
    `match delete --entry N --yes`, which removes it alone."""
    good = cli.new("Cy,Di")
    cli.new("Ann,Bob")
    data = json.loads(cli.db.read_text())
    data["matches"]["2"] = {"match": "spoilt by hand"}
    cli.db.write_text(json.dumps(data))
    note = "1 entry cannot be read and is left out (entry #2): `chickenfoot db check"
    code, out, err = cli("match", "list")
    assert code == 0 and out.startswith(good[:8]) and note in err
    assert cli.json("match", "round", good, "--penalty", "Di=5", "--out", "Cy")["rounds_played"] == 1
    assert json.loads(cli.db.read_text())["matches"]["2"] == {"match": "spoilt by hand"}
    for argv in (("stats",), ("match", "export", "--all")):
        code, out, err = cli(*argv, "--json")
        assert code == 0 and note in err and "Cy" in out, argv
    code, out, _ = cli("db", "check")
    assert code == 1 and out.startswith("match entry #2 without an id or data")
    assert f"`chickenfoot match delete --entry 2 --yes --db {cli.db}`" in out
    code, _, err = cli("match", "show", "ffff")
    assert code == 2 and "1 entry without an id or data" in err
    before = cli.db.read_bytes()
    code, _, err = cli("db", "restore")  # the backup, older by the round saved, holds it too
    assert code == 2 and "mend nothing" in err and "match delete --entry 2 --yes" in err, err
    for argv, why in ((("--entry", "2"), "add --yes"), ((good, "--entry", "2", "--yes"), "not both"),
                      (("--yes",), "give the id of the match to delete"),
                      (("--entry", "1", "--yes"), f"match entry #1 is match {good[:8]}: delete it by its id")):
        code, _, err = cli("match", "delete", *argv)
        assert code == 2 and why in err, argv
    assert cli.db.read_bytes() == before
    assert cli.json("match", "delete", "--entry", "2", "--yes") == {"deleted_entry": 2}
    assert cli.json("db", "check")["problems"] == []
    assert [m["id"] for m in cli.json("match", "list")] == [good]


def test_a_round_number_after_the_penalties_that_int_cannot_read_exits_2(cli: CLI) -> None:
    mid = cli.new("Ann,Bob")
    assert cli("match", "round", mid, "--penalty", "Ann=5", "--out", "Bob")[0] == 0
    before = cli.db.read_bytes()
    code, out, err = cli("match", "edit", "--penalty", "Ann=3", mid, "\u00b2")  # a digit to isdigit
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.strip().splitlines() == ["chickenfoot: error: the round number must be a whole number, not '\u00b2'"]
    assert cli.db.read_bytes() == before


def test_hand_edited_entry_keys_are_refused_before_a_save_can_drop_a_match(cli: CLI) -> None:
    """Keys "1" and "01" used to list both matches and lose one at the next save; "²" was a
    traceback. Both are a damaged file now: exit 2, one line naming the key and the mend, and
    nothing written."""
    a = cli.new("Ann,Bob")
    cli.new("Cy,Di")
    data = json.loads(cli.db.read_text())
    first, second = data["matches"]["1"], data["matches"]["2"]
    for key in ("01", "\u00b2"):
        data["matches"] = {"1": first, key: second}
        cli.db.write_text(json.dumps(data, ensure_ascii=False))
        before = cli.db.read_bytes()
        for argv in (("match", "list"), ("db", "check"), ("match", "round", a, "--penalty", "Ann=3", "--out", "Bob")):
            code, out, err = cli(*argv)
            assert code == 2 and out == "" and "Traceback" not in err, argv
            [line] = err.strip().splitlines()
            assert f"has an entry under the key {key!r}" in line and 'Write its key as "2"' in line
        assert cli.db.read_bytes() == before


def test_one_match_in_two_entries_is_named_by_db_check_and_neither_is_lost(cli: CLI) -> None:
    good = cli.new("Cy,Di")
    twice = cli.new("Ann,Bob")
    data = json.loads(cli.db.read_text())
    data["matches"]["3"] = data["matches"]["2"]
    cli.db.write_text(json.dumps(data))
    code, out, err = cli("match", "list")
    assert code == 0 and out.startswith(good[:8]) and twice[:8] not in out
    assert "2 entries cannot be read and are left out (entry #2, entry #3)" in err
    code, out, _ = cli("db", "check")
    assert code == 1 and out.startswith(f"match entries #2 and #3 both hold match {twice}")
    assert f"`chickenfoot match delete --entry 3 --yes --db {cli.db}`" in out
    before = cli.db.read_bytes()
    for argv in (("show", twice), ("round", twice[:6], "--penalty", "Ann=3", "--out", "Bob"),
                 ("delete", twice, "--yes")):
        code, _, err = cli("match", *argv)
        assert code == 2 and f"#2 and #3 both hold match {twice}" in err, argv
    assert cli.db.read_bytes() == before
    assert cli.json("match", "delete", "--entry", "3", "--yes") == {"deleted_entry": 3}
    assert cli.json("db", "check")["problems"] == []
    assert {m["id"] for m in cli.json("match", "list")} == {good, twice}
