"""Search values as the network's training targets (the "search inside the network" arm).

Distilling the search's *chosen* move made the policy worse (0.58 -> 0.48 against
``hard``): many labels are ties between equivalent cards, and a hard label says "this
card, not that one" where the search saw no difference. Here the label is the search's
*value* of every legal move instead (:attr:`agents.search.pimc.SearchAgent.last_scores`: the
mean over the sampled worlds of the playout's score, win 1 / no winner 0.5 / loss 0 plus
the margin tie-break), and the policy is fitted to one of two soft targets
(:func:`search_targets`):

- ``values``: ``softmax(values / tau)`` over the legal moves: equal values give equal
  probabilities, and a move the search finds clearly better gets the mass;
- ``improved``: ``prior * exp(values / tau)``, normalised, where ``prior`` is the
  starting network's own policy (a regularised policy improvement, as in MPO): the
  search's values move the policy's probabilities rather than replace them, so noise in
  a value shifts the mass by ``exp(noise / tau)`` instead of deciding the label alone.

A move the searcher did not value (a search with a ``prior`` drops the moves outside its
``keep`` mass) counts as the worst move it did value.

Two steps, each resumable (the data is written task by task; an interrupted run keeps
what it finished and a rerun with the same settings records only the rest):

1. **record**: hands of the searcher playing every seat (so the positions are the ones
   a search-strength player reaches); every card decision with a choice is kept with
   its observation, mask and per-move values. The hands spread over worker processes.
2. **fit**: the network to start from (``init``, a shipped name or a checkpoint path)
   is trained by soft cross-entropy on the targets, each minibatch under one random
   suit relabelling (:mod:`dehla_env.augment`), and saved as a play checkpoint. The
   last ``holdout`` share of the data files (whole hands) is kept out of the fit; how
   often the network's top move is the search's best there, and the value it gives up,
   are printed before and after.

Usage::

    python experiments/search_values.py --out runs/sv --hands 2000
    python -m agents.arena --rules dehla --a policy:runs/sv/policy.pt --b hard --deals 600 --seed 11
"""

from __future__ import annotations

import dataclasses
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import torch

from agents.nets.policy import PolicyNet, load_policy, policy_checkpoint
from agents.registry import make_agent, policy_path
from agents.search.pimc import SearchAgent
from agents.training.runs import Interrupted, Stop, parse_command_line, save_checkpoint
from agents.training.workers import Workers
from dehla_env.actions import NUM_ACTIONS
from dehla_env.augment import ALL_PERMUTATIONS, suit_permutation_maps
from dehla_env.encoding import ObservationEncoder
from dehla_env.engine import MatchState, Phase
from dehla_env.rules import Rules, make_rules
from dehla_env.view import view_of


@dataclass
class Settings:
    """Search-value targets: record the searcher's values, fit a policy to them."""

    out: str = "runs/search-values"
    """directory for the recorded data (``data-*.npz``) and the fitted ``policy.pt``"""
    rules: str = "dehla"
    """ruleset preset (default options)"""
    init: str = "dehla"
    """the network to start from: a shipped policy name or a checkpoint path"""
    searcher: str = "batched-search:playout=policy:dehla,k=16,depth=5"
    """agent spec whose per-move values are the targets (a search agent)"""
    hands: int = 2000
    """hands of searcher self-play to record"""
    hands_per_task: int = 10
    """hands per task (one data file each: what an interruption can lose)"""
    seed: int = 1
    workers: int = 2
    """recording processes (0: in this process)"""
    target: Literal["values", "improved"] = "values"
    """the soft target: softmax(values / tau), or the starting network's policy times exp(values / tau)"""
    tau: float = 0.03
    """temperature of the soft target, in units of the value"""
    holdout: float = 0.1
    """share of the data files kept out of the fit to measure it on"""
    epochs: int = 4
    learning_rate: float = 1e-4
    minibatch_size: int = 1024


@dataclass(frozen=True)
class LabelTask:
    """``hands`` hands of ``searcher`` self-play from ``seed``, written to ``path``."""

    rules: Rules
    searcher: str
    seed: tuple[int, ...]
    hands: int
    path: str


def record_search_values(task: LabelTask) -> int:
    """Play the task's hands and write every card decision where the searcher compared
    moves: observation, mask, the searcher's value of each move it valued (0 elsewhere)
    and which moves it valued. A searcher with a ``prior`` plays a position where the
    prior leaves one class of moves without scoring it: nothing to learn there, and
    nothing recorded. Returns the count."""
    rules = task.rules
    rng = np.random.default_rng(list(task.seed))
    searcher = make_agent(task.searcher, rules, seed=int(rng.integers(2**31)))
    if not isinstance(searcher, SearchAgent):
        raise ValueError(f"{task.searcher} is not a search agent: it has no values to learn from")
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    val_l: list[np.ndarray] = []
    valued_l: list[np.ndarray] = []
    for _ in range(task.hands):
        match = MatchState.new(rules, rng)
        match.sample_chance(rng)
        enc = ObservationEncoder(rules)
        while not match.hand.complete:
            if match.is_chance():
                match.sample_chance(rng)
                continue
            seat = match.current_player()
            view = view_of(match, seat)
            searched = len(view.legal_actions) > 1 and searcher.searchable(view) and match.hand.phase == Phase.PLAY
            action = searcher.act(view)
            if searched and searcher.last_worlds > 0:  # not where a prior left one class to play
                values = np.zeros(NUM_ACTIONS, np.float32)
                valued = np.zeros(NUM_ACTIONS, bool)
                for a, v in searcher.last_scores.items():
                    values[a] = v
                    valued[a] = True
                obs_l.append(enc.encode(match, seat))
                mask_l.append(match.legal_mask())
                val_l.append(values)
                valued_l.append(valued)
            match.apply_action(action)
    tmp = Path(task.path).with_suffix(".tmp.npz")
    np.savez(tmp, obs=np.stack(obs_l), mask=np.stack(mask_l), values=np.stack(val_l), valued=np.stack(valued_l))
    tmp.replace(task.path)  # a reader (a rerun) sees a whole file or none
    return len(obs_l)


def label_tasks(s: Settings, rules: Rules) -> list[LabelTask]:
    out = Path(s.out)
    n = -(-s.hands // s.hands_per_task)
    return [
        LabelTask(
            rules,
            s.searcher,
            (s.seed, 7, i),
            min(s.hands_per_task, s.hands - i * s.hands_per_task),
            str(out / f"data-{i:05d}.npz"),
        )
        for i in range(n)
    ]


def completed_values(values: torch.Tensor, valued: torch.Tensor) -> torch.Tensor:
    """The values with each move the searcher did not value set to the worst value it
    gave in that position."""
    worst = torch.where(valued, values, torch.full_like(values, float("inf"))).min(-1, keepdim=True).values
    return torch.where(valued, values, worst)


def search_targets(
    values: torch.Tensor,
    valued: torch.Tensor,
    mask: torch.Tensor,
    tau: float,
    prior_logp: torch.Tensor | None = None,
) -> torch.Tensor:
    """The soft target over the legal moves (mask 1), 0 elsewhere: ``softmax(values /
    tau)``, or with ``prior_logp`` (the starting policy's log-probabilities)
    ``softmax(prior_logp + values / tau)``, the prior times ``exp(values / tau)``."""
    logits = completed_values(values, valued) / tau
    if prior_logp is not None:
        logits = logits + prior_logp
    return torch.softmax(torch.where(mask.bool(), logits, torch.full_like(logits, float("-inf"))), -1)


def policy_log_probs(policy: PolicyNet, obs: np.ndarray, mask: np.ndarray, chunk: int = 8192) -> np.ndarray:
    """``policy``'s log-probabilities at every position (the ``improved`` target's prior)."""
    out = np.zeros(mask.shape, np.float32)
    with torch.no_grad():
        for i in range(0, len(obs), chunk):
            m = torch.from_numpy(mask[i : i + chunk])
            logp = torch.log_softmax(policy.masked_logits(torch.from_numpy(obs[i : i + chunk]), m), -1)
            out[i : i + chunk] = torch.where(m.bool(), logp, torch.zeros_like(logp)).numpy()
    return out


def value_given_up(
    values: torch.Tensor, valued: torch.Tensor, mask: torch.Tensor, logits: torch.Tensor
) -> torch.Tensor:
    """Per position, how much less than the search's best legal move the top move of
    ``logits`` is worth to the search (0 where it is a best move)."""
    v = completed_values(values, valued)
    best = torch.where(mask.bool(), v, torch.full_like(v, float("-inf"))).max(-1).values
    return best - v.gather(1, logits.argmax(-1, keepdim=True))[:, 0]


def agreement(policy: PolicyNet, data: dict[str, np.ndarray]) -> dict[str, float]:
    """How often ``policy``'s top move has the search's best value (ties count as best),
    and the mean value it gives up against that best."""
    with torch.no_grad():
        mask = torch.from_numpy(data["mask"])
        logits = policy.masked_logits(torch.from_numpy(data["obs"]), mask)
        lost = value_given_up(torch.from_numpy(data["values"]), torch.from_numpy(data["valued"]), mask, logits)
    return {"best_move": float((lost <= 1e-6).float().mean()), "given_up": float(lost.mean())}


def fit(
    policy: PolicyNet,
    opt: torch.optim.Optimizer,
    data: dict[str, np.ndarray],
    players: int,
    tau: float,
    epochs: int,
    minibatch_size: int,
    gen: torch.Generator,
    stop: Stop,
) -> dict[str, float]:
    """Soft cross-entropy toward :func:`search_targets` (the ``improved`` one when
    ``data`` has a ``prior_logp``); returns the last epoch's loss and how often the
    policy's top move has the best value (ties count as best)."""
    obs = torch.from_numpy(data["obs"])
    mask = torch.from_numpy(data["mask"])
    values = torch.from_numpy(data["values"])
    valued = torch.from_numpy(data["valued"])
    prior = torch.from_numpy(data["prior_logp"]) if "prior_logp" in data else None
    n = len(obs)
    result: dict[str, float] = {}
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=gen)
        loss_sum = best = 0.0
        for start in range(0, n, minibatch_size):
            stop.check()
            mb = perm[start : start + minibatch_size]
            suits = ALL_PERMUTATIONS[int(torch.randint(len(ALL_PERMUTATIONS), (1,), generator=gen))]
            oi, mi, _af = suit_permutation_maps(suits, players)
            o, m, v, vd = obs[mb][:, oi], mask[mb][:, mi], values[mb][:, mi], valued[mb][:, mi]
            target = search_targets(v, vd, m, tau, None if prior is None else prior[mb][:, mi])
            logp = torch.log_softmax(policy.masked_logits(o, m), -1)
            loss = -(target * torch.where(m.bool(), logp, torch.zeros_like(logp))).sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += loss.item() * len(mb)
            best += float((value_given_up(v, vd, m, logp.detach()) <= 1e-6).sum())
        result = {"loss": loss_sum / n, "best_move": best / n}
        print(
            f"epoch {epoch + 1}/{epochs}: soft cross-entropy {result['loss']:.4f}, "
            f"top move best {result['best_move']:.3f}",
            flush=True,
        )
    return result


def load_data(paths: list[Path]) -> dict[str, np.ndarray]:
    parts = [np.load(p) for p in paths]
    return {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "values", "valued")}


def main(argv: list[str] | None = None) -> int:
    _cli, s, _changed = parse_command_line(Settings, argv, (Settings.__doc__ or "").strip())
    rules = make_rules(s.rules)
    out = Path(s.out)
    out.mkdir(parents=True, exist_ok=True)
    tasks = [t for t in label_tasks(s, rules) if not Path(t.path).exists()]
    stop = Stop()
    old = {sig: signal.signal(sig, stop.handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    workers = Workers(s.workers, stop)
    try:
        t0 = time.time()
        for i in range(0, len(tasks), max(1, s.workers) * 4):  # rounds: progress, and a stop between them
            batch = tasks[i : i + max(1, s.workers) * 4]
            count = sum(workers.map(record_search_values, batch))
            print(
                f"recorded {i + len(batch)}/{len(tasks)} tasks ({count} positions this round), "
                f"{time.time() - t0:.0f} s",
                flush=True,
            )
        record_s = time.time() - t0
        files = sorted(out.glob("data-*.npz"))
        held = int(len(files) * s.holdout)
        data = load_data(files[: len(files) - held])
        check = load_data(files[len(files) - held :]) if held else None
        print(
            f"{len(data['obs'])} positions from {s.hands} hands (files held out: {held}); "
            f"recording took {record_s:.0f} s this run",
            flush=True,
        )
        torch.manual_seed(s.seed)
        net, trained = load_policy(policy_path(s.init))
        if trained != rules:
            raise ValueError(f"{s.init} plays {trained}, not {rules}")
        net.eval()
        if s.target == "improved":
            data["prior_logp"] = policy_log_probs(net, data["obs"], data["mask"])
        before = agreement(net, check) if check else {}
        net.train()
        opt = torch.optim.Adam(net.parameters(), lr=s.learning_rate)
        gen = torch.Generator().manual_seed(s.seed)
        t1 = time.time()
        result = fit(net, opt, data, rules.players, s.tau, s.epochs, s.minibatch_size, gen, stop)
        net.eval()
        if check:
            after = agreement(net, check)
            print(
                f"held out ({len(check['obs'])} positions): top move best {before['best_move']:.3f} -> "
                f"{after['best_move']:.3f}, value given up {before['given_up']:.4f} -> {after['given_up']:.4f}",
                flush=True,
            )
            result |= {f"held_out_{k}": v for k, v in after.items()}
        save_checkpoint(
            out / "policy.pt",
            {
                **policy_checkpoint(net, rules),
                "search_values": {**dataclasses.asdict(s), **result, "positions": len(data["obs"])},
            },
        )
        print(f"fitted in {time.time() - t1:.0f} s; wrote {out / 'policy.pt'}")
    except Interrupted:
        print("stopped; the recorded tasks are kept, rerun the same command to continue", file=sys.stderr)
        return 130
    finally:
        workers.terminate()
        for sig, handler in old.items():
            signal.signal(sig, handler)
    return 0


if __name__ == "__main__":
    sys.exit(main())
