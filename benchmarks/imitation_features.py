"""Ablation: how well a policy network imitates the hard bot with and without the
card-counting features of :mod:`agents.features`.

    python benchmarks/imitation_features.py [--hands 7000] [--epochs 12] [--deals 400]

Records ``--hands`` hands of hard self-play (train.py's warm-start data), holds out a
seventh of the decisions, and fits the same 512-256 MLP twice from the same seed, once
on the observation alone and once with the features appended, by cross-entropy with
suit relabelling. It prints held-out accuracy per epoch and each fitted policy's win
rate against ``hard`` over ``--deals`` duplicate deals. Measured 2026-11-30 (defaults):
held-out accuracy 0.859 with the features, 0.836 without; both around 0.45 against
``hard``, i.e. imitation alone does not beat the teacher.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing as mp
import sys
import time
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # train.py lives at the root
import train  # noqa: E402
from agents.policy import PolicyNet
from dehla_env.encoding import observation_size
from dehla_env.rules import make_rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=7000)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=5)
    cli = parser.parse_args()

    args = dataclasses.asdict(train.Args(rules="dehla", teacher="hard"))
    t0 = time.time()
    tasks = [{"args": args, "seed": [cli.seed, w], "hands": cli.hands // 2} for w in range(2)]
    with mp.get_context("spawn").Pool(2) as pool:
        data = train.concat(pool.map(train.collect_imitation, tasks))
    n = len(data["action"])
    print(f"{n} decisions of hard self-play in {time.time() - t0:.0f}s", flush=True)
    obs = torch.from_numpy(data["obs"]).float()
    mask = torch.from_numpy(data["mask"])
    act = torch.from_numpy(data["action"])
    held_out = n // 7
    rules = make_rules("dehla")
    torch.set_num_threads(2)
    for card_features in (True, False):
        torch.manual_seed(0)
        gen = torch.Generator().manual_seed(0)
        net = PolicyNet(observation_size(rules), (512, 256), card_features)
        opt = torch.optim.Adam(net.parameters(), lr=5e-4, eps=1e-5)
        for epoch in range(cli.epochs):
            perm = held_out + torch.randperm(n - held_out, generator=gen)
            for start in range(0, len(perm), 2048):
                mb = perm[start : start + 2048]
                o, m, y, _ = train._relabel_suits(obs[mb], mask[mb], act[mb], rules.players, gen)
                loss = nn.functional.cross_entropy(net.masked_logits(o, m), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
            with torch.no_grad():
                pred = net.masked_logits(obs[:held_out], mask[:held_out]).argmax(-1)
            acc = (pred == act[:held_out]).float().mean().item()
            print(f"card_features={card_features} epoch {epoch + 1}: held-out accuracy {acc:.4f}", flush=True)
        mean, lo, hi = train.evaluate(net.eval(), rules, "hard", cli.deals, 99)
        print(f"card_features={card_features}: vs hard {mean:.3f} [{lo:.3f}, {hi:.3f}] over {cli.deals} deals")


if __name__ == "__main__":
    main()
