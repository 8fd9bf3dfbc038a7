"""Rounds being entered, kept in the real TinyDB file: shared, surviving a reopen, saved once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from chickenfoot.match import DraftState, Saved
from chickenfoot.storage import DraftNotFoundError, Repository
from chickenfoot.storage import repository as repository_module

WORKER = Path(__file__).with_name("_storage_worker.py")


def _add(m, d):  # type: ignore[no-untyped-def]
    pens = {k: v for k, v in d.data.get("pens", {}).items()}
    return m.add_round(penalties=pens, out=d.data.get("out"))


@pytest.fixture
def repo(tmp_path: Path):  # type: ignore[no-untyped-def]
    r = Repository.open(tmp_path / "games.json")
    yield r
    r.close()


def test_a_draft_is_shared_kept_in_the_file_and_survives_a_reopen(repo: Repository, tmp_path: Path) -> None:
    m = repo.create_match(["Ann", "Bob", "Cy"])
    d = repo.open_draft(m.id)
    assert repo.open_draft(m.id) == d  # a second device gets the same draft
    repo.change_draft(d.id, lambda d: {**d.data, "out": "Ann"})
    repo.change_draft(d.id, lambda d: {**d.data, "pens": {"Bob": 12}})
    v = repo.version
    same = repo.change_draft(d.id, lambda d: d.data)  # nothing changed: nothing written
    assert repo.version == v and same.revision == 2
    raw = json.loads((tmp_path / "games.json").read_text())
    assert next(iter(raw["drafts"].values()))["id"] == d.id
    repo.close()
    with Repository.open(tmp_path / "games.json") as again:  # a restarted server
        back = again.get_draft(d.id)
        assert back.data == {"out": "Ann", "pens": {"Bob": 12}} and back.open
        assert again.open_draft(m.id).id == d.id
        assert again.check() == []


def test_saving_twice_stores_one_round_and_the_match_moves_on(repo: Repository) -> None:
    m = repo.create_match(["Ann", "Bob"])
    d = repo.open_draft(m.id, entry=lambda m: {"out": "Ann", "pens": {"Bob": 7}})
    first = repo.commit_draft(d.id, _add, by="phone-1")
    second = repo.commit_draft(d.id, _add, by="phone-2")
    assert (first.outcome, second.outcome) == (Saved.STORED, Saved.ALREADY)
    assert second.draft.saved_by == "phone-1"
    assert repo.get(m.id).totals() == [0, 7] and len(repo.get(m.id).rounds) == 1
    # the next round gets a new draft; the saved one cannot be typed into any more
    assert repo.open_draft(m.id).number == 2
    assert repo.change_draft(d.id, lambda d: {"pens": {"Bob": 99}}).state is DraftState.SAVED


def test_a_round_stored_from_the_command_line_supersedes_the_open_draft(repo: Repository) -> None:
    m = repo.create_match(["Ann", "Bob"])
    d = repo.open_draft(m.id, entry=lambda m: {"out": "Ann", "pens": {"Bob": 7}})
    repo.add_round(m.id, penalties={"Bob": 3}, out="Ann")
    c = repo.commit_draft(d.id, _add, by="phone-1")
    assert c.outcome is Saved.SUPERSEDED and repo.get(m.id).totals() == [0, 3]
    assert repo.open_draft(m.id).number == 2


def test_edit_drafts_cancel_and_deleting_a_match_removes_its_drafts(repo: Repository) -> None:
    m = repo.create_match(["Ann", "Bob"])
    repo.add_round(m.id, penalties={"Bob": 3}, out="Ann")
    e = repo.open_draft(m.id, 1, edit=True, entry=lambda m: {"pens": {"Bob": 3}})
    assert repo.open_draft(m.id, 1, edit=True).id == e.id
    repo.drop_draft(e.id)
    repo.drop_draft(e.id)  # already gone: fine
    with pytest.raises(DraftNotFoundError):
        repo.get_draft(e.id)
    repo.open_draft(m.id)
    assert len(repo.drafts(m.id)) == 1
    repo.delete_match(m.id)
    assert repo.drafts() == []


def test_photos_are_kept_beside_the_file_until_no_open_draft_needs_them(repo: Repository) -> None:
    m = repo.create_match(["Ann", "Bob"])
    key = repo.put_blob(b"photo bytes")
    assert repo.put_blob(b"photo bytes") == key and repo.get_blob(key) == b"photo bytes"
    assert repo.get_blob("../games.json") is None and repo.get_blob("0" * 64) is None
    d = repo.open_draft(m.id, entry=lambda m: {"out": "Ann", "pens": {"Bob": 7}, "blobs": [key]})
    loose = repo.put_blob(b"never referred to")
    old = time.time() - repository_module.LOOSE_BLOB_KEEP_S - 10
    os.utime(repo.blob_dir / loose, (old, old))
    repo.commit_draft(d.id, _add, by="p")
    assert repo.get_blob(key) is None and repo.get_blob(loose) is None


def test_closed_drafts_are_forgotten_after_two_days(repo: Repository, tmp_path: Path) -> None:
    m = repo.create_match(["Ann", "Bob"])
    d = repo.open_draft(m.id, entry=lambda m: {"out": "Ann", "pens": {"Bob": 7}})
    repo.commit_draft(d.id, _add, by="p")
    repo.close()
    path = tmp_path / "games.json"
    raw = json.loads(path.read_text())
    (doc,) = raw["drafts"].values()
    doc["draft"]["updated_at"] = "2020-01-01T00:00:00+00:00"  # saved long ago
    path.write_text(json.dumps(raw))
    with Repository.open(path) as again:
        d2 = again.open_draft(m.id, entry=lambda m: {"out": "Bob", "pens": {"Ann": 1}})
        again.commit_draft(d2.id, _add, by="p")
        assert [x.id for x in again.drafts(m.id)] == [d2.id]


def test_a_hand_damaged_draft_is_skipped_and_reported(repo: Repository, tmp_path: Path) -> None:
    m = repo.create_match(["Ann", "Bob"])
    d = repo.open_draft(m.id)
    repo.close()
    path = tmp_path / "games.json"
    raw = json.loads(path.read_text())
    raw["drafts"]["7"] = {"id": "junk", "draft": {"number": "three"}}
    path.write_text(json.dumps(raw))
    with Repository.open(path) as again:
        assert [x.id for x in again.drafts()] == [d.id]
        assert any("round being entered #7" in p for p in again.check())


def test_saves_racing_from_threads_store_the_round_once(repo: Repository, tmp_path: Path) -> None:
    m = repo.create_match(["Ann", "Bob"])
    d = repo.open_draft(m.id, entry=lambda m: {"out": "Bob", "pens": {"Ann": 5}})
    barrier = threading.Barrier(6)
    outcomes: list[Saved] = []

    def save(k: int) -> None:
        own = Repository.open(tmp_path / "games.json") if k % 2 else repo  # shared and separate
        barrier.wait()
        outcomes.append(own.commit_draft(d.id, _add, by=f"t{k}").outcome)

    ts = [threading.Thread(target=save, args=(k,)) for k in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert sorted(outcomes) == sorted([Saved.STORED] + [Saved.ALREADY] * 5)
    assert len(repo.get(m.id).rounds) == 1


def test_saves_racing_from_two_processes_store_the_round_once(tmp_path: Path) -> None:
    db = tmp_path / "games.json"
    with Repository.open(db) as repo:
        m = repo.create_match(["Ann", "Bob"])
        d = repo.open_draft(m.id)
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, str(WORKER), str(db), "commit", d.id, "3", str(go), f"p{n}"],
                              stdout=subprocess.PIPE, text=True) for n in range(2)]
    try:
        for p in procs:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        go.touch()
        lines = [line for p in procs for line in p.communicate(timeout=60)[0].split("\n") if line]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    stored = [line for line in lines if line.startswith("stored")]
    assert len(lines) == 6 and len(stored) == 1
    saver = stored[0].split()[1]
    assert all(line == f"already {saver}" for line in lines if line not in stored)
    with Repository.open(db) as repo:
        assert len(repo.get(m.id).rounds) == 1 and repo.get(m.id).totals() == [5, 0]
        assert repo.get_draft(d.id).saved_by == saver
