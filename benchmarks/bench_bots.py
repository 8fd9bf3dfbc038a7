"""Win rates of the bots against each other (not a test): how much stronger is each bot?

Every round is dealt from a seed and played once per seating, so every bot plays every hand of
the same deals (the seat of the bot under test moves round the table). A round is won by the
lowest penalty (a tie splits the win); equal bots would each win 1 / players of the rounds.

    python benchmarks/bench_bots.py [--rules pagat] [--players 4] [--rounds 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chickenfoot.rules import get_rules, make_bot, new_round, play_out

#: (bot under test, the bot in every other seat)
MATCHUPS = (("greedy", "random"), ("lookahead", "random"), ("lookahead", "greedy"))


def duel(rules_name: str, players: int, hero: str, rest: str, rounds: int, seed: int) -> dict[str, float]:
    rules = get_rules(rules_name)
    doubles = len(rules.round_doubles(players))
    wins, pens, others = 0.0, [], []
    for r in range(rounds):
        seat = r % players  # the hero's seat moves round the table
        deal = random.Random(f"{seed}:{r // players}")
        state = new_round(rules, players, (r // players) % doubles, deal)
        bots = [make_bot(hero if s == seat else rest, random.Random(f"{seed}:{r}:{s}")) for s in range(players)]
        p = play_out(state, bots).penalties()
        low = min(p)
        if p[seat] == low:
            wins += 1 / p.count(low)
        pens.append(p[seat])
        others.append(statistics.mean(x for s, x in enumerate(p) if s != seat))
    return {"win": wins / rounds, "penalty": statistics.mean(pens), "others": statistics.mean(others)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="pagat")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=200, help="rounds per match-up (default 200)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    even = 1 / args.players
    print(f"{args.rules}, {args.players} players, {args.rounds} rounds per match-up, seed {args.seed}; "
          f"an even bot wins {even:.0%} of rounds")
    for hero, rest in MATCHUPS:
        start = time.process_time()
        d = duel(args.rules, args.players, hero, rest, args.rounds, args.seed)
        print(f"{hero:>9} vs {args.players - 1} x {rest:<7}: wins {d['win']:6.1%} of rounds "
              f"({d['win'] / even:.2f}x even); mean penalty {d['penalty']:5.1f} vs {d['others']:5.1f} "
              f"for the others; {time.process_time() - start:5.1f} CPU s")


if __name__ == "__main__":
    main()
