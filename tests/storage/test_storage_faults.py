"""Fault injection in the manner of SQLite's I/O error tests: every ``write``, ``fsync``,
``link``, ``rename`` and ``replace`` a save makes is made to fail in turn (and, separately, the
power is cut there, losing every byte not yet fsynced). Whatever fails, the scorekeeper file
left behind is the old version or the new one, never a third thing, and the command line says
which in one line."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from chickenfoot.cli.main import main
from chickenfoot.storage import Repository, safe_json

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd")

OPS = ("write", "fsync", "link", "rename", "replace")


class PowerCut(BaseException):
    """The machine stops here: nothing after it runs (not even cleanup that would matter)."""


def _path_of(fd: int) -> str:
    return os.readlink(f"/proc/self/fd/{fd}")


class Faults:
    """Counts the save's I/O operations; the ``fail_at``-th one fails (or cuts the power)."""

    def __init__(self, fail_at: int | None, power_cut: bool = False) -> None:
        self.fail_at, self.power_cut = fail_at, power_cut
        self.count = 0
        self.done: list[str] = []
        self.unsynced: set[str] = set()  # files holding written bytes not yet fsynced
        self.lost: set[str] | None = None  # what the power cut took, once it happened

    def op(self, kind: str, path: str) -> None:
        self.count += 1
        if self.count == self.fail_at:
            if self.power_cut:
                self.lost = set(self.unsynced)
                raise PowerCut(f"power cut at {kind} {path}")
            raise OSError(errno.EIO, f"injected {kind} failure")
        self.done.append(kind)

    def moved(self, src: str, dst: str) -> None:
        if src in self.unsynced:
            self.unsynced.discard(src)
            self.unsynced.add(dst)


class _File:
    def __init__(self, f: Any, faults: Faults, path: str) -> None:
        self._f, self._faults, self._path = f, faults, path

    def write(self, data: bytes) -> int:
        self._faults.op("write", self._path)
        self._faults.unsynced.add(self._path)
        return self._f.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._f, name)

    def __enter__(self) -> _File:
        return self

    def __exit__(self, *exc: object) -> None:
        self._f.close()


class _Os:
    """``os`` as safe_json sees it: the same, but every save operation goes through Faults."""

    def __init__(self, faults: Faults) -> None:
        self._faults = faults

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def fdopen(self, fd: int, *args: Any, **kw: Any) -> _File:
        return _File(os.fdopen(fd, *args, **kw), self._faults, _path_of(fd))

    def fsync(self, fd: int) -> None:
        path = _path_of(fd)
        self._faults.op("fsync", path)
        os.fsync(fd)
        self._faults.unsynced.discard(path)

    def link(self, src: Any, dst: Any) -> None:
        self._faults.op("link", str(dst))
        os.link(src, dst)

    def rename(self, src: Any, dst: Any) -> None:
        self._faults.op("rename", str(dst))
        os.rename(src, dst)
        self._faults.moved(str(src), str(dst))

    def replace(self, src: Any, dst: Any) -> None:
        self._faults.op("replace", str(dst))
        os.replace(src, dst)
        self._faults.moved(str(src), str(dst))


def _setup(tmp_path: Path) -> tuple[Path, str, bytes]:
    db = tmp_path / "matches.json"
    with Repository.open(db) as repo:
        m = repo.create_match(["Ann", "Bob", "Cy"])
        repo.add_round(m.id, penalties={"Ann": 3, "Bob": 4}, out="Cy")
    return db, m.id, db.read_bytes()


def _rounds(db: Path, mid: str) -> int:
    with Repository.open(db) as repo:
        assert repo.check() == []
        return len(repo.get(mid).rounds)


def _round_cli(db: Path, mid: str) -> list[str]:
    return ["match", "round", mid, "--penalty", "Ann=5", "Cy=6", "--out", "Bob", "--db", str(db)]


def test_every_failing_write_fsync_link_rename_and_replace_leaves_old_or_new(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    seen_ops: list[str] = []
    k = 0
    while True:
        k += 1
        case = tmp_path / f"case{k}"
        case.mkdir()
        db, mid, old = _setup(case)
        faults = Faults(fail_at=k)
        monkeypatch.setattr(safe_json, "os", _Os(faults))
        code = main(_round_cli(db, mid))
        monkeypatch.setattr(safe_json, "os", os)
        _, err = capsys.readouterr()
        if faults.count < k:  # the save made fewer than k operations: every one has failed once
            assert code == 0 and _rounds(db, mid) == 2
            seen_ops = faults.done
            break
        if code == 2:
            lines = err.strip().splitlines()
            assert len(lines) == 1 and "the previous state is kept" in lines[0], err
            assert db.read_bytes() == old, f"operation {k} failed, the file changed"
        else:  # a failure after the new file was in place (the folder's fsync): it is saved
            assert code == 0, err
            assert _rounds(db, mid) == 2
    assert {"write", "fsync", "replace"} <= set(seen_ops), seen_ops
    assert k - 1 == len(seen_ops) >= 5  # write, fsync, backup link, backup rename, replace, ...


def test_a_power_cut_at_every_operation_loses_only_the_unsynced_new_data(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    k = 0
    outcomes = set()
    while True:
        k += 1
        case = tmp_path / f"case{k}"
        case.mkdir()
        db, mid, old = _setup(case)
        faults = Faults(fail_at=k, power_cut=True)
        monkeypatch.setattr(safe_json, "os", _Os(faults))
        try:
            with Repository.open(db) as repo:
                repo.add_round(mid, penalties={"Ann": 5, "Cy": 6}, out="Bob")
        except PowerCut:
            pass
        finally:
            monkeypatch.setattr(safe_json, "os", os)
        if faults.lost is None:
            assert _rounds(db, mid) == 2
            break
        for path in faults.lost:  # what was written but never fsynced is gone after the cut
            if os.path.exists(path):
                os.truncate(path, 0)
        rounds = 1 if db.read_bytes() == old else _rounds(db, mid)
        assert rounds in (1, 2), f"power cut at operation {k}"
        outcomes.add(rounds)
    assert outcomes == {1, 2}  # both an early and a late cut were tried
