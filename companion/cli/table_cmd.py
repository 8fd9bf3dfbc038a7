"""``chickenfoot table PHOTO``: read the layout in a photo of the table and check it.

The photo is read like a hand (:mod:`chickenfoot.vision.reader`), then turned into a layout
(:mod:`chickenfoot.vision.table`) and checked by the rules core, as ``chickenfoot check`` checks a layout
file. ``--play TILE --on TILE`` settles an argument about one more play on that table; ``--save``
writes the layout file to correct by hand or load into the app's dispute checker. Exit 0: legal
(and so is the play), 1: a rule is broken, 2: unusable input (not an image, no double read).
"""

from __future__ import annotations

import argparse
from typing import Any

from chickenfoot.cli.main import EXIT_FAIL, EXIT_OK, add_option_arg, emit, output_file, write_outputs
from chickenfoot.cli.rules_cmd import drawing_file, play_line, report_drawing
from chickenfoot.cli.score_cmd import _rules, decode_photos, picture_bytes, picture_file
from chickenfoot.rules.errors import InputError
from chickenfoot.rules.tiles import SETS, Tile
from chickenfoot.rules.words import count


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "table",
        help="read the layout in a photo of the table and check it",
        description="Read every tile in a photo of the table, work out what each one is played on, "
        "and check the layout by the rules: spokes, open foot, open ends, every problem. Exit 0 "
        "legal, 1 not, 2 unusable input.",
    )
    p.add_argument("photo", metavar="PHOTO", help="JPEG, PNG, WebP, HEIC, ... photo of the table, from above")
    p.add_argument("--hub", metavar="TILE", help="the round's double, e.g. 9-9 (default: guessed from the photo)")
    p.add_argument("--rules", default=None, metavar="NAME", help="rules preset")
    add_option_arg(p)
    p.add_argument("--set", type=int, default=None, choices=SETS, metavar="N", dest="top",
                   help="the tiles are a double-N set (default: the rules' set, else the smallest that fits)")
    p.add_argument("--play", metavar="TILE", help="a tile to judge on this table, e.g. 4-7")
    p.add_argument("--on", metavar="TILE", help="the tile on the table it would be laid against")
    p.add_argument("--save", metavar="LAYOUT.json", help="write the layout read from the photo (its "
                   "rules and options included), in a folder that exists")
    p.add_argument("--annotate", metavar="OUT.png", help="write the photo with the layout drawn on it, "
                   "as PNG or JPEG, in a folder that exists")
    p.add_argument("--draw", metavar="OUT", help="write the table read from the photo as a board, OUT.svg "
                   "or OUT.png (with --play, the play drawn in place), in a folder that exists")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--models", metavar="DIR", default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def _hub(text: str | None) -> Tile | None:
    if text is None:
        return None
    t = text.strip()
    # isdecimal, not isdigit: int() cannot read a superscript digit ("²"), which isdigit lets by
    hub = Tile(int(t), int(t)) if t.isdecimal() else Tile.parse(t)
    if not hub.is_double:
        raise InputError(f"--hub must be a double such as 9-9, not {hub}")
    return hub


def run(args: argparse.Namespace) -> int:
    # imported here, not at the top: every command builds this module's parser
    from chickenfoot.rules.layout import NOT_IN_SET, UNKNOWN_TARGET, Layout
    from chickenfoot.rules.ruleset import changed_options
    from chickenfoot.vision.draw import annotate_table
    from chickenfoot.vision.reader import Reader, resolve_models_dir
    from chickenfoot.vision.table import read_table_photo, set_warning, verdict_word

    if (args.play is None) != (args.on is None):
        raise InputError("--play and --on go together: --play 4-7 --on 9-4")
    play = (Tile.parse(args.play), Tile.parse(args.on)) if args.play is not None else None
    hub = _hub(args.hub)
    rules = _rules(args)
    # Every output is checked before any work, and written only once the answer is known:
    # an exit 2 leaves no file behind.
    save_to = output_file(args.save, "--save", (".json",), inputs=[args.photo]) if args.save else None
    draw_to = picture_file(args.annotate, inputs=[args.photo]) if args.annotate else None
    board_to = drawing_file(args.draw, inputs=[args.photo]) if args.draw else None
    models = resolve_models_dir(args.models)
    (loaded,) = decode_photos([args.photo], models)
    table = read_table_photo(Reader.from_models_dir(models), loaded, rules, args.top, hub=hub, set=args.top)
    reading = table.reading
    report = table.check(rules)
    warnings = list(table.warnings)
    odd = set_warning(report)
    if odd:
        warnings.append(odd)
    data: dict[str, Any] = {
        "photo": args.photo,
        "tiles_read": len(reading.tiles),
        **table.to_dict(),
        "report": report.to_dict(),
        "warnings": warnings,
    }
    found = f" (+{len(table.found)} found in gaps)" if table.found else ""
    joined = len(table.layout.plays)
    refused = joined - (len(report.table) - 1)  # a tile read twice, or on one that was: see the problems
    lines = [f"{args.photo}: {count(len(reading.tiles), 'tile')} read{found}; hub {table.layout.hub}; "
             f"{count(joined, 'tile')} joined to it"
             + (f", {refused} of them not taken onto the table (see the problems)" if refused > 0 else "")
             + (f" ({len(table.loose)} not in the layout)" if table.loose else "")]
    lines += report.summary_lines()
    ok = report.legal
    if play is not None:
        verdict = report.judge(*play)
        if verdict.code == NOT_IN_SET:
            raise InputError(verdict.message)
        data["play"] = verdict.to_dict()
        lines.append(play_line(report, verdict))
        if verdict.code == UNKNOWN_TARGET:
            lines.append("(as read from the photo: " + ("see the annotated picture)" if args.annotate
                                                        else "try --annotate)"))
        ok = ok and verdict.legal
    files = []
    if save_to is not None:
        saved = Layout(table.layout.hub, table.layout.plays, rules.name, report.set, ordered=False,
                       options=tuple(changed_options(rules).items()))
        files.append((save_to, (saved.to_json() + "\n").encode("utf-8")))
        data["saved"] = args.save
        lines.append(f"layout written to {args.save}")
    if draw_to is not None:
        drawn = annotate_table(loaded.image, table, table.problem_tiles(report), verdict_word(report))
        files.append((draw_to, picture_bytes(drawn, draw_to)))
        data["annotated"] = args.annotate
    if board_to is not None:
        files.append((board_to, report_drawing(report, play, board_to)))
        data["drawing"] = args.draw
        lines.append(f"drawing written to {args.draw}")
    write_outputs(files)
    lines += [f"warning: {w}" for w in warnings]
    emit(data, args.json, "\n".join(lines))
    return EXIT_OK if ok else EXIT_FAIL


__all__ = ["register", "run"]
