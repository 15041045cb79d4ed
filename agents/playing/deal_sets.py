"""The benchmark's deal sets: fixed, versioned deals per ruleset preset, shipped in the
package, so ``python -m agents.bench`` gives the same numbers on every machine and
with every numpy version (a deal set is data, not a seed).

A set holds, per deal, the deck (card ids in dealing order), the dealer and the seed of
the chance generator of its R1.4 draw (:class:`.deals.FixedDeals`), and the
seed that seeds the agents at each seat (:func:`.deals.agent_seed`). ``--deals
N`` plays the first ``N`` deals of the set, so a smaller benchmark is a prefix of a
larger one.

The sets were written by ``python -m agents.playing.deal_sets --write`` (from the generators
of :mod:`agents.playing.deals` and the seeds in :data:`PRESETS`); they change only with
:data:`BENCH_VERSION`, which every result carries.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.playing.deals import CHANCE, FixedDeals, deal_dealer, deal_deck
from dehla_env.rules import Rules, make_rules

#: the version of the deal sets and of the protocol (references, deals per comparison)
BENCH_VERSION = "dehla-bench-1"
#: deals in every shipped set
DEALS_PER_SET = 5000
DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Preset:
    """A ruleset and its options as the benchmark names them (the shipped policy of the
    same name plays it), and the seed its deal set was drawn from."""

    name: str
    rules_name: str
    options: tuple[tuple[str, Any], ...]
    seed: int

    def rules(self) -> Rules:
        return make_rules(self.rules_name, dict(self.options))


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("dehla", "dehla", (), 1001),
        Preset("dehla-chosen", "dehla", (("trump", "chosen"),), 1002),
        Preset("dehla-direct", "dehla-direct", (), 1003),
        Preset("court-piece", "court-piece", (), 1004),
        Preset("coat-pees", "coat-pees", (), 1005),
    )
}


def preset_for(rules: Rules) -> Preset:
    """The preset whose ruleset and options are exactly ``rules``."""
    for preset in PRESETS.values():
        if preset.rules() == rules:
            return preset
    known = "; ".join(f"{p.name} ({p.rules()})" for p in PRESETS.values())
    raise ValueError(f"the benchmark has no deal set for {rules}; it has: {known}")


@dataclass(frozen=True)
class DealSet:
    """A preset's deals, with the version and seed they were drawn with."""

    preset: Preset
    version: str
    seed: int  # the agents' seeds (and, in match mode, the later hands) come from it
    deals: FixedDeals

    def __len__(self) -> int:
        return len(self.deals)


def generate(preset: Preset, n: int = DEALS_PER_SET) -> DealSet:
    """The deals the arena would generate from the preset's seed, written out."""
    rules = preset.rules()
    decks = np.array([deal_deck(rules, preset.seed, i) for i in range(n)], np.uint8)
    dealers = np.array([deal_dealer(rules, i) for i in range(n)], np.uint8)
    chance = np.array(
        [np.random.SeedSequence([preset.seed, i, CHANCE]).generate_state(1, np.uint64)[0] for i in range(n)],
        np.uint64,
    )
    return DealSet(preset, BENCH_VERSION, preset.seed, FixedDeals(decks, dealers, chance))


def path_of(preset: Preset) -> Path:
    return DATA / f"{preset.name}.npz"


def write(ds: DealSet, path: Path) -> None:
    meta = {
        "version": ds.version,
        "preset": ds.preset.name,
        "rules": ds.preset.rules_name,
        "options": dict(ds.preset.options),
        "seed": ds.seed,
    }
    np.savez_compressed(
        path, decks=ds.deals.decks, dealers=ds.deals.dealers, chance=ds.deals.chance, meta=np.array(json.dumps(meta))
    )


def load(preset: Preset) -> DealSet:
    """The shipped deal set of ``preset`` (read without pickle: plain arrays and JSON)."""
    path = path_of(preset)
    try:
        with np.load(path, allow_pickle=False) as f:
            meta = json.loads(str(f["meta"]))
            deals = FixedDeals(f["decks"], f["dealers"], f["chance"])
    except (OSError, KeyError, ValueError) as e:
        raise ValueError(f"{path}: not a readable deal set ({e})") from None
    if meta.get("preset") != preset.name or make_rules(meta["rules"], meta["options"]) != preset.rules():
        raise ValueError(f"{path}: holds the deals of {meta.get('preset')!r}, not {preset.name!r}")
    return DealSet(preset, str(meta["version"]), int(meta["seed"]), deals)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.playing.deal_sets", description=__doc__.split("\n\n")[0])
    p.add_argument("--write", action="store_true", help=f"(re)write every preset's set into {DATA}")
    p.add_argument("--deals", type=int, default=DEALS_PER_SET)
    a = p.parse_args(argv)
    for preset in PRESETS.values():
        if a.write:
            DATA.mkdir(parents=True, exist_ok=True)
            write(generate(preset, a.deals), path_of(preset))
        ds = load(preset)
        print(f"{preset.name}: {len(ds)} deals, version {ds.version}, seed {ds.seed}, {path_of(preset)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
