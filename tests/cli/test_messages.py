"""What every command says: error lines short whatever the input, one error prefix, help in
plain words, counts in the singular where there is one, and output folders (``--db`` included)
handled one way."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chickenfoot.cli.main import build_parser, main
from chickenfoot.cli.rules_cmd import BOT_NAMES
from chickenfoot.rules.errors import InputError, excerpt

ROOT = Path(__file__).resolve().parents[1].parent
LONG = "5" * 5000


def _main(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # a command line argparse cannot read exits as argparse does
        return int(exc.code or 0)


def _exit_2(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = _main(list(argv))
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("chickenfoot: error: "), err
    return lines[0]


@pytest.mark.parametrize("argv", [
    ["rules", LONG],
    ["simulate", "-o", f"spokes={LONG}"],
    ["simulate", "--players", LONG],
    ["check", LONG],
    ["score", LONG],
    ["match", "show", LONG],
    ["practice", "--seed", "1", "--moves", f"{LONG}-1 on 9-9"],
    ["check", str(ROOT / "docs" / "board.json"), "--play", f"{LONG}-1", "--on", "9-1"],
])
def test_error_lines_cut_long_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    if argv[0] == "match":
        argv = [*argv, "--db", str(tmp_path / "m.json")]
    line = _exit_2(capsys, *argv)
    assert len(line.encode()) < 300, line
    assert "(5,00" in line and "characters)" in line  # says how long the input was


def test_the_excerpt_keeps_short_words_and_paths_whole() -> None:
    text = f"cannot read {'/a' * 40}/file.json: no such file"
    assert excerpt(text) == text
    cut = excerpt(f"bad tile '{LONG}'; write it like 4-7")
    assert cut.startswith("bad tile '55555") and cut.endswith("(5,002 characters); write it like 4-7")
    assert len(excerpt(" ".join(["word"] * 1000))) < 1100
    assert str(InputError(LONG)) == excerpt(LONG)


def test_usage_errors_have_the_same_prefix_and_name_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    line = _exit_2(capsys, "match", "new")
    assert line == ("chickenfoot: error: the following arguments are required: --players "
                    "(see chickenfoot match new --help)")
    code = _main(["simulate", "--bot", "nobody", "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and err.startswith("chickenfoot: error: argument --bot")
    assert json.loads(out)["error"]["code"] == "usage"
    # an option no command knows is reported by the top parser: the line still names the command
    assert _exit_2(capsys, "match", "round", "x", "--bogus") == (
        "chickenfoot: error: unrecognized arguments: --bogus (see chickenfoot match round --help)")
    assert _exit_2(capsys, "--bogus") == "chickenfoot: error: unrecognized arguments: --bogus"


def test_a_flag_naming_one_player_given_twice_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.json"
    assert _main(["match", "new", "--players", "Ann,Bob,Cy", "--db", str(db), "--json"]) == 0
    mid = json.loads(capsys.readouterr().out)["id"]
    before = db.read_bytes()
    line = _exit_2(capsys, "match", "round", "x", "--penalty", "Ann=1", "--out", "Bob", "--out", "Cy",
                   "--db", str(db))
    assert line == ("chickenfoot: error: --out given twice (Bob, Cy): one player goes out "
                    "(see chickenfoot match round --help)")
    assert "--held given twice (Ann, Bob)" in _exit_2(capsys, "match", "edit", "x", "1", "--held", "Ann",
                                                      "--held", "Bob", "--db", str(db))
    assert db.read_bytes() == before
    # the same name twice is no contradiction
    assert _main(["match", "round", mid, "--penalty", "Ann=1", "Cy=2", "--out", "Bob", "--out", "Bob",
                  "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rounds"][0]["out"] == "Bob"


def test_practice_answers_a_bad_move_with_the_same_prefix(capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("foo\nquit\n"))
    assert main(["practice", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "chickenfoot: error: cannot read the move 'foo'" in out


def _helps(parser: object) -> list[str]:
    import argparse

    assert isinstance(parser, argparse.ArgumentParser)
    texts = [parser.format_help()]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                texts += _helps(sub)
    return texts


def test_help_has_no_rest_markup() -> None:
    for text in _helps(build_parser()):
        assert "`" not in text, text


def test_simulate_takes_every_bot_practice_offers(capsys: pytest.CaptureFixture[str]) -> None:
    from chickenfoot.rules.bots import BOTS

    assert set(BOT_NAMES) == set(BOTS)
    assert main(["simulate", "--bot", "lookahead", "--seed", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bot"] == "lookahead"


def test_rules_name_lists_the_options_as_option_takes_them(capsys: pytest.CaptureFixture[str]) -> None:
    from chickenfoot.rules.ruleset import OPTIONS

    assert main(["rules", "pagat", "-o", "spokes=6"]) == 0
    out = capsys.readouterr().out
    for o in OPTIONS.values():
        assert re.search(rf"^  {o.name}=\S+: ", out, re.M), o.name
    assert "\n  spokes=6: " in out and "\n  zero-zero=50: " in out
    # and what it prints is taken back by --option
    assert main(["rules", "pagat", "-o", "tie-break=zero-rounds", "-o", "set=none"]) == 0


def test_counts_say_one_in_the_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.json")
    assert main(["match", "new", "--players", "Ann,Bob", "--db", db]) == 0
    capsys.readouterr()
    assert main(["match", "export", "--all", "--out", str(tmp_path / "e.json"), "--db", db]) == 0
    assert capsys.readouterr().out.startswith("exported 1 match to ")
    assert main(["db", "check", "--db", db]) == 0
    assert capsys.readouterr().out.strip() == "ok: 1 match read back fine"


@pytest.mark.parametrize("flag", ["--db", "--out", "--draw"])
def test_output_folders_are_handled_one_way(tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str) -> None:
    """A missing folder is refused (never made) and a read-only one named, for the scorekeeper
    file as for every output; nothing is left behind, no lock file either."""
    db = tmp_path / "m.json"
    assert main(["match", "new", "--players", "Ann,Bob", "--db", str(db)]) == 0
    capsys.readouterr()
    name = {"--db": "games.json", "--out": "e.json", "--draw": "b.png"}[flag]
    cmd = {"--db": ["match", "new", "--players", "Ann,Bob"],
           "--out": ["match", "export", "--all", "--db", str(db)],
           "--draw": ["check", str(ROOT / "docs" / "board.json")]}[flag]
    missing = tmp_path / "missing" / "dir" / name
    line = _exit_2(capsys, *cmd, flag, str(missing))
    assert line.endswith(f"{flag} {missing}: there is no folder {missing.parent} (it is not created)"), line
    assert not (tmp_path / "missing").exists()
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        line = _exit_2(capsys, *cmd, flag, str(ro / name))
        assert "read-only" in line and str(ro) in line and ".lock" not in line, line
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o755)


@pytest.mark.parametrize("group", [[], ["match"], ["db"]])
def test_a_group_given_no_command_prints_its_help_on_stderr_and_exits_2(
        capsys: pytest.CaptureFixture[str], group: list[str]) -> None:
    """The bare `chickenfoot` as `chickenfoot match`: help on stderr, nothing a script would read
    as output; with --json, the JSON error object of every usage error."""
    assert _main(group) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"usage: {' '.join(['chickenfoot', *group])} [-h]")
    assert _main([*group, "--json"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out) == {"error": {"code": "usage", "message": "unrecognized arguments: --json"
                                         + (f" (see chickenfoot {group[0]} --help)" if group else "")},
                               "exit": 2}
    assert err.startswith("chickenfoot: error: unrecognized arguments: --json")
