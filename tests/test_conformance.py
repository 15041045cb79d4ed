"""R6: the replay command reproduces the conformance sets exactly: the public set, which
ships with the tests, and any set kept beside the checkout (:mod:`tests.conformance`)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from dehla_env.replay import main as replay_main
from tests.conformance import PUBLIC, conformance_sets, normalise

RECORDS = PUBLIC / "records.jsonl"


@pytest.mark.parametrize("folder", conformance_sets(), ids=lambda folder: f"{folder.parent.name}/{folder.name}")
def test_r6_conformance_set_matches_exactly(folder: Path) -> None:
    out = io.StringIO()
    replay_main([str(folder / "records.jsonl")], stdout=out)
    actual = {r["id"]: normalise(r) for r in map(json.loads, out.getvalue().splitlines())}
    expected = {r["id"]: normalise(r) for r in map(json.loads, (folder / "expected.jsonl").read_text().splitlines())}
    assert len(expected) == len(actual) > 0
    mismatched = [rid for rid, exp in expected.items() if actual.get(rid) != exp]
    assert not mismatched, f"{len(mismatched)} of {len(expected)} records differ, first: {mismatched[:5]}"


def test_r6_replay_command_reads_standard_input() -> None:
    first = RECORDS.read_text().splitlines()[0]
    proc = subprocess.run(
        [sys.executable, "-m", "dehla_env.replay"], input=first + "\n", capture_output=True, text=True, check=True
    )
    result = json.loads(proc.stdout)
    assert result["id"] == json.loads(first)["id"]


def test_r6_bad_record_reports_hand_and_move_null() -> None:
    from dehla_env.records import replay_record

    for record in (
        {"id": "x", "rules": "whist", "first_dealer": 0, "hands": []},
        {"id": "x", "rules": "dehla", "options": {"kots": 0}, "first_dealer": 0, "hands": []},
        {"id": "x", "rules": "dehla", "options": {"colour": "red"}, "first_dealer": 0, "hands": []},
        {"id": "x", "rules": "dehla", "first_dealer": 4, "hands": []},
        {"id": "x", "rules": "dehla", "hands": []},
    ):
        out = replay_record(record)
        assert out["error"]["hand"] is None and out["error"]["move"] is None, record
        assert out["hands"] == [] and out["hands_played"] == 0
