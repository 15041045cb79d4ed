"""The benchmark protocol: shipped deal sets, block-wise duels that resume, the ladder,
the sequential test and the cross-play table, end to end on cheap agents."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.arena import run_duel
from agents.bench import BENCH_VERSION, PRESETS, preset_for, runner
from agents.bench import cli as bench_cli
from agents.bench import ladder as ladder_mod
from agents.bench.crossplay import crossplay
from agents.bench.runner import Bench, Store
from agents.playing import deal_sets
from agents.playing import ladder as published_ladders
from agents.playing.stats import Estimate
from dehla_env.rules import make_rules


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_ships_5000_fixed_deals_of_its_ruleset(name: str) -> None:
    preset = PRESETS[name]
    ds = deal_sets.load(preset)
    assert len(ds) == deal_sets.DEALS_PER_SET and ds.version == BENCH_VERSION
    rules = preset.rules()
    decks = ds.deals.decks
    assert decks.shape == (5000, 52 * rules.packs)
    assert (np.sort(decks[:200], axis=1) == np.sort(np.arange(52 * rules.packs) % 52)).all()  # whole packs
    assert preset_for(rules) == preset
    again = deal_sets.generate(preset, 20)  # the documented generator wrote them
    assert np.array_equal(again.deals.decks, decks[:20]) and np.array_equal(again.deals.chance, ds.deals.chance[:20])


def test_a_ruleset_without_a_deal_set_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no deal set for .*it has: dehla"):
        preset_for(make_rules("dehla", {"kots": 3}))


def test_a_later_block_of_a_duel_plays_what_the_whole_duel_plays_there() -> None:
    rules = make_rules("dehla")
    ds = deal_sets.load(PRESETS["dehla"])
    whole = run_duel(rules, "easy", "random", 30, ds.seed, fixed=ds.deals)
    tail = run_duel(rules, "easy", "random", 10, ds.seed, fixed=ds.deals, start=20)
    assert tail.records == whole.records[20:]


def test_an_interrupted_benchmark_continues_from_its_saved_blocks(tmp_path: Path, monkeypatch) -> None:
    ds = deal_sets.load(PRESETS["dehla"])
    path = tmp_path / "results.jsonl"
    first = Bench(ds, store=Store(path)).duel("easy", "random", 2 * runner.BLOCK)
    with open(path, "a") as f:
        f.write('{"key": "cut sho')  # a run killed while writing its last line
    played = []
    real = runner.run_duel

    def counting(*args, **kwargs):
        played.append(kwargs["start"])
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "run_duel", counting)
    again = Bench(ds, store=Store(path)).duel("easy", "random", 3 * runner.BLOCK)
    assert played == [2 * runner.BLOCK]  # only the block that was not saved
    assert again.records[: 2 * runner.BLOCK] == first.records
    assert again.records == run_duel(make_rules("dehla"), "easy", "random", 300, ds.seed, fixed=ds.deals).records


def test_saved_blocks_of_a_policy_are_not_reused_once_its_checkpoint_changes(tmp_path: Path, monkeypatch) -> None:
    ds = deal_sets.load(PRESETS["dehla"])
    store = tmp_path / "results.jsonl"
    checkpoint = tmp_path / "mine.pt"
    checkpoint.write_bytes(b"weights of the first run")
    played = []
    real = runner.run_duel

    def stand_in(rules, a, b, *args, **kwargs):  # the checkpoint is never loaded: easy plays for it
        played.append(a)
        return real(rules, "easy", b, *args, **kwargs)

    monkeypatch.setattr(runner, "run_duel", stand_in)
    spec = f"policy:{checkpoint}"
    Bench(ds, store=Store(store)).duel(spec, "random", runner.BLOCK)
    Bench(ds, store=Store(store)).duel(spec, "random", runner.BLOCK)
    assert len(played) == 1  # the same file: its block comes from the store
    checkpoint.write_bytes(b"weights of a retrained run")
    Bench(ds, store=Store(store)).duel(spec, "random", runner.BLOCK)
    assert len(played) == 2


def _damaged(tmp_path: Path) -> tuple[Path, list[str]]:
    """A results file of one whole random-vs-random block, and the saved line."""
    ds = deal_sets.load(PRESETS["dehla"])
    path = tmp_path / "results.jsonl"
    Bench(ds, store=Store(path)).duel("random", "random", runner.BLOCK)
    return path, path.read_text().splitlines()


def test_a_block_cut_short_or_inconsistent_is_discarded_with_a_note_and_played_again(tmp_path: Path) -> None:
    path, (line,) = _damaged(tmp_path)
    item = json.loads(line)
    whole = Store(path)
    assert not whole.notes and len(whole.blocks) == 1
    cut = {**item, "records": item["records"][:60]}  # valid JSON, 60 of the 100 deals
    reordered = {**item, "records": item["records"][::-1]}
    wrong_type = {**item, "records": [{**item["records"][0], "hands": "2"}, *item["records"][1:]]}
    for bad, why in [(cut, "60 records of the 100 deals"), (reordered, "not deals in order"), (wrong_type, "hands")]:
        path.write_text(json.dumps(bad) + "\n" + line[:500])  # and the tail of a run killed while saving
        store = Store(path)
        assert store.blocks == {}
        assert len(store.notes) == 2 and why in store.notes[0] and "stopped while saving" in store.notes[1]
        Bench(deal_sets.load(PRESETS["dehla"]), store=store).duel("random", "random", runner.BLOCK)
        again = Store(path)  # the new block, on a line of its own, reads back whole
        assert len(again.blocks) == 1 and len(again.notes) == 2


@pytest.mark.parametrize(
    "content, needle",
    [
        (None, "a directory"),
        (b"\xff\xfe{\x00", "not UTF-8"),
        (b"# my notes\n", "not a results file (line 1"),
    ],
    ids=["directory", "not-utf8", "another-file"],
)
def test_a_results_file_it_cannot_use_is_one_line_and_exit_2(tmp_path: Path, capsys, content, needle) -> None:
    path = tmp_path / "results"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    rc, out, err = _run(["--agent", "random", "--deals", "1", "--results", str(path), "--quiet"], capsys)
    assert rc == 2 and out == "", err
    assert len(err.strip().splitlines()) == 1 and needle in err and "Traceback" not in err, err
    assert content is None or path.read_bytes() == content  # nothing appended to someone else's file


def test_crossplay_of_an_agent_named_twice_is_refused_before_playing(capsys) -> None:
    rc, out, err = _run(["--crossplay", "random,random", "--deals", "1", "--quiet"], capsys)
    assert rc == 2 and "random named more than once" in err and len(err.strip().splitlines()) == 1, err
    with pytest.raises(ValueError, match="named more than once"):
        crossplay(Bench(deal_sets.load(PRESETS["dehla"])), ["easy", "random", "easy"], 1)


def test_bench_deals_are_bounded(capsys) -> None:
    rc, _, err = _run(["--agent", "random", "--deals", "99999999999999999999"], capsys)
    assert rc == 2 and "--deals: must be 1..1_000_000" in err, err


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    rc = bench_cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_the_sprt_stops_at_the_first_decisive_pair(capsys) -> None:
    rc, out, err = _run(["--agent", "hard", "--vs", "random", "--sprt", "--delta", "0.1", "--quiet", "--json"], capsys)
    assert rc == 0, err
    record = json.loads(out.splitlines()[-1])
    assert record["decision"] == "H1" and record["version"] == BENCH_VERSION
    assert 20 <= record["pairs"] <= runner.BLOCK  # decided inside the first block


@pytest.mark.parametrize(
    "argv, phrase",
    [
        (["--sprt", "--agent", "hard"], "--sprt needs --agent A and --vs B"),
        (["--agent", "grandmaster"], "grandmaster"),
        (["--crossplay", "hard,easy", "--compute-ladder"], "choose one"),
        (["--rules", "dehla", "--option", "kots=3"], "no deal set"),
        (["--sprt", "--agent", "hard", "--vs", "easy", "--alpha", "2"], "alpha"),
        (["--agent", "hard", "--deals", "6000"], "holds 5000 deals"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], phrase: str, capsys) -> None:
    rc, out, err = _run(argv, capsys)
    assert rc == 2 and phrase in err and len(err.strip().splitlines()) == 1 and not out


def test_a_ladder_computed_then_an_agent_placed_on_it(tmp_path: Path, monkeypatch, capsys) -> None:
    """The references' round robin is published (random at 0), and an agent placed on
    it lands between the references it beats and those it loses to."""
    monkeypatch.setattr(published_ladders, "LADDER_FILE", tmp_path / "ladder.json")
    monkeypatch.setattr(ladder_mod, "references", lambda preset: ["random", "easy", "hard"])
    rc, out, err = _run(["--compute-ladder", "--write", "--deals", "40", "--quiet", "--workers", "1"], capsys)
    assert rc == 0, err
    published = json.loads((tmp_path / "ladder.json").read_text())["dehla"]["hand"]
    ratings = {k: v["rating"] for k, v in published["ratings"].items()}
    assert ratings["random"] == 0 and ratings["random"] < ratings["easy"] < ratings["hard"]
    assert published["version"] == BENCH_VERSION and "--compute-ladder" in published["command"]

    rc, out, err = _run([], capsys)  # the published ladder
    assert rc == 0 and "reproduce: python -m agents.bench" in out

    rc, out, err = _run(["--agent", "medium", "--deals", "40", "--quiet", "--json", "--workers", "1"], capsys)
    assert rc == 0, err
    placed = json.loads(out.splitlines()[-1])
    assert ratings["easy"] < placed["rating"] < ratings["hard"] + 100
    assert placed["rating_ci"][0] <= placed["rating"] <= placed["rating_ci"][1]
    assert set(placed["references"]) == {"random", "easy", "hard"}


def test_a_match_ladder_shows_how_hand_edges_become_match_edges(tmp_path: Path, monkeypatch, capsys) -> None:
    """Whole matches (kots, streaks and dealer rotation decide them, R1.7-R1.9): the
    placement gives hand and match win rates with intervals side by side, and the
    hand-to-match slope; a match amplifies a hand edge (the slope exceeds 1)."""
    monkeypatch.setattr(published_ladders, "LADDER_FILE", tmp_path / "ladder.json")
    monkeypatch.setattr(ladder_mod, "references", lambda preset: ["random", "easy"])
    argv = ["--mode", "match", "--deals", "12", "--quiet", "--workers", "1"]
    rc, out, err = _run(["--compute-ladder", "--write", *argv], capsys)
    assert rc == 0, err
    assert "match" in json.loads((tmp_path / "ladder.json").read_text())["dehla"]
    rc, out, err = _run(["--agent", "hard", "--json", *argv], capsys)
    assert rc == 0, err
    assert "match win rate" in out and "hand to match" in out
    placed = json.loads(out.splitlines()[-1])
    random = placed["references"]["random"]
    assert random["match_win_rate"] > random["win_rate"] > 0.5
    assert placed["match_edge_per_hand_edge"] > 1


def test_the_hand_to_match_slope_is_least_squares_through_the_origin() -> None:
    class Duel:
        def __init__(self, hand: float, match: float) -> None:
            self.win_rate = Estimate(hand, hand, hand, 0.0, 1)
            self.match_win_rate = Estimate(match, match, match, 0.0, 1)

    duels = {"a": Duel(0.6, 0.8), "b": Duel(0.45, 0.35)}  # edges (0.1, 0.3) and (-0.05, -0.15)
    assert ladder_mod.match_edge_per_hand_edge(duels) == pytest.approx(3.0)
    assert ladder_mod.match_edge_per_hand_edge({"even": Duel(0.5, 0.5)}) is None


def test_the_crossplay_table_of_two_agents(capsys) -> None:
    rc, out, err = _run(
        ["--crossplay", "hard,random", "--opponent", "easy", "--deals", "30", "--quiet", "--json"], capsys
    )
    assert rc == 0, err
    record = json.loads(out.splitlines()[-1])
    wr = record["win_rate"]
    assert set(wr) == {"hard+hard", "hard+random", "random+hard", "random+random"}
    assert wr["hard+hard"] > wr["random+random"]
    assert record["gap"]["hard"] == pytest.approx(wr["hard+hard"] - (wr["hard+random"] + wr["random+hard"]) / 2)
    team = record["team_ratings"]
    assert team["hard"]["rating"] > team["random"]["rating"]
