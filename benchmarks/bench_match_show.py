"""How long `match show` takes on a history of 1,000 finished matches (target: under 100 ms).

Builds the history in a temporary TinyDB file through the real repository, then prints:
  * the file size,
  * `match show` in-process, cold (open the file, parse it, find the match, build the view,
    dump JSON) and warm (an open repository, file unchanged: only a stat and the view),
  * one saved change, and one key typed into a round being entered (the app keeps the round
    being entered in the file, so every key is a save),
  * `chickenfoot match show ID --json` as a real process (Python start-up included), and a bare
    `python -c pass` for reference,
each as the median over repeats.

    .venv/bin/python benchmarks/bench_match_show.py [--matches 1000] [--repeats 15]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chickenfoot.match import Match, match_view  # noqa: E402
from chickenfoot.rules import full_set, get_rules  # noqa: E402
from chickenfoot.storage import Repository  # noqa: E402

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
SETUPS = [("double-chicken-foot", 4), ("double-chicken-foot", 6), ("double-chicken-foot", 8),
          ("gameweave", 3), ("pagat", 5), ("chickie-sixes", 2)]


def finished_match(rng: random.Random, k: int) -> Match:
    preset, n = SETUPS[k % len(SETUPS)]
    m = Match.new(NAMES[:n], get_rules(preset), now=f"2026-{1 + k % 12:02d}-01T20:00:00+00:00")
    while not m.is_over:
        d = m.current_double
        assert d is not None
        pool = [t for t in full_set(m.set_top) if not (t.is_double and t.low == d)]
        rng.shuffle(pool)
        out = rng.randrange(n)
        tiles: dict[str, list[str]] = {}
        pens: dict[str, int] = {}
        for s, name in enumerate(m.players):
            if s == out:
                continue
            if rng.random() < 0.5:  # half the hands entered as tiles, half as numbers
                tiles[name] = [str(pool.pop()) for _ in range(rng.randint(0, 4))]
            else:
                pens[name] = rng.randint(0, 60)
        holder = m.players[rng.randrange(n)] if m.rules.start.value == "holder" else None
        m = m.add_round(penalties=pens, tiles=tiles, out=m.players[out], holder=holder,
                        now="2026-06-01T21:00:00+00:00")
    return m


def median_ms(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    rng = random.Random(7)

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "history.json"
        t0 = time.perf_counter()
        matches = [finished_match(rng, k) for k in range(args.matches)]
        with Repository.open(db) as repo:
            repo.import_matches(matches)
            assert len(repo) == args.matches
        build_s = time.perf_counter() - t0
        target = matches[len(matches) // 2].id
        size = db.stat().st_size
        rounds = sum(len(m.rounds) for m in matches)
        print(f"history: {args.matches} finished matches, {rounds} rounds, built in {build_s:.1f} s")
        print(f"file size: {size / 1e6:.2f} MB ({size / args.matches:.0f} bytes per match)")

        def show_cold() -> None:
            with Repository.open(db) as r:
                json.dumps(match_view(r.get(target[:8])))

        warm_repo = Repository.open(db)

        def show_warm() -> None:
            json.dumps(match_view(warm_repo.get(target[:8])))

        def list_warm() -> None:
            warm_repo.list_matches()

        active = warm_repo.create_match(["Ann", "Bob", "Cy"], options={"match_length": "full"})

        def save_round() -> None:  # one atomic save (encode, fsync, backup link, rename)
            warm_repo.add_round(active.id, penalties={"Ann": 3, "Bob": 4}, out="Cy")
            warm_repo.undo(active.id)

        cold = median_ms(show_cold, args.repeats)
        warm = median_ms(show_warm, args.repeats)
        listing = median_ms(list_warm, args.repeats)
        print(f"in-process `match show` cold (open + parse file + view): {cold:.1f} ms median")
        print(f"in-process `match show` warm (file unchanged):           {warm:.2f} ms median")
        print(f"in-process `match list` warm (1,000 rows):                {listing:.1f} ms median")
        saving = median_ms(save_round, max(5, args.repeats // 2)) / 2
        print(f"in-process save of one change (round or undo):            {saving:.1f} ms median")
        draft = warm_repo.open_draft(active.id)
        keys = iter(range(10**6))

        def type_key() -> None:  # what one key on the app's number pad costs: a stored draft
            k = next(keys)
            warm_repo.change_draft(draft.id, lambda d: {**d.data, "pad": k})

        keying = median_ms(type_key, args.repeats)
        print(f"in-process key typed into a round being entered (draft):  {keying:.1f} ms median")

        def cli() -> None:
            subprocess.run([sys.executable, "-m", "chickenfoot", "match", "show", target[:8],
                            "--json", "--db", str(db)], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL)

        def bare() -> None:
            subprocess.run([sys.executable, "-c", "pass"], check=True)

        def parser_only() -> None:  # start-up of the CLI itself: every area's command module
            subprocess.run([sys.executable, "-c", "from chickenfoot.cli.main import build_parser;"
                            " build_parser()"], cwd=ROOT, check=True)

        n = max(5, args.repeats // 2)
        cli_ms, bare_ms, parser_ms = median_ms(cli, n), median_ms(bare, n), median_ms(parser_only, n)
        print(f"real CLI `chickenfoot match show ID --json`:              {cli_ms:.0f} ms median")
        print(f"  of which Python start-up (`python -c pass`):            {bare_ms:.0f} ms")
        print(f"  of which CLI start-up, all areas' imports, no file work: {parser_ms:.0f} ms "
              f"(python + imports)")

        if os.environ.get("PYTHONDONTWRITEBYTECODE") or sys.dont_write_bytecode:
            # no .pyc cache: every run compiles each imported source again (about 65 ms of a
            # CLI run measured here); an installed app caches bytecode after its first run
            print("note: PYTHONDONTWRITEBYTECODE is set, so every run above compiled its imports; "
                  "rerun with `env -u PYTHONDONTWRITEBYTECODE` for what an installed CLI takes")

        def verdict(ms: float) -> str:
            return "met" if ms < 100 else "MISSED"

        print(f"target < 100 ms: in-process cold {verdict(cold)}; real CLI {verdict(cli_ms)} "
              f"(the CLI's start-up alone, before any file work, is {parser_ms:.0f} ms)")
        warm_repo.close()


if __name__ == "__main__":
    main()
