"""``chickenfoot score PHOTO...``: read the tiles in photos of hands and score them.

Every photo is decoded before any model is loaded, so a bad file (missing, not an image,
truncated, a decompression bomb) fails at once with one line and exit 2, and nothing is
printed for the other photos. Warnings (low confidence, a tile read twice across the photos
of one round, a tile the rules' set does not have) never change the exit code.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chickenfoot.cli.main import EXIT_OK, add_option_arg, emit, option_args, output_file, write_outputs
from chickenfoot.rules.ruleset import RuleSet, get_rules
from chickenfoot.rules.tiles import SETS, Tile
from chickenfoot.rules.words import count

if TYPE_CHECKING:  # numpy and onnxruntime load only when a photo is scored, not for every command
    from chickenfoot.vision.images import LoadedImage
    from chickenfoot.vision.reader import Reading


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "score",
        help="read the tiles in photos of hands and score them",
        description="Read every face-up tile in each photo and give its pips and penalty. "
        "Photos of one round are checked together (a tile seen twice is reported).",
    )
    p.add_argument("photos", nargs="+", metavar="PHOTO", help="JPEG, PNG, WebP, HEIC, ... photo")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--rules", default=None, metavar="NAME", help="rules preset (penalty of 0-0, set)")
    add_option_arg(p)
    p.add_argument(
        "--set", type=int, default=None, choices=SETS, metavar="N", dest="top",
        help="the tiles are a double-N set: no half is read as more than N pips "
        "(default: the set the rules fix, if any)",
    )
    p.add_argument(
        "--sets", type=int, default=1, choices=range(0, 5), metavar="K",
        help="how many sets are mixed in each photo (default 1: a tile read twice in a photo is "
        "asked about once; 0: no limit)",
    )
    p.add_argument(
        "--annotate", metavar="OUT.png", default=None,
        help="write the photo with the reading drawn on it, as PNG or JPEG, in a folder that exists "
        "(several photos: OUT-1.png, OUT-2.png, ...)",
    )
    p.add_argument(
        "--all", action="store_true", dest="list_all",
        help="list every tile found, not only the counted ones: those to check and the possible tiles "
        "not counted (a photo of a cluttered table has many)",
    )
    p.add_argument("--models", metavar="DIR", default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def _rules(args: argparse.Namespace) -> RuleSet:
    options = option_args(args)
    return get_rules(args.rules, options) if args.rules else get_rules(options=options)


#: What ``--annotate`` writes, by extension.
PICTURE_KINDS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP"}


def picture_file(text: str, flag: str = "--annotate", inputs: Sequence[str] = ()) -> Path:
    return output_file(text, flag, tuple(PICTURE_KINDS), inputs=inputs)


def picture_bytes(image: Any, path: Path) -> bytes:
    """A drawn picture encoded for ``path``'s kind (written later with every other output)."""
    import io

    buf = io.BytesIO()
    image.save(buf, PICTURE_KINDS[path.suffix.lower()])
    return buf.getvalue()


def largest_set(rules: RuleSet) -> int:
    """The biggest double-N set these rules can be played with."""
    if rules.set is not None:
        return rules.set
    return max(top for _, top in rules.set_by_players)


def annotate_paths(out: str, photos: Sequence[str]) -> list[Path]:
    path = picture_file(out, inputs=photos)
    if len(photos) == 1:
        return [path]
    # OUT-1.png ... are checked as OUT.png was: photos named so (hand-1.jpg) are not written over
    return [output_file(str(path.with_name(f"{path.stem}-{i}{path.suffix}")), "--annotate",
                        tuple(PICTURE_KINDS), inputs=photos)
            for i in range(1, len(photos) + 1)]


def same_pictures(paths: list[str]) -> list[str]:
    """One warning per photo given again (the same bytes, under any name): its tiles would be
    counted twice in the round's total."""
    first: dict[bytes, str] = {}
    out = []
    for p in paths:
        digest = hashlib.sha256(Path(p).read_bytes()).digest()
        if digest in first:
            out.append(f"{p} is the same picture as {first[digest]}: its tiles are counted twice")
        else:
            first[digest] = p
    return out


def round_warnings(names: list[str], readings: list[Reading], rules: RuleSet,
                   top: int | None = None) -> list[str]:
    """Checks across the photos of one round: a set has one of each tile, and only tiles of
    the rules' set: the one they fix, else the one the player named (``top``, ``--set``), else
    the biggest their player counts allow."""
    seen: dict[Tile, set[int]] = defaultdict(set)
    for index, reading in enumerate(readings):
        for tile in reading.tiles:
            if not tile.question:  # a possible 0-0 may be a back: not a tile read yet
                seen[tile.tile].add(index)
    # one warning per group of photos, naming the tiles they share
    shared: dict[tuple[int, ...], list[Tile]] = defaultdict(list)
    for tile, where in sorted(seen.items()):
        if len(where) > 1:
            shared[tuple(sorted(where))].append(tile)
    short = short_names(names)
    warnings = []
    for where, tiles in shared.items():
        photos = " and ".join(short[i] for i in where) if len(where) == 2 else ", ".join(short[i] for i in where)
        warnings.append(f"{', '.join(map(str, tiles))} read in {len(where)} photos ({photos}): a set has "
                        f"{'one' if len(tiles) == 1 else 'one of each'}")
    told = top if rules.set is None else None  # rules that fix a set outrank --set
    in_play = told or largest_set(rules)
    odd = sorted({t.tile for r in readings for t in r.tiles if not t.tile.in_set(in_play)})
    if odd:
        whose = "--set" if told else rules.name
        warnings.append(
            f"not in a double-{in_play} set ({whose}): {', '.join(map(str, odd))}; misread?"
        )
    return warnings


def short_names(paths: list[str]) -> list[str]:
    """Each photo by its file name, or by the path as given where two share a file name."""
    names = [Path(p).name for p in paths]
    clash = {n for n in names if len({q for q in paths if Path(q).name == n}) > 1}
    return [p if n in clash else n for p, n in zip(paths, names, strict=True)]


def counted_twice(readings: list[Reading]) -> list[Tile]:
    """Tiles counted in more than one photo of the round. A set has one of each, so one of
    those reads is wrong, or a photo was given twice: the total counts it twice."""
    seen = Counter(tile for r in readings for tile in {t.tile for t in r.tiles if t.sure})
    return sorted(t for t, n in seen.items() if n > 1)


def total_headline(readings: list[Reading]) -> str:
    """The round's penalty over several photos: "penalty N", or "penalty at least N, M to
    check" while tiles are open (flagged or asked about, and so not counted); a photo where
    nothing was read makes it "at least" too (an unread photo is never 0 points), and "nothing
    read" when none was read. A tile counted in two photos makes it "N as counted, not sure":
    the total may be too high as well as too low, so it is never said plainly."""
    penalty, open_ = sum(r.penalty for r in readings), sum(r.to_check for r in readings)
    unread = sum(not r.tiles for r in readings)
    if unread == len(readings):
        return "nothing read"
    rest = ([f"{open_} to check"] if open_ else []) + ([count(unread, "photo") + " with nothing read"] if unread else [])
    twice = counted_twice(readings)
    if twice:
        return (f"penalty {penalty} as counted, not sure: {count(len(twice), 'tile')} counted in more than one "
                "photo" + "".join(f", {x}" for x in rest))
    return f"penalty {penalty}" if not rest else f"penalty at least {penalty}, " + ", ".join(rest)


#: Why a possible tile is not counted, as its row says it. "not pips": the reader saw no pips on
#: a half, which a face-down tile and a picture of a tile have alike.
NOT_COUNTED = {"not pips": "(no pips seen: face down, or not a tile)", "overlap": "(overlaps a surer tile)",
               "set aside": "(set aside by hand)"}


def _row(t: Any, note: str = "") -> str:
    """One tile, low half first as in JSON and everywhere tiles are written, where it lies."""
    cx, cy, length, width, deg = t.box.to_list() if t.box is not None else (0, 0, 0, 0, 0)
    tile = f"{t.tile.low!s:>2}-{t.tile.high!s:<2}"
    return (f"  {f'{tile} ' if t.counted else f'({tile})'} {t.confidence:.2f}  at ({cx:.0f}, {cy:.0f}) "
            f"{length:.0f}x{width:.0f} {deg:.0f}deg{note}")


def _ask(t: Any) -> str:
    """What a tile to check says: its question, and why where the question does not say it."""
    if not t.question:
        return "  CHECK (not counted)"
    why = f" ({t.reason_text})" if t.reason_text and t.reason != "0-0 or back" else ""
    return f"  ASK: {t.question}{why}"


def photo_lines(name: str, r: Reading, list_all: bool = False) -> list[str]:
    """One photo for people: the headline, the counted tiles (as many rows as the headline's
    count), then the rest: listed with ``list_all``, else one line that counts them."""
    sure = [t for t in r.tiles if t.sure]
    lines = [f"{name}: {count(len(sure), 'tile')}, {count(r.pips, 'pip')}, {r.headline()}"]
    # a tile counted under the review threshold says why it counts
    lines += [_row(t, f"  ({t.reason_text})" if t.reason == "steady" else "") for t in sure]
    to_check = [t for t in r.tiles if not t.sure]
    if list_all:
        lines += [_row(t, _ask(t)) for t in to_check]
        lines += [_row(t, f"  NOT COUNTED ({t.reason_text})" if t.reason_text
                       else "  NOT COUNTED " + NOT_COUNTED.get(t.uncounted, "(possible tile)"))
                  for t in r.candidates]
    else:
        rest = [f"{r.face_down} face down"] if r.face_down else []
        if to_check:
            rest.append(f"{len(to_check)} to check ({', '.join(str(t.tile) for t in to_check)})")
        if r.candidates:
            rest.append(count(len(r.candidates), "possible tile"))
        if rest:
            lines.append(f"  also found, not counted: {'; '.join(rest)} (--all lists them)")
    lines += [f"  warning: {w}" for w in r.warnings]
    return lines


def _text(names: list[str], readings: list[Reading], warnings: list[str], list_all: bool = False) -> str:
    lines: list[str] = []
    for name, r in zip(names, readings, strict=True):
        lines += photo_lines(name, r, list_all)
    if len(readings) > 1:
        lines.append(
            f"all photos: {count(sum(t.sure for r in readings for t in r.tiles), 'tile')}, "
            f"{count(sum(r.pips for r in readings), 'pip')}, {total_headline(readings)}"
        )
    lines += [f"warning: {w}" for w in warnings]
    return "\n".join(lines)


def decode_photos(paths: list[str], models: Path) -> list[LoadedImage]:
    """Every photo decoded at the reader's working size, before any model loads: a bad file
    fails at once, before any work or output."""
    from chickenfoot.vision.images import load_image
    from chickenfoot.vision.reader import ReaderConfig

    config_path = models / "reader.json"
    max_side = ReaderConfig.load(config_path).decode_max_side if config_path.exists() else 1600
    with c_libraries_quiet():
        return [load_image(p, max_side, name=p) for p in paths]


@contextlib.contextmanager
def c_libraries_quiet() -> Iterator[None]:
    """Standard error (file descriptor 2) sent nowhere meanwhile: the C decoders under Pillow
    (libtiff: "tempfile.tif: Using code not yet in table.") write their own lines there, and a
    bad photo must be told in one line, the ImageError's."""
    try:
        sys.stderr.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        saved = os.dup(2)
    except OSError:  # no descriptor 2 to quiet
        yield
        return
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def run(args: argparse.Namespace) -> int:
    from chickenfoot.vision.draw import annotate
    from chickenfoot.vision.reader import Reader, resolve_models_dir

    rules = _rules(args)
    outs = annotate_paths(args.annotate, args.photos) if args.annotate else []
    models = resolve_models_dir(args.models)
    loaded = decode_photos(list(args.photos), models)
    reader = Reader.from_models_dir(models)
    readings = [reader.read(img, rules, args.top, args.sets) for img in loaded]
    names = list(args.photos)
    warnings = same_pictures(names) + round_warnings(names, readings, rules, args.top)
    write_outputs([(out, picture_bytes(annotate(img.image, reading), out))
                   for img, reading, out in zip(loaded, readings, outs, strict=bool(outs))])
    written = [str(out) for out in outs]
    data = {
        "rules": rules.name,
        "photos": [{"photo": n, **r.to_dict()} for n, r in zip(names, readings, strict=True)],
        "total": {
            "tiles": sum(t.sure for r in readings for t in r.tiles),
            "pips": sum(r.pips for r in readings),
            "penalty": sum(r.penalty for r in readings),
            "to_check": sum(r.to_check for r in readings),
            "counted_twice": [str(t) for t in counted_twice(readings)],
            "headline": total_headline(readings),
        },
        "warnings": warnings,
        "annotated": written,
    }
    emit(data, args.json, _text(names, readings, warnings, args.list_all))
    return EXIT_OK


__all__ = ["decode_photos", "picture_bytes", "picture_file", "register", "run"]
