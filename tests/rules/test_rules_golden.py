"""Seeded simulations play exactly the recorded matches (see golden_cases.py): the rules core's
speed work must not change a deal, a legal-play list, a bot's choice or a record."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from golden_cases import FULL, ROOT, SUMMARY, canonical, cases, full_path, record, summary

GOLDEN = json.loads(SUMMARY.read_text(encoding="utf-8"))


def test_every_case_is_recorded():
    assert sorted(GOLDEN) == sorted(c[0] for c in cases())


@pytest.mark.parametrize("cid, preset, options, players, seed, bot", cases(), ids=[c[0] for c in cases()])
def test_seeded_simulation_matches_the_record(cid, preset, options, players, seed, bot):
    assert summary(record(preset, options, players, seed, bot)) == GOLDEN[cid]


@pytest.mark.parametrize("preset, _, players, seed, bot", FULL)
def test_full_record_turn_by_turn(preset, _, players, seed, bot):
    want = json.loads(full_path(preset, players, seed, bot).read_text(encoding="utf-8"))
    got = json.loads(canonical(record(preset, {}, players, seed, bot, 1)))
    for k, (g, w) in enumerate(zip(got["matches"][0]["rounds"], want["matches"][0]["rounds"], strict=True)):
        assert g == w, f"round {k + 1} differs"
    assert got == want


def test_cli_prints_the_recorded_match():
    preset, _, players, seed, bot = FULL[0]
    out = subprocess.run([sys.executable, "-m", "chickenfoot", "simulate", "--rules", preset, "--players",
                          str(players), "--seed", str(seed), "--bot", bot, "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=True).stdout
    assert canonical(json.loads(out)) + "\n" == full_path(preset, players, seed, bot).read_text(encoding="utf-8")
