"""The arena (duplicate deals, workers, modes, round robin, plot) and its statistics."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from agents.arena import main, run_duel, run_round_robin
from agents.playing.command_line import split_agents
from agents.playing.deals import agent_seed, deal_deck, seat_specs
from agents.playing.pool import LineProgress
from agents.playing.stats import (
    bootstrap_ci,
    bradley_terry,
    elo_scale,
    fit_ratings,
    format_table,
    mean_ci,
    paired_mean_ci,
    ratio_ci,
    z_value,
)
from agents.registry import spec_help
from dehla_env.rules import TrumpMaking, make_rules
from tests.rulesets import RULESETS, first_of_each, ruleset_id

ROOT = Path(__file__).resolve().parents[1]
JSON_KEYS = {
    "win_rate",
    "ci_low",
    "ci_high",
    "deals",
    "hands",
    "tens_diff",
    "seconds",
    "rules",
    "options",
    "a",
    "b",
    "seed",
    "points_diff",
    "kots_a",
    "kots_b",
}

# every ruleset family; match mode plays short matches (R1.9, R2.6, R3.6, R4.5 max_hands)
CONFIGS = RULESETS


# ---------------------------------------------------------------------- command line
def test_cli_json_last_line(capsys):
    args = ["--rules", "dehla", "--a", "easy", "--b", "random", "--deals", "6", "--seed", "7"]
    assert main([*args, "--json", "--quiet", "--workers", "1"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    data = json.loads(out[-1])
    assert set(data) >= JSON_KEYS
    assert data["deals"] == 6 and data["hands"] == 12
    assert data["rules"] == "dehla" and data["options"]["trump"] == "first-void"
    assert data["a"] == "easy" and data["b"] == "random" and data["seed"] == 7
    assert data["ci_low"] <= data["win_rate"] <= data["ci_high"]
    assert "match_win_rate" not in data


def test_cli_subprocess_options_partner_and_match_mode():
    cmd = [sys.executable, "-m", "agents.arena", "--rules", "dehla", "--option", "kots=1", "--option", "max_hands=2"]
    cmd += ["--a", "easy", "--b", "random", "--partner", "random", "--deals", "4", "--seed", "3", "--json"]
    cmd += ["--quiet", "--workers", "2", "--mode", "match"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(data) >= JSON_KEYS | {"match_win_rate"}
    assert data["options"] == {"trump": "first-void", "kots": 1, "max_hands": 2}
    assert data["partner_a"] == "random" and data["partner_b"] is None
    assert data["mode"] == "match" and 0.0 <= data["match_win_rate"] <= 1.0
    assert 8 <= data["hands"] <= 16  # 2 games x 4 deals x 1..2 hands


def test_cli_table_and_help(capsys):
    assert main(["--a", "random", "--b", "easy", "--deals", "3", "--quiet", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "A hand win rate" in out and "95% interval" in out and "kots A-B" in out
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    help_text = capsys.readouterr().out
    assert spec_help() in help_text  # verbatim: the epilog keeps its line breaks
    assert "search:" in help_text and "budget_ms" in help_text
    flags = " ".join(help_text.split())  # every flag says what it is, and its default where it has one
    assert "ruleset (default dehla)" in flags and "each played twice (default 1000)" in flags
    assert "--seed SEED seeds the deals (default 0)" in flags


# ---------------------------------------------------------------------- bad input: one line, status 2
def _bad(capsys, argv: list[str], *needles: str) -> str:
    """``main(argv)`` refuses: status 2, nothing on stdout, one line on stderr naming the problem."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    assert lines[0].startswith("python -m agents.arena: error: ")
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_bad_policy_missing_file(capsys, tmp_path):
    _bad(capsys, ["--a", f"policy:{tmp_path / 'nope.pt'}", "--deals", "2"], "nope.pt", "no such file")


def test_bad_policy_not_a_checkpoint(capsys, tmp_path):
    pytest.importorskip("torch")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"this is not a checkpoint\n" * 10)
    _bad(capsys, ["--a", f"policy:{junk}", "--deals", "2"], "junk.pt")


def test_bad_policy_directory(capsys, tmp_path):
    pytest.importorskip("torch")
    _bad(capsys, ["--b", f"policy:{tmp_path}", "--deals", "2"], str(tmp_path), "directory")


def test_bad_policy_for_another_ruleset(capsys):
    pytest.importorskip("torch")
    if not (ROOT / "agents" / "checkpoints" / "dehla.pt").is_file():
        pytest.skip("no shipped dehla policy")
    _bad(capsys, ["--rules", "court-piece", "--a", "policy:dehla", "--deals", "2"], "trained for", "court-piece")


@pytest.mark.parametrize("spec", ["hard:foo=1", "nonsense", "search:k=0", "search:k"])
def test_bad_agent_spec(capsys, spec):
    _bad(capsys, ["--a", spec, "--deals", "2"])


def test_bad_agent_parameter_names_it(capsys):
    _bad(capsys, ["--partner-b", "hard:foo=1", "--deals", "2"], "'foo'")


@pytest.mark.parametrize("workers", ["-1", "0", "two"])
def test_bad_workers(capsys, workers):
    _bad(capsys, ["--workers", workers, "--deals", "2"], "--workers")


def test_workers_above_the_cpu_count_are_capped_with_a_note(capsys):
    assert main(["--a", "easy", "--b", "random", "--deals", "2", "--workers", "1000", "--quiet", "--json"]) == 0
    captured = capsys.readouterr()
    cpus = os.cpu_count() or 1
    assert json.loads(captured.out.strip().splitlines()[-1])["workers"] == cpus
    assert captured.err.strip().splitlines() == [
        f"python -m agents.arena: note: --workers 1000 is more than the {cpus} CPUs here; using {cpus}"
    ]


@pytest.mark.parametrize("n", ["0", "-5"])
def test_bad_bootstrap(capsys, n):
    _bad(capsys, ["--agents", "easy,random", "--bootstrap", n, "--deals", "2"], "--bootstrap")


@pytest.mark.parametrize(
    ("agents", "needle"),
    [("", "two"), (" ", "two"), ("hard", "two"), ("hard,", "empty"), ("hard,,easy", "empty"), ("hard,hard", "repeat")],
)
def test_bad_agents(capsys, agents, needle):
    _bad(capsys, ["--agents", agents, "--deals", "2"], needle)


def test_bad_duel_flags_with_agents(capsys):
    _bad(capsys, ["--agents", "easy,random", "--a", "hard", "--deals", "2"], "--a", "round robin")
    _bad(capsys, ["--agents", "easy,random", "--partner", "hard", "--deals", "2"], "--partner-a")


def test_agents_keep_spec_parameters_whole():
    assert split_agents("search:k=16,depth=5,hard") == ["search:k=16,depth=5", "hard"]
    assert split_agents(" policy:x.pt,sample=1 , easy") == ["policy:x.pt,sample=1", "easy"]


@pytest.mark.parametrize(
    "deals", ["0", "-3", "many", "99999999999999999999", "9" * 5000], ids=["0", "-3", "many", "1e20", "5000-digits"]
)
def test_bad_deals(capsys, deals):
    line = _bad(capsys, ["--deals", deals], "--deals")
    assert len(line) < 200  # a huge number is not echoed whole


def test_deal_and_resample_counts_are_bounded_before_anything_is_built(capsys):
    _bad(capsys, ["--deals", "1000001"], "--deals: must be 1..1_000_000, not 1000001")
    _bad(capsys, ["--bootstrap", "10000000000"], "--bootstrap: must be 1..100_000")
    _bad(capsys, ["--seed", str(2**64)], "--seed")
    with pytest.raises(ValueError, match="deals must be at most 1_000_000"):
        run_duel(make_rules("dehla"), "random", "random", 10**20, 0)


def test_bad_seed_and_mode(capsys):
    _bad(capsys, ["--seed", "-1", "--deals", "2"], "--seed")
    _bad(capsys, ["--mode", "set", "--deals", "2"], "--mode")


@pytest.mark.parametrize(
    ("option", "needle"), [("kots", "key=value"), ("kots=0", "kots"), ("nosuch=1", "nosuch"), ("=1", "key=value")]
)
def test_bad_option(capsys, option, needle):
    _bad(capsys, ["--option", option, "--deals", "2"], needle)


def test_plot_without_matplotlib_names_the_extra(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    _bad(capsys, ["--deals", "2", "--quiet", "--plot", str(tmp_path / "x.png")], "pip install 'dehla[plot]'")


def test_results_are_printed_when_the_plot_fails(capsys, tmp_path):
    missing = tmp_path / "no" / "such" / "folder" / "ladder.png"
    args = ["--a", "easy", "--b", "random", "--deals", "3", "--seed", "2", "--quiet", "--workers", "1", "--json"]
    assert main([*args, "--plot", str(missing)]) == 2
    captured = capsys.readouterr()
    data = json.loads(captured.out.strip().splitlines()[-1])
    assert data["deals"] == 3 and data["a"] == "easy"
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err
    assert lines[0].startswith("python -m agents.arena: error: --plot") and "results are above" in lines[0]
    rr = ["--agents", "easy,random", "--deals", "3", "--quiet", "--workers", "1", "--bootstrap", "5"]
    assert main([*rr, "--plot", str(missing)]) == 2
    captured = capsys.readouterr()
    assert "Bradley-Terry" in captured.out and len(captured.err.strip().splitlines()) == 1


# ---------------------------------------------------------------------- progress and Ctrl-C
def test_progress_without_tqdm_is_a_plain_line(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm now raises ImportError
    assert main(["--a", "easy", "--b", "random", "--deals", "5", "--workers", "1"]) == 0
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1].startswith("5/5 deals (100%)")
    stream = io.StringIO()
    line = LineProgress(100, stream)
    line.every = 0.0
    line.update(40)
    line.update(60)
    line.close()
    assert stream.getvalue().splitlines()[0].startswith("40/100 deals (40%)")
    assert stream.getvalue().splitlines()[-1].startswith("100/100 deals (100%)")


def test_ctrl_c_in_process_is_one_line_and_130(capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("agents.arena.cli.run_duel", interrupted)
    assert main(["--deals", "2", "--quiet"]) == 130
    assert capsys.readouterr().err.strip().splitlines() == ["python -m agents.arena: interrupted"]


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT")
def test_ctrl_c_stops_the_workers():
    """SIGINT to the whole process group, as a terminal sends it: status 130, one line,
    and no worker process left behind."""
    cmd = [sys.executable, "-m", "agents.arena", "--a", "search:k=8", "--b", "hard", "--deals", "300"]
    proc = subprocess.Popen(
        [*cmd, "--workers", "2"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # SIGINT as a terminal leaves it: a suite started in the background (`pytest &`)
        # runs with SIGINT ignored, an ignore the child would inherit, and Python then
        # never raises KeyboardInterrupt (the arena would play on, as nohup intends)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(3.0)  # imports, the spec check, workers started and playing
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and out == ""
    assert err.replace("\r", "\n").strip().splitlines()[-1] == "python -m agents.arena: interrupted"
    deadline = time.monotonic() + 10
    while True:
        try:
            os.killpg(proc.pid, 0)  # anyone left in the group (a worker)?
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "worker processes outlived the arena"
        time.sleep(0.1)


def _group(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid:
            out.append(int(stat.parent.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize(
    "command",
    [
        ["agents.arena", "--a", "hard", "--b", "hard", "--deals", "5000", "--quiet"],
        ["agents.bench", "--agent", "hard", "--deals", "500", "--quiet"],
    ],
    ids=["arena", "bench"],
)
def test_sigterm_stops_the_command_and_its_workers_within_seconds(command: list[str]) -> None:
    """``kill PID`` (SIGTERM to the command alone, not its group): status 143, one line,
    and no worker left playing out its chunk."""
    proc = subprocess.Popen(
        [sys.executable, "-m", *command, "--workers", "2"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_group(proc.pid)) < 3:  # the command and its two workers, playing
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.1)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=15)
        assert proc.returncode == 143, err
        assert "Traceback" not in err and err.strip().splitlines()[-1].endswith(": terminated")
        deadline = time.monotonic() + 10
        while _group(proc.pid):
            assert time.monotonic() < deadline, f"worker processes outlived the command: {_group(proc.pid)}"
            time.sleep(0.1)
    finally:
        for pid in _group(proc.pid):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ---------------------------------------------------------------------- duplicate deals
def test_seats_and_seeds():
    assert seat_specs(4, 0, "A", "B") == ["A", "B", "A", "B"]
    assert seat_specs(4, 1, "A", "B") == ["B", "A", "B", "A"]
    assert seat_specs(4, 0, "A", "B", partner_a="pa", partner_b="pb") == ["A", "B", "pa", "pb"]
    assert seat_specs(4, 1, "A", "B", partner_a="pa") == ["B", "A", "B", "pa"]
    assert seat_specs(6, 1, "A", "B", partner_a="pa", partner_b="pb") == ["B", "A", "pb", "pa", "pb", "pa"]
    rules = make_rules("dehla")
    assert deal_deck(rules, 7, 3) == deal_deck(rules, 7, 3)
    assert deal_deck(rules, 7, 3) != deal_deck(rules, 7, 4)
    assert sorted(deal_deck(rules, 7, 3)) == list(range(52))
    six = make_rules("dehla-direct", players=6)
    assert sorted(deal_deck(six, 1, 0)) == sorted(list(range(52)) * 3)
    assert agent_seed(7, 3, 0) == agent_seed(7, 3, 0) != agent_seed(7, 3, 1)


def test_reproducible_and_independent_of_workers():
    rules = make_rules("dehla")
    one = run_duel(rules, "medium", "easy", 24, seed=5, workers=1)
    again = run_duel(rules, "medium", "easy", 24, seed=5, workers=1)
    two = run_duel(rules, "medium", "easy", 24, seed=5, workers=2)
    assert one.records == again.records == two.records
    assert one.as_dict()["win_rate"] == two.as_dict()["win_rate"]
    other = run_duel(rules, "medium", "easy", 24, seed=6, workers=1)
    assert other.records != one.records


@pytest.mark.parametrize("spec", ["random", "easy", "medium"])
def test_agent_against_itself_is_exactly_even(spec):
    """Same spec, same seat seeds, same cards: the two games mirror each other."""
    d = run_duel(make_rules("dehla"), spec, spec, 20, seed=2)
    assert d.win_rate.value == 0.5 and d.win_rate.contains(0.5)
    assert d.tens_diff.value == 0.0
    assert d.kots_a == d.kots_b


def test_random_vs_random_with_different_partners_is_even_within_ci():
    d = run_duel(make_rules("dehla-direct"), "random", "random", 200, seed=4, partner_a="random", partner_b="random")
    assert d.win_rate.contains(0.5)
    assert abs(d.win_rate.value - 0.5) < 1e-12  # still mirrored: partner specs equal


def test_easy_beats_random_and_figures_are_consistent():
    d = run_duel(make_rules("dehla"), "easy", "random", 120, seed=1)
    assert d.deals == 120 and d.hands == 240
    assert d.win_rate.value > 0.5
    assert d.tens_diff.value > 0  # winning dehla hands is taking tens
    data = d.as_dict()
    assert data["tens_diff_ci"][0] <= data["tens_diff"] <= data["tens_diff_ci"][1]
    assert set(data["decisions_per_second"]) == {"easy", "random"}
    assert data["decisions"] == sum(r.decisions for r in d.records) > 0
    boot = d.win_rate_bootstrap()
    assert abs(boot.low - d.win_rate.low) < 0.03 and abs(boot.high - d.win_rate.high) < 0.03


@pytest.mark.parametrize(("name", "options"), CONFIGS)
def test_every_ruleset_both_modes(name, options):
    rules = make_rules(name, options)
    d = run_duel(rules, "easy", "random", 4, seed=9)
    assert d.hands == 8 and 0.0 <= d.win_rate.value <= 1.0
    m = run_duel(make_rules(name, {**options, "max_hands": 2}), "easy", "random", 2, seed=9, mode="match")
    assert m.match_win_rate is not None and 0.0 <= m.match_win_rate.value <= 1.0
    assert m.hands >= 4
    assert "match_win_rate" in m.as_dict()


def test_match_mode_decks_are_shared_by_both_games():
    """Match mode: hand k of both games comes from the same deck stream."""
    rules = make_rules("dehla", kots=1, max_hands=2)
    a = run_duel(rules, "easy", "easy", 10, seed=3, mode="match")
    assert a.match_win_rate is not None and a.match_win_rate.value == 0.5  # mirrored exactly


# ---------------------------------------------------------------------- round robin and plot
def test_round_robin_ratings_matrix_and_plot(tmp_path):
    rules = make_rules("dehla")
    rr = run_round_robin(rules, ["easy", "random", "medium"], deals=40, seed=3, workers=2, n_boot=50)
    assert set(rr.duels) == {(0, 1), (0, 2), (1, 2)}
    m = rr.matrix()
    assert np.isnan(m[0, 0]) and abs(m[0, 1] + m[1, 0] - 1.0) < 1e-12
    assert rr.ratings.names[rr.ratings.order()[-1]] == "random"
    assert rr.duels[(0, 1)].records == run_duel(rules, "easy", "random", 40, seed=3).records  # same deals, seeds
    for i in range(3):
        assert rr.ratings.low[i] <= rr.ratings.elo[i] <= rr.ratings.high[i]
    assert abs(sum(rr.ratings.elo)) < 1e-6
    text = rr.table()
    assert "Bradley-Terry" in text and "random" in text
    assert text.splitlines()[-1] == f"played in {rr.seconds:.1f} s"
    out = tmp_path / "ladder.png"
    rr.plot(str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_round_robin_json_and_plot(tmp_path, capsys):
    out = tmp_path / "rr.png"
    args = ["--agents", "easy,random", "--deals", "8", "--seed", "1", "--workers", "1", "--quiet", "--json"]
    assert main(args + ["--bootstrap", "20", "--plot", str(out)]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["agents"] == ["easy", "random"] and set(data["ratings"]) == {"easy", "random"}
    assert len(data["pairs"]) == 1 and data["pairs"][0]["deals"] == 8
    assert out.exists() and out.stat().st_size > 1000
    duel_plot = tmp_path / "duel.png"
    assert main(["--a", "easy", "--b", "random", "--deals", "4", "--quiet", "--plot", str(duel_plot)]) == 0
    assert duel_plot.exists()


# ---------------------------------------------------------------------- statistics
def test_z_value_and_mean_ci():
    assert abs(z_value(0.95) - 1.959964) < 1e-5
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(200):
        x = rng.normal(3.0, 2.0, size=100)
        covered += mean_ci(x).contains(3.0)
    assert 180 <= covered <= 198  # ~95% coverage
    e = mean_ci([1.0, 1.0, 1.0])
    assert e.value == e.low == e.high == 1.0


def test_paired_ci_uses_the_pair_as_unit():
    rng = np.random.default_rng(1)
    deal_effect = rng.normal(0.0, 1.0, size=400)  # shared by both games of a deal
    first = deal_effect + rng.normal(0.2, 0.1, size=400)
    second = -deal_effect + rng.normal(0.2, 0.1, size=400)  # sides swapped: the deal effect flips
    paired = paired_mean_ci(first, second)
    naive = mean_ci(np.concatenate([first, second]))
    assert paired.contains(0.2) and abs(paired.value - naive.value) < 1e-12
    assert paired.high - paired.low < 0.2 * (naive.high - naive.low)  # duplicate deals cancel the luck
    with pytest.raises(ValueError):
        paired_mean_ci([1.0, 2.0], [1.0])


def test_ratio_ci_matches_mean_ci_for_equal_denominators_and_bootstrap_agrees():
    rng = np.random.default_rng(2)
    wins = rng.integers(0, 3, size=300).astype(float)
    games = np.full(300, 2.0)
    r = ratio_ci(wins, games)
    m = mean_ci(wins / 2.0)
    assert abs(r.value - m.value) < 1e-12 and abs(r.se - m.se) < 1e-12
    b1 = bootstrap_ci(wins, games, n_boot=1000, seed=4)
    b2 = bootstrap_ci(wins, games, n_boot=1000, seed=4)
    assert b1 == b2
    assert abs(b1.low - r.low) < 0.02 and abs(b1.high - r.high) < 0.02
    # unequal denominators (whole matches): coverage of the true share
    covered = 0
    for _ in range(100):
        g = rng.integers(2, 12, size=200)
        w = rng.binomial(g, 0.6)
        covered += ratio_ci(w, g).contains(0.6)
    assert covered >= 88


def test_bradley_terry_recovers_order_and_scale():
    true = np.array([8.0, 4.0, 2.0, 1.0])
    rng = np.random.default_rng(5)
    k = len(true)
    wins = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            if i < j:
                n = 4000
                w = rng.binomial(n, true[i] / (true[i] + true[j]))
                wins[i, j], wins[j, i] = w, n - w
    p = bradley_terry(wins)
    assert list(np.argsort(-p)) == [0, 1, 2, 3]
    assert np.allclose(p / p[-1], true / true[-1], rtol=0.1)
    elo = elo_scale(p)
    assert abs(elo[0] - elo[1] - 400 * np.log10(2)) < 30
    # a clean sweep stays finite thanks to the prior
    sweep = np.array([[0.0, 10.0], [0.0, 0.0]])
    assert np.all(np.isfinite(bradley_terry(sweep)))


def test_fit_ratings_bootstrap_intervals():
    rng = np.random.default_rng(6)
    strengths = {0: 3.0, 1: 1.5, 2: 1.0}
    deals = 300
    pairs = {}
    for i in range(3):
        for j in range(i + 1, 3):
            p = strengths[i] / (strengths[i] + strengths[j])
            pairs[(i, j)] = (rng.binomial(2, p, size=deals).astype(float), np.full(deals, 2.0))
    r = fit_ratings(["x", "y", "z"], pairs, n_boot=100, seed=1)
    assert r.order() == [0, 1, 2]
    true_elo = elo_scale(np.array([3.0, 1.5, 1.0]))
    for i in range(3):
        assert r.low[i] - 40 <= true_elo[i] <= r.high[i] + 40
    assert r == fit_ratings(["x", "y", "z"], pairs, n_boot=100, seed=1)
    assert "95% interval" in r.table()


def test_format_table():
    text = format_table(["name", "x"], [["a", 1.5], ["bbb", 22]])
    lines = text.splitlines()
    assert lines[0].startswith("name") and set(lines[1]) <= {"-", " "}
    assert lines[2].endswith("1.5") and lines[3].startswith("bbb")


@pytest.mark.parametrize(("rules_name", "options"), first_of_each(), ids=[ruleset_id(c) for c in first_of_each()])
def test_the_per_seat_and_role_breakdown_partitions_the_hands(rules_name: str, options: dict) -> None:
    """Where the dealer's left leads (R1.2, R3), A's side leads the first trick in
    exactly one game of each deal (the dealer is the same in both); trump makers and
    defenders split the hands where someone made trump (with bidding, R4.2, every
    hand: the contract's side, the bidder leading); the parts recombine to the win rate."""
    from agents.arena import run_duel

    rules = make_rules(rules_name, options)
    bidding = rules.trump_making is TrumpMaking.BIDDING
    d = run_duel(rules, "hard", "easy", 24, 5)
    if not bidding:
        assert all(r.lead_hands == 1 for r in d.records)
    assert all(r.make_hands + r.defend_hands <= r.hands for r in d.records)
    won = sum(r.a_hands for r in d.records)
    assert sum(r.lead_won for r in d.records) + sum(r.a_hands - r.lead_won for r in d.records) == won
    parts = d.breakdown()
    seats = [v for k, v in parts.items() if k.startswith("A on seats")]
    assert (seats[0].value + seats[1].value) / 2 == pytest.approx(d.win_rate.value)
    if bidding:  # the contract's side made trump in every hand
        assert all(r.make_hands + r.defend_hands == r.hands for r in d.records)


@pytest.mark.parametrize(("rules_name", "options"), first_of_each(), ids=[ruleset_id(c) for c in first_of_each()])
def test_flat_and_swing_deals_recombine_to_the_win_rate(rules_name: str, options: dict) -> None:
    """A deal is flat when the same seats win both games (the cards decided); the win
    rate is half the flat deals plus A's share of the swing deals."""
    from agents.arena import run_duel

    d = run_duel(make_rules(rules_name, options), "hard", "easy", 30, 5)
    swings = d.swings()
    assert swings is not None
    flat, swing = swings
    assert 0.0 < flat.value < 1.0
    assert 0.5 * flat.value + swing.value * (1 - flat.value) == pytest.approx(d.win_rate.value)
    record = d.as_dict()
    assert record["flat_deals"][0] == flat.value and record["swing_win_rate"][0] == swing.value


def test_a_bot_against_itself_leaves_every_deal_flat() -> None:
    """Seeded per seat, the same bot on both sides plays both games of a deal alike, so
    the cards alone decide every deal."""
    from agents.arena import run_duel

    swings = run_duel(make_rules("court-piece"), "hard", "hard", 8, 3).swings()
    assert swings is not None and swings[0].value == 1.0


def test_match_mode_has_no_flat_deal_figure() -> None:
    from agents.arena import run_duel

    d = run_duel(make_rules("court-piece", {"points": 1}), "hard", "easy", 2, 3, mode="match")
    assert d.swings() is None and "flat_deals" not in d.as_dict()


def test_the_arena_prints_and_records_the_breakdown(capsys) -> None:
    from agents.arena.cli import main as arena_main

    assert arena_main(["--rules", "court-piece", "--a", "hard", "--b", "easy", "--deals", "6", "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "A's side made trump" in text and "A on seats 1, 3" in text
    assert "deals the cards decided" in text and "A's share of the others" in text
    assert (
        arena_main(["--rules", "court-piece", "--a", "hard", "--b", "easy", "--deals", "6", "--workers", "1", "--json"])
        == 0
    )
    record = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert set(record["breakdown"]) >= {"A on seats 0, 2", "A's side led first", "B's side made trump"}


def test_a_network_plays_in_process_on_one_torch_thread_and_the_callers_setting_returns(monkeypatch) -> None:
    """As in a worker process: a forward pass on one observation gains nothing from a
    thread pool, and on a busy machine the pool's threads wait on each other. A torch
    checkpoint plays in torch; a shipped policy's play file in numpy, torch left alone."""
    import torch

    from agents.arena import run_duel
    from agents.playing import pool
    from agents.registry import SHIPPED_POLICIES

    seen = []
    real = pool.run_chunk

    def spy(task):
        seen.append(torch.get_num_threads())
        return real(task)

    monkeypatch.setattr(pool, "run_chunk", spy)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        run_duel(make_rules("dehla"), f"policy:{SHIPPED_POLICIES / 'dehla.pt'}", "random", 2, 1, workers=1)
        assert set(seen) == {1} and torch.get_num_threads() == 2
        run_duel(make_rules("dehla"), "hard", "random", 2, 1, workers=1)  # no network: left alone
        assert seen[-1] == 2
        run_duel(make_rules("dehla"), "policy:dehla", "random", 2, 1, workers=1)  # numpy: left alone
        assert seen[-1] == 2
    finally:
        torch.set_num_threads(before)
