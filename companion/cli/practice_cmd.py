"""``chickenfoot practice``: a practice round against bots, played from the keyboard or a script.

Moves come from ``--moves "9-4 on 9-9; draw; pass"`` or, one per line, from standard input:
``TILE on TILE`` (or ``TILE TILE``), ``draw``, ``pass``, ``hint``, ``hand``, ``quit``; a line may
also be JSON: ``{"play": "9-4", "on": "9-9"}``, ``{"action": "draw"}``. The bots play their
turns in between. A move the rules forbid is refused with the rules core's reason: from
standard input the next line is read; from ``--moves`` it ends the command with exit 1. When
the moves run out the state is printed; ``--json`` prints it as JSON (one object per line of
standard input). ``--match`` goes on to the next round, scored as a match, when a round ends.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from chickenfoot.cli.main import (
    EXIT_FAIL,
    EXIT_OK,
    add_option_arg,
    emit,
    error_line,
    option_args,
    write_outputs,
)
from chickenfoot.rules.errors import IllegalPlayError, InputError

_MOVE = re.compile(r"^\s*(?:play\s+)?(\S+)\s+(?:on\s+)?(\S+)\s*$", re.IGNORECASE)


def register(sub: Any) -> None:
    from chickenfoot.rules.ruleset import DEFAULT_PRESET

    p = sub.add_parser("practice", help="practise a round against bots",
                       description=__doc__.split("\n\n")[1].replace("``", "") if __doc__ else None)
    p.add_argument("--rules", metavar="NAME", default=DEFAULT_PRESET, help=f"rules preset (default {DEFAULT_PRESET})")
    add_option_arg(p)
    p.add_argument("--players", "-n", type=int, default=4, metavar="N", help="seats, 2-8 (default 4)")
    p.add_argument("--bots", metavar="SEATS", help="the seats bots play, e.g. 1,2,3 (default: every seat but 0)")
    p.add_argument("--bot", default="greedy", metavar="NAME",
                   help="how the bots play: random, greedy or lookahead (default greedy)")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="seed of the deal (default: random)")
    p.add_argument("--moves", metavar="MOVES", help="moves separated by ';' instead of standard input")
    p.add_argument("--match", action="store_true", help="continue as a match when a round ends")
    p.add_argument("--draw", metavar="OUT", help="write the table at the end, OUT.svg or OUT.png")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_practice)


def _seats(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(x) for x in text.replace(" ", "").split(",") if x != ""]
    except ValueError:
        raise InputError(f"--bots takes seat numbers like 1,2,3, not {text!r}") from None


def parse_move(line: str) -> tuple[str, str | None, str | None]:
    """A move line as (kind, tile, on): kind is play, draw, pass, hint, hand, board or quit."""
    text = line.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            raise InputError(f"cannot read the move {text!r} as JSON") from None
        if not isinstance(data, dict):
            raise InputError(f"a JSON move is an object like {{\"play\": \"9-4\", \"on\": \"9-9\"}}, not {text!r}")
        if "play" in data:
            return "play", str(data["play"]), str(data.get("on", ""))
        text = str(data.get("action", ""))
    word = text.lower()
    if word in ("draw", "pass", "hint", "hand", "board", "quit"):
        return word, None, None
    m = _MOVE.match(text)
    if m:
        return "play", m.group(1), m.group(2)
    raise InputError(f"cannot read the move {text!r}: write TILE on TILE, draw, pass, hint or quit")


def state_lines(practice: Any) -> list[str]:
    """The table, the hands' sizes, and the person's hand and choices (or the round's result)."""
    from chickenfoot.rules.layout import check_layout

    s = practice.state
    lines = check_layout(s.layout(), s.rules).summary_lines()[1:4]
    sizes = ", ".join(f"{seat.name} {n}" for seat, n in zip(practice.seats, practice.hand_sizes(), strict=True))
    lines.append(f"Tiles in hand: {sizes}; boneyard {practice.boneyard}.")
    if practice.over:
        m = practice.scored()
        pens = ", ".join(f"{seat.name} {p}" for seat, p in zip(practice.seats, m.rounds[-1].penalties, strict=True))
        lines.append(f"Round {practice.round_index + 1} over. Penalties: {pens}.")
        if len(m.rounds) > 1 or m.is_over:
            lines.append("Totals: " + ", ".join(f"{n} {t}" for n, t in zip(m.players, m.totals(), strict=True))
                         + (f"; winner: {', '.join(m.winners)}" if m.is_over else ""))
    elif practice.waiting:
        seat = practice.to_act
        lines.append(f"{practice.seats[seat].name}: " + " ".join(str(t) for t in practice.hand(seat)))
        drawn = practice.drawn
        options = ["TILE on TILE" if practice.hint() else None, "draw" if practice.can_draw else None,
                   "pass" if practice.can_pass else None]
        lines.append((f"You drew {drawn}. " if drawn else "") + "Your move: "
                     + ", ".join(o for o in options if o) + " (or hint).")
    return lines


def _apply(practice: Any, kind: str, tile: str | None, on: str | None) -> tuple[Any, list[str]]:
    """Do one move; returns the practice to go on with (the next round after an end with
    --match is the caller's) and lines to print."""
    if kind == "hint":
        plays = practice.hint()
        return practice, ["Hint: " + (", ".join(f"{p.tile} on {practice.state.table.show(p.target)}" for p in plays)
                                      or "no tile fits; " + ("draw." if practice.can_draw else "pass."))]
    if kind == "hand":
        return practice, [" ".join(str(t) for t in practice.hand())]
    if kind == "play":
        practice.play(tile, on)
    elif kind == "draw":
        practice.draw()
    elif kind == "pass":
        practice.pass_turn()
    return practice, []


def cmd_practice(args: argparse.Namespace) -> int:
    from chickenfoot.cli.rules_cmd import drawing_bytes, drawing_file
    from chickenfoot.practice import Practice
    from chickenfoot.rules.ruleset import get_rules

    draw_to = drawing_file(args.draw) if args.draw else None
    rules = get_rules(args.rules, option_args(args))
    practice = Practice.new(rules, args.players, bots=_seats(args.bots), bot=args.bot, seed=args.seed)
    # From --moves the whole script is checked and the outcome printed once; from standard
    # input every move is answered as it comes, as at a prompt.
    scripted = args.moves is not None
    moves = [m for m in re.split(r"[;\n]", args.moves) if m.strip()] if scripted else sys.stdin
    refused: dict[str, str] | None = None
    told = [e.text for e in practice.events]  # what happened, in order
    seen = len(practice.events)
    if not scripted:
        _say(practice, args.json, told, None)
        told = []
    for raw in moves:
        if not raw.strip():
            continue
        if practice.over:
            if not (args.match and not practice.scored().is_over):
                break
            practice, seen = practice.next_round(), 0
            told.append(f"Round {practice.round_index + 1}:")
        refused = None
        try:
            kind, tile, on = parse_move(raw)
            if kind == "quit":
                break
            practice, lines = _apply(practice, kind, tile, on)
            told += lines
        except IllegalPlayError as exc:
            refused = {"move": raw.strip(), "code": exc.reason, "message": str(exc)}
            told.append(f"Not allowed [{exc.reason}]: {exc}")
        except InputError as exc:
            if scripted:
                raise
            told.append(error_line(str(exc)))
        told += [e.text for e in practice.events[seen:]]
        seen = len(practice.events)
        if refused and scripted:
            break
        if not scripted:
            _say(practice, args.json, told, refused)
            told = []
    if draw_to is not None:
        write_outputs([(draw_to, drawing_bytes(practice.board(), draw_to))])
        told.append(f"drawing written to {args.draw}")
    if scripted:
        data = practice.to_dict() | ({"refused": refused} if refused else {})
        if args.draw:
            data["drawing"] = args.draw
        emit(data, args.json, "\n".join([*told, *state_lines(practice)]))
    elif told and not args.json:
        emit(None, False, "\n".join(told))
    return EXIT_FAIL if scripted and refused else EXIT_OK


def _say(practice: Any, as_json: bool, told: list[str], refused: dict[str, str] | None) -> None:
    """Answer one move at the prompt: what happened and the new state (with --json, the state
    as one JSON object on one line)."""
    if as_json:
        sys.stdout.write(json.dumps(practice.to_dict() | ({"refused": refused} if refused else {}),
                                    ensure_ascii=False) + "\n")
    else:
        sys.stdout.write("\n".join([*told, *state_lines(practice)]) + "\n")
    sys.stdout.flush()


__all__ = ["cmd_practice", "parse_move", "register"]
