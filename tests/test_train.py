"""Training: the quick config's smoke run, interruption and resume, the policy agent."""

from __future__ import annotations

import errno
import io
import json
import os
import pickle
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]

from agents import train  # noqa: E402
from agents.training import ppo, runs  # noqa: E402


def _train(args: list[str], **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "agents.train", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **kw,
    )


def _run_dir(base: Path) -> Path:
    dirs = [d for d in base.iterdir() if d.is_dir()]
    assert len(dirs) == 1, dirs
    return dirs[0]


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """train.main in this process (no interpreter start: seconds faster than a subprocess)."""
    rc = train.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


QUICK = ["--config", "quick", "--override", "eval_every=0", "--override", "num_workers=0"]
SIX_PLAYERS = ["--override", "rules=dehla-direct", "--override", "rule_options={players: 6}"]


def test_quick_config_smoke_run_writes_checkpoints_logs_and_config(tmp_path: Path) -> None:
    proc = _train([*QUICK, "--override", f"runs_dir={tmp_path}"])
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    summary = json.loads(out.strip().splitlines()[-1])
    run = _run_dir(tmp_path)
    assert summary["updates"] == 3 and summary["decisions"] > 0
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("update ")] == [
        "update 1/3",
        "update 2/3",
        "update 3/3",
    ]
    assert out.count("min left") == 3  # each update line: the time elapsed and an estimate of the time left
    assert (run / "config.yaml").exists() and (run / "policy.pt").exists()
    assert any(p.name.startswith("events.out.tfevents") for p in run.iterdir())
    ckpt = torch.load(run / "checkpoint.pt", weights_only=True)  # plain data: --resume loads it this way
    assert {"model", "critic", "optimizer", "rng", "update", "pool"} <= set(ckpt)
    assert ckpt["update"] == 3
    # snapshot_every=1 and the warm start: three snapshots and the imitation copy in the pool
    assert len(ckpt["pool"]["snapshots"]) == 3 and ckpt["pool"]["imitation"] is not None


def test_a_killed_run_resumes_to_the_same_weights_as_an_uninterrupted_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Checkpoints carry model, critic, optimiser, RNG and counters: kill, resume, same result."""
    settings = [*QUICK, "--override", "updates=4"]
    straight = tmp_path / "straight"
    rc, out, err = _main([*settings, "--override", f"runs_dir={straight}"], capsys)
    assert rc == 0, out + err

    broken = tmp_path / "broken"
    p = _train([*settings, "--override", f"runs_dir={broken}"])
    deadline = time.time() + 240
    ckpt_path = None
    while time.time() < deadline:  # wait for the first PPO checkpoint, then kill the run
        runs = [d for d in broken.iterdir() if d.is_dir()] if broken.exists() else []
        if runs and (runs[0] / "checkpoint.pt").exists():
            ckpt_path = runs[0] / "checkpoint.pt"
            try:
                if torch.load(ckpt_path, weights_only=True)["update"] >= 1:
                    break
            except Exception:  # being written
                pass
        time.sleep(0.2)
    p.send_signal(signal.SIGTERM)
    out, _ = p.communicate(timeout=120)
    assert p.returncode in (0, 143), out  # 0: it had finished
    run = _run_dir(broken)
    stopped_at = torch.load(run / "checkpoint.pt", weights_only=True)["update"]
    assert 1 <= stopped_at <= 4, out
    rc, out, err = _main(["--resume", str(run)], capsys)
    assert rc == 0, out + err
    if stopped_at < 4:
        assert "resumed" in out
    a = torch.load(_run_dir(straight) / "checkpoint.pt", weights_only=True)
    b = torch.load(run / "checkpoint.pt", weights_only=True)
    assert a["update"] == b["update"] == 4
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k


def test_a_run_with_partners_resumes_exactly_and_can_start_from_a_policy_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A partner population (the real bot on mirrors of its own, a noisy batched bot,
    snapshots) comes from the run's seed and checkpointed pool alone: stopped after one
    update and resumed, the run reaches the weights of one that never stopped. And
    ``init_policy`` starts the policy from a policy file's weights."""
    partners = "partners={self: 0.3, hard: 0.3, 'noisy:cardsense,eps=0.3': 0.2, snapshot: 0.2}"
    settings = [*QUICK, "--override", partners, "--override", "imitation_hands=0", "--override", "num_games=16"]
    straight = tmp_path / "straight"
    rc, out, err = _main([*settings, "--override", "updates=2", "--override", f"runs_dir={straight}"], capsys)
    assert rc == 0, out + err
    stopped = tmp_path / "stopped"
    rc, out, err = _main([*settings, "--override", "updates=1", "--override", f"runs_dir={stopped}"], capsys)
    assert rc == 0, out + err
    rc, out, err = _main(["--resume", str(_run_dir(stopped)), "--override", "updates=2"], capsys)
    assert rc == 0 and "resumed" in out, out + err
    a = torch.load(_run_dir(straight) / "checkpoint.pt", weights_only=True)
    b = torch.load(_run_dir(stopped) / "checkpoint.pt", weights_only=True)
    assert a["update"] == b["update"] == 2
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k

    warm = tmp_path / "warm"
    start = _run_dir(straight) / "policy.pt"
    init = ["--override", f"init_policy={start}", "--override", "updates=0", "--override", f"runs_dir={warm}"]
    rc, out, err = _main([*settings, *init], capsys)
    assert rc == 0, out + err
    c = torch.load(_run_dir(warm) / "checkpoint.pt", weights_only=True)
    for k in a["model"]:
        assert torch.equal(a["model"][k], c["model"][k]), k

    # a network of another ruleset of the same table size starts a run too, and says so
    across = ["--override", "rules=court-piece", "--override", "reward={win: 1.0}", "--override", f"runs_dir={warm}"]
    rc, out, err = _main([*settings, *init, *across], capsys)
    assert rc == 0 and "was trained for dehla(" in out and "this run plays court-piece(" in out, out + err


def test_a_resume_with_an_overridden_learning_rate_trains_at_that_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The optimiser's saved state must not keep the old rate (it did once)."""
    rc, out, err = _main([*QUICK, "--override", "updates=1", "--override", f"runs_dir={tmp_path}"], capsys)
    assert rc == 0, out + err
    run = _run_dir(tmp_path)
    resume = ["--resume", str(run), "--override", "updates=2", "--override", "learning_rate=0.000123"]
    rc, out, err = _main(resume, capsys)
    assert rc == 0, out + err
    ckpt = torch.load(run / "checkpoint.pt", weights_only=True)
    assert ckpt["update"] == 2
    assert all(g["lr"] == 0.000123 for g in ckpt["optimizer"]["param_groups"])
    assert "learning_rate=0.000123" in (run / "resumes.log").read_text()


# ------------------------------------------------------------------ stopping a run
def _workers_of(pid: int) -> list[int]:
    """The pool worker processes a run started (not multiprocessing's resource tracker)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmd = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and b"spawn_main" in cmd:
            out.append(int(stat.parent.name))
    return out


def _signal_run(
    args: list[str], signum: int, after: str, delay: float, workers_only: bool = False
) -> tuple[int, str, float]:
    """Start a run in its own session, wait for a line containing ``after`` and ``delay``
    seconds more, send ``signum`` to its whole process group (as a terminal's Ctrl-C
    does; ``workers_only``: to its worker processes alone) and wait for the run to end:
    (exit code, output, seconds it took to stop)."""
    p = _train(args, start_new_session=True)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in p.stdout:
            lines.put(line)
        lines.put("")  # the end

    threading.Thread(target=read, daemon=True).start()
    out = [""]
    deadline = time.time() + 120
    try:
        while after not in out[-1]:
            out.append(lines.get(timeout=max(0.1, deadline - time.time())))
            assert out[-1], f"the run ended before {after!r}: {''.join(out)}"
        time.sleep(delay)
        if workers_only:
            workers = _workers_of(p.pid)
            assert workers, "the run has no worker processes"
            for w in workers:
                os.kill(w, signum)
        else:
            os.killpg(p.pid, signum)
        sent = time.time()
        rc = p.wait(timeout=30)
        took = time.time() - sent
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    while out[-1]:
        out.append(lines.get(timeout=10))
    return rc, "".join(out), took


POOL = ["--config", "quick", "--override", "eval_every=0", "--override", "num_workers=1"]


def test_ctrl_c_to_the_group_during_imitation_stops_at_once_and_a_resume_starts_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rollout worker ignores SIGINT (it used to die inside its task and leave the
    parent waiting for ever); the parent stops within seconds, exit 130."""
    args = [*POOL, "--override", "imitation_hands=100000", "--override", f"runs_dir={tmp_path}"]
    rc, out, took = _signal_run(args, signal.SIGINT, "imitation: recording", 0.5)
    assert rc == 130, out
    assert took < 10, out
    assert "stopped by SIGINT during the imitation warm start" in out
    run = _run_dir(tmp_path)
    assert not (run / "checkpoint.pt").exists() and not (run / "checkpoint.tmp").exists()
    resume = ["--resume", str(run), "--override", "imitation_hands=4", "--override", "updates=0"]
    rc, out, err = _main([*resume, "--override", "num_workers=0"], capsys)
    assert rc == 0, out + err
    assert "no checkpoint yet" in out
    assert torch.load(run / "checkpoint.pt", weights_only=True)["imitation_done"]


def test_ctrl_c_to_the_group_during_a_rollout_saves_the_last_update_and_resumes_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGINT while the rollout is inside ``selfplay.collect``: exit 130 within seconds with the
    checkpoint of the last completed update, from which --resume reaches the weights
    of an uninterrupted run."""
    small = ["--override", "imitation_hands=8", "--override", "updates=1"]
    rc, out, err = _main([*QUICK, *small, "--override", f"runs_dir={tmp_path / 'straight'}"], capsys)
    assert rc == 0, out + err

    broken = tmp_path / "broken"
    long_rollout = ["--override", "rounds=100000", "--override", f"runs_dir={broken}"]
    rc, out, took = _signal_run([*POOL, *small, *long_rollout], signal.SIGINT, "imitation epoch 1/1", 1.0)
    assert rc == 130, out
    assert took < 10, out
    assert "stopped by SIGINT during the PPO rollout; saved update 0" in out
    run = _run_dir(broken)
    assert torch.load(run / "checkpoint.pt", weights_only=True)["update"] == 0
    (run / "checkpoint.tmp").write_bytes(b"partial")  # as a run killed while saving leaves it
    resume = ["--resume", str(run), "--override", "rounds=1", "--override", "updates=1"]
    rc, out, err = _main([*resume, "--override", "num_workers=0"], capsys)
    assert rc == 0, out + err
    assert "resumed" in out and not (run / "checkpoint.tmp").exists()
    a = torch.load(_run_dir(tmp_path / "straight") / "checkpoint.pt", weights_only=True)
    b = torch.load(run / "checkpoint.pt", weights_only=True)
    assert a["update"] == b["update"] == 1
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k


def test_a_rollout_worker_killed_ends_the_run_with_the_last_update_saved(tmp_path: Path) -> None:
    """The rollouts' shards play in the worker processes: one killed from outside is
    noticed within seconds, exit 1 with one line, and the last completed update is
    saved for --resume."""
    long_rollout = ["--override", "imitation_hands=8", "--override", "rounds=100000"]
    args = [*POOL, *long_rollout, "--override", f"runs_dir={tmp_path}"]
    rc, out, took = _signal_run(args, signal.SIGKILL, "imitation epoch 1/1", 1.0, workers_only=True)
    assert rc == 1, out
    assert took < 10, out
    assert "died" in out and "during the PPO rollout; saved update 0" in out and "Traceback" not in out
    assert torch.load(_run_dir(tmp_path) / "checkpoint.pt", weights_only=True)["update"] == 0


def test_sigterm_during_imitation_stops_within_seconds(tmp_path: Path) -> None:
    """The teacher's hands recorded in-process (num_workers=0) too: SIGTERM is honoured
    at once, not only between PPO updates. Exit 143; nothing half-done is saved."""
    args = [*QUICK, "--override", "imitation_hands=100000", "--override", f"runs_dir={tmp_path}"]
    rc, out, took = _signal_run(args, signal.SIGTERM, "imitation: recording", 0.5)
    assert rc == 143, out
    assert took < 10, out
    assert "stopped by SIGTERM during the imitation warm start" in out
    assert sorted(p.name for p in _run_dir(tmp_path).iterdir() if not p.name.startswith("events")) == ["config.yaml"]


def _deaf_to_sigterm(started: Path) -> None:
    """A task that will not end on SIGTERM, as a worker deep in compiled code behaves."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    started.touch()
    time.sleep(60)


def test_ending_the_workers_is_bounded_even_when_one_ignores_sigterm(tmp_path: Path) -> None:
    """A stopped run ends its rollout workers with SIGTERM; one that does not honour it
    is killed after a short wait, so the run still stops within seconds."""
    from agents.training.workers import Workers

    workers = Workers(1, runs.Stop())
    procs = list(workers.pool._pool)
    started = tmp_path / "started"
    pending = workers.pool.map_async(_deaf_to_sigterm, [started])
    deadline = time.time() + 60
    while not started.exists():  # until the worker is inside the task, SIGTERM ignored
        assert time.time() < deadline and not pending.ready()
        time.sleep(0.05)
    t0 = time.time()
    workers.terminate()
    assert time.time() - t0 < 6
    for p in procs:
        p.join(5)
        assert p.exitcode is not None, "the worker outlived terminate()"


def test_a_worker_on_its_way_out_lets_a_sigterm_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rollout worker ends on SIGTERM (exit 143), but one the pool has told to end is
    running multiprocessing's exit handlers: a SIGTERM then (Pool.terminate's, or one
    sent to the whole group) lets it finish; a SystemExit raised inside them only
    printed a traceback."""
    import multiprocessing.util

    from agents.training import workers

    monkeypatch.setattr(signal, "signal", lambda *_args: None)  # this process keeps its handlers
    monkeypatch.setattr(multiprocessing.util, "_exiting", False)
    with pytest.raises(SystemExit) as stopped:
        workers._worker_exit(signal.SIGTERM, None)
    assert stopped.value.code == 143
    monkeypatch.setattr(multiprocessing.util, "_exiting", True)
    workers._worker_exit(signal.SIGTERM, None)  # returns: the exit goes on


# ------------------------------------------------------------------ untrusted files, bad input
class _Payload:
    """Unpickled by a plain ``torch.load``, this creates the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _payload_checkpoint(path: Path, marker: Path) -> Path:
    torch.save({"model": _Payload(marker), "model_config": {"obs_size": 1, "hidden": [1]}}, path)
    return path


def test_the_payload_checkpoint_is_live() -> None:
    """The payload of the next test does run code when unpickled, as a plain
    ``torch.load`` (without ``weights_only``) would unpickle it."""
    marker = Path(os.environ.get("TMPDIR", "/tmp")) / f"dehla-payload-{os.getpid()}"
    pickle.loads(pickle.dumps({"x": _Payload(marker)}))
    assert marker.exists()
    marker.unlink()


@pytest.mark.parametrize("where", ["resume", "teacher"])
def test_a_checkpoint_that_would_run_code_is_refused_in_one_line(
    tmp_path: Path, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "pwned"
    if where == "resume":
        run = tmp_path / "run"
        run.mkdir()
        shutil.copy(ROOT / "configs" / "quick.yaml", run / "config.yaml")
        _payload_checkpoint(run / "checkpoint.pt", marker)
        args = ["--resume", str(run)]
    else:
        bad = _payload_checkpoint(tmp_path / "teacher.pt", marker)
        args = [*QUICK, "--override", f"teacher=policy:{bad}", "--override", f"runs_dir={tmp_path / 'runs'}"]
    assert train.main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "refused" in err, err
    assert not marker.exists()
    assert not (tmp_path / "runs").exists()  # nothing was started


def _bad_inputs(tmp: Path) -> dict[str, tuple[list[str], str]]:
    """name -> (command line, a phrase of the one-line error)."""
    (tmp / "empty").mkdir()
    broken = tmp / "broken"
    broken.mkdir()
    shutil.copy(ROOT / "configs" / "quick.yaml", broken / "config.yaml")
    buf = io.BytesIO()
    torch.save({"model": {"w": torch.zeros(1000)}, "model_config": {}}, buf)
    (broken / "checkpoint.pt").write_bytes(buf.getvalue()[:600])  # cut short
    other = tmp / "other"
    other.mkdir()
    shutil.copy(broken / "config.yaml", other / "config.yaml")
    torch.save({"model": {}, "model_config": {"obs_size": 1, "hidden": [1]}}, other / "checkpoint.pt")
    (tmp / "syntax.yaml").write_text("seed: [1, 2\n")
    (tmp / "list.yaml").write_text("- seed\n")
    (tmp / "unknown.yaml").write_text("seed: 1\nlearning_rat: 0.001\n")
    (tmp / "a-file").write_text("")
    (tmp / "bomb.yaml").write_text(_ALIAS_BOMB)
    bombed = tmp / "bombed"
    bombed.mkdir()
    (bombed / "config.yaml").write_text(_ALIAS_BOMB)
    (tmp / "huge.yaml").write_text("seed: 1\n" + "# padding\n" * 30_000)
    (tmp / "latin1.yaml").write_bytes("run_name: caf\xe9\n".encode("latin-1"))
    quick = ["--config", "quick", "--override", f"runs_dir={tmp / 'runs'}"]
    return {
        "missing run": (["--resume", str(tmp / "nope")], "no such run directory"),
        "not a run": (["--resume", str(tmp / "empty")], "not a run directory"),
        "broken checkpoint": (["--resume", str(broken)], "not a torch checkpoint"),
        "checkpoint of another run": (["--resume", str(other)], "does not fit this run's settings"),
        "resume and config": (["--resume", str(broken), "--config", "quick"], "own config.yaml"),
        "missing config": (["--config", str(tmp / "none.yaml")], "no such config file"),
        "config syntax": (["--config", str(tmp / "syntax.yaml")], "not valid YAML"),
        "config not a mapping": (["--config", str(tmp / "list.yaml")], "mapping of settings"),
        "unknown in config": (["--config", str(tmp / "unknown.yaml")], "known settings: run_name, runs_dir"),
        "unknown override": ([*quick, "--override", "updatez=3"], "unknown setting(s) updatez in --override"),
        "override not key=value": ([*quick, "--override", "updates"], "key=value"),
        "wrong type": ([*quick, "--override", "updates=many"], "setting updates: expected an integer"),
        "unknown agent": ([*quick, "--override", "teacher=grandmaster"], "setting teacher: unknown agent"),
        "bad rules": ([*quick, "--override", "rules=bridge"], "rules"),
        "unknown network": ([*quick, "--override", "arch=transformer"], "setting arch: 'transformer' is not one of"),
        "unwritable run dir": (["--override", f"runs_dir={tmp / 'a-file'}"], "cannot write to the run directory"),
        "eval opponent out of bounds": (
            [*quick, "--override", "eval_opponents=[search:margin=inf]"],
            "eval_opponents/eval_deals: 'search:margin=inf'",
        ),
        "no eval deals": ([*quick, "--override", "eval_deals=0"], "deals must be at least 1"),
        "unknown partner": ([*quick, "--override", "partners={grandmaster: 1}"], "setting partners: partner"),
        "noisy self partner": ([*quick, "--override", "partners={'noisy:self,eps=0.2': 1}"], "setting partners:"),
        "init policy of another network": (
            [*quick, "--override", "init_policy=dehla"],
            "setting init_policy: dehla is a",
        ),
        "init policy of another table size": (
            [*quick, *SIX_PLAYERS, "--override", "init_policy=dehla"],
            "setting init_policy: dehla plays 4 players, not this run's 6",
        ),
        "missing init policy": ([*quick, "--override", "init_policy=nowhere"], "setting init_policy: policy:nowhere"),
        "alias bomb config": (["--config", str(tmp / "bomb.yaml")], "YAML aliases"),
        "alias bomb in a run's config": (["--resume", str(bombed)], "YAML aliases"),
        "alias in an override": ([*quick, "--override", "hidden=[&a 64, *a]"], "YAML aliases"),
        "huge config": (["--config", str(tmp / "huge.yaml")], "larger than"),
        "config not UTF-8": (["--config", str(tmp / "latin1.yaml")], "not UTF-8"),
        "config a directory": (["--config", str(tmp / "empty")], "is a directory, not a config"),
    }


#: the "billion laughs": 1.6 KB of YAML whose aliases expand to 10**9 strings
_ALIAS_BOMB = "seed: 1\nrun_name: &a0 lol\n" + "".join(
    f"l{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10)
)


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each case in-process (fast), checked for exit 2 and one line on stderr."""
    for name, (argv, phrase) in _bad_inputs(tmp_path).items():
        assert train.main(argv) == 2, name
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1, (name, err)
        assert err.startswith("python -m agents.train: ") and phrase in err, (name, err)
    assert not (tmp_path / "runs").exists()


def test_the_alias_bomb_is_refused_in_well_under_a_second() -> None:
    assert len(_ALIAS_BOMB) < 2000
    t = time.perf_counter()
    with pytest.raises(runs.SetupError, match="aliases"):
        runs.read_yaml(_ALIAS_BOMB, "bomb.yaml")
    assert time.perf_counter() - t < 1.0
    assert runs.read_yaml(runs.dump_yaml({"a": [1, 2], "b": [1, 2]}), "x") == {"a": [1, 2], "b": [1, 2]}


def test_a_resume_that_fails_before_its_first_checkpoint_leaves_the_stored_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A resume's overrides reach config.yaml with its first checkpoint: a resume that
    dies on a full disk must not leave them for the next plain --resume."""
    rc, out, err = _main([*QUICK, "--override", "updates=1", "--override", f"runs_dir={tmp_path}"], capsys)
    assert rc == 0, out + err
    run = _run_dir(tmp_path)
    stored = (run / "config.yaml").read_text()

    def full_disk(path: Path, state: dict) -> None:
        raise runs.SaveError(f"cannot save {path}: No space left on device")

    monkeypatch.setattr(train, "save_checkpoint", full_disk)
    resume = ["--resume", str(run), "--override", "updates=2", "--override", "learning_rate=0.000123"]
    rc, out, err = _main(resume, capsys)
    assert rc == 1 and "No space left on device" in err, out + err
    assert (run / "config.yaml").read_text() == stored
    assert not (run / "resumes.log").exists() and not (run / "config.tmp").exists()
    monkeypatch.undo()
    rc, out, err = _main(["--resume", str(run)], capsys)  # the stored settings: one update, the old rate
    assert rc == 0, out + err
    ckpt = torch.load(run / "checkpoint.pt", weights_only=True)
    assert ckpt["update"] == 1 and ckpt["args"]["learning_rate"] != 0.000123


def test_bad_input_from_the_command_line_has_no_traceback(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "agents.train", "--override", "learning_rat=0.1", "--override", f"runs_dir={tmp_path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and r.stderr.startswith("python -m agents.train: unknown setting(s) learning_rat"), (
        r.stderr
    )
    assert len(r.stderr.strip().splitlines()) == 1


def test_a_number_in_yaml_1_1_text_form_is_read_as_a_number() -> None:
    assert train.load_args(None, ["learning_rate=1e-4", "time_budget_minutes=5"]).learning_rate == 1e-4


class _FullDisk(io.FileIO):
    def write(self, b) -> int:  # type: ignore[override]
        super().write(bytes(b)[:100])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _full_disk_open(path, mode: str = "r", *args, **kwargs):
    """``open`` on a full disk: writes fail (the file is cut short), reads are real (a
    stand-in for every open would truncate the configs the run reads)."""
    if any(c in mode for c in "wax+"):
        return _FullDisk(path, "w")
    return open(path, mode, *args, **kwargs)


def test_a_full_disk_is_one_clear_error_and_leaves_no_tmp_file(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "checkpoint.pt"
    train.save_checkpoint(path, {"update": 1})
    monkeypatch.setattr(runs, "open", _full_disk_open, raising=False)
    with pytest.raises(train.SaveError, match="cannot save .*checkpoint.pt: No space left on device"):
        train.save_checkpoint(path, {"update": 2})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint.pt"]
    assert torch.load(path, weights_only=True) == {"update": 1}  # the old one stands


def test_a_checkpoint_that_cannot_be_written_ends_the_run_with_one_line(
    tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(runs, "open", _full_disk_open, raising=False)
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    argv = [*QUICK, "--override", "imitation_hands=4", "--override", "updates=0", "--override", f"runs_dir={tmp_path}"]
    assert train.main(argv) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "No space left on device" in err, err
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == handlers
    assert not list(_run_dir(tmp_path).glob("*.tmp"))


#: the shipped policies by name, and the rules each must carry (issue: one per ruleset)
SHIPPED = {
    "dehla": ("dehla", {}),
    "dehla-chosen": ("dehla", {"trump": "chosen"}),
    "dehla-direct": ("dehla-direct", {}),
    "court-piece": ("court-piece", {}),
    "coat-pees": ("coat-pees", {}),
}


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_a_shipped_policy_loads_by_name_plays_its_game_and_refuses_others(name: str) -> None:
    """``policy:NAME`` is package data carrying its ruleset and options; it plays its
    game well above chance (it beats ``random``; ``easy`` is within a few points of
    ``hard`` in court-piece, too close for 40 deals) and refuses every other one
    (options included) in one line."""
    from agents.arena import run_duel
    from agents.nets.policy import load_policy
    from agents.registry import SHIPPED_POLICIES, make_agent
    from dehla_env import make_rules

    path = SHIPPED_POLICIES / f"{name}.pt"
    if not path.exists():
        pytest.skip(f"{path} not shipped")
    preset, options = SHIPPED[name]
    _, trained = load_policy(path)
    assert trained == make_rules(preset, options)
    result = run_duel(trained, f"policy:{name}", "random", deals=40, seed=3, workers=1)
    assert result.win_rate.low > 0.5
    for other, (p, o) in SHIPPED.items():
        if other != name:
            with pytest.raises(ValueError, match="trained for"):
                make_agent(f"policy:{name}", make_rules(p, o), seed=0)


def test_shipped_policy_plays_seats_in_the_gymnasium_wrapper() -> None:
    """The learner's partner and opponents given as agent specs, the policy among them."""
    import gymnasium

    import dehla_env.wrappers  # noqa: F401  (registers the ids)

    path = ROOT / "agents" / "checkpoints" / "dehla.pt"
    if not path.exists():
        pytest.skip(f"{path} not shipped")
    env = gymnasium.make("DehlaPakad-v0", opponents="hard", partner=f"policy:{path}")
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(5)
    done = False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        done = terminated or truncated
    assert reward in (-1.0, 0.0, 1.0)
    from agents.nets.agent import PolicyAgent

    assert isinstance(env.unwrapped._policies[2], PolicyAgent)


def test_policy_export_to_torchscript_and_onnx(tmp_path: Path) -> None:
    from agents.nets.policy import PolicyNet, export_onnx, export_torchscript
    from dehla_env import make_rules
    from dehla_env.encoding import observation_size

    rules = make_rules("dehla")
    net = PolicyNet(observation_size(rules), (32,))
    ckpt = tmp_path / "p.pt"
    torch.save(
        {"model": net.state_dict(), "model_config": net.config(), "rules": {"name": "dehla", "options": {}}}, ckpt
    )
    ts = export_torchscript(ckpt, tmp_path / "p.ts")
    x = torch.rand(3, net.obs_size)
    assert torch.allclose(torch.jit.load(str(ts))(x), net(x), atol=1e-6)
    try:
        export_onnx(ckpt, tmp_path / "p.onnx")
    except ImportError as e:  # the onnx package is optional
        pytest.skip(str(e))
    assert (tmp_path / "p.onnx").stat().st_size > 0


def test_a_policy_file_rewritten_in_place_is_loaded_again(tmp_path: Path) -> None:
    """A run rewrites its policy file at every checkpoint; the per-process cache must
    not keep playing the first version."""
    from agents.nets.agent import cached_network
    from agents.nets.policy import PolicyNet
    from dehla_env import make_rules
    from dehla_env.encoding import observation_size

    rules = make_rules("dehla")
    path = tmp_path / "eval.pt"
    for fill in (0.0, 1.0):
        net = PolicyNet(observation_size(rules), (8,))
        for p in net.parameters():
            torch.nn.init.constant_(p, fill)
        state = {"model": net.state_dict(), "model_config": net.config(), "rules": {"name": "dehla"}}
        train.save_checkpoint(path, state)
        loaded, _ = cached_network(path)
        assert all(float(p.flatten()[0]) == fill for p in loaded.parameters())


def _fixed_rollout(policy, size: int, seed: int):
    """A rollout of ``size`` decisions (random observations, two to five legal moves,
    trajectories of four): what ``ppo.update`` reads, without playing."""
    from agents.training.selfplay import Rollout
    from dehla_env.actions import NUM_ACTIONS

    rng = np.random.default_rng(seed)
    obs = (rng.random((size, policy.obs_size)) < 0.1).astype(np.float32)
    mask = np.zeros((size, NUM_ACTIONS), bool)
    for row in mask:
        row[rng.choice(52, int(rng.integers(2, 6)), replace=False)] = True
    action = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
    with torch.no_grad():
        logp_all = torch.log_softmax(policy.masked_logits(torch.from_numpy(obs), torch.from_numpy(mask)), -1)
    done = (np.arange(size) % 4) == 3
    return Rollout(
        obs=obs.astype(np.uint8),  # 0/1 codes over a scale of ones
        obs_scale=np.ones(policy.obs_size, np.float32),
        priv=(rng.random((size, 8)) < 0.3).astype(np.uint8),
        mask=mask,
        action=action,
        logp=logp_all[np.arange(size), action].numpy(),
        reward=np.where(done, rng.choice([-1.0, 1.0], size), 0.0).astype(np.float32),
        done=done,
        decisions=size,
        hands=size // 4,
        learner_score=0.5,
        pool_hands=0,
        env_seconds=0.0,
        policy_seconds=0.0,
    )


def _nets():
    from agents.nets.policy import PolicyNet, ValueNet

    torch.manual_seed(0)
    return PolicyNet(200, (64, 32)), ValueNet(208, (64, 32))


def _flat(*nets: torch.nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().flatten() for net in nets for p in net.parameters()])


def _updated_weights(bf16: bool) -> tuple[torch.Tensor, dict[str, float]]:
    """The weights after two epochs of ``ppo.update`` on a fixed rollout, and its stats."""
    policy, critic = _nets()
    rollout = _fixed_rollout(policy, 512, seed=1)
    learner = ppo.Learner(policy, critic, 1e-3, torch.device("cpu"))
    s = train.Args(update_epochs=2, minibatch_size=128, bf16_update=bf16).ppo_settings()
    stats = ppo.update(learner, rollout, s, gen=torch.Generator().manual_seed(0), stop=runs.Stop())
    return _flat(policy, critic), stats


def test_a_bf16_update_takes_the_float32_step_to_bfloat16_precision() -> None:
    """``bf16_update`` runs the update's passes in bfloat16 (its own numbers, not the
    float32 ones) while the weights stay float32 and move as the float32 update moves
    them, to within bfloat16's precision (8 bits of mantissa)."""
    w32, s32 = _updated_weights(False)
    w16, s16 = _updated_weights(True)
    assert torch.equal(_updated_weights(False)[0], w32)  # float32 is deterministic: the comparison is fair
    assert w16.dtype == torch.float32
    assert not torch.equal(w16, w32)
    start = _flat(*_nets())
    step32, step16 = w32 - start, w16 - start
    assert torch.cosine_similarity(step16, step32, dim=0) > 0.98  # the same direction (about 0.996)
    assert step16.norm() == pytest.approx(step32.norm().item(), rel=0.05)
    for key in ("policy_loss", "value_loss", "entropy"):
        assert s16[key] == pytest.approx(s32[key], rel=0.05, abs=1e-3)


def _observation_codes(count: int):
    """(codes, scale): uint8 observation codes of ``dehla`` from random legal play on the
    vector env (card counts, tricks, scores: entries with denominators), and the scale."""
    from dehla_env.vector import random_legal, vector_env

    env = vector_env("dehla", num_envs=8, seed=3, obs_dtype="uint8", autoreset_mode="same_step")
    rng, rows = np.random.default_rng(3), []
    obs, info = env.reset()
    while sum(len(r) for r in rows) < count:
        rows.append(obs.copy())
        obs, *_, info = env.step(random_legal(info["action_mask"], rng))
    return np.concatenate(rows)[:count], env.observation_scale


@pytest.mark.parametrize("arch", ["mlp", "suits"])
@pytest.mark.parametrize("bf16", [False, True])
def test_the_inputs_an_update_prepares_once_give_the_networks_own_outputs(bf16: bool, arch: str) -> None:
    """``learner_inputs`` builds the policy's input (observation and card features) and the
    critic's (observation and hidden cards) for the whole rollout once, from the stored
    observation codes; a minibatch read from them gives, bit for bit, the logits and
    values the networks compute from the float32 observations themselves, in float32
    and in bfloat16 autocast."""
    from agents.nets.policy import PolicyNet, ValueNet

    torch.manual_seed(0)
    policy, critic = PolicyNet(826, (64, 32), card_features=True, arch=arch), ValueNet(826 + 8, (64, 32))
    rollout = _fixed_rollout(policy, 40, seed=2)
    rollout.obs, rollout.obs_scale = _observation_codes(40)
    assert (rollout.obs_scale > 1).any()  # fractions among the entries
    policy_in, critic_in = ppo.learner_inputs(policy, rollout, bf16=bf16, privileged=True)
    assert policy_in.dtype == critic_in.dtype == (torch.bfloat16 if bf16 else torch.float32)
    mb = torch.tensor([5, 0, 39, 17])
    obs = torch.from_numpy(rollout.obs.astype(np.float32) / rollout.obs_scale)[mb]
    priv = torch.from_numpy(rollout.priv.astype(np.float32))[mb]
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        assert torch.equal(policy.net(policy_in[mb]), policy(obs))
        assert torch.equal(critic(critic_in[mb]), critic(torch.cat([obs, priv], -1)))
    # without the privileged critic the hidden cards are zeros, the observation the same
    _, blind = ppo.learner_inputs(policy, rollout, bf16=bf16, privileged=False)
    assert rollout.priv.any() and not blind[:, 826:].any()
    assert torch.equal(blind[:, :826], critic_in[:, :826])


def test_a_resumed_run_keeps_the_adam_step_its_checkpoint_saved() -> None:
    """The trainer's Adam is fused; a checkpoint of a run made with the per-tensor step
    resumes with that step (``load_state_dict`` restores the group's settings), so the
    resumed run continues as it began."""
    policy, critic = _nets()
    old = torch.optim.Adam([*policy.parameters(), *critic.parameters()], lr=1e-3, eps=1e-5)
    opt = ppo.Learner(policy, critic, train.Args().learning_rate, torch.device("cpu")).opt
    assert opt.param_groups[0]["fused"] is True
    opt.load_state_dict(old.state_dict())
    assert not opt.param_groups[0]["fused"]


# ------------------------------------------------------------------ the learner's device
def test_the_device_setting_resolves_auto_and_refuses_what_is_not_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``auto`` is CUDA when torch sees a GPU, else the CPU; ``cuda`` without one, or a
    name that is no device, ends the run in one line before anything is written."""
    assert ppo.resolve_device("cpu") == torch.device("cpu")
    assert ppo.resolve_device("auto") == torch.device("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(runs.SetupError, match="not one of auto, cpu, cuda, cuda:N"):
        ppo.resolve_device("tpu")
    with pytest.raises(runs.SetupError, match="not one of"):
        ppo.resolve_device("cuda:x")
    bad = ["tpu"] if torch.cuda.is_available() else ["tpu", "cuda", "cuda:1"]
    for name in bad:
        argv = [*QUICK, "--override", f"device={name}", "--override", f"runs_dir={tmp_path}"]
        assert train.main(argv) == 2, name
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "setting device" in err, err
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


def test_a_checkpoint_holds_cpu_tensors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Whatever the learner's device, a checkpoint loads on a machine without a GPU: every
    tensor in it (weights, critic, optimiser, pool) is a CPU tensor."""
    argv = [*QUICK, "--override", "updates=1", "--override", "device=auto", "--override", f"runs_dir={tmp_path}"]
    rc, out, err = _main(argv, capsys)
    assert rc == 0, out + err
    ckpt = torch.load(_run_dir(tmp_path) / "checkpoint.pt", weights_only=True)

    def tensors(x):
        if isinstance(x, torch.Tensor):
            yield x
        elif isinstance(x, dict):
            for v in x.values():
                yield from tensors(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                yield from tensors(v)

    found = list(tensors(ckpt))
    assert found and all(t.device.type == "cpu" for t in found)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_a_cuda_learner_trains_and_resumes_on_the_cpu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The learner on the GPU, the rollouts on the CPU: the run trains, and its checkpoint
    resumes with ``device=cpu``."""
    argv = [*QUICK, "--override", "updates=2", "--override", "device=cuda", "--override", f"runs_dir={tmp_path}"]
    rc, out, err = _main(argv, capsys)
    assert rc == 0, out + err
    run = _run_dir(tmp_path)
    rc, out, err = _main(["--resume", str(run), "--override", "updates=3", "--override", "device=cpu"], capsys)
    assert rc == 0 and "resumed" in out, out + err
    assert torch.load(run / "checkpoint.pt", weights_only=True)["update"] == 3


# ------------------------------------------------------------------ evaluation, the network's rules
def test_the_evaluation_in_memory_is_the_arenas_duel_of_the_same_weights(tmp_path: Path) -> None:
    """The trainer's evaluation plays the network in memory; its figure is the one
    ``run_duel`` gives for a policy file of the same weights."""
    from agents.arena import run_duel
    from agents.nets.policy import PolicyNet, policy_checkpoint
    from agents.training.evaluation import duel_win_rate
    from dehla_env import make_rules

    rules = make_rules("dehla")
    torch.manual_seed(3)
    net = PolicyNet.for_rules(rules, (32,), card_features=True).eval()
    path = tmp_path / "p.pt"
    train.save_checkpoint(path, policy_checkpoint(net, rules))
    for opponent in ("random", "easy"):
        here = duel_win_rate(rules, net, opponent, deals=12, seed=5)
        arena = run_duel(rules, f"policy:{path}", opponent, 12, 5, workers=1).win_rate
        assert (here.value, here.low, here.high) == (arena.value, arena.low, arena.high), opponent


def test_the_network_is_told_its_rules() -> None:
    """A network built for rules takes their player count (the card features and the
    suit network's layout are built for it), not one guessed from a width; a checkpoint's
    network is told the rules it names, and one whose width does not fit them is refused."""
    from agents.nets.policy import CheckpointError, PolicyNet, policy_checkpoint, policy_from_checkpoint
    from dehla_env import make_rules
    from dehla_env.encoding import observation_size

    six = make_rules("dehla-direct", {"players": 6})
    net = PolicyNet.for_rules(six, (8,), card_features=True, arch="suits")
    assert net.players == 6 and net.obs_size == observation_size(six)
    assert net.config() == {"obs_size": observation_size(six), "hidden": [8], "card_features": True, "arch": "suits"}
    with pytest.raises(ValueError, match="4 players observe"):
        PolicyNet(observation_size(six), (8,), players=4)
    loaded, rules = policy_from_checkpoint(policy_checkpoint(net, six))
    assert rules == six and loaded.players == 6
    wrong = {**policy_checkpoint(net, six), "rules": {"name": "dehla", "options": {}}}
    with pytest.raises(CheckpointError, match="does not fit its rules"):
        policy_from_checkpoint(wrong)


def test_no_call_in_the_trainer_takes_more_than_five_positional_arguments() -> None:
    """The trainer's calls name what they pass: at most five positional arguments
    (settings objects and keyword-only parameters beyond)."""
    import ast

    files = [ROOT / "agents" / "train.py", *sorted((ROOT / "agents" / "training").glob("*.py"))]
    crowded = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and len(node.args) > 5:
                crowded.append(f"{path.name}:{node.lineno}")
    assert not crowded, crowded


def test_help_read_by_a_reader_that_stops_early_ends_without_a_traceback() -> None:
    """``dehla-train --help | head -1``: tyro writes the help in many pieces, and the
    first one after the reader has gone raised a BrokenPipeError traceback. (The help
    fits in a pipe's buffer, so a child that wrote it all before the reader went exits
    0; one that met the closed pipe exits 1; neither prints anything.)"""
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.train", "--help"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"usage:")
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=120) in (0, 1)
    assert stderr == b"", stderr
