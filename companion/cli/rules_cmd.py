"""``chickenfoot rules``, ``check`` and ``simulate``: the rules core on the command line.

Exit codes: 0 legal / done, 1 the layout or the play breaks a rule (a play on a tile that is not
on the table too), 2 unusable input (bad file, bad JSON, unknown preset, a tile that is not in the
set, a drawing that cannot be written), always with a one-line message and never a traceback.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chickenfoot.cli.main import (
    EXIT_FAIL,
    EXIT_OK,
    add_option_arg,
    emit,
    option_args,
    output_file,
    write_outputs,
)
from chickenfoot.rules.errors import InputError, TileNotInSetError
from chickenfoot.rules.ruleset import (
    DEFAULT_PRESET,
    OPTIONS,
    PRESETS,
    RuleSet,
    changed_options,
    get_rules,
    option_value,
    parse_option,
)
from chickenfoot.rules.tiles import Tile

# chickenfoot.rules.bots.BOTS by name (that module is the round engine's, too slow to import for
# every command's parser; tests/cli check the two agree)
BOT_NAMES = ("random", "greedy", "lookahead")
#: The most matches one ``simulate`` plays, by bot. Every match is held in memory until printed,
#: and a look-ahead match costs a hundred greedy ones: measured here, a greedy match takes about
#: 20 ms (200 in 4 s with --json, 100 MB), a look-ahead one 2-7 s (5 in 10-35 s); a mistyped
#: count must not run for hours or fill the memory.
MAX_MATCHES = {"random": 200, "greedy": 200, "lookahead": 5}


def register(sub: Any) -> None:
    p = sub.add_parser("rules", help="list the rule presets, or show one in full",
                       description="List the rule presets, or show one in full.")
    p.add_argument("name", nargs="?", help="preset to show (omit to list them all)")
    add_option_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_rules)

    c = sub.add_parser("check", help="check a layout file; judge one play with --play/--on",
                       description="Check every rule of a layout file at once and list its open "
                       "ends; with --play TILE --on TILE, judge that one play. Exit 0 legal, 1 not, "
                       "2 unusable input.")
    c.add_argument("layout", metavar="LAYOUT.json", help="the layout file")
    c.add_argument("--rules", metavar="NAME", help="rules preset (default: the file's, with the "
                   f"options it carries, else {DEFAULT_PRESET})")
    c.add_argument("--play", metavar="TILE", help="a tile to judge, e.g. 4-7")
    c.add_argument("--on", metavar="TILE", help="the tile on the table it is laid against")
    add_option_arg(c)
    c.add_argument("--draw", metavar="OUT", help="write the table as a picture, OUT.svg or OUT.png "
                   "(with --play, the play drawn in place)")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(func=cmd_check)

    s = sub.add_parser("simulate", help="simulate matches with seeded bots",
                       description="Simulate matches with seeded bots. The same seed always "
                       "prints the same output.")
    s.add_argument("--rules", metavar="NAME", default=DEFAULT_PRESET,
                   help=f"rules preset (default {DEFAULT_PRESET})")
    s.add_argument("--players", "-n", type=int, metavar="N",
                   help="players (default 4, or the nearest count the rules allow)")
    s.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    s.add_argument("--matches", type=int, default=1, metavar="M",
                   help=f"matches (default 1; at most {MAX_MATCHES['greedy']}, "
                   f"{MAX_MATCHES['lookahead']} with lookahead bots)")
    s.add_argument("--bot", choices=BOT_NAMES, default="greedy",
                   help="bot for every seat: random, greedy or lookahead (default greedy)")
    add_option_arg(s)
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_simulate)


def _rules_with_options(name: str, options: list[str]) -> RuleSet:
    return get_rules(name, dict(parse_option(o) for o in options) if options else None)


def _options_as_typed(rules: RuleSet) -> dict[str, Any]:
    """Every option of ``rules`` as ``--option`` takes it (``zero-zero``, not ``zero_zero``)."""
    return {o.name: option_value(getattr(rules, o.key)) for o in OPTIONS.values()}


def _typed(value: Any) -> str:
    """An option's value as ``-o KEY=VALUE`` takes it: ``true``, ``none``, ``25``."""
    return "none" if value is None else str(value).lower()


# ------------------------------------------------------------------------------- rules
def cmd_rules(args: argparse.Namespace) -> int:
    if args.name is None:
        if args.option:
            raise InputError("--option needs a preset name: chickenfoot rules NAME --option KEY=VALUE")
        rows = [{"name": r.name, "title": r.title, "source": r.source, "summary": r.summary}
                for r in PRESETS.values()]
        width = max(len(r["name"]) for r in rows)
        text = "\n".join(f"{r['name']:<{width}}  {r['title']}: {r['summary']} Source: {r['source']}."
                         for r in rows)
        emit(rows, args.json, text)
        return EXIT_OK
    rules = _rules_with_options(args.name, args.option)
    data = {**rules.to_dict(), "options": _options_as_typed(rules),
            "changed_options": changed_options(rules), "describe": rules.describe()}
    lines = [f"{rules.title}, preset {rules.name}", f"Source: {rules.source}" if rules.source else ""]
    changed = changed_options(rules)
    if changed:
        lines.append("Options changed: " + ", ".join(f"{k}={_typed(v)}" for k, v in changed.items()))
    lines = [x for x in lines if x] + [f"- {s}" for s in rules.describe()]
    lines += ["", "Options (change one with -o KEY=VALUE; these are this preset's values):"]
    values = _options_as_typed(rules)
    lines += [f"  {o.name}={_typed(values[o.name])}: {o.help} [{o.allowed()}]" for o in OPTIONS.values()]
    emit(data, args.json, "\n".join(lines))
    return EXIT_OK


# ------------------------------------------------------------------------------- check
def cmd_check(args: argparse.Namespace) -> int:
    # imported here, not at the top: every command builds this module's parser
    from chickenfoot.rules.layout import NOT_IN_SET, Layout, check_layout, resolve_rules, resolve_set
    from chickenfoot.rules.tiles import check_in_set

    if (args.play is None) != (args.on is None):
        raise InputError("--play and --on go together: --play 4-7 --on 9-4")
    draw_to = drawing_file(args.draw, [args.layout]) if args.draw else None
    layout = Layout.load(args.layout)
    rules = resolve_rules(layout, args.rules)
    if args.option:
        rules = rules.with_options(option_args(args))
    play = None if args.play is None else (Tile.parse(args.play), Tile.parse(args.on))
    # the tile played is in someone's hand: a file naming no set is of a set that holds it
    report = check_layout(layout, rules, holding=play[:1] if play else ())
    bad = [p for p in report.problems if p.code == NOT_IN_SET]
    if bad:
        raise TileNotInSetError(f"{args.layout}: " + "; ".join(p.message for p in bad))
    data = report.to_dict()
    lines = report.summary_lines()
    ok = report.legal
    if play is not None:
        check_in_set(play[1], report.set)  # a tile no set of this table holds is bad input, not a verdict
        verdict = report.judge(*play)
        if verdict.code == NOT_IN_SET:
            raise InputError(verdict.message)
        data["play"] = verdict.to_dict()
        if layout.set is None and rules.set is None and (alone := resolve_set(layout, rules)) != report.set:
            # a mistyped tile would otherwise pass for a bigger set without a word
            data["set_note"] = note = (
                f"The layout names no set, so {play[0]} makes it a double-{report.set} set; in a "
                f"double-{alone} set there is no {play[0]} (write \"set\": {alone} in the file to judge it so).")
            lines.append(note)
        lines.append(play_line(report, verdict))
        ok = ok and verdict.legal
    if draw_to is not None:
        write_outputs([(draw_to, report_drawing(report, play, draw_to))])
        data["drawing"] = args.draw
        lines.append(f"drawing written to {args.draw}")
    emit(data, args.json, "\n".join(lines))
    return EXIT_OK if ok else EXIT_FAIL


def play_line(report: Any, verdict: Any) -> str:
    """One judged play for people: "Play 4-7 on 9-4: legal [ok] 4-7 can go on ..." """
    t = report.table
    return (f"Play {t.show(verdict.tile, t.value.get(verdict.on))} on {t.show(verdict.on)}: "
            f"{'legal' if verdict.legal else 'not legal'} [{verdict.code}] {verdict.message}")


def drawing_file(text: str, inputs: Sequence[str] = ()) -> Path:
    """Where ``--draw`` will write, checked before any work (see :func:`output_file`)."""
    from chickenfoot.board import FORMATS

    return output_file(text, "--draw", tuple(FORMATS), inputs=inputs)


def drawing_bytes(board: Any, path: Path) -> bytes:
    """A :class:`chickenfoot.board.Board` as a picture of ``path``'s kind."""
    from chickenfoot.board import picture

    pic = picture(board)
    return pic.svg().encode("utf-8") if path.suffix.lower() == ".svg" else pic.png()


def report_drawing(report: Any, play: tuple[Tile, Tile] | None, path: Path) -> bytes:
    """The checked table, and the judged play drawn in place."""
    from chickenfoot.board import from_report

    return drawing_bytes(from_report(report, play), path)


# ---------------------------------------------------------------------------- simulate
def cmd_simulate(args: argparse.Namespace) -> int:
    from chickenfoot.rules.simulate import simulate

    if args.matches < 1:
        raise InputError(f"--matches must be 1 or more, not {args.matches}")
    cap = MAX_MATCHES[args.bot]
    if args.matches > cap:
        raise InputError(f"--matches {args.matches} is more than {cap}, the most one simulate plays with "
                         f"{args.bot} bots; for more, run it again with other --seed values")
    rules = _rules_with_options(args.rules, args.option)
    players = args.players
    if players is None:
        players = min(max(4, rules.min_players), rules.max_players)
    rules.check_players(players)
    data = simulate(rules, players, args.seed, args.matches, args.bot)
    emit(data, args.json, None if args.json else "\n".join(_simulate_lines(data)))
    return EXIT_OK


def _simulate_lines(data: dict[str, Any]) -> list[str]:
    rules = data["rules"]
    lines = [f"{rules['title']}, preset {rules['name']}, {data['players']} players, {data['bot']} bots, "
             f"seed {data['seed']}"]
    for m in data["matches"]:
        lines.append(f"Match {m['match']}:")
        for r in m["rounds"]:
            draws = sum(1 for t in r["turns"] if t["action"] == "draw")
            passes = sum(1 for t in r["turns"] if t["action"] == "pass")
            hub = r["hub"] if r["hub"] == r["round_double"] else f"{r['hub']} (for {r['round_double']})"
            if r["end"] == "out":
                end = f"seat {r['out']} went out"
            elif r["end"] == "dead-foot":
                end = f"the {r['dead_foot']} foot could not be completed"
            else:
                end = "blocked"
            lines.append(
                f"  round {r['round']}: hub {hub}, seat {r['first_player']} first, "
                f"{len(r['plays'])} plays, {draws} draws, {passes} passes; {end}; "
                f"penalties {', '.join(map(str, r['penalties']))}; "
                f"totals {', '.join(map(str, r['totals']))}"
            )
        winners = ", ".join(f"seat {w}" for w in m["winners"])
        verdict = {"win": "wins", "draw": "draw", "shared": "share first place"}[m["result"]]
        lines.append(f"  totals {', '.join(map(str, m['totals']))}: {winners} {verdict}"
                     + (f" ({m['decided_by']})" if m["decided_by"] not in ("lowest-total", "tied") else "")
                     + (f"; {'seat' if len(m['losers']) == 1 else 'seats'} {', '.join(map(str, m['losers']))} "
                        "passed the loss total"
                        if m["losers"] else ""))
    return lines
