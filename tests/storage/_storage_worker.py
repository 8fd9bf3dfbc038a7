"""A writer process for the crash and concurrency tests (run as a script, not collected).

usage: _storage_worker.py DB forever
           create matches until killed
       _storage_worker.py DB create N THREADS
           each thread creates N matches (each thread with its own repository)
       _storage_worker.py DB shared ID THREADS
           threads share one repository and add rounds to match ID until it is over;
           prints how many adds succeeded
       _storage_worker.py DB commit DRAFT_ID THREADS GO_FILE
           threads (each with its own repository) wait for GO_FILE to exist, then all save
           round draft DRAFT_ID at once; prints one outcome per thread
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from chickenfoot.match import MatchStateError
from chickenfoot.storage import Repository


def main() -> None:
    db, mode = sys.argv[1], sys.argv[2]
    if mode == "forever":
        repo = Repository.open(db)
        print("ready", flush=True)
        while True:
            repo.create_match(["Ann", "Bob", "Cy"])
    elif mode == "create":
        n, threads = int(sys.argv[3]), int(sys.argv[4])

        def create() -> None:
            with Repository.open(db) as repo:
                for _ in range(n):
                    repo.create_match(["Ann", "Bob"])

        ts = [threading.Thread(target=create) for _ in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        print("done", flush=True)
    elif mode == "shared":
        mid, threads = sys.argv[3], int(sys.argv[4])
        repo = Repository.open(db)
        count = [0]
        lock = threading.Lock()

        def add() -> None:
            while True:
                try:
                    repo.add_round(mid, penalties={"Ann": 1}, out="Bob")
                except MatchStateError:
                    return
                with lock:
                    count[0] += 1

        ts = [threading.Thread(target=add) for _ in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        print(count[0], flush=True)
    elif mode == "commit":
        draft_id, threads, go = sys.argv[3], int(sys.argv[4]), Path(sys.argv[5])
        repos = [Repository.open(db) for _ in range(threads)]
        outcomes: list[str] = []
        barrier = threading.Barrier(threads)

        def save(repo: Repository, k: int) -> None:
            barrier.wait()
            while not go.exists():
                time.sleep(0.001)
            c = repo.commit_draft(draft_id, lambda m, d: m.add_round(penalties={"Ann": 5}, out="Bob"),
                                  by=f"{sys.argv[6] if len(sys.argv) > 6 else 'p'}-{k}")
            with lock:
                outcomes.append(f"{c.outcome.value} {c.draft.saved_by}")

        lock = threading.Lock()
        print("ready", flush=True)
        ts = [threading.Thread(target=save, args=(r, k)) for k, r in enumerate(repos)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        print("\n".join(outcomes), flush=True)


if __name__ == "__main__":
    main()
