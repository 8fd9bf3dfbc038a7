"""Benchmark: simulated Chicken Foot rounds per second on one core (not a test).

Default: 4 players, double-chicken-foot (double-9, 11 tiles each), every round of the match in
turn (9-9 down to 0-0), greedy and random bots. Target: 5,800 rounds per CPU-second or more with
``--rules pagat --players 4 --bot random`` (double-9, 7 tiles each).

    python benchmarks/bench_rules.py [--rules NAME] [--players N] [--bot greedy|random|both]
                                     [--rounds 5000] [--repeat 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chickenfoot.rules import BOTS, get_rules, make_bot, new_round, play_out


def pin_one_core() -> str:
    """Run on one core so the figure means 'one core of this machine'."""
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[-1]})
        return f"pinned to core {cores[-1]}"
    return "not pinned (no sched_setaffinity here)"


def run(rules_name: str, players: int, bot: str, rounds: int, seed: int) -> tuple[float, float, int]:
    rules = get_rules(rules_name)
    doubles = len(rules.round_doubles(players))
    rng = random.Random(seed)
    bots = [make_bot(bot, random.Random(seed + s)) for s in range(players)]
    actions = 0
    start, cpu = time.perf_counter(), time.process_time()
    for i in range(rounds):
        state = play_out(new_round(rules, players, i % doubles, rng), bots)
        actions += len(state.history)
    return time.perf_counter() - start, time.process_time() - cpu, actions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="double-chicken-foot")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bot", choices=(*BOTS, "both"), default="both",
                    help="bot for every seat; both: greedy, then random")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    where = pin_one_core()
    top = get_rules(args.rules).set_for(args.players)
    print(f"{args.rules}, {args.players} players, double-{top}; {args.rounds} rounds x "
          f"{args.repeat} runs; {where}; Python {sys.version.split()[0]}")
    bots = ("greedy", "random") if args.bot == "both" else (args.bot,)
    for bot in bots:
        rates, cpu_rates, per_action = [], [], []
        for r in range(args.repeat):
            secs, cpu, actions = run(args.rules, args.players, bot, args.rounds, args.seed + r)
            rates.append(args.rounds / secs)
            cpu_rates.append(args.rounds / cpu)
            per_action.append(secs / actions * 1e6)
        # Wall-clock is what a user sees; CPU time shows what the core did when the machine is
        # shared (other processes on the same core make wall-clock figures drop).
        print(f"{bot:>6} bots: {statistics.median(rates):8.0f} rounds/s wall-clock median "
              f"(best {max(rates):.0f}, worst {min(rates):.0f}); "
              f"{statistics.median(cpu_rates):.0f} rounds per CPU-second; "
              f"{statistics.median(per_action):.1f} us per action")


if __name__ == "__main__":
    main()
