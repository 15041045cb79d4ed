"""The Ray backend on a local cluster started by the tests: the arena, the benchmark
and dehla-train give the results of the local backend, bit for bit; a killed worker's
work is done again, not lost or counted twice; a run on Ray resumes exactly; and a
two-node cluster (``ray start --head`` and a second node, on 127.0.0.1) runs the
arena and training from the command line.

Ray pins its own gymnasium, so these run in an environment with the ``ray`` (or
``rllib``) extra and carry the ``ray`` marker: ``python -m pytest -m ray`` there
(``.ci/run`` does)."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.ray
ray = pytest.importorskip("ray", reason="the ray extra: pip install 'dehla[ray]' (its own environment)")

from agents.arena import run_duel, run_round_robin  # noqa: E402
from agents.distributed.cluster import RayCluster  # noqa: E402
from dehla_env.rules import make_rules  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cluster():
    """A local Ray of two CPUs for this module's in-process tests."""
    c = RayCluster(None, 2)
    yield c
    ray.shutdown()


def test_a_duel_and_a_round_robin_on_ray_equal_the_local_ones(cluster: RayCluster) -> None:
    rules = make_rules("dehla")
    local = run_duel(rules, "hard", "easy", 30, 7, workers=1)
    remote = run_duel(rules, "hard", "easy", 30, 7, cluster=cluster)
    assert remote.records == local.records
    rr_local = run_round_robin(rules, ["hard", "easy", "random"], 12, 3, workers=1, n_boot=20)
    rr_remote = run_round_robin(rules, ["hard", "easy", "random"], 12, 3, n_boot=20, cluster=cluster)
    assert all(rr_remote.duels[k].records == d.records for k, d in rr_local.duels.items())
    assert rr_remote.ratings == rr_local.ratings


def _ray_workers_running(name: str) -> list[int]:
    """Ray worker processes executing a task of function ``name`` (their title is ``ray::name``)."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if text.startswith(f"ray::{name}".encode()):
            pids.append(int(cmdline.parent.name))
    return pids


def _kill_one_worker(name: str, delay: float = 0.0) -> tuple[threading.Thread, list[int]]:
    """A started thread that SIGKILLs the first Ray worker seen running ``name``
    (``delay`` seconds after seeing it), and the list it records the pid in."""
    killed: list[int] = []

    def kill() -> None:
        deadline = time.time() + 60
        while time.time() < deadline and not killed:
            pids = _ray_workers_running(name)
            if pids:
                time.sleep(delay)
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
            time.sleep(0.05)

    thread = threading.Thread(target=kill)
    thread.start()
    return thread, killed


def test_a_killed_worker_is_replaced_and_its_deals_played_again(cluster: RayCluster) -> None:
    rules = make_rules("dehla")
    local = run_duel(rules, "hard", "medium", 40, 11, workers=1)
    killer, killed = _kill_one_worker("run_chunk")
    remote = run_duel(rules, "hard", "medium", 40, 11, cluster=cluster)
    killer.join()
    assert killed, "no Ray worker was seen running a chunk"
    assert [r.index for r in remote.records] == list(range(40))  # none lost, none twice
    assert remote.records == local.records


def test_a_killed_rollout_worker_is_replaced_and_its_shard_collected_again(cluster: RayCluster) -> None:
    """The trainer's shards on Ray: one whose worker is killed is collected again by
    Ray, and the merged rollout is the local one."""
    import numpy as np
    import torch

    from agents.nets.policy import PolicyNet
    from agents.training import selfplay
    from agents.training.pool import OpponentPool
    from dehla_env.encoding import observation_size
    from dehla_env.rewards import reward_weights

    rules = make_rules("dehla")
    torch.manual_seed(0)
    net = PolicyNet(observation_size(rules), (32,)).eval()
    pool = OpponentPool({"self": 0.5, "hard": 0.5})
    settings = selfplay.RolloutSettings(rules, 64, rounds=3, reward=tuple(reward_weights({"win": 1.0}, rules).items()))
    tasks = selfplay.shard_tasks(settings, net, pool, shards=2, seed=(9, 0))
    local = selfplay.merge([selfplay.collect_shard(t) for t in tasks])
    killer, killed = _kill_one_worker("collect_shard", delay=0.5)  # inside the shard, not at its start
    remote = selfplay.merge(cluster.map(selfplay.collect_shard, tasks))
    killer.join()
    assert killed, "no Ray worker was seen collecting a shard"
    for field in ("obs", "action", "logp", "reward", "done"):
        assert np.array_equal(getattr(local, field), getattr(remote, field)), field
    assert remote.hands == local.hands == 64 * 3


def _train(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agents.train", "--config", "quick", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


def _weights(run_root: Path) -> dict:
    import torch

    (run,) = [p for p in run_root.iterdir() if p.is_dir()]
    return torch.load(run / "checkpoint.pt", weights_only=True)


QUICK = ["--override", "eval_every=0", "--override", "num_workers=2", "--override", "imitation_hands=16"]


def _same(a: dict, b: dict) -> None:
    import torch

    assert a["update"] == b["update"]
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k


def test_training_on_ray_equals_local_training_and_resumes_exactly(tmp_path: Path) -> None:
    local = _train([*QUICK, "--override", "updates=2", "--override", f"runs_dir={tmp_path / 'local'}"])
    assert local.returncode == 0, local.stderr
    on_ray = [*QUICK, "--override", "backend=ray"]
    straight = _train([*on_ray, "--override", "updates=2", "--override", f"runs_dir={tmp_path / 'ray'}"])
    assert straight.returncode == 0, straight.stderr
    _same(_weights(tmp_path / "local"), _weights(tmp_path / "ray"))

    first = _train([*on_ray, "--override", "updates=1", "--override", f"runs_dir={tmp_path / 'resumed'}"])
    assert first.returncode == 0, first.stderr
    (run,) = [p for p in (tmp_path / "resumed").iterdir() if p.is_dir()]
    again = subprocess.run(
        [sys.executable, "-m", "agents.train", "--resume", str(run), "--override", "updates=2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert again.returncode == 0, again.stderr
    _same(_weights(tmp_path / "local"), _weights(tmp_path / "resumed"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_two_node_cluster_runs_the_arena_and_training_from_the_command_line(tmp_path: Path) -> None:
    """``ray start --head`` and a second node joining it, both on 127.0.0.1 with one CPU
    each: the arena's command line and dehla-train join it with --address and give the
    local results."""
    port = _free_port()
    address = f"127.0.0.1:{port}"
    # token authentication on every node and client, as Ray recommends for any cluster
    token = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16)}
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", **token}
    ray_cli = str(Path(sys.executable).with_name("ray"))
    start = [ray_cli, "start", "--num-cpus", "1", "--disable-usage-stats"]
    try:
        subprocess.run(
            [*start, "--head", "--node-ip-address", "127.0.0.1", "--port", str(port), "--include-dashboard", "false"],
            check=True,
            capture_output=True,
            env=env,
            timeout=120,
        )
        subprocess.run(
            [*start, "--address", address, "--node-ip-address", "127.0.0.1"],
            check=True,
            capture_output=True,
            env=env,
            timeout=120,
        )
        arena = [sys.executable, "-m", "agents.arena", "--a", "hard", "--b", "easy", "--deals", "16", "--seed", "5"]
        arena += ["--json", "--quiet"]
        local = subprocess.run(arena, cwd=ROOT, capture_output=True, text=True, timeout=600)
        remote = subprocess.run(
            [*arena, "--backend", "ray", "--address", address],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            env=env,
        )
        assert local.returncode == 0 and remote.returncode == 0, remote.stderr
        a, b = json.loads(local.stdout.splitlines()[-1]), json.loads(remote.stdout.splitlines()[-1])
        assert (a["hands_won_a"], a["tens_diff"], a["kots_a"]) == (b["hands_won_a"], b["tens_diff"], b["kots_a"])
        nodes = subprocess.run(
            [sys.executable, "-c", f"import ray; ray.init(address='{address}'); print(len(ray.nodes()))"],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert nodes.stdout.strip().splitlines()[-1] == "2", nodes.stderr

        trained = _train(
            [*QUICK, "--override", "updates=1", "--override", "backend=ray", "--override", f"ray_address={address}"]
            + ["--override", f"runs_dir={tmp_path / 'cluster'}"],
            env,
        )
        assert trained.returncode == 0, trained.stderr
        local_run = _train([*QUICK, "--override", "updates=1", "--override", f"runs_dir={tmp_path / 'local'}"])
        assert local_run.returncode == 0, local_run.stderr
        _same(_weights(tmp_path / "local"), _weights(tmp_path / "cluster"))
    finally:
        subprocess.run([ray_cli, "stop", "--force"], capture_output=True, env=env, timeout=120)


def test_an_unreachable_cluster_is_one_line_and_exit_2() -> None:
    port = _free_port()  # nothing listens there
    arena = [sys.executable, "-m", "agents.arena", "--deals", "2", "--backend", "ray", "--address", f"127.0.0.1:{port}"]
    out = subprocess.run(arena, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "nothing answers" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
