"""One test (at least) per migration, on real files in the old shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chickenfoot.storage import MIGRATIONS, SCHEMA_VERSION, Repository, SchemaError

V0_FILE = {
    "_default": {
        "1": {
            "id": "proto-1",
            "players": ["Ann", "Bob", "Cy"],
            "preset": "double-chicken-foot",
            "options": {"zero_zero": 25},
            "created": "2025-06-01T20:00:00+00:00",
            "rounds": [
                {"scores": {"Ann": 12, "Bob": 0, "Cy": 30}, "out": "Bob"},
                {"scores": {"ann": 5, "Bob": 7, "Cy": 9}, "out": None},
            ],
        },
        "2": {
            "id": "proto-2",
            "players": ["Di", "Ed"],
            "preset": "chickie-sixes",
            "created": "2025-06-02T20:00:00+00:00",
            "rounds": [],
            "abandoned": True,
        },
    }
}


def test_every_schema_below_the_current_has_a_migration() -> None:
    assert sorted(MIGRATIONS) == list(range(SCHEMA_VERSION))


def test_v0_to_v1_carries_every_match_over(tmp_path: Path) -> None:
    db = tmp_path / "old.json"
    db.write_text(json.dumps(V0_FILE))
    with Repository.open(db) as repo:
        a = repo.get("proto-1")
        b = repo.get("proto-2")
        assert repo.version == 0
    assert a.players == ("Ann", "Bob", "Cy") and a.rules.zero_zero == 25
    assert [r.double for r in a.rounds] == [9, 8]
    assert a.rounds[0].penalties == (12, 0, 30) and a.rounds[0].out == 1
    assert a.rounds[1].blocked and a.rounds[1].penalties == (5, 7, 9)
    assert a.totals() == [17, 7, 39] and a.created_at.startswith("2025-06-01")
    assert b.rules.name == "chickie-sixes" and b.abandoned
    raw = json.loads(db.read_text())
    assert raw["_meta"]["1"]["schema"] == 1 and "_default" not in raw
    # The untouched old file is kept beside the new one.
    assert json.loads((tmp_path / "old.json.schema-0.bak").read_text()) == V0_FILE


def test_v0_match_that_cannot_be_carried_over_stops_and_changes_nothing(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(V0_FILE))
    bad["_default"]["2"]["preset"] = "no-such-rules"
    db = tmp_path / "old.json"
    db.write_text(json.dumps(bad))
    before = db.read_bytes()
    with pytest.raises(SchemaError, match="old match #2"):
        Repository.open(db)
    assert db.read_bytes() == before


def test_a_file_from_a_newer_program_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "new.json"
    db.write_text(json.dumps({"_meta": {"1": {"schema": SCHEMA_VERSION + 1, "changes": 3}},
                              "matches": {}}))
    with pytest.raises(SchemaError, match="newer chickenfoot") as caught:
        Repository.open(db)
    assert str(db) in str(caught.value)  # which file, when several are about


def test_a_current_file_that_lost_its_meta_is_not_migrated_away(tmp_path: Path) -> None:
    db = tmp_path / "m.json"
    with Repository.open(db) as repo:
        m = repo.create_match(["Ann", "Bob"])
    raw = json.loads(db.read_text())
    del raw["_meta"]
    db.write_text(json.dumps(raw))
    with Repository.open(db) as repo:
        assert repo.get(m.id) == m and repo.version == 0
        repo.create_match(["Cy", "Di"])
        assert repo.version == 1 and len(repo) == 2
