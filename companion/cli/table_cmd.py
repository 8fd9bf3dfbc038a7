"""``chickenfoot table PHOTO``: read the layout in a photo of the table and check it.

The photo is read like a hand (:mod:`vision.reader`), then turned into a layout
(:mod:`vision.table`) and checked by the rules core, as ``chickenfoot check`` checks a layout
file. ``--play TILE --on TILE`` settles an argument about one more play on that table; ``--save``
writes the layout file to correct by hand or load into the app's dispute checker. Exit 0: legal
(and so is the play), 1: a rule is broken, 2: unusable input (not an image, no double read).
"""

from __future__ import annotations

import argparse
from typing import Any

from companion.cli.main import EXIT_FAIL, EXIT_OK, emit
from companion.cli.rules_cmd import draw_report, play_line
from companion.cli.score_cmd import _rules, decode_photos, save_annotated
from companion.rules.errors import InputError
from companion.rules.tiles import SETS, Tile


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
    p.add_argument("--option", action="append", default=[], metavar="K=V", help="rule option, e.g. toes=2")
    p.add_argument("--set", type=int, default=None, choices=SETS, metavar="N", dest="top",
                   help="the tiles are a double-N set (default: the rules' set, else the smallest that fits)")
    p.add_argument("--play", metavar="TILE", help="a tile to judge on this table, e.g. 4-7")
    p.add_argument("--on", metavar="TILE", help="the tile on the table it would be laid against")
    p.add_argument("--save", metavar="LAYOUT.json", help="write the layout read from the photo")
    p.add_argument("--annotate", metavar="OUT.png", help="write the photo with the layout drawn on it")
    p.add_argument("--draw", metavar="OUT", help="write the table read from the photo as a board, OUT.svg "
                   "or OUT.png (with --play, the play drawn in place)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--models", metavar="DIR", default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def _hub(text: str | None) -> Tile | None:
    if text is None:
        return None
    t = text.strip()
    hub = Tile(int(t), int(t)) if t.isdigit() else Tile.parse(t)
    if not hub.is_double:
        raise InputError(f"--hub must be a double such as 9-9, not {hub}")
    return hub


def run(args: argparse.Namespace) -> int:
    # imported here, not at the top: every command builds this module's parser
    from companion.rules.layout import NOT_IN_SET, UNKNOWN_TARGET, Layout, LayoutError
    from vision.draw import annotate_table
    from vision.reader import Reader, resolve_models_dir
    from vision.table import read_table_photo, set_warning, verdict_word

    if (args.play is None) != (args.on is None):
        raise InputError("--play and --on go together: --play 4-7 --on 9-4")
    play = (Tile.parse(args.play), Tile.parse(args.on)) if args.play is not None else None
    hub = _hub(args.hub)
    if args.draw:
        from companion.board import check_output

        check_output(args.draw)
    rules = _rules(args)
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
    lines = [f"{args.photo}: {len(reading.tiles)} tiles read{found}; hub {table.layout.hub}; "
             f"{len(table.layout.plays)} played on it"
             + (f" ({len(table.loose)} not in the layout)" if table.loose else "")]
    lines += report.summary_lines()
    ok = report.legal
    if args.save:
        try:
            Layout(table.layout.hub, table.layout.plays, rules.name, report.set, ordered=False).save(args.save)
        except OSError as exc:
            raise LayoutError(f"cannot write {args.save}: {exc.strerror or exc}") from None
        data["saved"] = args.save
        lines.append(f"layout written to {args.save}")
    if args.annotate:
        save_annotated(annotate_table(loaded.image, table, table.problem_tiles(report), verdict_word(report)),
                       args.annotate)
        data["annotated"] = args.annotate
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
    if args.draw:
        draw_report(report, play, args.draw, data, lines)
    lines += [f"warning: {w}" for w in warnings]
    emit(data, args.json, "\n".join(lines))
    return EXIT_OK if ok else EXIT_FAIL


__all__ = ["register", "run"]
