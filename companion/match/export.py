"""Export and import: JSON (lossless, re-importable) and CSV (one row per player per round).

The JSON document is ``{"format": "chickenfoot-matches", "version": 1, "exported_at": ...,
"matches": [Match.to_dict(), ...]}``; :func:`read_export` also takes a single match object or a
bare list of them. Match ids are stable uuids, so importing the same file twice adds nothing.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from typing import Any

from chickenfoot.rules import jsontext

from .errors import MatchDataError
from .model import Match, utc_now

EXPORT_FORMAT = "chickenfoot-matches"
EXPORT_VERSION = 1

CSV_COLUMNS = (
    "match_id", "created_at", "rules", "status", "round", "double", "seat", "player", "penalty",
    "tiles", "went_out", "blocked", "held_double", "total", "rank",
)


def export_json(matches: Iterable[Match]) -> dict[str, Any]:
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": utc_now(),
        "matches": [m.to_dict() for m in matches],
    }


def dumps_json(matches: Iterable[Match]) -> str:
    return json.dumps(export_json(matches), ensure_ascii=False, indent=1) + "\n"


#: What a match id looks like (the program's own are 32 hex digits).
_ID = re.compile(r"[a-z0-9_-]{1,64}")


def read_export(data: Any) -> list[Match]:
    """Matches from an export document (all checked before any is returned)."""
    if isinstance(data, dict) and "matches" in data:
        if data.get("format", EXPORT_FORMAT) != EXPORT_FORMAT:
            raise MatchDataError(f"not a Chicken Foot export (format {data.get('format')!r})")
        version = data.get("version", EXPORT_VERSION)
        if not isinstance(version, int) or version > EXPORT_VERSION:
            raise MatchDataError(f"export version {version!r} is newer than this program reads "
                                 f"({EXPORT_VERSION}); update chickenfoot")
        items = data["matches"]
    elif isinstance(data, dict) and "hub" in data and "plays" in data:
        raise MatchDataError("this is a layout file (for `chickenfoot check`), not a match export")
    elif isinstance(data, dict) and not ("id" in data and "players" in data):
        raise MatchDataError("not a Chicken Foot export: the file holds no matches (an export made by "
                             "Export in the app's History or by the command chickenfoot match export, has a \"matches\" list)")
    elif isinstance(data, dict):
        items = [data]
    else:
        items = data
    if not isinstance(items, list):
        raise MatchDataError("an export holds a list of matches")
    for n, d in enumerate(items, start=1):
        if not isinstance(d, dict) or not isinstance(d.get("id"), str) or "players" not in d:
            raise MatchDataError(f"entry {n} is not a match (a match has an \"id\" and \"players\"); "
                                 "export files are made by Export in the app's History, or `chickenfoot match export`")
        if not _ID.fullmatch(d["id"]):
            # ids are typed back in lower case: one with capitals or spaces could be listed but
            # never opened, and its listed id would reach another match
            raise MatchDataError(f"entry {n} has the id {d['id'][:40]!r}: an id is lower-case letters, digits, "
                                 "'-' and '_' (as export writes it); was the file edited?")
    matches = [Match.from_dict(d) for d in items]
    seen: set[str] = set()
    for m in matches:
        if m.id in seen:
            raise MatchDataError(f"match {m.id} appears twice in the file")
        seen.add(m.id)
    return matches


def loads_json(text: str) -> list[Match]:
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as exc:
        if text.lstrip("\ufeff \r\n").startswith("match_id,"):
            raise MatchDataError("this is a CSV export, for spreadsheets: matches are imported from the "
                                 "JSON export, which holds everything (rounds, tiles, undo history)") from None
        raise MatchDataError(
            "not a Chicken Foot export: the file is not JSON (it goes wrong at line "
            f"{exc.lineno}, column {exc.colno}: {exc.msg[:1].lower()}{exc.msg[1:]})") from None
    except jsontext.JSONLimitError as exc:
        raise MatchDataError(f"not a Chicken Foot export: {exc}") from None
    return read_export(data)


def _cell(text: str) -> str:
    """A name as a spreadsheet shows it, never runs it: one starting with = + - @ (a formula to
    Excel and LibreOffice) gets a leading apostrophe, as OWASP advises for CSV files."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def export_csv(matches: Iterable[Match]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for m in matches:
        for k, rnd in enumerate(m.rounds, start=1):
            table = m.standings(after=k)
            for s, name in enumerate(m.players):
                hand = rnd.tiles[s]
                w.writerow([
                    m.id, m.created_at, m.rules.name, m.status, k, f"{rnd.double}-{rnd.double}",
                    s + 1, _cell(name), rnd.penalties[s],
                    "" if hand is None else " ".join(str(t) for t in hand),
                    int(rnd.out == s), int(rnd.blocked), int(rnd.holder == s),
                    table[s].total, table[s].rank,
                ])
    return buf.getvalue()
