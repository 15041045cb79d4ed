"""The result records (``results/*.json``) are the figures' single source: these tests
hold the generated tables, the network files, the commands and the intervals to them.

Each record is one measured result with the complete command that reproduces it; the
tables in ``README.md`` and ``docs/*.md`` are generated from the records by
``results/tables.py``. No arena is run here: the checks are on the records themselves.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
SHIPPED = ROOT / "agents" / "checkpoints"

#: the fields every arena result must carry (``command`` may be null only where the
#: record says it is not reproducible, e.g. a parameter that no longer exists)
RESULT_FIELDS = ("id", "command", "rules", "options", "a", "b", "seed", "deals", "figure", "interval", "checkpoints")
SPEED_FIELDS = ("id", "title", "command", "figure", "baseline")


def _tables() -> ModuleType:
    """``results/tables.py`` as a module (``results`` is a folder of data, not a package)."""
    return load_script("results/tables.py", "results_tables")


TABLES = _tables()


def _results() -> list[dict[str, Any]]:
    return [r for name in ("shipped", "search", "findings") for r in TABLES.load(name)["records"]]


RESULT_RECORDS = _results()
SPEED_RECORDS: list[dict[str, Any]] = TABLES.load("speed")["records"]
ALL = RESULT_RECORDS + SPEED_RECORDS


@cache
def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _networks(record: dict[str, Any]) -> list[str]:
    """The repository paths of the networks the record's agents load: ``policy:NAME``
    is the shipped ``agents/checkpoints/NAME.pt``, any other ``policy:PATH`` a path from
    the repository root; a search names its networks as parameters (``prior=policy:...``);
    a side's partner (``partner_a``, ``partner_b``) and the agent that makes A's trump
    decisions (``trump_a``, experiments/trump_call.py) load theirs too."""
    found = []
    specs = (record["a"], record["b"], record.get("partner_a"), record.get("partner_b"), record.get("trump_a"))
    for spec in (s or "" for s in specs):
        for where in re.findall(r"policy:([^,\s]+)", spec):
            found.append(f"agents/checkpoints/{where}.pt" if "/" not in where and not where.endswith(".pt") else where)
    return found


def _trained(path: str) -> bool:
    """A network that the record's own training command writes (``RUN_DIR``, ``runs/``)."""
    return "RUN_DIR" in path or path.startswith("runs/")


def _flags(command: str) -> dict[str, list[str]]:
    """The ``--flag value`` pairs of a command line, each flag's values in order."""
    words = shlex.split(command)
    flags: dict[str, list[str]] = {}
    for i, word in enumerate(words):
        if word.startswith("--") and i + 1 < len(words) and not words[i + 1].startswith("--"):
            flags.setdefault(word, []).append(words[i + 1])
    return flags


# ---------------------------------------------------------------------- the tables
def test_every_marked_block_is_what_the_records_generate() -> None:
    """A table between ``<!-- results:NAME -->`` markers in README.md or docs/*.md
    reads exactly as ``python results/tables.py`` writes it: a figure edited by hand,
    or a record changed without regenerating, fails here."""
    problems = TABLES.check()
    assert not problems, "\n".join(problems) + "\nrun: python results/tables.py"


def test_the_check_names_a_block_that_differs(tmp_path: Path) -> None:
    """The checker reports a stale block by file and name, and refuses an unknown name
    or a block without its closing marker rather than rewriting past it."""
    page = tmp_path / "page.md"
    page.write_text("# t\n\n<!-- results:speed -->\n| stale |\n<!-- /results:speed -->\n")
    assert TABLES.check([page]) == [f"{page}: block 'speed' differs from the records"]
    assert TABLES.write([page]) and TABLES.check([page]) == []
    page.write_text("<!-- results:no-such-table -->\n<!-- /results:no-such-table -->\n")
    with pytest.raises(TABLES.BlockError, match="unknown results block"):
        TABLES.check([page])
    page.write_text("<!-- results:speed -->\n| x |\n")
    with pytest.raises(TABLES.BlockError, match="no closing"):
        TABLES.check([page])


def test_every_table_renders() -> None:
    """Every named table renders from the records (a record missing a field a table
    reads fails here, not in the docs build); the README's table has one row per
    shipped policy."""
    for name, render in TABLES.tables().items():
        assert render().startswith("| "), name
    rows = TABLES.tables()["shipped-policies"]().splitlines()[2:]
    assert len(rows) == len({r["policy"] for r in TABLES.load("shipped")["records"]})


# ---------------------------------------------------------------------- the records
def test_every_record_has_its_fields() -> None:
    """Each arena result carries the fields that reproduce and read it; each speed
    record its command, ratio and baseline; ids are unique across the files."""
    for r in RESULT_RECORDS:
        missing = [f for f in RESULT_FIELDS if f not in r]
        assert not missing, (r.get("id"), missing)
        assert isinstance(r["seed"], int) and isinstance(r["deals"], int) and r["deals"] > 0, r["id"]
    for r in SPEED_RECORDS:
        missing = [f for f in SPEED_FIELDS if f not in r]
        assert not missing, (r.get("id"), missing)
        assert r["figure"] > 0, r["id"]
    ids = [r["id"] for r in ALL]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_every_interval_contains_its_figure() -> None:
    """A 95% interval over deals is ``[lo, hi]`` with ``lo <= figure <= hi``, all shares
    of hands between 0 and 1."""
    for r in RESULT_RECORDS:
        lo, hi = r["interval"]
        assert 0.0 <= lo <= r["figure"] <= hi <= 1.0, (r["id"], r["figure"], r["interval"])


def test_a_record_without_a_command_says_why() -> None:
    """Only a record marked not reproducible may lack a command, and it must say why."""
    for r in RESULT_RECORDS:
        if r["command"] is None:
            assert r.get("reproducible") is False and r.get("note"), r["id"]


def test_every_command_agrees_with_its_fields() -> None:
    """The command is the record: its ``--rules``, ``--option``, ``--a`` (or a search
    ceiling's ``--spec``), ``--b``, the partners (``--partner-a``, ``--partner-b``),
    ``--deals``, ``--seed`` and A's trump agent (``--trump``) are the record's fields, and
    it runs the arena (``dehla-arena``) or a script that exists."""
    for r in RESULT_RECORDS:
        if r["command"] is None:
            continue
        words = shlex.split(r["command"])
        if words[0] == "dehla-arena":
            a_flag = "--a"
        else:
            assert words[0] == "python" and (ROOT / words[1]).is_file(), r["command"]
            a_flag = "--spec"
        flags = _flags(r["command"])
        options = dict(o.split("=", 1) for o in flags.get("--option", []))
        got = {
            "rules": flags["--rules"][0],
            "options": options,
            "a": flags[a_flag][0],
            "b": flags["--b"][0],
            "deals": int(flags["--deals"][0]),
            "seed": int(flags["--seed"][0]),
            "partner_a": flags.get("--partner-a", [None])[0],
            "partner_b": flags.get("--partner-b", [None])[0],
            "trump_a": flags.get("--trump", [None])[0],
        }
        want = {key: r.get(key) for key in got}
        assert got == want, (r["id"], got, want)


def test_every_benchmark_command_names_a_script_that_exists() -> None:
    """Speed records and search timings are reproduced by ``python benchmarks/X.py``."""
    commands = [r["command"] for r in SPEED_RECORDS]
    commands += [r["speed"]["command"] for r in RESULT_RECORDS if "speed" in r]
    for command in commands:
        words = shlex.split(command)
        assert words[0] == "python" and words[1].startswith("benchmarks/"), command
        assert (ROOT / words[1]).is_file(), command


# ---------------------------------------------------------------------- the networks
def test_every_checkpoint_hash_matches_its_file() -> None:
    """A record's ``checkpoints`` maps each network file it was measured with to the
    file's sha256: retraining a shipped policy, or replacing a kept network, without
    measuring again fails here."""
    for r in RESULT_RECORDS:
        for path, digest in r["checkpoints"].items():
            file = ROOT / path
            assert file.is_file(), (r["id"], path)
            assert _sha256(file) == digest, (r["id"], path, "the file changed since this result was measured")


def test_every_network_a_command_loads_is_named() -> None:
    """Each network the agents load is in ``checkpoints`` (with its hash), written by the
    record's own training run, or listed under ``unavailable`` as not kept (and then the
    record is marked not reproducible); ``checkpoints`` names nothing else."""
    for r in RESULT_RECORDS:
        used = _networks(r)
        for path in used:
            if _trained(path):
                assert "training" in r, (r["id"], path, "a trained network needs the record's training run")
            elif path in r.get("unavailable", {}):
                assert not (ROOT / path).exists(), (r["id"], path, "listed as not kept, but the file exists")
                assert r.get("reproducible") is False, r["id"]
            else:
                assert path in r["checkpoints"], (r["id"], path, "a network without its sha256")
        assert set(r["checkpoints"]) <= set(used), (r["id"], "checkpoints the agents do not load")


def test_every_kept_network_is_used_and_every_shipped_policy_has_a_headline() -> None:
    """The networks kept in ``results/networks/`` are each needed by some record, every
    shipped network is measured by some record, and every shipped policy has exactly
    one headline (primary) record against ``hard``."""
    kept = RESULT_RECORDS + TABLES.load("partners")["records"] + TABLES.load("time_to_strength")["records"]
    named = {path for r in kept for path in r["checkpoints"]}
    for file in sorted((RESULTS / "networks").glob("*.pt")) + sorted(SHIPPED.glob("*.pt")):
        assert str(file.relative_to(ROOT)) in named, f"{file.relative_to(ROOT)} is named by no record"
    shipped = TABLES.load("shipped")["records"]
    for policy in {r["policy"] for r in shipped}:
        primary = [r for r in shipped if r["policy"] == policy and r.get("primary")]
        assert len(primary) == 1 and primary[0]["b"] == "hard", policy
        assert {"config", "updates", "minutes", "decisions_m"} <= set(primary[0]["training"]), policy
        assert (SHIPPED / f"{policy}.pt").is_file(), policy


def test_every_findings_record_belongs_to_a_group() -> None:
    """A finding sits in a declared group (one docs table each) and has a title; a
    group's ``include`` names records that exist."""
    data = TABLES.load("findings")
    groups = {g["id"] for g in data["groups"]}
    ids = {r["id"] for r in ALL}
    for r in data["records"]:
        assert r["group"] in groups and r.get("title"), r["id"]
    for g in data["groups"]:
        assert set(g["include"]) <= ids, g["id"]


def test_the_crossplay_record_agrees_with_its_command_and_network() -> None:
    """The cross-play table's command names its agents, opponent, ruleset and deals, and
    the shipped network it seated has the hash it was measured with."""
    data = TABLES.load("crossplay")
    flags = _flags(data["command"])
    assert shlex.split(data["command"])[0] == "dehla-bench"
    assert flags["--crossplay"][0].split(",") == data["agents"] and flags["--opponent"][0] == data["opponent"]
    assert flags["--rules"][0] == data["rules"] and int(flags["--deals"][0]) == data["deals"]
    for path, digest in data["checkpoints"].items():
        assert _sha256(ROOT / path) == digest, path
    for lead in data["agents"]:
        assert set(data["matrix"][lead]) == set(data["agents"]), lead
        lo, hi = data["summary"][lead]["interval"]
        assert lo <= data["summary"][lead]["rating"] <= hi, lead


def test_the_published_ladders_were_fitted_with_the_shipped_policies() -> None:
    """The ladders shown on the results page are the benchmark's package data; each was
    fitted with the shipped policy file it names (by sha256)."""
    ladders = json.loads(TABLES.LADDERS.read_text())
    for preset, modes in ladders.items():
        for mode, ladder in modes.items():
            for policy, digest in ladder["policies"].items():
                file = SHIPPED / f"{policy.removeprefix('policy:')}.pt"
                assert _sha256(file) == digest, (preset, mode, policy)


def test_the_partner_records_agree_with_their_commands_networks_and_scores() -> None:
    """Each record of the partner-robust arm: its command names its agents, opponent,
    ruleset and deals; every network it seats has the hash it was measured with; the
    matrix and intervals cover every pairing, each interval around its figure; the
    held-out partners are agents of the table other than the candidates, and the stored
    held-out score is what the matrix gives."""
    from agents.arena.cli import split_agents  # the bench's own reading of --crossplay

    for r in TABLES.load("partners")["records"]:
        flags = _flags(r["command"])
        assert shlex.split(r["command"])[0] == "dehla-bench", r["id"]
        assert split_agents(flags["--crossplay"][0]) == r["agents"] and flags["--opponent"][0] == r["opponent"]
        assert flags["--rules"][0] == r["rules"] and int(flags["--deals"][0]) == r["deals"]
        used = {
            f"agents/checkpoints/{w}.pt" if "/" not in w and not w.endswith(".pt") else w
            for spec in r["agents"]
            for w in re.findall(r"policy:([^,\s]+)", spec)
        }
        assert set(r["checkpoints"]) == used, r["id"]
        for path, digest in r["checkpoints"].items():
            assert _sha256(ROOT / path) == digest, (r["id"], path)
        for lead in r["agents"]:
            assert set(r["matrix"][lead]) == set(r["intervals"][lead]) == set(r["agents"]), lead
            for partner, (lo, hi) in r["intervals"][lead].items():
                assert 0.0 <= lo <= r["matrix"][lead][partner] <= hi <= 1.0, (lead, partner)
        held, candidates = set(r["held_out"]), set(r["candidates"])
        assert held <= set(r["agents"]) and candidates <= set(r["agents"]) and not held & candidates, r["id"]
        for name in r["candidates"]:
            mean, lo, hi = TABLES.held_out_score(r, name)
            assert r["held_out_score"][name] == {"figure": mean, "interval": [lo, hi]}, name


def test_the_exploitability_records_agree_with_their_commands_networks_and_curves() -> None:
    """Each best-response record (``benchmarks/exploitability.py``): its command names
    its target, start, budget, deals and seed; the shipped networks it played have the
    hashes they were measured with; the curve runs from the start network at minute 0
    to the final figure, every point inside its interval, and the gain is their
    difference."""
    for r in TABLES.load("exploitability")["records"]:
        words, flags = shlex.split(r["command"]), _flags(r["command"])
        assert words[:2] == ["python", "benchmarks/exploitability.py"], r["id"]
        assert flags["--target"][0] == r["target"] and int(flags["--seed"][0]) == r["seed"], r["id"]
        assert int(flags["--deals"][0]) == r["deals"], r["id"]
        assert float(flags["--minutes"][0]) == r["training"]["budget_minutes"], r["id"]
        assert f"policy:{flags.get('--start', [r['target'].removeprefix('policy:')])[0]}" == r["start"], r["id"]
        assert set(r["checkpoints"]) == set(_networks({"a": r["start"], "b": r["target"]})), r["id"]
        for path, digest in r["checkpoints"].items():
            assert _sha256(ROOT / path) == digest, (r["id"], path)
        first, last = r["curve"][0], r["curve"][-1]
        assert (first["minutes"], first["updates"], first["figure"]) == (0.0, 0, r["start_figure"]), r["id"]
        assert (last["figure"], last["interval"], last["deals"]) == (r["figure"], r["interval"], r["deals"]), r["id"]
        assert last["updates"] == r["training"]["updates"] and r["gain"] == round(r["figure"] - r["start_figure"], 3)
        for p in r["curve"]:
            assert 0.0 <= p["interval"][0] <= p["figure"] <= p["interval"][1] <= 1.0, (r["id"], p)


def test_the_time_to_strength_records_agree_with_their_commands_curves_and_networks() -> None:
    """Each record of ``benchmarks/time_to_strength.py``: its command names its config,
    target, opponent, deals and seed; the curve runs in order of minutes on the file's
    screening deals; the figure is the first kept policy that reached the target over
    all the deals (its minutes the record's), or the last one's if none did; and the
    policy it names is a kept network file with its hash."""
    data = TABLES.load("time_to_strength")
    for r in data["records"]:
        words, flags = shlex.split(r["command"]), _flags(r["command"])
        assert words[:2] == ["python", "benchmarks/time_to_strength.py"], r["id"]
        assert flags["--config"][0] == r["config"] and float(flags["--target"][0]) == r["target"], r["id"]
        assert flags.get("--against", ["hard"])[0] == r["against"] and int(flags["--seed"][0]) == r["seed"], r["id"]
        assert int(flags["--deals"][0]) == r["deals"], r["id"]
        assert float(flags["--minutes"][0]) == r["training"]["budget_minutes"], r["id"]
        assert flags.get("--override", []) == r["training"]["overrides"], r["id"]
        minutes = [p["minutes"] for p in r["curve"]]
        assert minutes == sorted(minutes) and {p["deals"] for p in r["curve"]} == {data["screen_deals"]}, r["id"]
        for p in r["curve"] + r["confirmed"]:
            assert 0.0 <= p["interval"][0] <= p["figure"] <= p["interval"][1] <= 1.0, (r["id"], p)
        reached = [p for p in r["confirmed"] if p["figure"] >= r["target"]]
        decisive = reached[0] if reached else r["confirmed"][-1]
        assert r["minutes_to_target"] == (decisive["minutes"] if reached else None), r["id"]
        assert (decisive["figure"], decisive["interval"], decisive["deals"]) == (r["figure"], r["interval"], r["deals"])
        assert r["policy"] in r["checkpoints"] and r["policy"].startswith("results/networks/"), r["id"]
        for path, digest in r["checkpoints"].items():
            assert _sha256(ROOT / path) == digest, (r["id"], path)
