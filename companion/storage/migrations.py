"""Schema versions of the scorekeeper file and the migrations between them.

The version lives in the file itself: table ``_meta``, document 1, field ``schema``. A file
without it is schema 0. Opening a file runs, in order, every migration from its version up to
:data:`SCHEMA_VERSION` (each ``MIGRATIONS[n]`` turns raw schema-n data into schema n+1), under
the write lock, after keeping an untouched copy as ``FILE.schema-N.bak``.

Schema 0 (the first prototype): matches in TinyDB's ``_default`` table, shaped
``{"id", "players": [names], "preset": NAME, "options": {...}, "created": ISO,
"rounds": [{"scores": {name: points}, "out": name | null}], "abandoned": bool}``.

Schema 1 (now): ``_meta`` as above plus ``changes`` (a counter raised by every write, for
multi-device refresh) and table ``matches`` whose documents are
``{"id": match id, "summary": {...}, "match": JSON text of Match.to_dict()}``. The match is
kept as *text* inside the document so that opening the file parses one string per match rather
than hundreds of small objects (7-10x faster to open a long history); it is decoded only when
that match is asked for. A ``match`` written as a plain object is read too (hand repairs).
Table ``drafts`` holds rounds being entered, ``{"id", "draft": RoundDraft.to_dict()}``; it came
without a schema change, because files are rewritten whole with every table kept, so versions
that do not know it leave it alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from chickenfoot.match import Match, MatchError
from chickenfoot.rules import ChickenFootError, RuleSet, get_rules, jsontext

from .errors import SchemaError

SCHEMA_VERSION = 1
META_TABLE = "_meta"
MATCHES_TABLE = "matches"
DRAFTS_TABLE = "drafts"
META_DOC = "1"

Raw = dict[str, Any]


def schema_of(raw: Raw | None) -> int:
    if not raw:
        return SCHEMA_VERSION  # a new file is written in the current schema
    meta = raw.get(META_TABLE, {}).get(META_DOC)
    if meta is None:
        # A "matches" table without its meta entry is a current file whose meta was lost (hand
        # edit): treat it as current; the next save writes the meta again. Never "migrate" it,
        # which would drop the matches table.
        return SCHEMA_VERSION if MATCHES_TABLE in raw else 0
    version = meta.get("schema")
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise SchemaError(f"the schema version {version!r} in the file is not a number")
    return version


def empty(changes: int = 0) -> Raw:
    return {META_TABLE: {META_DOC: {"schema": SCHEMA_VERSION, "changes": changes}},
            MATCHES_TABLE: {}}


def summarize(m: Match) -> dict[str, Any]:
    """What ``match list`` shows, stored beside the match so listing decodes nothing."""
    table = m.standings()
    outcome = m.outcome()
    return {
        "players": list(m.players),
        "rules": m.rules.name,
        "status": m.status,
        "rounds": len(m.rounds),
        "planned_rounds": m.planned_rounds,
        "created_at": m.created_at,
        "updated_at": m.updated_at,
        "totals": [s.total for s in table],
        "leaders": [s.player for s in table if s.leader],
        "winners": list(outcome.winners) if outcome else [],
        "draw": bool(outcome and outcome.draw),
        "revision": m.revision,
    }


def match_doc(m: Match) -> dict[str, Any]:
    text = json.dumps(m.to_dict(), ensure_ascii=False, separators=(",", ":"))
    return {"id": m.id, "summary": summarize(m), "match": text}


def match_data(doc: dict[str, Any]) -> Any:
    """The ``Match.to_dict`` data of a stored document (text, or an object after a hand repair)."""
    data = doc["match"]
    return jsontext.loads(data) if isinstance(data, str) else data


# ------------------------------------------------------------------------- migrations
def _v0_to_v1(raw: Raw) -> Raw:
    """Schema 0 (prototype, preset name + score dicts) to schema 1 (own rules copy, seats)."""
    out = empty()
    docs = raw.get("_default", {})
    for n, (key, old) in enumerate(sorted(docs.items(), key=lambda kv: int(kv[0])), start=1):
        try:
            players = list(old["players"])
            rules: RuleSet = get_rules(old.get("preset") or "double-chicken-foot",
                                       old.get("options") or None)
            doubles = rules.round_doubles(len(players))
            rounds = []
            for i, r in enumerate(old.get("rounds", [])):
                scores = {str(k).casefold(): v for k, v in r["scores"].items()}
                out_name = r.get("out")
                seat = None
                if out_name is not None:
                    seat = [p.casefold() for p in players].index(str(out_name).casefold())
                rounds.append({"double": doubles[i],
                               "penalties": [scores.get(p.casefold(), 0) for p in players],
                               "out": seat})
            created = str(old.get("created", ""))
            data = {"id": str(old.get("id") or f"v0-{key}"), "players": players,
                    "rules": rules.to_dict(), "rounds": rounds, "created_at": created,
                    "updated_at": created, "abandoned": bool(old.get("abandoned", False)),
                    "revision": len(rounds)}
            m = Match.from_dict(data)  # re-checks every round against the rules
        except (ChickenFootError, MatchError, KeyError, TypeError, ValueError, IndexError) as exc:
            raise SchemaError(f"old match #{key} cannot be carried over to schema 1: {exc}; "
                              "the file was not changed") from None
        out[MATCHES_TABLE][str(n)] = match_doc(m)
    for name, table in raw.items():  # keep anything we do not know about
        if name not in ("_default", META_TABLE, MATCHES_TABLE):
            out[name] = table
    return out


#: ``MIGRATIONS[n]`` turns schema n into schema n+1.
MIGRATIONS: dict[int, Callable[[Raw], Raw]] = {0: _v0_to_v1}


def migrate(raw: Raw) -> tuple[Raw, int]:
    """Return the data in the current schema and the schema it started at."""
    start = schema_of(raw)
    if start > SCHEMA_VERSION:
        raise SchemaError(f"the file was written by a newer chickenfoot (schema {start}; this one "
                          f"reads up to {SCHEMA_VERSION}); update chickenfoot")
    version = start
    while version < SCHEMA_VERSION:
        raw = MIGRATIONS[version](raw)
        version += 1
        raw.setdefault(META_TABLE, {}).setdefault(META_DOC, {"changes": 0})["schema"] = version
    return raw, start
