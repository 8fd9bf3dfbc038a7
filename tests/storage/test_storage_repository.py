"""The repository on a real TinyDB file: CRUD, ids, refresh across processes, paths, imports."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from chickenfoot.match import Match, MatchStateError, RoundError
from chickenfoot.rules import get_rules
from chickenfoot.storage import (
    ENV_VAR,
    ConflictError,
    MatchNotFoundError,
    Repository,
    SafeJSONStorage,
    StorageError,
    default_db_path,
    resolve_db_path,
)


@pytest.fixture
def repo(tmp_path: Path):
    r = Repository.open(tmp_path / "m.json")
    yield r
    r.close()


def test_open_does_not_create_the_file_until_the_first_save(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        assert len(repo) == 0 and repo.list_matches() == [] and repo.version == 0
        assert not db.exists()
        repo.create_match(["Ann", "Bob"])
    assert db.exists()
    assert json.loads(db.read_text())["_meta"]["1"] == {"schema": 1, "changes": 1}


def test_a_named_file_needs_its_folder_the_default_place_is_made(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "missing" / "dir" / "games.json"
    with pytest.raises(StorageError, match=r"--db .*games.json: there is no folder .*dir \(it is not created\)"):
        Repository.open(db)
    monkeypatch.setenv("CHICKENFOOT_DB", str(db))
    with pytest.raises(StorageError, match=r"\$CHICKENFOOT_DB .*: there is no folder"):
        Repository.open()
    assert list(tmp_path.iterdir()) == []  # no folder, no lock file
    # the default place is the project's own: made on the first save
    monkeypatch.delenv("CHICKENFOOT_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    with Repository.open() as repo:
        repo.create_match(["Ann", "Bob"])
    assert (tmp_path / "data" / "chickenfoot" / "matches.json").is_file()


def test_the_default_place_named_by_its_path_is_still_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app resolves the file before opening it: the default place, passed as a path, is
    still the project's own folder, made on the first save (a fresh machine has none)."""
    monkeypatch.delenv("CHICKENFOOT_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "fresh"))
    with Repository.open(resolve_db_path(None)) as repo:
        repo.create_match(["Ann", "Bob"])
    assert (tmp_path / "fresh" / "chickenfoot" / "matches.json").is_file()


def test_a_read_only_folder_is_named_not_the_lock_file(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)  # read-only by its bits, which stop root too here
    try:
        with Repository.open(folder / "games.json") as repo, pytest.raises(StorageError) as err:
            repo.create_match(["Ann", "Bob"])
        assert str(folder / "games.json") in str(err.value) and "read-only" in str(err.value)
        assert ".lock" not in str(err.value) and list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)


def test_create_get_update_and_prefix_ids(repo: Repository) -> None:
    m = repo.create_match(["Ann", "Bob", "Cy"], "pagat", {"zero_zero": 25})
    assert repo.get(m.id) == m
    assert repo.get(m.id[:4].upper()) == m
    assert m.rules.zero_zero == 25
    m2 = repo.add_round(m.id[:6], tiles={"Ann": "0-0"}, penalties={"Bob": 2}, out="Cy",
                        holder="Bob")
    assert repo.get(m.id).totals() == [25, 2, 0] == m2.totals()
    assert repo.undo(m.id).rounds == ()
    assert repo.redo(m.id).rounds == m2.rounds
    assert repo.set_holder(m.id, "Ann").first_player == "Bob"
    assert repo.abandon(m.id).status == "abandoned"
    with pytest.raises(MatchStateError):
        repo.add_round(m.id, penalties={"Ann": 1, "Bob": 2}, out="Cy")
    assert repo.resume(m.id).status == "active"
    assert repo.edit_round(m.id, 1, penalties={"Bob": 9}).totals() == [25, 9, 0]
    assert repo.delete_last_round(m.id).rounds == ()


def test_unknown_and_ambiguous_ids(repo: Repository) -> None:
    ids = {repo.create_match(["Ann", "Bob"]).id for _ in range(20)}
    with pytest.raises(MatchNotFoundError, match="no match"):
        repo.get("zzzz")
    # Some first hex digit is shared by two of 20 random ids (pigeonhole over 16 digits).
    firsts = [i[0] for i in ids]
    shared = next(c for c in firsts if firsts.count(c) > 1)
    with pytest.raises(MatchNotFoundError, match="fits"):
        repo.get(shared)


def test_a_failed_change_writes_nothing(repo: Repository) -> None:
    m = repo.create_match(["Ann", "Bob"])
    before = repo.path.read_bytes()
    with pytest.raises(RoundError, match="no result"):
        repo.add_round(m.id, penalties={"Ann": 1}, blocked=True)
    assert repo.path.read_bytes() == before and repo.version == 1


def test_list_summaries_and_status_filter(repo: Repository) -> None:
    a = repo.create_match(["Ann", "Bob"], options={"match_length": "single"})
    repo.add_round(a.id, penalties={"Ann": 4}, out="Bob")
    b = repo.create_match(["Cy", "Di"])
    rows = repo.list_matches()
    assert {r.id for r in rows} == {a.id, b.id}
    fin = repo.list_matches("finished")
    assert [r.id for r in fin] == [a.id] and fin[0].winners == ("Bob",)
    assert fin[0].totals == (4, 0)
    assert [r.id for r in repo.list_matches("active")] == [b.id]


def test_another_process_change_is_seen_before_the_next_read(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    one, two = Repository.open(db), Repository.open(db)
    m = one.create_match(["Ann", "Bob"])
    assert two.get(m.id) == m
    seen = two.version
    one.add_round(m.id, penalties={"Ann": 3}, out="Bob")
    assert two.changed_on_disk()
    assert two.version == seen + 1
    assert len(two.get(m.id).rounds) == 1
    # The other copy's stale match cannot overwrite the newer one.
    stale = m.add_round(penalties={"Bob": 3}, out="Ann")
    with pytest.raises(ConflictError, match="changed elsewhere"):
        two.save(stale)
    with pytest.raises(ConflictError):
        two.save(stale, expected_revision=m.revision)
    fresh = two.get(m.id)
    assert two.save(fresh.undo(), expected_revision=fresh.revision).rounds == ()


def test_import_merges_without_duplicating(tmp_path: Path) -> None:
    src = Repository.open(tmp_path / "a.json")
    a = src.create_match(["Ann", "Bob"])
    a = src.add_round(a.id, penalties={"Ann": 2}, out="Bob")
    b = src.create_match(["Cy", "Di"])
    exported = src.export_json()
    dst = Repository.open(tmp_path / "b.json")
    from chickenfoot.match import read_export

    first = dst.import_matches(read_export(exported))
    assert set(first.added) == {a.id, b.id}
    again = dst.import_matches(read_export(json.loads(json.dumps(exported))))
    assert again.added == () and set(again.unchanged) == {a.id, b.id}
    assert len(dst) == 2 and dst.get(a.id) == a
    # A copy with more changes replaces the stored one; an older copy does not.
    newer = src.add_round(a.id, penalties={"Bob": 5}, out="Ann")
    rep = dst.import_matches([newer])
    assert rep.updated == (a.id,) and dst.get(a.id) == newer
    rep = dst.import_matches([a])
    assert rep.unchanged == (a.id,) and dst.get(a.id) == newer
    assert dst.export_csv().count("\n") == 1 + 2 * 2


def test_import_keeps_both_copies_of_a_match_changed_on_two_devices(tmp_path: Path) -> None:
    """Two devices each add their own round 1 to the same match: importing one's export into the
    other replaces nothing, in either direction; the copy comes in beside the stored match as a
    new one, and the report says so. A copy that only undid changes, or added some, still
    replaces the stored one."""
    from chickenfoot.match import read_export

    one = Repository.open(tmp_path / "one.json")
    m = one.create_match(["Ann", "Bob", "Cy"])
    two = Repository.open(tmp_path / "two.json")
    two.import_matches(read_export(one.export_json()))
    mine = one.add_round(m.id, penalties={"Ann": 3, "Cy": 5}, out="Bob")
    theirs = two.add_round(m.id, penalties={"Ann": 3, "Cy": 40}, out="Bob")
    theirs = two.add_round(m.id, penalties={"Ann": 9, "Bob": 2}, out="Cy")  # more changes than mine
    assert not theirs.in_line_with(mine) and not mine.in_line_with(theirs)

    rep = one.import_matches(read_export(two.export_json()))
    assert rep.updated == rep.unchanged == () and [mid for mid, _ in rep.kept_apart] == [m.id]
    copy_id = rep.kept_apart[0][1]
    assert one.get(m.id) == mine  # this device's round stays
    assert one.get(copy_id).rounds == theirs.rounds and one.get(copy_id).players == theirs.players
    assert rep.summary() == (f"0 added, 0 updated, 0 already there, 1 kept as a copy beside the stored one "
                             f"(changed on both sides since they parted: {m.id[:8]} -> {copy_id[:8]})")
    assert rep.to_dict()["kept_apart"] == [{"id": m.id, "copy": copy_id}]
    rep = two.import_matches([mine])  # the other way: fewer changes, still not thrown away
    assert rep.unchanged == () and len(rep.kept_apart) == 1 and two.get(m.id) == theirs

    # the same match with more changes, or with its last change undone, replaces the stored one
    later = one.add_round(m.id, penalties={"Ann": 1, "Cy": 1}, out="Bob")
    assert later.in_line_with(mine)
    three = Repository.open(tmp_path / "three.json")
    three.import_matches([mine])
    assert three.import_matches([later]).updated == (m.id,)
    undone = one.undo(m.id)
    assert undone.in_line_with(later) and undone.revision > later.revision
    assert three.import_matches([undone]).updated == (m.id,) and three.get(m.id).rounds == mine.rounds
    assert three.import_matches([later]).unchanged == (m.id,)  # an older copy does not come back


def test_import_keeps_a_round_added_since_over_a_copy_that_only_undid_and_redid(tmp_path: Path) -> None:
    """A copy whose device undid and redid (revisions up, play the same) is older than the stored
    match with a round added since: its higher revision does not make it win."""
    from chickenfoot.match import read_export

    a = Repository.open(tmp_path / "a.json")
    m = a.create_match(["Ann", "Bob", "Cy"])
    a.add_round(m.id, penalties={"Ann": 3, "Cy": 5}, out="Bob")
    b = Repository.open(tmp_path / "b.json")
    b.import_matches(read_export(a.export_json()))
    for _ in range(3):
        b.undo(m.id)
        stale = b.redo(m.id)
    newer = a.add_round(m.id, penalties={"Ann": 1, "Bob": 4}, out="Cy")
    assert stale.revision > newer.revision and not stale.can_redo
    rep = a.import_matches(read_export(b.export_json()))
    assert rep.unchanged == (m.id,) and rep.updated == ()
    assert a.get(m.id) == newer and len(a.get(m.id).rounds) == 2
    # and the other way the round comes in
    assert b.import_matches([newer]).updated == (m.id,) and b.get(m.id) == newer


def test_importing_a_file_again_meets_the_copy_it_left_beside_the_stored_match(tmp_path: Path) -> None:
    """A copy kept apart is stored once however often the same file is imported; a later state
    of that file's match replaces the copy, not the stored match."""
    from chickenfoot.match import read_export

    one = Repository.open(tmp_path / "one.json")
    m = one.create_match(["Ann", "Bob"])
    two = Repository.open(tmp_path / "two.json")
    two.import_matches(read_export(one.export_json()))
    mine = one.add_round(m.id, penalties={"Ann": 3}, out="Bob")
    two.add_round(m.id, penalties={"Ann": 7}, out="Bob")
    exported = two.export_json()
    copy_id = one.import_matches(read_export(exported)).kept_apart[0][1]
    for _ in range(2):
        rep = one.import_matches(read_export(exported))
        assert rep.kept_apart == () and rep.added == () and rep.unchanged == (copy_id,)
    assert len(one) == 2 and one.get(m.id) == mine
    later = two.add_round(m.id, penalties={"Bob": 4}, out="Ann")
    rep = one.import_matches(read_export(two.export_json()))
    assert rep.updated == (copy_id,) and rep.kept_apart == ()
    assert len(one) == 2 and one.get(copy_id).rounds == later.rounds and one.get(m.id) == mine


def test_delete_match(repo: Repository) -> None:
    a = repo.create_match(["Ann", "Bob"])
    b = repo.create_match(["Ann", "Bob"])
    repo.delete_match(a.id)
    assert a.id not in repo and b.id in repo and len(repo) == 1
    c = repo.create_match(["Ann", "Bob"])  # doc ids never collide after a delete
    assert len(repo) == 2 and repo.get(c.id) == c


def test_stats_through_the_repository(repo: Repository) -> None:
    m = repo.create_match(["Ann", "Bob"], options={"match_length": "single"})
    repo.add_round(m.id, tiles={"Ann": "0-0"}, out="Bob")
    s = {x.player: x for x in repo.stats()}
    assert s["Bob"].matches_won == 1 and s["Ann"].caught_with_double_blank == 1


def test_save_round_trips_through_a_fresh_process_view(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        m = Match.new(["Ann", "Bob"], get_rules("chickie-sixes"))
        m = m.add_round(tiles={"Ann": "0-0,6-6"}, out="Bob", holder="Ann", started_with=5)
        repo.save(m)
    with Repository.open(db) as repo:
        assert repo.get(m.id) == m


def test_db_path_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env.json"))
    assert resolve_db_path(None) == tmp_path / "env.json"
    assert resolve_db_path(tmp_path / "flag.json") == tmp_path / "flag.json"
    monkeypatch.delenv(ENV_VAR)
    d = resolve_db_path(None)
    assert d == default_db_path() and d.name == "matches.json" and "chickenfoot" in str(d)


def test_storage_reads_the_file_only_when_it_changed(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        repo.create_match(["Ann", "Bob"])
    st = SafeJSONStorage(db)
    first = st.read()
    assert st.read() is first  # unchanged: the parsed data is reused, not re-read
    with Repository.open(db) as repo:
        repo.create_match(["Cy", "Di"])
    second = st.read()
    assert second is not first and len(second["matches"]) == 2
    os.utime(db)  # a touch (new mtime) is also noticed
    assert st.read() is not second


def test_matches_are_listed_newest_first_even_within_one_second(repo: Repository) -> None:
    """Creation stamps keep whole seconds: matches made in the same second are listed in the
    order they were stored, newest first (a script's `match list | head -1` is the last one)."""
    made = [repo.create_match([f"P{k}", "Q"]).id for k in range(6)]
    assert [row.id for row in repo.list_matches()] == made[::-1]
