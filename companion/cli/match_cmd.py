"""``chickenfoot match ...``, ``chickenfoot stats`` and ``chickenfoot db ...``: the scorekeeper.

Every command takes ``--json`` and ``--db PATH`` (else ``$CHICKENFOOT_DB``, else the user
data directory). A match id may be shortened to any unique prefix. Unusable input gives a
one-line message and exit 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from chickenfoot.cli.main import add_option_arg, emit, option_args, output_file, write_outputs
from chickenfoot.rules.errors import InputError
from chickenfoot.rules.words import count

# The storage and match packages are imported inside the handlers: `chickenfoot --help` and the
# other areas' commands should not pay for them.


def _common() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--json", action="store_true", help="print JSON (machine-readable output)")
    p.add_argument("--db", metavar="PATH",
                   help="scorekeeper file (default: $CHICKENFOOT_DB, else the user data folder)")
    return p


_ONE = {"out": "one player goes out", "held": "one player held the round's double",
        "started_with": "one double opens a round"}


class _Once(argparse.Action):
    """A flag naming one thing (one player goes out, one double opened the round): given twice
    it is a mistake, not the last one winning in silence."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        before = getattr(namespace, self.dest, None)
        if before is not None and before != values:
            parser.error(f"{option_string} given twice ({before}, {values}): {_ONE[self.dest]}")
        setattr(namespace, self.dest, values)


def _round_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--penalty", action="append", nargs="+", default=[], metavar="NAME=POINTS",
                   help="penalty points, e.g. Ann=12 (repeat, list several, or Ann=12,Bob=5)")
    p.add_argument("--tiles", action="append", nargs="+", default=[], metavar="NAME=TILES",
                   help="tiles left in hand, e.g. Bob=3-4,0-0 (the penalty is computed; Bob= for none)")
    p.add_argument("--out", metavar="NAME", action=_Once, help="the player who went out")
    p.add_argument("--blocked", action="store_true", help="the round was blocked")
    p.add_argument("--held", metavar="NAME", action=_Once,
                   help="who held (or drew and placed) the round's double")
    p.add_argument("--started-with", metavar="DOUBLE", action=_Once,
                   help="the double that opened the round when nobody held its own (e.g. 8-8)")
    p.add_argument("--sure", action="store_true",
                   help="keep a penalty above what the tiles dealt could count (tiles were drawn)")


def register(subparsers: Any) -> None:
    common = _common()
    match = subparsers.add_parser(
        "match", help="keep score: matches, rounds, history",
        description="Keep score of Chicken Foot matches in the scorekeeper file. A match id may "
        "be shortened to any unique start of it (3fa8 for 3fa8c1...). Exit 2 with one line for "
        "unusable input; nothing is written then.")
    msub = match.add_subparsers(dest="match_command", metavar="ACTION")

    def action(name: str, helptext: str, description: str) -> argparse.ArgumentParser:
        return msub.add_parser(name, parents=[common], help=helptext,
                               description=description + " " + ID_NOTE)

    p = action("new", "start a match", "Start a match: players in seating order, a rules preset "
               "and options; prints its id.")
    p.add_argument("--players", required=True, help="names in seating order, e.g. Ann,Bob,Cy")
    p.add_argument("--rules", default="double-chicken-foot",
                   help="rules preset (default double-chicken-foot; 'chickenfoot rules' lists them)")
    add_option_arg(p)
    p.set_defaults(func=cmd_new)

    p = action("list", "list matches, newest first", "List the matches in the file, newest first.")
    p.add_argument("--status", choices=("active", "finished", "abandoned"),
                   help="only matches in this state")
    p.set_defaults(func=cmd_list)

    p = action("show", "standings, rounds and the next round",
               "Show a match: its rounds, totals, ranks and what the next round is.")
    p.add_argument("id", help=ID_HELP)
    p.set_defaults(func=cmd_show)

    p = action("round", "score the current round",
               "Score the current round: every player's penalty (points or tiles) and who went "
               "out, or --blocked.")
    p.add_argument("id", nargs="?", help=ID_HELP)
    _round_flags(p)
    p.set_defaults(func=cmd_round)

    p = action("edit", "correct a past round (only what you give)",
               "Correct a past round: only the players and facts given change.")
    p.add_argument("id", nargs="?", help=ID_HELP)
    p.add_argument("round", nargs="?", type=int, help="round number, 1 = first")
    _round_flags(p)
    p.set_defaults(func=cmd_edit)

    p = action("held", "record who holds the current round's double (who starts follows)",
               "Record who holds (or drew and placed) the current round's double; who plays "
               "first follows from it.")
    p.add_argument("id", help=ID_HELP)
    p.add_argument("name", help="the player who holds it")
    p.set_defaults(func=lambda a: _change(a, lambda m: m.set_holder(a.name), "recorded"))

    for name, helptext, attr in (
        ("delete-round", "delete the last round", "delete_last_round"),
        ("undo", "undo the last change", "undo"),
        ("redo", "redo what undo took back", "redo"),
        ("abandon", "abandon an unfinished match", "abandon"),
        ("resume", "resume an abandoned match", "resume"),
    ):
        p = action(name, helptext, helptext[0].upper() + helptext[1:] + ".")
        p.add_argument("id", help=ID_HELP)
        p.set_defaults(func=_simple(attr, name))

    p = action("delete", "delete a match for good (its rounds and the rounds being entered)",
               "Delete a match for good: its rounds, and any round being entered for it. It reads "
               "nothing of the match first, so a match that no longer reads back (hand-edited) "
               "can be removed too; --entry N removes an entry that db check names by its number "
               "(one without an id or data, or a copy of a match another entry holds too). Needs --yes.")
    p.add_argument("id", nargs="?", help=ID_HELP)
    p.add_argument("--entry", type=int, metavar="N",
                   help="instead of an id: the match entry number N that db check names (without an "
                   "id or data, or holding a match another entry holds too)")
    p.add_argument("--yes", action="store_true", help="yes, delete it (nothing can undo this)")
    p.set_defaults(func=cmd_delete)

    p = action("export", "export one match or all history",
               "Export one match or every match as JSON (which 'match import' reads back) or CSV "
               "(one row per player per round), to standard output or --out FILE.")
    p.add_argument("id", nargs="?", help="match id (omit, or --all, for every match)")
    p.add_argument("--all", action="store_true", help="export every match")
    p.add_argument("--format", choices=("json", "csv"), default="json", help="json (default) or csv")
    p.add_argument("--out", metavar="FILE", help="write to FILE (in a folder that exists) instead of "
                   "standard output")
    p.set_defaults(func=cmd_export)

    p = action("import", "merge an exported JSON file",
               "Merge a file written by 'match export': new matches are added, a copy with more "
               "changes replaces the stored one, and a copy changed apart from it (on two devices) "
               "is added beside it. Everything is checked before anything is written.")
    p.add_argument("file", help="the JSON export to read")
    p.set_defaults(func=cmd_import)

    p = subparsers.add_parser("stats", parents=[common], help="player statistics across matches",
                              description="Per-player statistics across the matches in the file: "
                              "played, won, drawn, rounds, went out, caught with the 0-0, average "
                              "and worst penalty, best match total.")
    p.add_argument("--player", help="only this player")
    p.set_defaults(func=cmd_stats)

    db = subparsers.add_parser("db", help="the scorekeeper file: where, check, restore",
                               description="The scorekeeper file itself: where it is, whether every "
                               "match in it reads back, and restoring its last good backup.")
    dsub = db.add_subparsers(dest="db_command", metavar="ACTION")
    p = dsub.add_parser("info", parents=[common], help="where the file is, its size and backup",
                        description="Where the scorekeeper file is, its size, its backup and schema.")
    p.set_defaults(func=cmd_db_info)
    p = dsub.add_parser("check", parents=[common], help="read back every match; list problems",
                        description="Read back every match in the file and list every problem "
                        "found; exit 1 if there is one.")
    p.set_defaults(func=cmd_db_check)
    p = dsub.add_parser("restore", parents=[common],
                        help="put the last good backup (FILE.bak) back in place",
                        description="Put the last good backup (FILE.bak) back as FILE; the file "
                        "it replaces is kept as FILE.damaged-TIME. A file that reads back fine is "
                        "left as it is (its backup is one save older) unless --force.")
    p.add_argument("--force", action="store_true",
                   help="restore the backup even though the file reads back fine (undoes its last save)")
    p.set_defaults(func=cmd_db_restore)


ID_HELP = "match id; any unique start of it is enough (e.g. 3fa8)"
ID_NOTE = "A match id may be shortened to any unique start of it."


# ------------------------------------------------------------------------------ helpers
def _open(args: argparse.Namespace) -> Any:
    from chickenfoot.storage import Repository

    return Repository.open(args.db)


def _pairs(groups: list[list[str]], what: str) -> list[tuple[str, str]]:
    out = []
    for group in groups:
        for item in group:
            if "=" not in item:
                raise InputError(f"{what} {item!r} must be written NAME=VALUE")
            name, value = item.split("=", 1)
            if not name.strip():
                raise InputError(f"{what} {item!r} has no player name")
            out.append((name.strip(), value.strip()))
    return out


def _positionals(args: argparse.Namespace, names: tuple[str, ...]) -> None:
    """Take positionals typed after ``--penalty``/``--tiles`` values back from them:
    ``match round --penalty Ann=12 3fa8`` means the match 3fa8 (a penalty is always NAME=VALUE)."""
    missing = [n for n in names if getattr(args, n, None) is None]
    for group in reversed([*args.penalty, *args.tiles]):
        while missing and group and "=" not in group[-1]:
            value = group.pop()
            name = missing.pop()
            # isdecimal, not isdigit: "²" is a digit int() cannot read (refused below, not a traceback)
            setattr(args, name, int(value) if name == "round" and value.isdecimal() else value)
    if missing:
        raise InputError(f"give the {' and the '.join(m if m != 'id' else 'match id' for m in missing)}: "
                         f"chickenfoot match {args.match_command} {' '.join(n.upper() for n in names)} ...")
    if "round" in names and not isinstance(args.round, int):
        raise InputError(f"the round number must be a whole number, not {args.round!r}")
    args.penalty = [g for g in args.penalty if g]
    args.tiles = [g for g in args.tiles if g]


def _round_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    penalties: dict[str, Any] = {}
    for group in args.penalty:
        for item in group:
            for piece in (p for p in item.split(",") if p.strip()):
                (name, value), = _pairs([[piece]], "penalty")
                if name.casefold() in (n.casefold() for n in penalties):
                    raise InputError(f"{name} has two penalties")
                penalties[name] = value
    tiles: dict[str, str] = {}
    for name, value in _pairs(args.tiles, "tiles"):
        if name.casefold() in (n.casefold() for n in tiles):
            raise InputError(f"{name} has two sets of tiles")
        tiles[name] = value
    if args.out and args.blocked:
        raise InputError("a round is either won by --out NAME or --blocked, not both")
    kw: dict[str, Any] = {"penalties": penalties, "tiles": tiles, "out": args.out,
                          "blocked": args.blocked, "holder": args.held}
    if args.started_with is not None:
        kw["started_with"] = args.started_with
    return kw


def _change(args: argparse.Namespace, fn: Any, verb: str) -> int:
    with _open(args) as repo:
        m = repo.update(args.id, fn)
        _emit_match(m, args.json, header=f"{verb}: match {m.id[:8]}")
    return 0


def _simple(attr: str, name: str) -> Any:
    def handler(args: argparse.Namespace) -> int:
        def fn(m: Any) -> Any:
            return getattr(m, attr)()
        return _change(args, fn, name)
    return handler


# ----------------------------------------------------------------------------- commands
def cmd_new(args: argparse.Namespace) -> int:
    from chickenfoot.rules import get_rules

    players = [p.strip() for p in args.players.split(",")]
    if not all(players):  # "Ann,,Bob" is a name left out, not two players
        raise InputError(f"--players {args.players!r} has an empty name: write the names between commas, "
                         "e.g. --players Ann,Bob,Cy")
    rules = get_rules(args.rules, option_args(args))
    from chickenfoot.match import Match

    Match.new(players, rules)  # validate before opening (and maybe creating) the file
    with _open(args) as repo:
        m = repo.create_match(players, rules)
        _emit_match(m, args.json, header=f"new match {m.id[:8]} ({m.id})")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    with _open(args) as repo:
        rows, unreadable = repo.listing(args.status)
    _left_out(unreadable, args)
    lines = []
    for r in rows:
        who = ", ".join(f"{p} {t}" for p, t in zip(r.players, r.totals, strict=True))
        tail = ""
        if r.status == "finished":
            tail = ("draw: " if r.draw else "won by ") + ", ".join(r.winners)
        lines.append(f"{r.id[:8]}  {r.created_at[:16].replace('T', ' ')}  {r.status:<9}  "
                     f"{r.rounds:>2}/{r.planned_rounds:<2} {r.rules}  {who}  {tail}".rstrip())
    emit([r.to_dict() for r in rows], args.json, "\n".join(lines) if lines else "no matches yet")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    with _open(args) as repo:
        m = repo.get(args.id)
    _emit_match(m, args.json)
    return 0


def _likely(args: argparse.Namespace, m: Any, number: int, given: set[str] | None = None) -> Any:
    """``m`` if round ``number``'s typed penalties (those of ``given`` players, when given) are
    within what a hand can count, or ``--sure`` says they are right; else UnlikelyPenaltyError
    (raised inside the store's change: nothing is written)."""
    from chickenfoot.match import UnlikelyPenaltyError, check_likely

    if not args.sure:
        seats = None if given is None else {m.seat_of(n) for n in given}
        try:
            check_likely(m, m.rounds[number - 1], seats)
        except UnlikelyPenaltyError as exc:
            raise UnlikelyPenaltyError(f"{exc}: a typo? If the hand really held that much (tiles drawn), "
                                       "run it again with --sure") from None
    return m


def cmd_round(args: argparse.Namespace) -> int:
    _positionals(args, ("id",))
    kw = _round_kwargs(args)
    with _open(args) as repo:
        m = repo.update(args.id, lambda m: _likely(args, m.add_round(**kw), len(m.rounds) + 1))
        _emit_match(m, args.json, header=f"round {len(m.rounds)} recorded")
    return 0


def cmd_edit(args: argparse.Namespace) -> int:
    _positionals(args, ("id", "round"))
    kw = _round_kwargs(args)
    with _open(args) as repo:
        m = repo.update(args.id, lambda m: _likely(args, m.edit_round(args.round, **kw), args.round,
                                                   set(kw["penalties"])))
        _emit_match(m, args.json, header=f"round {args.round} changed")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from chickenfoot.match import dumps_json, export_csv

    if args.id and args.all:
        raise InputError("give a match id or --all, not both")
    out = output_file(args.out, "--out", db=args.db) if args.out else None
    with _open(args) as repo:
        if args.id:
            matches, unreadable = [repo.get(args.id)], []
        else:
            found, unreadable = repo.readable_matches()
            matches = sorted(found, key=lambda m: (m.created_at, m.id))
    _left_out(unreadable, args)
    text = dumps_json(matches) if args.format == "json" else export_csv(matches)
    if out is not None:
        write_outputs([(out, text.encode("utf-8"))])
        emit({"file": str(out), "matches": len(matches), "format": args.format}, args.json,
             f"exported {count(len(matches), 'match', 'matches')} to {out}")
    else:
        sys.stdout.write(text)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from chickenfoot.match import loads_json

    path = Path(args.file).expanduser()
    try:
        # utf-8-sig: an export saved again by an editor that writes a byte-order mark (Notepad)
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{path} is not a text (JSON) file: import reads what `match export` writes") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        matches = loads_json(text)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    with _open(args) as repo:
        report = repo.import_matches(matches)
    emit(report.to_dict(), args.json, f"imported {path}: {report.summary()}")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    if (args.id is None) == (args.entry is None):
        raise InputError("give a match id, or --entry N for an entry without one (`chickenfoot db check` "
                         "names them), not both" if args.id else "give the id of the match to delete")
    if args.entry is not None:
        with _open(args) as repo:
            repo.find_entry(args.entry)
            if not args.yes:
                raise InputError(f"deleting match entry #{args.entry} cannot be undone: add --yes to delete it")
            repo.delete_entry(args.entry)
        emit({"deleted_entry": args.entry}, args.json, f"deleted match entry #{args.entry}")
        return 0
    with _open(args) as repo:
        mid = repo.resolve_id(args.id)
        if not args.yes:
            raise InputError(f"deleting match {mid[:8]} cannot be undone: add --yes to delete it")
        repo.delete_match(mid)
    emit({"deleted": mid}, args.json, f"deleted match {mid[:8]}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    with _open(args) as repo:
        rows = repo.stats()
        _left_out(repo.readable_matches()[1], args)
    if args.player:
        rows = [r for r in rows if r.player.casefold() == args.player.strip().casefold()]
        if not rows:
            raise InputError(f"no games recorded for {args.player!r}")
    lines = [f"{'player':<14}{'played':>7}{'won':>5}{'drawn':>6}{'going':>6}{'rounds':>7}{'out':>5}"
             f"{'0-0':>5}{'avg':>8}{'worst':>6}{'best':>6}"]
    for r in rows:
        def f(v: Any) -> str:
            return "-" if v is None else str(v)
        # the 0-0 is known only where hands were entered as tiles: "-" where none was
        caught = r.caught_with_double_blank if r.rounds_tiles_known else None
        lines.append(f"{r.player:<14}{r.matches_played:>7}{r.matches_won:>5}{r.matches_drawn:>6}"
                     f"{r.matches_in_progress:>6}{r.rounds_played:>7}{r.rounds_out:>5}{f(caught):>5}"
                     f"{f(r.average_penalty):>8}{f(r.worst_penalty):>6}{f(r.best_match_total):>6}")
    emit([r.to_dict() for r in rows], args.json,
         "\n".join(lines) if rows else "no games recorded yet")
    return 0


def _left_out(unreadable: list[str], args: argparse.Namespace) -> None:
    """Says on stderr which matches a command over all of them left out, unreadable (hand-edited)."""
    if unreadable:
        from chickenfoot.storage.repository import left_out_words, short_name

        ids = ", ".join(short_name(mid) for mid in unreadable)
        db = f" --db {args.db}" if args.db else ""
        what, verb = left_out_words(unreadable)
        sys.stderr.write(f"chickenfoot: note: {what} cannot be read and {verb} left out ({ids}): "
                         f"`chickenfoot db check{db}` says why\n")


def cmd_db_info(args: argparse.Namespace) -> int:
    with _open(args) as repo:
        info = repo.info()
    text = (f"file:    {info['path']}{'' if info['exists'] else ' (not created yet)'}\n"
            f"size:    {info['size_bytes']} bytes\nmatches: {info['matches']}\n"
            f"backup:  {info['backup'] or 'none yet'}\nschema:  {info['schema']}")
    emit(info, args.json, text)
    return 0


def cmd_db_check(args: argparse.Namespace) -> int:
    with _open(args) as repo:
        problems = repo.check()
        n = len(repo)
    emit({"matches": n, "problems": problems}, args.json,
         "\n".join(problems) if problems else f"ok: {count(n, 'match', 'matches')} read back fine")
    return 1 if problems else 0


def cmd_db_restore(args: argparse.Namespace) -> int:
    from chickenfoot.storage import Repository, StorageError, resolve_db_path

    path = resolve_db_path(args.db)
    if not args.force and path.is_file():
        try:
            with Repository.open(path) as repo:
                problems, n = repo.check(), len(repo)
        except StorageError:
            problems, n = None, 0  # damaged: what restore is for
        if problems == []:
            raise InputError(f"{path} reads back fine ({count(n, 'match', 'matches')}): its backup is one save "
                             "older, so restoring it would undo the last save. Nothing was changed; pass "
                             "--force to restore it anyway")
        if problems and _backup_problems(path):
            # a match spoilt before the last save is spoilt in the backup too
            raise InputError(f"the backup of {path} does not read back fine either ({problems[0]}): restoring it "
                             "would undo the last save and mend nothing. Nothing was changed; delete the spoilt "
                             "match alone with `chickenfoot match delete ID --yes` (--entry N for an entry without "
                             "an id), or pass --force")
    kept = Repository.restore_backup(path)
    with Repository.open(path) as repo:
        n, problems = len(repo), repo.check()
    emit({"restored": str(path), "damaged_copy": str(kept) if kept else None, "matches": n,
          "problems": problems},
         args.json,
         f"restored {path} from its backup ({count(n, 'match', 'matches')})"
         + (f"; the replaced file is kept as {kept}" if kept else "")
         + ("\nbut the backup does not read back fine either (the entry was damaged before its last save):\n"
            + "\n".join(problems) if problems else ""))
    return 1 if problems else 0


def _backup_problems(path: Path) -> list[str]:
    """What ``db check`` would say of ``path``'s backup (read from a copy, never written);
    nothing when there is no backup or it cannot be read at all (restore says why)."""
    import shutil
    import tempfile

    from chickenfoot.storage import Repository, StorageError
    from chickenfoot.storage.safe_json import backup_path

    bak = backup_path(path)
    if not bak.is_file():
        return []
    with tempfile.TemporaryDirectory(prefix="chickenfoot-restore-") as tmp:
        copy = Path(tmp) / path.name
        try:
            shutil.copyfile(bak, copy)
            with Repository.open(copy) as repo:
                return repo.check()
        except (OSError, StorageError):
            return []


# ------------------------------------------------------------------------------ output
def _emit_match(m: Any, as_json: bool, header: str | None = None) -> None:
    from chickenfoot.match import match_view

    view = match_view(m)
    if as_json:
        emit(view, True)
        return
    lines = [header] if header else []
    lines.append(f"match {m.id[:8]}  {m.rules.title}  ({m.status}, round {len(m.rounds)}/"
                 f"{m.planned_rounds}, double-{m.set_top}, {m.deal_size} tiles each)")
    width = max(6, *(len(p) for p in m.players))
    head = f"{'round':<8}" + "".join(f"{p:>{width + 2}}" for p in m.players)
    lines.append(head)
    for r in view["rounds"]:
        cells = []
        for p in m.players:
            mark = "*" if r["out"] == p else " "
            cells.append(f"{str(r['penalties'][p]) + mark:>{width + 2}}")
        label = f"{r['number']:>2} {r['double']}-{r['double']}"
        lines.append(f"{label:<8}" + "".join(cells) + ("  blocked" if r["blocked"] else ""))
    lines.append(f"{'total':<8}" + "".join(f"{s['total']:>{width + 1}} " for s in view["standings"]))
    lines.append(f"{'rank':<8}" + "".join(f"{s['rank']:>{width + 1}} " for s in view["standings"]))
    if view["current_round"] and not m.abandoned:
        c = view["current_round"]
        lines.append(f"next: round {c['number']} from {c['double_tile']}, {c['deal_size']} tiles "
                     f"each. {c['first_player_rule']}")
        if m.rules.start.value == "holder":
            lines.append(c["missing_double_rule"])
    elif m.abandoned:
        lines.append(f"abandoned (resume with `chickenfoot match resume {m.id[:8]}`)")
    else:
        winners = ", ".join(view["winners"])
        lines.append(("draw between " if view["draw"] else "winner: ") + winners
                     + f" ({view['result']})")
    emit(view, False, "\n".join(lines))
