"""Seeded simulation outputs recorded as golden files, so a faster rules core is proven to play
exactly the same matches (same deals, same bot choices, same records) rather than assumed to.

``python tests/rules/golden_cases.py --write`` records them; only run it when a change is meant
to alter seeded results (and say so in the commit).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Through the package: importing the submodule chickenfoot.rules.simulate would make the package's
# name ``simulate`` the module, not the function, for every test collected after this one.
from chickenfoot.rules import PRESETS, get_rules, simulate  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden"
SUMMARY = GOLDEN / "simulate.json"

#: (preset, options, player counts) covering every start, missing-double and draw policy.
SETUPS: tuple[tuple[str, dict[str, str], tuple[int, ...]], ...] = (
    ("double-chicken-foot", {}, (2, 3, 4, 5, 6, 7, 8)),
    ("gameweave", {}, (2, 4, 6)),
    ("pagat", {}, (2, 3, 4, 7, 8)),
    ("chickie-sixes", {}, (2,)),
    ("chickie-sixes", {"missing-double": "draw-until-found", "zero-zero": "25"}, (2,)),
    ("pagat", {"draw": "draw-until-playable", "missing-double": "skip"}, (3, 5)),
    ("pagat", {"draw": "must-play", "missing-double": "next-highest", "toes": "2"}, (4,)),
    ("gameweave", {"start": "centre", "first-player": "rotate", "spokes": "3"}, (3,)),
    ("double-chicken-foot", {"end-when-foot-dead": "true", "loss-total": "150"}, (4,)),
    ("double-chicken-foot", {"set": "6", "hand-size": "5", "match-length": "half"}, (3,)),
)
SEEDS = (0, 1, 7, 2024)
BOTS = ("greedy", "random")
#: Cases whose whole record is kept too, so a difference can be found turn by turn.
FULL = (("pagat", "", 4, 1, "random"), ("double-chicken-foot", "", 4, 0, "greedy"),
        ("gameweave", "", 3, 7, "greedy"), ("chickie-sixes", "", 2, 1, "random"))


def case_id(preset: str, options: dict[str, str], players: int, seed: int, bot: str) -> str:
    opts = ",".join(f"{k}={v}" for k, v in sorted(options.items()))
    return f"{preset}[{opts}] n={players} seed={seed} {bot}"


def cases() -> list[tuple[str, str, dict[str, str], int, int, str]]:
    out = []
    for preset, options, counts in SETUPS:
        for n in counts:
            for seed in SEEDS:
                for bot in BOTS:
                    out.append((case_id(preset, options, n, seed, bot), preset, options, n, seed, bot))
    return out


def record(preset: str, options: dict[str, str], players: int, seed: int, bot: str,
           matches: int = 2) -> dict[str, Any]:
    """What ``chickenfoot simulate --rules P -o K=V --players N --seed S --matches M --bot B --json``
    prints."""
    return simulate(get_rules(preset, options or None), players, seed, matches, bot)


#: A preset's words for people (its title, source, summary) are not what a simulation plays.
WORDS = ("title", "source", "summary", "notes")


def canonical(data: Any) -> str:
    """The record as compared: every field but the rules' words for people."""
    plain = {**data, "rules": {k: v for k, v in data["rules"].items() if k not in WORDS}}
    return json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def summary(data: dict[str, Any]) -> dict[str, Any]:
    """A readable digest of a record: the hash of all of it plus what a failure should show."""
    return {
        "sha256": hashlib.sha256(canonical(data).encode()).hexdigest(),
        "totals": [m["totals"] for m in data["matches"]],
        "turns": [sum(len(r["turns"]) for r in m["rounds"]) for m in data["matches"]],
    }


def full_path(preset: str, players: int, seed: int, bot: str) -> Path:
    return GOLDEN / f"{preset}-n{players}-s{seed}-{bot}.json"


def write() -> None:
    GOLDEN.mkdir(exist_ok=True)
    table = {cid: summary(record(p, o, n, s, b)) for cid, p, o, n, s, b in cases()}
    lines = [f"{json.dumps(cid)}: {json.dumps(table[cid], sort_keys=True)}" for cid in sorted(table)]
    SUMMARY.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    for preset, _, n, s, b in FULL:
        full_path(preset, n, s, b).write_text(canonical(record(preset, {}, n, s, b, 1)) + "\n", encoding="utf-8")
    print(f"wrote {len(table)} summaries and {len(FULL)} full records under {GOLDEN}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="record the golden files from this code")
    if ap.parse_args().write:
        assert set(PRESETS) == {s[0] for s in SETUPS}
        write()
