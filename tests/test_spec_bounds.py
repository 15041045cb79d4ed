"""Every agent spec asks for a bounded amount of work: the costly parameters of the
search have declared ranges, floats are finite, and specs nest only so deep, checked
where specs are parsed, so the command lines, the configs and the web server all
refuse an unbounded spec with one line naming the parameter and its range."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agents.registry import MAX_DEPTH, MAX_SPEC_NESTING, MAX_WORLDS, parse_spec, spec_help

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "spec,words",
    [
        ("search:depth=13", ["depth", f"0..{MAX_DEPTH}", "13"]),
        ("search:depth=99999", ["depth", f"0..{MAX_DEPTH}"]),
        ("search:k=10000", ["k", f"1..{MAX_WORLDS}"]),
        ("search:k=0", ["k", f"1..{MAX_WORLDS}"]),
        ("search:rdepth=12", ["rdepth", f"0..{MAX_DEPTH}"]),
        ("search:budget_ms=1e9", ["budget_ms", "0..60000"]),
        ("search:margin=inf", ["margin", "finite", "0..1"]),
        ("search:margin=nan", ["margin", "finite"]),
        ("search:prune=-inf", ["prune", "finite"]),
        ("search:keep=2", ["keep", "0..1"]),
        ("search:opp=search:depth=13", ["depth", f"0..{MAX_DEPTH}"]),  # inside a spec too
        ("search:" + "opp=search:" * 1200, ["at most", "characters"]),
        ("search:opp=search:opp=search:opp=search:k=2", ["nest at most", str(MAX_SPEC_NESTING)]),
    ],
)
def test_an_unbounded_spec_is_one_line_naming_the_parameter(spec: str, words: list[str]) -> None:
    with pytest.raises(ValueError) as err:
        parse_spec(spec)
    text = str(err.value)
    assert "\n" not in text and len(text) < 300
    for w in words:
        assert w in text, (w, text)


@pytest.mark.parametrize(
    "spec",
    [
        "search:k=48,depth=5,budget_ms=100",
        "search:k=128,depth=7,rdepth=6",
        "batched-search:playout=policy:dehla,k=48,depth=5,rdepth=4",
        "search:opp=search:k=4",
        f"search:k={MAX_WORLDS},depth={MAX_DEPTH},margin=1,keep=0.9",
    ],
)
def test_the_specs_in_use_stay_within_the_bounds(spec: str) -> None:
    parse_spec(spec)


def test_help_shows_the_ranges() -> None:
    text = spec_help()
    assert f"1..{MAX_WORLDS}" in text and f"0..{MAX_DEPTH}" in text


def test_the_command_line_refuses_an_infinite_margin_without_a_traceback() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "agents.arena", "--a", "search:margin=inf", "--b", "random", "--deals", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "margin" in out.stderr and "finite" in out.stderr
