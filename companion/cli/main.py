"""The ``chickenfoot`` command line: one entry point, one subcommand module per area.

Each module in ``COMMAND_MODULES`` exposes ``register(subparsers)`` and sets ``func`` on the
parsers it adds; ``func(args)`` returns the exit code. Errors from the project's error tree
become a one-line message and exit 2, never a traceback; with ``--json`` the same error is also
printed on stdout as ``{"error": {"code": ..., "message": ...}, "exit": 2}``, so a script reading
JSON always gets JSON.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chickenfoot.rules.errors import ChickenFootError, InputError, excerpt

# Order is the order shown in --help.
COMMAND_MODULES = (
    "chickenfoot.cli.rules_cmd",  # rules, check, simulate
    "chickenfoot.cli.match_cmd",  # match ..., stats
    "chickenfoot.cli.score_cmd",  # score PHOTO...
    "chickenfoot.cli.table_cmd",  # table PHOTO
    "chickenfoot.cli.practice_cmd",  # practice
    "chickenfoot.cli.app_cmd",  # app
)

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


ERROR_PREFIX = "chickenfoot: error: "


class UsageError(Exception):
    """A command line argparse cannot read (unknown option, missing argument)."""

    def __init__(self, prog: str, message: str) -> None:
        # the subcommand goes in the message, so every error line starts with ERROR_PREFIX
        sub = prog.removeprefix("chickenfoot").strip()
        self.message = excerpt(message + (f" (see chickenfoot {sub} --help)" if sub else ""))
        super().__init__(self.message)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # one line and exit 2 like every other bad input, printed by main (as JSON too if asked)
        raise UsageError(self.prog, message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="chickenfoot",
        description="Chicken Foot dominoes table companion: rules, disputes, scores, photo scoring.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # an area not built yet
            raise
        module.register(sub)
    return parser


DISTRIBUTION = "chickenfoot-companion"


def version() -> str:
    """The installed distribution's version (its metadata, as pip installed it)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed(DISTRIBUTION)
    except PackageNotFoundError:  # imported from a checkout that was never installed
        return "(not installed)"


def add_option_arg(p: argparse.ArgumentParser) -> None:
    """``-o/--option KEY=VALUE``, the same on every command that takes rules."""
    p.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                   help="change a rule option, e.g. zero-zero=25 or spokes=4 (repeatable; "
                   "'chickenfoot rules NAME' lists them; zero_zero=25 is read the same)")


def option_args(args: argparse.Namespace) -> dict[str, str] | None:
    from chickenfoot.rules.ruleset import parse_option

    return dict(parse_option(o) for o in args.option) if args.option else None


def output_file(text: str, flag: str, kinds: Sequence[str] = (), db: str | None = None,
                inputs: Sequence[str] = ()) -> Path:
    """Where ``flag FILE`` will be written, checked before any work is done: a file name (not a
    folder) in a folder that exists (no folder is ever made for it), of one of ``kinds``
    (extensions such as ``.png``) when given, not a read-only file or folder, not one of the
    command's ``inputs`` (the photo read), and not the scorekeeper file (``--db``, else the
    default) or its backup. Every command checks its outputs this way (and the scorekeeper file
    named by ``--db`` the same way), so a bad one fails at once with nothing written."""
    path = Path(text).expanduser()
    given = next((i for i in inputs if _same_file(path, Path(i).expanduser())), None)
    if given is not None:
        # the drawing would replace the only copy of what it was drawn from
        raise InputError(f"{flag} {text} is {given}, which this command reads, not written over: "
                         "give another file name")
    from chickenfoot.storage import resolve_db_path
    from chickenfoot.storage.safe_json import backup_path

    games = resolve_db_path(db)
    if any(_same_file(path, p) for p in (games, backup_path(games))):
        raise InputError(f"{flag} {text} is the scorekeeper file (or its backup), which holds every match: "
                         "give another file name")
    if path.is_file() and (_KEPT_COPY.search(path.name) or _holds_scorekeeping(path)):
        # another scorekeeper file (one --db did not name), its lock or a copy kept of it
        raise InputError(f"{flag} {text} is a scorekeeper file (or a lock or copy kept of one), not written over: "
                         "give another file name")
    if text.endswith(("/", os.sep)) or path.is_dir():
        raise InputError(f"{flag} {text} is a folder; give a file name in it, e.g. "
                         f"{path / ('out' + (kinds[0] if kinds else '.json'))}")
    from chickenfoot.storage.safe_json import writable_folder

    try:
        writable_folder(path.parent)
    except OSError as exc:
        raise InputError(f"{flag} {text}: {exc.strerror}") from None
    if kinds and path.suffix.lower() not in kinds:
        raise InputError(f"{flag} {text}: unknown kind of file {path.suffix or '(no extension)'}; "
                         f"use {' or '.join(kinds)}")
    if path.exists() and (not os.access(path, os.W_OK) or not path.stat().st_mode & 0o222):
        raise InputError(f"{flag} {text}: the file is read-only")
    return path


#: Names the scorekeeper storage gives the files kept beside a scorekeeper file.
_KEPT_COPY = re.compile(r"\.(?:lock|bak|damaged-\d{8}T\d{6}(?:-\d+)?)$")
#: Biggest file looked into for scorekeeping before it is written over (bytes).
_LOOK_INTO = 256 * 1024 * 1024


def _holds_scorekeeping(path: Path) -> bool:
    """Whether ``path`` reads as a scorekeeper file (tables of numbered documents)."""
    from chickenfoot.storage.errors import StorageError
    from chickenfoot.storage.safe_json import decode

    try:
        if path.stat().st_size > _LOOK_INTO:
            return False
        with open(path, "rb") as f:
            if f.read(1) != b"{":  # a picture, a CSV, an export's list: at a glance
                return False
        return bool(decode(path.read_bytes(), path))
    except (OSError, StorageError, ValueError):
        return False


def _same_file(a: Path, b: Path) -> bool:
    """Whether two names are one file, through links too (a file not there yet is its name)."""
    return os.path.realpath(a) == os.path.realpath(b)


def write_outputs(files: Sequence[tuple[Path, bytes]]) -> None:
    """Write every output atomically; if one cannot be written, the ones this call created
    are removed again (exit 2 leaves no new file)."""
    from chickenfoot.storage.safe_json import atomic_write

    done: list[Path] = []
    for path, data in files:
        existed = path.exists()
        try:
            atomic_write(path, data, keep_backup=False, make_folder=False)
        except OSError as exc:
            for p in done:
                p.unlink(missing_ok=True)
            raise InputError(f"cannot write {path}: {exc.strerror or exc}; nothing was written") from None
        if not existed:
            done.append(path)


def emit(data: Any, as_json: bool, text: str | None = None) -> None:
    """Print ``data`` as JSON, or ``text`` for people."""
    if as_json:
        json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    elif text is not None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def error_line(message: str) -> str:
    """The one form of an error line, whatever the command: the prefix and a short excerpt."""
    return ERROR_PREFIX + excerpt(message)


def fail(message: str, as_json: bool = False, code: str = "error") -> int:
    message = excerpt(message)  # the same short message on the line and in the JSON
    sys.stderr.write(ERROR_PREFIX + message + "\n")
    if as_json:
        emit({"error": {"code": code, "message": message}, "exit": EXIT_USAGE}, True)
    return EXIT_USAGE


def error_code(exc: BaseException) -> str:
    """A stable name for an error's cause: ``InvalidTileError`` -> ``invalid-tile``."""
    name = type(exc).__name__.removesuffix("Error") or "error"
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def _command_parser(parser: argparse.ArgumentParser, argv: Sequence[str]
                    ) -> tuple[str, argparse.ArgumentParser]:
    """The (sub)command words ``argv`` begins with ("match round") and their parser, followed
    through the parsers' own subcommands: argparse reports arguments it did not know from the
    top parser."""
    words = []
    for word in argv:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or word not in subs[0].choices:
            break
        words.append(word)
        parser = subs[0].choices[word]
    return " ".join(words), parser


def _command_of(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str:
    return _command_parser(parser, argv)[0]


def _no_command(parser: argparse.ArgumentParser, argv: Sequence[str]) -> int:
    """``chickenfoot`` or a group (``match``, ``db``) given no command: its help, on stderr and
    with exit 2 like every usage error, so a script never reads it as output. (``--json`` here
    is an option these levels do not know: argparse's usage error, JSON included.)"""
    _command_parser(parser, argv)[1].print_help(sys.stderr)
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        if "(see chickenfoot" not in exc.message:  # the top parser's: name the command it was for
            sub = _command_of(parser, argv)
            exc.message = excerpt(exc.message + (f" (see chickenfoot {sub} --help)" if sub else ""))
        sys.stderr.write(error_line(exc.message) + "\n")
        if "--json" in argv:
            emit({"error": {"code": "usage", "message": exc.message}, "exit": EXIT_USAGE}, True)
        raise SystemExit(EXIT_USAGE) from None  # as argparse itself exits
    if not getattr(args, "func", None):
        return _no_command(parser, argv)
    try:
        return int(args.func(args) or 0)
    except ChickenFootError as exc:
        return fail(str(exc), bool(getattr(args, "json", False)), error_code(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
