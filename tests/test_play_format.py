"""The play format: every shipped policy plays without torch, in numpy, the moves its
torch checkpoint plays; and a play file from a user is read as untrusted (nothing in it
runs, nothing it merely declares is allocated)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.nets.agent import PolicyAgent
from agents.nets.play import (
    FORMAT,
    CheckpointError,
    NetConfig,
    read_play_file,
    weight_shapes,
)
from agents.registry import SHIPPED_POLICIES, default_bot, make_agent, shipped_policies
from dehla_env.actions import NUM_ACTIONS
from dehla_env.encoding import encode_view, observation_size
from dehla_env.engine.match import MatchState
from dehla_env.rules import Rules, make_rules
from dehla_env.view import view_of

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = shipped_policies()
#: the bots whose self-play gives the positions (with the policy itself), one seat each in turn
PLAYERS = ("hard", "medium", "random")


def positions(rules: Rules, policy: str, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` observations and legal masks (more than one legal action) of whole
    matches among the policy and :data:`PLAYERS`, their seats rotated from match to match."""
    rng = np.random.default_rng(seed)
    specs = [f"policy:{policy}", *PLAYERS]
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    game = 0
    while len(obs) < count:
        match = MatchState.new(rules, rng)
        bots = [make_agent(specs[(game + s) % len(specs)], rules, seed + 100 * game + s) for s in range(rules.players)]
        while match.winner is None and len(obs) < count:
            if match.is_chance():
                match.sample_chance(rng)
                continue
            view = view_of(match, match.hand.to_act)
            if len(view.legal_actions) > 1:
                obs.append(encode_view(view))
                masks.append(np.isin(np.arange(NUM_ACTIONS), view.legal_actions))
            match.apply_action(bots[match.hand.to_act].act(view))
        game += 1
    return np.stack(obs), np.stack(masks)


def _check_same_play(name: str, count: int) -> None:
    torch = pytest.importorskip("torch")
    from agents.nets.policy import load_policy

    numpy_net, rules = read_play_file(SHIPPED_POLICIES / f"{name}.safetensors")
    torch_net, torch_rules = load_policy(SHIPPED_POLICIES / f"{name}.pt")
    assert rules == torch_rules
    obs, legal = positions(rules, name, count, seed=sum(map(ord, name)))
    with torch.no_grad():
        expected = torch_net(torch.from_numpy(obs)).numpy()
    got = numpy_net.logits(obs)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-4)
    moves = np.where(legal, got, -np.inf).argmax(1)
    np.testing.assert_array_equal(moves, np.where(legal, expected, -np.inf).argmax(1))


@pytest.mark.parametrize("name", SHIPPED)
def test_numpy_plays_the_moves_of_the_torch_checkpoint(name: str) -> None:
    """The same move and logits within 1e-4 at positions of self-play of several bots
    (the full count, 10,000 per policy, runs under ``-m slow``)."""
    _check_same_play(name, 2_000)


@pytest.mark.slow
@pytest.mark.parametrize("name", SHIPPED)
def test_numpy_plays_the_moves_of_the_torch_checkpoint_on_10000_positions(name: str) -> None:
    _check_same_play(name, 10_000)


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_play_file_is_the_export_of_its_checkpoint(name: str) -> None:
    """``NAME.safetensors`` holds exactly ``NAME.pt``'s weights, config and rules (what
    ``python -m agents.nets.export NAME.pt --format play`` writes)."""
    pytest.importorskip("torch")
    from agents.nets.policy import read_checkpoint

    ckpt = read_checkpoint(SHIPPED_POLICIES / f"{name}.pt")
    net, rules = read_play_file(SHIPPED_POLICIES / f"{name}.safetensors")
    assert rules == make_rules(ckpt["rules"]["name"], ckpt["rules"]["options"])
    assert net.weights.keys() == ckpt["model"].keys()
    for key, value in ckpt["model"].items():
        np.testing.assert_array_equal(net.weights[key], value.numpy(), err_msg=key)


@pytest.mark.parametrize("players", [4, 6])
@pytest.mark.parametrize("arch", ["mlp", "suits"])
@pytest.mark.parametrize("card_features", [False, True])
def test_the_declared_shapes_are_the_torch_network_s(players: int, arch: str, card_features: bool) -> None:
    """What the reader requires of a file is the state dict of the network its config
    describes, and an export of a fresh network plays its logits in numpy."""
    torch = pytest.importorskip("torch")
    from agents.nets.policy import PolicyNet

    rules = make_rules("dehla-direct", players=players)
    torch.manual_seed(0)
    net = PolicyNet.for_rules(rules, (32, 16), card_features, arch)
    config = NetConfig(observation_size(rules), (32, 16), card_features, arch, players)
    assert weight_shapes(config) == {k: tuple(v.shape) for k, v in net.state_dict().items()}


def test_an_exported_network_plays_its_logits_in_numpy(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from agents.nets.export import main as export_main
    from agents.nets.policy import PolicyNet, policy_checkpoint

    rules = make_rules("court-piece")
    torch.manual_seed(1)
    net = PolicyNet.for_rules(rules, (24, 24), True, "suits")
    torch.save(policy_checkpoint(net, rules), tmp_path / "p.pt")
    assert export_main([str(tmp_path / "p.pt"), "--out", str(tmp_path / "p.safetensors"), "--format", "play"]) == 0
    played, played_rules = read_play_file(tmp_path / "p.safetensors")
    obs = (np.random.default_rng(2).random((64, net.obs_size)) < 0.1).astype(np.float32)
    np.testing.assert_allclose(played.logits(obs), net.logits(obs), atol=1e-5)
    assert played_rules == rules
    assert make_agent(f"policy:{tmp_path / 'p.safetensors'}", rules).act  # plays by its path too


def _file(tmp_path: Path, header: dict, data: bytes = b"") -> Path:
    raw = json.dumps(header).encode()
    path = tmp_path / "x.safetensors"
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + data)
    return path


def _meta(rules: Rules, hidden: list[int]) -> dict:
    config = {"obs_size": observation_size(rules), "hidden": hidden, "card_features": False}
    entry = {"name": rules.name, "options": rules.option_dict()}
    return {"format": FORMAT, "model_config": json.dumps(config), "rules": json.dumps(entry)}


def test_a_file_that_declares_more_than_its_config_is_refused_before_reading(tmp_path: Path) -> None:
    """A header may declare any shape; the reader compares the declaration with the
    network the config describes and refuses a difference before building a weight."""
    rules = make_rules("dehla")
    huge = {"dtype": "F32", "shape": [1 << 20, 1 << 20], "data_offsets": [0, 4]}
    path = _file(tmp_path, {"__metadata__": _meta(rules, [8]), "net.0.weight": huge}, b"\0" * 4)
    with pytest.raises(CheckpointError, match="do not fit its model_config"):
        read_play_file(path)


@pytest.mark.parametrize(
    ("header", "data", "message"),
    [
        (None, b"\xff" * 8, "no safetensors header"),
        ({"__metadata__": {"format": "other"}}, b"", "not a dehla policy play file"),
        ({"a": 1}, b"", "not a dehla policy play file"),
        ({"__metadata__": {"format": FORMAT, "rules": "{}", "model_config": "{}"}}, b"", "rules it was trained for"),
        ({"__metadata__": {"format": FORMAT, "rules": '{"name": "dehla"}', "model_config": "1"}}, b"", "model_config"),
    ],
)
def test_a_foreign_or_broken_file_is_one_error_naming_it(tmp_path: Path, header, data: bytes, message: str) -> None:
    path = tmp_path / "x.safetensors"
    if header is None:
        path.write_bytes(data)
    else:
        path = _file(tmp_path, header, data)
    with pytest.raises(CheckpointError, match=message) as err:
        read_play_file(path)
    assert str(err.value).startswith(str(path))


def test_the_weights_must_be_where_the_header_says(tmp_path: Path) -> None:
    """A header that fits the config but whose data runs past the end of the file: the
    safetensors reader refuses it (the file holds every byte it declares, or nothing loads)."""
    rules = make_rules("dehla")
    shapes = weight_shapes(NetConfig(observation_size(rules), (8,), False, "mlp", 4))
    header: dict = {"__metadata__": _meta(rules, [8])}
    offset = 0
    for key, shape in sorted(shapes.items()):
        size = 4 * int(np.prod(shape))
        header[key] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    with pytest.raises(CheckpointError, match="not a valid safetensors file"):
        read_play_file(_file(tmp_path, header, b"\0" * 16))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "x.safetensors"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match="not a regular file"):
        read_play_file(fifo)


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_policy_plays_its_rules_and_is_the_default_bot_there(name: str) -> None:
    net, rules = read_play_file(SHIPPED_POLICIES / f"{name}.safetensors")
    agent = make_agent(f"policy:{name}", rules, seed=1)
    assert isinstance(agent, PolicyAgent) and agent.net.obs_size == observation_size(rules)
    assert default_bot(rules) == (f"policy:{name}" if name != "dehla-playout" else "policy:dehla")


def test_the_default_bot_is_hard_where_no_policy_is_shipped() -> None:
    assert default_bot(make_rules("dehla", kots=3)) == "hard"
    assert default_bot(make_rules("court-piece", defender_kot=True)) == "hard"


HIDE_TORCH = "import sys; sys.modules['torch'] = None\n"


def test_the_core_plays_every_shipped_policy_without_torch() -> None:
    """With torch hidden (as in ``pip install .`` alone): the arena plays each shipped
    policy, the benchmark places an agent on a ladder holding one, the terminal game and
    the web game's table seat one by default, and nothing imports torch."""
    code = HIDE_TORCH + (
        "from agents.arena import run_duel\n"
        "from agents.nets.play import read_play_file\n"
        "from agents.play import TerminalGame\n"
        "from agents.registry import SHIPPED_POLICIES, shipped_policies\n"
        "for name in shipped_policies():\n"
        "    rules = read_play_file(SHIPPED_POLICIES / f'{name}.safetensors')[1]\n"
        "    print(name, run_duel(rules, f'policy:{name}', 'hard', deals=1, seed=7, workers=1).win_rate.value)\n"
        "from dehla_env.rules import make_rules\n"
        "game = TerminalGame(make_rules('dehla'), 0, seed=1, input_fn=lambda p: '1', print_fn=lambda *a: None)\n"
        "assert set(game.specs.values()) == {'policy:dehla'}\n"
        "game.run()\n"
        "from agents.bench.cli import main\n"
        "assert main(['--rules', 'dehla', '--agent', 'easy', '--deals', '2', '--workers', '1', '--quiet']) == 0\n"
        "from starlette.testclient import TestClient\n"
        "from agents.web.server import ServerConfig, create_app\n"
        "import pathlib, tempfile\n"
        "config = ServerConfig(record_dir=pathlib.Path(tempfile.mkdtemp()), bot_delay=0.0)\n"
        "with TestClient(create_app(config), base_url='http://127.0.0.1') as client:\n"
        "    state = client.post('/api/games', json={'rules': 'court-piece', 'seat': 1, 'seed': 3}).json()\n"
        "    assert {s['agent'] for s in state['seats'] if s['agent']} == {'policy:court-piece'}, state['seats']\n"
        "    assert client.post(f\"/api/games/{state['id']}/advance\", json={}).json()['advanced']\n"
        "assert sys.modules['torch'] is None\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr


def test_a_torch_checkpoint_without_torch_says_how_to_play_it() -> None:
    code = HIDE_TORCH + (
        "from agents.registry import make_agent, SHIPPED_POLICIES\n"
        "from dehla_env.rules import make_rules\n"
        "try:\n"
        "    make_agent(f'policy:{SHIPPED_POLICIES / \"dehla.pt\"}', make_rules('dehla'))\n"
        "except ValueError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "needs torch" in done.stdout and "agents.nets.export" in done.stdout, done.stdout + done.stderr
