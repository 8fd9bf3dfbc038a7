"""The ``chickenfoot`` command line: one entry point, one subcommand module per area.

Each module in ``COMMAND_MODULES`` exposes ``register(subparsers)`` and sets ``func`` on the
parsers it adds; ``func(args)`` returns the exit code. Errors from the project's error tree
become a one-line message and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
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
    "companion.cli.app_cmd",  # app
)

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, like every other bad input
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


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


def fail(message: str) -> int:
    sys.stderr.write(f"chickenfoot: error: {message}\n")
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except ChickenFootError as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
