"""Search values as the network's training targets (the "search inside the network" arm).

Distilling the search's *chosen* move made the policy worse (0.58 -> 0.48 against
``hard``): many labels are ties between equivalent cards, and a hard label says "this
card, not that one" where the search saw no difference. Here the label is the search's
*value* of every legal move instead (:attr:`agents.search.SearchAgent.last_scores`: the
mean over the sampled worlds of the playout's score, win 1 / no winner 0.5 / loss 0 plus
the margin tie-break), and the policy is fitted to the soft target
``softmax(values / tau)`` over the legal moves: equal values give equal probabilities,
and a move the search finds clearly better gets the mass.

Two steps, each resumable (the data is written task by task; an interrupted run keeps
what it finished and a rerun with the same settings records only the rest):

1. **record**: hands of the searcher playing every seat (so the positions are the ones
   a search-strength player reaches); every card decision with a choice is kept with
   its observation, mask and per-move values. The hands spread over worker processes.
2. **fit**: the network to start from (``init``, a shipped name or a checkpoint path)
   is trained by soft cross-entropy on the targets, each minibatch under one random
   suit relabelling (:mod:`dehla_env.augment`), and saved as a play checkpoint.

Usage::

    python -m agents.training.search_values --out runs/sv --hands 2000
    python -m agents.arena --rules dehla --a policy:runs/sv/policy.pt --b hard --deals 600 --seed 11
"""

from __future__ import annotations

import dataclasses
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from dehla_env.actions import NUM_ACTIONS
from dehla_env.augment import ALL_PERMUTATIONS, suit_permutation_maps
from dehla_env.encoding import ObservationEncoder
from dehla_env.engine import MatchState, Phase
from dehla_env.rules import Rules, make_rules
from dehla_env.view import view_of

from ..policy import PolicyNet, load_policy
from ..registry import make_agent, policy_path
from ..search import SearchAgent
from .runs import Interrupted, Stop, parse_command_line, save_checkpoint
from .workers import Workers


@dataclass
class Settings:
    """Search-value targets: record the searcher's values, fit a policy to them."""

    out: str = "runs/search-values"
    """directory for the recorded data (``data-*.npz``) and the fitted ``policy.pt``"""
    rules: str = "dehla"
    """ruleset preset (default options)"""
    init: str = "dehla"
    """the network to start from: a shipped policy name or a checkpoint path"""
    searcher: str = "search:batch=1,playout=policy:dehla,k=16,depth=5"
    """agent spec whose per-move values are the targets (a search agent)"""
    hands: int = 2000
    """hands of searcher self-play to record"""
    hands_per_task: int = 10
    """hands per task (one data file each: what an interruption can lose)"""
    seed: int = 1
    workers: int = 2
    """recording processes (0: in this process)"""
    tau: float = 0.03
    """temperature of the soft target softmax(values / tau), in units of the value"""
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
    """Play the task's hands and write every card decision with a choice: observation,
    mask and the searcher's value of each legal move (0 elsewhere). Returns the count."""
    rules = task.rules
    rng = np.random.default_rng(list(task.seed))
    searcher = make_agent(task.searcher, rules, seed=int(rng.integers(2**31)))
    if not isinstance(searcher, SearchAgent):
        raise ValueError(f"{task.searcher} is not a search agent: it has no values to learn from")
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    val_l: list[np.ndarray] = []
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
            if searched:
                values = np.zeros(NUM_ACTIONS, np.float32)
                for a, v in searcher.last_scores.items():
                    values[a] = v
                obs_l.append(enc.encode(match, seat))
                mask_l.append(match.legal_mask())
                val_l.append(values)
            match.apply_action(action)
    tmp = Path(task.path).with_suffix(".tmp.npz")
    np.savez(tmp, obs=np.stack(obs_l), mask=np.stack(mask_l), values=np.stack(val_l))
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


def soft_targets(values: torch.Tensor, mask: torch.Tensor, tau: float) -> torch.Tensor:
    """``softmax(values / tau)`` over the legal moves (mask 1), 0 elsewhere."""
    logits = torch.where(mask.bool(), values / tau, torch.full_like(values, float("-inf")))
    return torch.softmax(logits, -1)


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
    """Soft cross-entropy toward :func:`soft_targets`; returns the last epoch's loss and
    how often the policy's top move has the best value (ties count as best)."""
    obs = torch.from_numpy(data["obs"])
    mask = torch.from_numpy(data["mask"])
    values = torch.from_numpy(data["values"])
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
            o, m, v = obs[mb][:, oi], mask[mb][:, mi], values[mb][:, mi]
            target = soft_targets(v, m, tau)
            logp = torch.log_softmax(policy.masked_logits(o, m), -1)
            loss = -(target * torch.where(m.bool(), logp, torch.zeros_like(logp))).sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += loss.item() * len(mb)
            top = torch.where(m.bool(), v, torch.full_like(v, -1.0)).max(-1).values
            best += float((v.gather(1, logp.argmax(-1, keepdim=True))[:, 0] >= top - 1e-6).sum())
        result = {"loss": loss_sum / n, "best_move": best / n}
        print(
            f"epoch {epoch + 1}/{epochs}: soft cross-entropy {result['loss']:.4f}, "
            f"top move best {result['best_move']:.3f}",
            flush=True,
        )
    return result


def load_data(paths: list[Path]) -> dict[str, np.ndarray]:
    parts = [np.load(p) for p in paths]
    return {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "values")}


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
        data = load_data(sorted(out.glob("data-*.npz")))
        print(
            f"{len(data['obs'])} positions from {s.hands} hands; recording took {record_s:.0f} s this run", flush=True
        )
        torch.manual_seed(s.seed)
        net, trained = load_policy(policy_path(s.init))
        if trained != rules:
            raise ValueError(f"{s.init} plays {trained}, not {rules}")
        net.train()
        opt = torch.optim.Adam(net.parameters(), lr=s.learning_rate)
        gen = torch.Generator().manual_seed(s.seed)
        t1 = time.time()
        result = fit(net, opt, data, rules.players, s.tau, s.epochs, s.minibatch_size, gen, stop)
        net.eval()
        save_checkpoint(
            out / "policy.pt",
            {
                "model": net.state_dict(),
                "model_config": net.config(),
                "rules": {"name": rules.name, "options": rules.option_dict()},
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
