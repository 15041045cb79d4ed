"""Ablation: how well a policy network imitates the hard bot with and without the
card-counting features of :mod:`agents.nets.features`.

    python benchmarks/imitation_features.py [--hands 7000] [--epochs 12] [--deals 400] [--arch mlp]

Records ``--hands`` hands of hard self-play (the trainer's warm-start data,
:mod:`agents.training.imitation`), holds out a seventh of the decisions, and fits the
same network twice from the same seed, once on the observation alone and once with the
features appended, by the warm start's own fit (cross-entropy with suit relabelling).
It prints held-out accuracy per epoch and each fitted policy's share of hands against
``hard`` over ``--deals`` duplicate deals (the arena's duel). Measured 2026-11-30
(defaults, the MLP): held-out accuracy 0.859 with the features, 0.836 without; both
around 0.45 against ``hard``, i.e. imitation alone does not beat the teacher.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import tempfile
import time
from pathlib import Path

import torch

from agents.nets.policy import ARCHITECTURES, PolicyNet, ValueNet, policy_checkpoint
from agents.playing.run import run_duel
from agents.training import imitation
from agents.training.runs import Stop, save_checkpoint
from dehla_env.encoding import observation_size, privileged_size
from dehla_env.rules import make_rules

HIDDEN = {"mlp": (512, 256), "suits": (256, 256)}
"""The shipped sizes of each architecture (configs/)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hands", type=int, default=7000)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--arch", choices=ARCHITECTURES, default="mlp")
    cli = parser.parse_args()

    rules = make_rules("dehla")
    torch.set_num_threads(2)
    t0 = time.time()
    tasks = imitation.teacher_tasks(rules, "hard", cli.seed, cli.hands, {"win": 1.0, "tens": 0.25}, workers=2)
    with mp.get_context("spawn").Pool(2) as pool:
        data = imitation.record(pool.map, tasks)
    n = len(data["action"])
    print(f"{n} decisions of hard self-play in {time.time() - t0:.0f}s", flush=True)
    held_out = n // 7
    fit_data = {k: v[held_out:] for k, v in data.items()}
    obs, mask, act = (torch.from_numpy(data[k][:held_out]) for k in ("obs", "mask", "action"))
    for card_features in (True, False):
        torch.manual_seed(0)
        gen = torch.Generator().manual_seed(0)
        net = PolicyNet(observation_size(rules), HIDDEN[cli.arch], card_features, cli.arch)
        critic = ValueNet(observation_size(rules) + privileged_size(rules), (512, 256))
        opt = torch.optim.Adam([*net.parameters(), *critic.parameters()], lr=5e-4, eps=1e-5)
        for epoch in range(cli.epochs):
            settings = imitation.FitSettings(rules.players, epochs=1, minibatch_size=2048, vf_coef=0.5)
            imitation.fit(net, critic, opt, fit_data, settings, gen=gen, stop=Stop(), log=lambda *_: None)
            with torch.no_grad():
                acc = (net.masked_logits(obs, mask).argmax(-1) == act).float().mean().item()
            print(f"card_features={card_features} epoch {epoch + 1}: held-out accuracy {acc:.4f}", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "policy.pt"
            save_checkpoint(path, policy_checkpoint(net, rules))
            est = run_duel(rules, f"policy:{path}", "hard", cli.deals, 99, workers=2).win_rate
        interval = f"{est.value:.3f} [{est.low:.3f}, {est.high:.3f}]"
        print(f"card_features={card_features}: vs hard {interval} over {cli.deals} deals", flush=True)


if __name__ == "__main__":
    main()
