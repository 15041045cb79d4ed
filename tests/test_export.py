"""python -m agents.nets.export: play-only policy files, snapshot averaging, TorchScript."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from agents.nets.export import average_state_dicts, main
from agents.nets.policy import PolicyNet, load_policy
from dehla_env.encoding import observation_size
from dehla_env.rules import make_rules

RULES = make_rules("dehla")
OBS = observation_size(RULES)


def _net(seed: int) -> PolicyNet:
    torch.manual_seed(seed)
    return PolicyNet(OBS, (16,), card_features=True)


def _training_checkpoint(path: Path) -> tuple[PolicyNet, list[PolicyNet]]:
    final, snaps = _net(0), [_net(1), _net(2), _net(3)]
    torch.save(
        {
            "model": final.state_dict(),
            "model_config": final.config(),
            "critic": {},
            "optimizer": {},
            "snapshots": [s.state_dict() for s in snaps],
            "rules": {"name": "dehla", "options": {}},
        },
        path,
    )
    return final, snaps


def test_averaging_takes_the_entrywise_mean() -> None:
    a, b = _net(0).state_dict(), _net(1).state_dict()
    avg = average_state_dicts([a, b])
    for k in a:
        torch.testing.assert_close(avg[k], (a[k] + b[k]) / 2)
    with pytest.raises(ValueError):
        average_state_dicts([a, PolicyNet(OBS, (8,)).state_dict()])


def test_export_writes_a_policy_of_the_final_weights_or_their_average_with_the_last_snapshots(tmp_path: Path) -> None:
    final, snaps = _training_checkpoint(tmp_path / "checkpoint.pt")
    assert main([str(tmp_path / "checkpoint.pt"), "--out", str(tmp_path / "plain.pt")]) == 0
    net, rules = load_policy(tmp_path / "plain.pt")
    assert rules.name == "dehla" and net.card_features
    x = torch.rand(3, OBS)
    torch.testing.assert_close(net(x), final(x))

    main([str(tmp_path / "checkpoint.pt"), "--out", str(tmp_path / "avg.pt"), "--average-snapshots", "2"])
    averaged, _ = load_policy(tmp_path / "avg.pt")
    expected = average_state_dicts([final.state_dict(), snaps[1].state_dict(), snaps[2].state_dict()])
    for k, v in averaged.state_dict().items():
        torch.testing.assert_close(v, expected[k])
    assert main([str(tmp_path / "checkpoint.pt"), "--out", str(tmp_path / "x.pt"), "--average-snapshots", "4"]) == 2
    assert not (tmp_path / "x.pt").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--average-snapshots", "4"], "holds 3 snapshots"),
        (["--average-snapshots", "-2"], "0 or more"),
        (["--out", "{tmp}/missing/x.pt"], "no folder"),
        (["--out", "{tmp}"], "is a directory"),
        (["--checkpoint", "{tmp}/nope.pt"], "no such file"),
    ],
)
def test_bad_export_requests_are_one_line_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    _training_checkpoint(tmp_path / "checkpoint.pt")
    argv = [str(tmp_path / "checkpoint.pt"), "--out", str(tmp_path / "x.pt")]
    args = [a.format(tmp=tmp_path) for a in args]
    if args[0] == "--checkpoint":
        argv[0] = args[1]
    else:
        argv += args
        if "--out" in args:
            argv = [argv[0], *args]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x.pt").exists()


def test_export_to_torchscript_gives_the_same_logits(tmp_path: Path) -> None:
    final, _ = _training_checkpoint(tmp_path / "checkpoint.pt")
    main([str(tmp_path / "checkpoint.pt"), "--out", str(tmp_path / "p.ts"), "--format", "torchscript"])
    module = torch.jit.load(str(tmp_path / "p.ts"))
    x = torch.rand(2, OBS)
    torch.testing.assert_close(module(x), final(x))


@pytest.mark.parametrize("relabel", [False, True], ids=["network", "relabelled"])
def test_an_onnx_policy_plays_a_whole_hand_legally_through_onnxruntime(tmp_path: Path, relabel: bool) -> None:
    """The exported graph takes the mask: its action is legal at every decision, and it
    is the torch policy's greedy legal action; exported with ``relabel``, the action of
    ``policy:PATH,relabel=1`` (the network averaged over the suit relabellings)."""
    ort = pytest.importorskip("onnxruntime", reason="the onnx extra: pip install 'dehla[onnx]'")
    pytest.importorskip("onnx", reason="the onnx extra: pip install 'dehla[onnx]'")
    import numpy as np

    from agents.nets.agent import PolicyAgent
    from agents.nets.policy import export_onnx
    from dehla_env import raw_env

    net = PolicyNet(OBS, (32,), card_features=True)
    path = export_onnx(net, tmp_path / "p.onnx", relabel=relabel)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    agent = PolicyAgent(None, make_rules("dehla"), net=net, relabel=relabel)
    env = raw_env()
    for seed in range(3):
        env.reset(seed=seed)
        decisions = 0
        for name in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            logits, action = session.run(
                None, {"obs": obs["observation"][None], "mask": obs["action_mask"][None].astype(bool)}
            )
            a = int(action[0])
            assert obs["action_mask"][a] == 1
            assert np.isinf(logits[0][obs["action_mask"] == 0]).all()
            assert a == agent.act(dehla_view(env, name))
            env.step(a)
            decisions += 1
        assert decisions >= 52


def dehla_view(env: object, name: str) -> object:
    from dehla_env import view_of

    return view_of(env.match, env.agent_name_mapping[name])  # type: ignore[attr-defined]
