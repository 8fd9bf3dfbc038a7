"""Never losing data, tested for real on a real file: kills, truncation, garbage, races."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chickenfoot.match import Match
from chickenfoot.rules import get_rules
from chickenfoot.storage import (
    DamagedFileError,
    MatchNotFoundError,
    Repository,
    StorageError,
    backup_path,
    restore_backup,
)
from chickenfoot.storage.safe_json import decode

WORKER = Path(__file__).with_name("_storage_worker.py")


def _seed(db: Path, n: int) -> Repository:
    """A file with ``n`` matches (written in one go), so a save takes long enough to be hit."""
    repo = Repository.open(db)
    ms = []
    for _ in range(n):
        m = Match.new(["Ann", "Bob", "Cy"], get_rules())
        for _ in range(5):
            m = m.add_round(tiles={"Ann": "1-2,3-4", "Bob": "0-0"}, out="Cy")
        ms.append(m)
    repo.import_matches(ms)
    return repo


def _check_consistent(db: Path, seeded: int) -> int:
    """The file opens; every match reads back; the counter matches the matches created."""
    with Repository.open(db) as repo:
        n = len(repo)
        assert repo.check() == []
        # The seed was one write (counter 1 for all `seeded` matches); each later create is one.
        assert repo.version == 1 + (n - seeded)
        return n


def test_sigkill_mid_save_always_leaves_a_good_previous_state(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    seeded = 200
    _seed(db, seeded).close()
    rng = random.Random(1234)
    last = seeded
    kills = 0
    mid_save = 0
    deadline = time.monotonic() + 4.0
    while kills < 6 or (time.monotonic() < deadline and kills < 10):
        p = subprocess.Popen([sys.executable, str(WORKER), str(db), "forever"],
                             stdout=subprocess.PIPE, text=True)
        assert p.stdout is not None
        assert p.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.4))
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stdout.close()
        kills += 1
        mid_save += any(q.name.endswith(".tmp") for q in tmp_path.iterdir())
        n = _check_consistent(db, seeded)
        assert n >= last  # nothing that was saved before is lost
        last = n
        # The backup, too, is always a complete earlier state.
        json.loads(backup_path(db).read_bytes())
    assert last > seeded  # the writers did get saves through between kills
    print(f"{kills} kills, {mid_save} of them in the middle of a save")
    with Repository.open(db) as repo:
        repo.create_match(["Zoe", "Yan"])  # a later save sweeps up a killed writer's temp file
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda b: b[: len(b) // 2], "not valid JSON"),
        (lambda b: b"", "empty"),
        (lambda b: os.urandom(200), "not"),
        (lambda b: b"[1, 2, 3]", "top level"),
        (lambda b: b'{"matches": {"1": 5}}', "not a document"),
    ],
)
def test_damaged_file_gives_clear_error_and_backup_restores(tmp_path: Path, damage, why) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        a = repo.create_match(["Ann", "Bob"])
        b = repo.create_match(["Cy", "Di"])
    good = db.read_bytes()
    db.write_bytes(damage(good))
    with pytest.raises(DamagedFileError) as err:
        Repository.open(db).list_matches()
    msg = str(err.value)
    assert str(db) in msg and why in msg
    assert str(backup_path(db)) in msg and "chickenfoot db restore" in msg
    assert "\n" not in msg and " at at " not in msg  # json's "starting at" reads on into "(line 1, ...)"
    kept = restore_backup(db)
    assert kept is not None and kept.exists()  # the damaged file is kept for repair
    with Repository.open(db) as repo:
        ids = {r.id for r in repo.list_matches()}
    assert a.id in ids  # the backup is the state before the last save
    assert ids <= {a.id, b.id}


def test_damaged_file_is_never_overwritten_by_a_write(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        repo.create_match(["Ann", "Bob"])
        db.write_bytes(b"{garbage")
        with pytest.raises(DamagedFileError):
            repo.create_match(["Cy", "Di"])
    assert db.read_bytes() == b"{garbage"


def test_hand_edited_match_names_the_file_and_the_way_out(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        m = repo.create_match(["Ann", "Bob"])
        repo.add_round(m.id, tiles={"Ann": "1-2"}, out="Bob")
    data = json.loads(db.read_text())
    stored = json.loads(data["matches"]["1"]["match"])  # kept as JSON text in the document
    stored["rounds"][0]["penalties"][0] = 1  # tiles say 3
    data["matches"]["1"]["match"] = stored  # written back as an object: read all the same
    db.write_text(json.dumps(data))
    with Repository.open(db) as repo:
        with pytest.raises(DamagedFileError, match="hand-edited") as err:
            repo.get(m.id)
        assert str(db) in str(err.value)
        assert len(repo.check()) == 1
    # Rounds removed by hand: valid, but the stored list entry still says one round, 3 to 0.
    data["matches"]["1"]["match"] = json.dumps({**stored, "rounds": []})
    db.write_text(json.dumps(data))
    with Repository.open(db) as repo:
        assert repo.get(m.id).rounds == ()
        assert [p for p in repo.check() if "list entry" in p]
    data["matches"]["1"]["match"] = '{"id": "broken'
    db.write_text(json.dumps(data))
    with pytest.raises(DamagedFileError, match="not JSON"):
        Repository.open(db).get(m.id)
    data["matches"]["1"] = {"no": "id"}
    db.write_text(json.dumps(data))
    with Repository.open(db) as repo:
        with pytest.raises(MatchNotFoundError, match=r"1 entry without an id or data: `chickenfoot db check"):
            repo.get(m.id)
        assert repo.check() == [repo._loose_problem(1)] and "entry #1 without an id" in repo.check()[0]


def test_missing_file_with_a_backup_is_not_an_empty_history(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        repo.create_match(["Ann", "Bob"])
        repo.create_match(["Ann", "Bob"])
    db.unlink()
    with pytest.raises(StorageError, match="missing but its backup"):
        Repository.open(db).list_matches()
    restore_backup(db)
    assert len(Repository.open(db)) == 1


def test_restore_refuses_a_damaged_backup(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        repo.create_match(["Ann", "Bob"])
        repo.create_match(["Ann", "Bob"])
    backup_path(db).write_bytes(b"xx")
    before = db.read_bytes()
    with pytest.raises(StorageError, match="damaged too"):
        restore_backup(db)
    assert db.read_bytes() == before


def test_two_processes_and_threads_write_without_corruption_or_lost_updates(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    procs = [subprocess.Popen([sys.executable, str(WORKER), str(db), "create", "6", "3"],
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    # ...and threads of this process at the same time, sharing one repository.
    repo = Repository.open(db)
    errors: list[BaseException] = []

    def create() -> None:
        try:
            for _ in range(6):
                repo.create_match(["Eve", "Fay"])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    ts = [threading.Thread(target=create) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for p in procs:
        out, _ = p.communicate(timeout=60)
        assert p.returncode == 0 and out.strip() == "done"
    assert errors == []
    assert len(repo) == 2 * 3 * 6 + 3 * 6
    assert repo.version == len(repo)  # every write counted once: none lost
    assert repo.check() == []


def test_concurrent_rounds_on_one_match_are_never_lost(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        m = repo.create_match(["Ann", "Bob"])
    procs = [subprocess.Popen([sys.executable, str(WORKER), str(db), "shared", m.id, "2"],
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    counts = []
    for p in procs:
        out, _ = p.communicate(timeout=60)
        assert p.returncode == 0
        counts.append(int(out.strip()))
    with Repository.open(db) as repo:
        final = repo.get(m.id)
    assert sum(counts) == len(final.rounds) == 10  # each successful add is in the file
    assert final.is_over and final.revision == 10


def _paths(node: object, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def test_random_hand_edits_give_clear_errors_never_tracebacks(tmp_path: Path) -> None:
    """Mutate one value anywhere in a real file (inner match text included) and use it."""
    from chickenfoot.match import match_view
    from chickenfoot.rules import ChickenFootError

    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        m = repo.create_match(["Ann", "Bob", "Cy"], "pagat")
        repo.add_round(m.id, tiles={"Ann": "0-0,1-2"}, penalties={"Bob": 4}, out="Cy", holder="Bob")
        repo.add_round(m.id, penalties={"Ann": 3, "Cy": 1}, out="Bob")
        repo.update(m.id, lambda x: x.edit_round(1, penalties={"Bob": 6}).undo())
    pristine = json.loads(db.read_text())
    rng = random.Random(99)
    junk = [None, "x", -1, 10**9, 1.5, True, [], {}, [1, "a"], {"a": 1}]
    outcomes = {"ok": 0, "refused": 0}
    for _ in range(150):
        data = json.loads(json.dumps(pristine))
        doc = data["matches"]["1"]
        inner = json.loads(doc["match"])
        target_inner = rng.random() < 0.7
        root = inner if target_inner else data
        path = rng.choice(_paths(root)[1:])
        parent = root
        for key in path[:-1]:
            parent = parent[key]
        if rng.random() < 0.2 and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = rng.choice(junk)
        if target_inner:
            doc["match"] = json.dumps(inner)
        db.write_text(json.dumps(data))
        try:
            with Repository.open(db) as repo:
                for row in repo.list_matches():
                    json.dumps(match_view(repo.get(row.id)))
                repo.stats()
                repo.check()
                repo.version  # noqa: B018
            outcomes["ok"] += 1
        except ChickenFootError as exc:
            assert "\n" not in str(exc)
            outcomes["refused"] += 1
    assert outcomes["refused"] > 20 and outcomes["ok"] > 0


def test_killed_between_backup_and_replace_next_save_is_clean(tmp_path: Path) -> None:
    """A writer killed right after linking FILE.bak to FILE leaves both names on one inode."""
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        repo.create_match(["Ann", "Bob"])
    assert not backup_path(db).exists()  # the first save had nothing to back up
    os.link(db, backup_path(db))  # the state a kill at that moment leaves
    previous = db.read_bytes()
    with Repository.open(db) as repo:
        repo.create_match(["Cy", "Di"])
        assert len(repo) == 2
    assert backup_path(db).read_bytes() == previous
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_an_entry_key_written_twice_is_a_damaged_file_not_a_match_gone(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        repo.create_match(["Ann", "Bob"])
        repo.create_match(["Cy", "Di"])
    data = json.loads(db.read_text())
    one, two = (json.dumps(v) for v in data["matches"].values())
    # a hand repair that pasted the second match under the first one's key
    db.write_text('{"matches": {"1": ' + one + ', "1": ' + two + "}}")
    with pytest.raises(DamagedFileError, match="holds the key '1' twice in one object"):
        Repository.open(db).list_matches()
    with pytest.raises(DamagedFileError):
        Repository.open(db).check()


def test_a_file_saved_again_with_a_byte_order_mark_reads_as_before(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        m = repo.create_match(["Ann", "Bob"])
    db.write_bytes(b"\xef\xbb\xbf" + db.read_bytes())  # Notepad's way of saving UTF-8
    with Repository.open(db) as repo:
        assert [r.id for r in repo.list_matches()] == [m.id]
        repo.create_match(["Cy", "Di"])
    assert not db.read_bytes().startswith(b"\xef\xbb\xbf") and len(Repository.open(db)) == 2


def test_a_save_leaves_the_temporary_files_of_a_file_whose_name_extends_its_own(tmp_path: Path) -> None:
    db = tmp_path / "s.json"
    other = tmp_path / ".s.json.old.abcd1234.tmp"  # s.json.old's writer, halfway
    other.write_bytes(b"half")
    own = tmp_path / ".s.json.x1y2z3_4.tmp"  # s.json's own, left by a killed writer
    own.write_bytes(b"left")
    with Repository.open(db) as repo:
        repo.create_match(["Ann", "Bob"])
    assert other.exists() and not own.exists()


def test_a_restore_that_fails_on_a_full_disk_changes_nothing_and_leaves_no_half_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno
    import shutil

    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        repo.create_match(["Ann", "Bob"])
        repo.create_match(["Cy", "Di"])
    db.write_bytes(b"{garbage")

    def full(src: str, dst: str, **_: object) -> None:
        Path(dst).write_bytes(b"")  # what a copy onto a full disk leaves
        raise OSError(errno.ENOSPC, "No space left on device", str(dst))

    monkeypatch.setattr(shutil, "copy2", full)
    with pytest.raises(StorageError, match=r"cannot restore .*No space left on device; nothing was changed"):
        restore_backup(db)
    assert db.read_bytes() == b"{garbage"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "m.json.bak", "m.json.lock"]


def test_an_id_with_capitals_is_found_as_listed_not_as_another_match(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    low = Match.new(["Ann", "Bob"], get_rules(), match_id="abc")
    high = Match.new(["Cy", "Di"], get_rules(), match_id="ABC")
    with Repository.open(db) as repo:
        repo.import_matches([low, high])
        assert repo.get("ABC").players == ("Cy", "Di") and repo.get("abc").players == ("Ann", "Bob")
        repo.delete_match("ABC")
        assert [r.id for r in repo.list_matches()] == ["abc"]


def test_a_folder_where_the_backup_or_the_lock_goes_is_named_and_nothing_is_left(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        repo.create_match(["Ann", "Bob"])
    before = db.read_bytes()
    backup_path(db).unlink(missing_ok=True)
    backup_path(db).mkdir()
    with pytest.raises(StorageError, match=r"could not save .*m\.json: Is a directory \(at .*m\.json\.bak\); "
                                           "the previous state is kept"):
        Repository.open(db).create_match(["Cy", "Di"])
    assert db.read_bytes() == before and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    backup_path(db).rmdir()
    lock = tmp_path / "m.json.lock"
    lock.unlink(missing_ok=True)
    lock.mkdir()
    with pytest.raises(StorageError, match=r"Is a directory \(at .*m\.json\.lock\); nothing was changed"):
        Repository.open(db).create_match(["Cy", "Di"])
    assert db.read_bytes() == before


def test_a_damaged_entry_offers_the_backup_only_where_there_is_one(tmp_path: Path) -> None:
    """The way out of an entry spoilt by hand names `db restore` only when a backup exists: with
    none, restoring would only say so, and the message names what can be done instead."""
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        m = repo.create_match(["Ann", "Bob"])
        repo.add_round(m.id, tiles={"Ann": "1-2"}, out="Bob")
    data = json.loads(db.read_text())
    stored = json.loads(data["matches"]["1"]["match"])
    stored["players"] = "Ann"  # spoilt by hand
    data["matches"]["1"]["match"] = json.dumps(stored)
    data["matches"]["2"] = {"no": "id"}
    for backup in (True, False):
        bak = db.with_name(db.name + ".bak")
        if not backup:
            bak.unlink()
        assert bak.exists() == backup
        db.write_text(json.dumps({**data, "matches": {"1": data["matches"]["1"]}}))
        with Repository.open(db) as repo, pytest.raises(DamagedFileError) as err:
            repo.get(m.id)
        assert ("db restore" in str(err.value)) == backup and f"match delete {m.id[:8]} --yes" in str(err.value)
        assert backup or "there is no backup to restore" in str(err.value)
        db.write_text(json.dumps(data))
        with Repository.open(db) as repo:
            loose = [p for p in repo.check() if "match entry #2 without an id" in p]
        assert len(loose) == 1 and f"`chickenfoot match delete --entry 2 --yes --db {db}`" in loose[0]
        assert ("db restore" in loose[0]) == backup
        assert loose[0].endswith("(there is no backup to restore)") != backup


def test_every_damaged_entry_names_its_mend_first_and_the_backup_last(tmp_path: Path) -> None:
    """A spoilt match and a bad change counter say their ways out the same way: the mend, then
    the backup where there is one, with what restoring it also undoes."""
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        m = repo.create_match(["Ann", "Bob"])
        repo.add_round(m.id, tiles={"Ann": "1-2"}, out="Bob")
    data = json.loads(db.read_text())
    data["_meta"]["1"]["changes"] = "many"
    data["matches"]["1"]["match"] = data["matches"]["1"]["match"].replace('"players":["Ann","Bob"]',
                                                                          '"players":"Ann"')
    db.write_text(json.dumps(data))
    restore = f"or restore the backup with `chickenfoot db restore --db {db}` (it also undoes the last save)."
    with Repository.open(db) as repo:
        with pytest.raises(DamagedFileError) as spoilt:
            repo.get(m.id)
        with pytest.raises(DamagedFileError) as counter:
            repo.version  # noqa: B018
    assert str(spoilt.value).endswith(f"`chickenfoot match delete {m.id[:8]} --yes --db {db}`, {restore[:-1]}")
    assert str(counter.value).endswith(f"Set it to a number, {restore}")
    backup_path(db).unlink()
    with Repository.open(db) as repo, pytest.raises(DamagedFileError) as counter:
        repo.version  # noqa: B018
    assert str(counter.value).endswith("Set it to a number (there is no backup to restore).")


@pytest.mark.parametrize("entry", [{"no": "id"}, {"id": 7, "match": "{}"}, {"id": "", "match": {}},
                                   {"id": "abc", "summary": {}}, {"id": "abc", "match": 5}])
def test_an_entry_without_an_id_or_data_is_left_out_and_kept_as_it_is(tmp_path: Path, entry: dict) -> None:
    """A match entry no id can name (or holding no match) blocks nothing: the other matches list,
    open and save; it is named by its entry number; every save keeps it as it is."""
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        a = repo.create_match(["Ann", "Bob"])
        b = repo.create_match(["Cy", "Di"])
    data = json.loads(db.read_text())
    data["matches"]["2"], data["matches"]["1"] = entry, data["matches"]["2"]  # the highest number
    db.write_text(json.dumps(data))
    with Repository.open(db) as repo:
        assert [r.id for r in repo.list_matches()] == [b.id]
        assert repo.listing()[1] == ["entry #2"] and repo.loose_entries() == [2]
        good, bad = repo.readable_matches()
        assert [m.id for m in good] == [b.id] and bad == ["entry #2"]
        assert [m.id for m in repo.all_matches()] == [b.id] and len(repo) == 1
        assert [s.player for s in repo.stats()] == ["Cy", "Di"]
        assert repo.check() == [repo._loose_problem(2)]
        with pytest.raises(MatchNotFoundError, match="1 entry without an id or data"):
            repo.get(a.id)
        repo.add_round(b.id, penalties={"Di": 5}, out="Cy")
        c = repo.create_match(["Ed", "Flo"])  # a number past the entry's, never over it
        repo.import_matches([Match.new(["Gus", "Hal"], get_rules())])
        assert len(repo) == 3 and repo.get(b.id).rounds
    stored = json.loads(db.read_text())["matches"]
    assert stored["2"] == entry and stored["1"]["id"] == b.id and len(stored) == 4
    assert json.dumps(entry, ensure_ascii=False, separators=(",", ":")) in db.read_text()
    with Repository.open(db) as repo:
        with pytest.raises(MatchNotFoundError, match=f"entry #1 is match {b.id[:8]}: delete it by its id"):
            repo.delete_entry(1)
        with pytest.raises(MatchNotFoundError, match="there is no match entry #9 without an id"):
            repo.delete_entry(9)
        repo.delete_entry(2)
        assert repo.check() == [] and repo.readable_matches()[1] == [] and c.id in repo
    assert "2" not in json.loads(db.read_text())["matches"]


def test_an_entry_without_an_id_is_named_whole_where_ids_are_shortened() -> None:
    from chickenfoot.storage.repository import entry_name, short_name

    assert short_name(entry_name(123456789)) == "entry #123456789"
    assert short_name("3fa8c1d2e4f5") == "3fa8c1d2"


def test_what_was_left_out_counts_entries_apart_from_matches() -> None:
    """A match held by two entries is left out as two entries, not as two matches."""
    from chickenfoot.storage.repository import entry_name, left_out_words

    assert left_out_words(["3fa8c1d2e4f5"]) == ("1 match", "is")
    assert left_out_words([entry_name(2), entry_name(3)]) == ("2 entries", "are")
    assert left_out_words(["3fa8c1d2e4f5", "77aa", entry_name(4)]) == ("2 matches and 1 entry", "are")


@pytest.mark.parametrize("key", ["01", "\u00b2", "+2", "-2", " 2", "2 ", "\u0663", "1_0", "", "1" * 31])
def test_an_entry_key_tinydb_would_not_write_back_as_it_is_is_a_damaged_file(tmp_path: Path, key: str) -> None:
    """TinyDB reads a table key with int() and writes str() back: "01" beside "1" listed both
    matches and the next save kept one; "²" was a ValueError. Such a key is refused before any
    read, with the key renumbered as the mend, and the file is left as it is by every save."""
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        a = repo.create_match(["Ann", "Bob"])
        b = repo.create_match(["Cy", "Di"])
    data = json.loads(db.read_text())
    data["matches"][key] = data["matches"].pop("2")
    db.write_text(json.dumps(data, ensure_ascii=False))
    before = db.read_bytes()
    for act in (lambda r: r.list_matches(), lambda r: r.check(), lambda r: r.add_round(a.id, penalties={"Bob": 3},
                                                                                      out="Ann")):
        with pytest.raises(DamagedFileError) as err, Repository.open(db) as repo:
            act(repo)
        msg = str(err.value)
        assert f"the key {key!r}" in msg and "\n" not in msg
        assert msg.index('Write its key as "2"') < msg.index(f"`chickenfoot db restore --db {db}`")
    assert db.read_bytes() == before
    backup_path(db).unlink()
    with pytest.raises(DamagedFileError, match=r'"2", a number no other entry there uses \(there is no backup to '
                                               r"restore\), or open another file with --db\.$"):
        Repository.open(db)
    db.write_text(db.read_text().replace(json.dumps(key, ensure_ascii=False) + ":", '"2":'))  # the mend it names
    with Repository.open(db) as repo:
        repo.add_round(a.id, penalties={"Bob": 3}, out="Ann")
        assert {r.id for r in repo.list_matches()} == {a.id, b.id} and repo.check() == []


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.one_of(st.text(max_size=4), st.from_regex(r"[0-9\u00b2\u0663+-]{1,4}", fullmatch=True),
                 st.integers(0, 10**31).map(str)))
def test_only_a_key_read_and_written_back_unchanged_is_an_entry_number(key: str) -> None:
    raw = json.dumps({"matches": {key: {}}}).encode()
    plain = key.isascii() and key.isdigit() and str(int(key)) == key and len(key) <= 30
    try:
        decode(raw, Path("/nonexistent/m.json"))
    except DamagedFileError as exc:
        assert not plain and f"the key {key[:40]!r}" in str(exc)
    else:
        assert plain


def _doubled_file(db: Path) -> tuple[Match, Match]:
    """Match a (with a round) is entry #1 and, as it was before that round, entry #3 (a copy of
    an older file pasted in); match b is entry #2."""
    with Repository.open(db) as repo:
        a = repo.create_match(["Ann", "Bob"])
        copy = json.loads(db.read_text())["matches"]["1"]
        a = repo.add_round(a.id, penalties={"Bob": 4}, out="Ann")
        b = repo.create_match(["Cy", "Di"])
    data = json.loads(db.read_text())
    data["matches"]["3"] = copy
    db.write_text(json.dumps(data))
    return a, b


def test_one_match_in_two_entries_is_left_out_named_by_both_numbers_and_never_overwritten(tmp_path: Path) -> None:
    """Two entries holding one match id (a copy pasted by hand): the later used to hide the
    earlier without a word. Which one is the match cannot be told, so both are left out by
    number, `check` names both and each one's rounds, nothing reads or writes them by the id,
    and `delete_entry` removes the copy not wanted, leaving the other as the match."""
    db = tmp_path / "m.json"
    a, b = _doubled_file(db)
    with Repository.open(db) as repo:
        assert [r.id for r in repo.list_matches()] == [b.id]
        assert repo.listing()[1] == ["entry #1", "entry #3"] and repo.doubled_entries() == {a.id: [1, 3]}
        good, bad = repo.readable_matches()
        assert [m.id for m in good] == [b.id] and bad == ["entry #1", "entry #3"]
        assert len(repo) == 1 and a.id not in repo
        [problem] = repo.check()
        assert problem.startswith(f"match entries #1 and #3 both hold match {a.id} (#1: 1 round, last changed ")
        assert "; #3: 0 rounds, " in problem
        assert f"`chickenfoot match delete --entry 3 --yes --db {db}`, or restore the backup" in problem
        before = db.read_bytes()
        for act in (lambda: repo.get(a.id), lambda: repo.get(a.id[:6].upper()), lambda: repo.delete_match(a.id),
                    lambda: repo.add_round(a.id, penalties={"Bob": 1}, out="Ann"), lambda: repo.undo(a.id),
                    lambda: repo.save(a), lambda: repo.import_matches([a]), lambda: repo.drafts(a.id),
                    lambda: repo.open_draft(a.id)):
            with pytest.raises(DamagedFileError) as err:
                act()
            assert str(err.value) == problem
        assert db.read_bytes() == before
        repo.add_round(b.id, penalties={"Di": 2}, out="Cy")  # the other match saves as before
        c = repo.create_match(["Ed", "Flo"])
        repo.import_matches([Match.new(["Gus", "Hal"], get_rules())])
    stored = json.loads(db.read_text())["matches"]
    assert stored["1"]["id"] == stored["3"]["id"] == a.id and stored["4"]["id"] == c.id and len(stored) == 5
    assert json.loads(stored["1"]["match"])["rounds"] and not json.loads(stored["3"]["match"])["rounds"]
    with Repository.open(db) as repo:
        with pytest.raises(MatchNotFoundError, match=f"entry #2 is match {b.id[:8]}: delete it by its id"):
            repo.delete_entry(2)
        repo.delete_entry(3)
        assert repo.check() == [] and repo.get(a.id).rounds == a.rounds and len(repo) == 4


def test_one_match_in_three_entries_names_them_all(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    a, _ = _doubled_file(db)
    data = json.loads(db.read_text())
    data["matches"]["7"] = data["matches"]["1"]
    db.write_text(json.dumps(data))
    backup_path(db).unlink()
    with Repository.open(db) as repo:
        [problem] = repo.check()
        assert problem.startswith(f"match entries #1, #3 and #7 all hold match {a.id} ")
        assert problem.endswith(f"`chickenfoot match delete --entry 7 --yes --db {db}` (there is no backup to restore)")
        repo.delete_entry(7)
        assert repo.doubled_entries() == {a.id: [1, 3]}
