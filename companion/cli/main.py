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
import re
import sys
from collections.abc import Sequence
from typing import Any

from companion.rules.errors import ChickenFootError

# Order is the order shown in --help.
COMMAND_MODULES = (
    "companion.cli.rules_cmd",  # rules, check, simulate
    "companion.cli.match_cmd",  # match ..., stats
    "companion.cli.score_cmd",  # score PHOTO...
    "companion.cli.table_cmd",  # table PHOTO
    "companion.cli.practice_cmd",  # practice
    "companion.cli.app_cmd",  # app
)

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A command line argparse cannot read (unknown option, missing argument)."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(f"{prog}: error: {message}")
        self.message = message


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # one line and exit 2 like every other bad input, printed by main (as JSON too if asked)
        raise UsageError(self.prog, message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="chickenfoot",
        description="Chicken Foot dominoes table companion: rules, disputes, scores, photo scoring.",
    )
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


def emit(data: Any, as_json: bool, text: str | None = None) -> None:
    """Print ``data`` as JSON, or ``text`` for people."""
    if as_json:
        json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    elif text is not None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def fail(message: str, as_json: bool = False, code: str = "error") -> int:
    sys.stderr.write(f"chickenfoot: error: {message}\n")
    if as_json:
        emit({"error": {"code": code, "message": message}, "exit": EXIT_USAGE}, True)
    return EXIT_USAGE


def error_code(exc: BaseException) -> str:
    """A stable name for an error's cause: ``InvalidTileError`` -> ``invalid-tile``."""
    name = type(exc).__name__.removesuffix("Error") or "error"
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        sys.stderr.write(f"{exc}\n")
        if "--json" in argv:
            emit({"error": {"code": "usage", "message": exc.message}, "exit": EXIT_USAGE}, True)
        raise SystemExit(EXIT_USAGE) from None  # as argparse itself exits
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
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
