"""Train a policy network that plays a Dehla Pakad family ruleset.

    python train.py --config configs/dehla.yaml [--override key=value ...] [--resume RUN_DIR]

The method (read top to bottom):

1. Warm start by imitation: play ``imitation_hands`` hands of the teacher bot against
   itself, record every seat's (observation, legal mask, action, final result), and fit
   the policy by cross-entropy and the critic by regression on the result.
2. PPO with action masking: one policy network plays every seat (observations are
   seat-relative); the critic reads the seat's observation *plus* the cards it cannot
   see (privileged, training only). Each rollout plays ``num_games`` games in lockstep
   per worker process; the learner's side (both seats) uses the current policy; the
   other side is drawn per hand from the opponent pool: the heuristic bots, the
   current policy (self-play, both sides learn) and frozen snapshots of the policy.
   Rewards per hand (episode = one hand): +1/-1 for the hand's winner, plus
   ``tens_coef`` x the tens difference / tens in the deck (shaping).
   With ``card_features`` the policy also reads card-counting features computed from
   its observation (:mod:`agents.features`); they made imitation of ``hard`` more
   accurate (benchmarks/imitation_features.py) and the shipped policy uses them.
3. Optionally, distillation of a stronger teacher after PPO (``distill_teacher``, e.g.
   the search bot): DAgger, where the policy and the teacher share the moves of
   ``distill_hands`` hands, the teacher labels every decision, and the policy is fitted
   to the labels by cross-entropy (with suit relabelling). Measured once, it did not
   help: 146 k labels of ``search:k=16,depth=4`` (which beats ``hard`` 64-66%) took
   the shipped policy from 0.58 to 0.53 against ``hard`` after one epoch and 0.48
   after four (1000 duplicate deals). The policy agreed with the search on only 44%
   of decisions, largely ties between equivalent cards and worlds it cannot see.
   So it is off by default.
4. Periodic evaluation in the arena's way (duplicate deals, 95% interval) against
   easy / medium / hard, logged to TensorBoard with the losses and throughput.

Everything is seeded from ``seed``: rollout workers derive their generators from
(seed, update, worker), so a run resumed from a checkpoint (model, critic, optimizer,
RNG and counters, snapshot pool) continues exactly as if never interrupted. The run
directory holds ``config.yaml`` (resolved), TensorBoard events and checkpoints
(``checkpoint.pt``: latest, ``policy.pt``: play-only weights). Checkpoints are written
to a ``.tmp`` file and renamed over the old one, and ``--resume`` reads them with
``torch.load(weights_only=True)`` (:func:`agents.policy.read_checkpoint`), as it does a
``policy:PATH`` teacher or opponent: a file that would run code is refused.

Stopping: Ctrl-C (SIGINT, to the process or its whole group) or SIGTERM stops the run
within seconds at any moment. The rollout workers ignore SIGINT and leave stopping to
the parent, which ends them. What is saved is the last state from which ``--resume``
continues exactly: the last completed PPO update (a half-done update is dropped); an
interruption of the imitation warm start saves nothing (the run has no checkpoint yet
and ``--resume`` starts it again, exactly as a fresh start would); one during
distillation keeps the checkpoint written just before it.

Exit status: 0 finished (or the time budget ran out); 1 a checkpoint could not be
written (disk full, no permission) or a rollout worker died; 2 a bad command line,
config, setting, agent spec, run directory or checkpoint (one line on stderr, before
anything is trained); 130 stopped by SIGINT; 143 stopped by SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import io
import json
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import threading
import time
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from torch import nn
from torch.utils.tensorboard import SummaryWriter

from agents.arena import play_hand
from agents.base import Agent
from agents.export import play_checkpoint
from agents.policy import CheckpointError, PolicyAgent, PolicyNet, ValueNet, read_checkpoint
from agents.registry import make_agent
from dehla_env.actions import NUM_ACTIONS
from dehla_env.augment import ALL_PERMUTATIONS, suit_permutation_maps
from dehla_env.cards import NUM_CARDS
from dehla_env.encoding import ObservationEncoder, observation_size, privileged_features, privileged_size
from dehla_env.engine import MatchState
from dehla_env.rules import Rules, RulesError, make_rules
from dehla_env.view import view_of


@dataclass
class Args:
    """Training settings; every field can be set in the YAML config or by --override."""

    run_name: str = "dehla"
    """name of the run; the run directory is runs_dir/run_name__seed__time"""
    runs_dir: str = "runs"
    """where run directories go"""
    seed: int = 1
    """seeds everything (torch, rollouts, evaluation deals)"""
    rules: str = "dehla"
    """ruleset preset"""
    rule_options: dict[str, Any] = field(default_factory=dict)
    """rule options, e.g. {trump: chosen}"""
    hidden: list[int] = field(default_factory=lambda: [512, 256])
    """hidden layer sizes of the policy and the critic"""
    card_features: bool = False
    """append the card-counting features of :mod:`agents.features` to the policy's input"""
    # --- imitation warm start
    teacher: str = "hard"
    """agent spec imitated in the warm start"""
    imitation_hands: int = 20000
    """hands of teacher self-play recorded for the warm start (0: no warm start)"""
    imitation_epochs: int = 4
    """passes over the imitation data"""
    augment_suits: bool = True
    """relabel the suits of each imitation minibatch at random (dehla_env.augment)"""
    # --- PPO
    updates: int = 200
    """PPO updates (each one rollout plus optimisation)"""
    time_budget_minutes: float = 110.0
    """stop (and save) after this much wall time"""
    num_workers: int = 2
    """rollout processes (0: roll out in the main process)"""
    num_games: int = 64
    """games played in lockstep per worker"""
    decisions_per_worker: int = 4096
    """learner decisions collected per worker per update"""
    opponents: dict[str, float] = field(default_factory=lambda: {"hard": 0.5, "self": 0.3, "snapshot": 0.2})
    """opponent pool with sampling weights: agent specs, 'self' and 'snapshot'"""
    snapshot_every: int = 10
    """add a frozen copy of the policy to the pool every this many updates"""
    max_snapshots: int = 5
    """pool size for frozen snapshots"""
    learning_rate: float = 2.5e-4
    """Adam learning rate"""
    anneal_lr: bool = False
    """decay the learning rate linearly to 0 over ``updates`` (by update count, so a
    resumed run follows the same schedule)"""
    gae_lambda: float = 0.95
    """GAE lambda (gamma is 1: one hand is a short episode)"""
    clip_coef: float = 0.2
    """PPO clip"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    update_epochs: int = 4
    """optimisation passes per rollout"""
    minibatch_size: int = 2048
    """samples per gradient step"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    tens_coef: float = 0.25
    """reward shaping: tens difference / tens in deck, times this"""
    privileged_critic: bool = True
    """critic reads the hidden cards too (training only)"""
    # --- distillation of a stronger teacher (DAgger), after PPO
    distill_teacher: str = ""
    """agent spec that labels the policy's own states after PPO, e.g.
    ``search:k=16,depth=4`` ('' = no distillation)"""
    distill_hands: int = 0
    """hands played (all workers together) to collect the teacher's labels"""
    distill_mix: float = 0.5
    """chance that the teacher's move is played rather than the policy's (DAgger's beta)"""
    distill_epochs: int = 4
    """passes over the distillation labels"""
    distill_learning_rate: float = 1e-4
    """Adam learning rate of the distillation fit (policy only)"""
    # --- evaluation and checkpoints
    eval_every: int = 10
    """evaluate every this many updates (0: never)"""
    eval_deals: int = 200
    """duplicate deals per evaluation opponent"""
    eval_opponents: list[str] = field(default_factory=lambda: ["hard", "medium", "easy"])
    """opponents for the periodic evaluation"""
    checkpoint_every: int = 5
    """save the checkpoint every this many updates"""
    torch_threads: int = 2
    """torch threads in the learner"""


# ---------------------------------------------------------------------------- features
def _relabel_suits(
    obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor, players: int, gen: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, tuple[int, ...]]:
    """One random suit relabelling (:mod:`dehla_env.augment`) applied to a minibatch of
    observations, masks and actions; the permutation is returned for other features."""
    suits = ALL_PERMUTATIONS[int(torch.randint(len(ALL_PERMUTATIONS), (1,), generator=gen))]
    oi, mi, af = suit_permutation_maps(suits, players)
    return obs[:, oi], mask[:, mi], torch.from_numpy(af)[action], suits


def _critic_suit_index(suits: tuple[int, ...], players: int) -> np.ndarray:
    """Gather indices relabelling the suits of :func:`privileged_features`."""
    cards = np.array([suits[c // 13] * 13 + c % 13 for c in range(NUM_CARDS)])
    forward = np.arange(players * NUM_CARDS + NUM_CARDS + 4)
    for block in range(players + 1):
        forward[block * NUM_CARDS : (block + 1) * NUM_CARDS] = block * NUM_CARDS + cards
    base = (players + 1) * NUM_CARDS
    forward[base : base + 4] = base + np.array(suits)
    index = np.empty_like(forward)
    index[forward] = np.arange(len(forward))
    return index


def critic_size(rules: Rules) -> int:
    return observation_size(rules) + privileged_size(rules)


def hand_reward(match: MatchState, side: int, tens_coef: float) -> float:
    """+1/-1 for the hand's winner (0: no winner) plus the tens shaping."""
    summary = match.summaries[-1]
    w = summary.hand_winner
    r = 0.0 if w is None else (1.0 if w == side else -1.0)
    hand = match.hand
    if match.rules.tens_scoring and tens_coef:
        r += tens_coef * (hand.tens[side] - hand.tens[1 - side]) / match.rules.num_tens
    return r


# ---------------------------------------------------------------------------- rollouts
@dataclass
class _Game:
    match: MatchState
    encoder: ObservationEncoder
    controllers: list[str]  # per seat: "learn", "snapshot:i" or an agent spec
    bots: dict[int, Agent]
    traj: dict[int, list[int]]  # seat -> indices of its samples in this hand


def _new_game(rules: Rules, args_dict: dict[str, Any], rng: np.random.Generator, n_snap: int) -> _Game:
    match = MatchState.new(rules, rng)
    match.sample_chance(rng)
    pool = dict(args_dict["opponents"])
    if n_snap == 0:
        pool.pop("snapshot", None)
    names = list(pool)
    weights = np.array([pool[k] for k in names], dtype=np.float64)
    opp = names[int(rng.choice(len(names), p=weights / weights.sum()))]
    learner_side = int(rng.integers(2))
    controllers = []
    bots: dict[int, Agent] = {}
    for s in range(rules.players):
        if s % 2 == learner_side or opp == "self":
            controllers.append("learn")
        elif opp == "snapshot":
            controllers.append(f"snapshot:{int(rng.integers(n_snap))}")
        else:
            controllers.append(opp)
            bots[s] = make_agent(opp, rules, seed=int(rng.integers(2**31)))
    return _Game(match, ObservationEncoder(rules), controllers, bots, {})


def _worker_net(state_dict: dict[str, torch.Tensor], rules: Rules, args: dict[str, Any]) -> PolicyNet:
    """A rollout worker's copy of a policy (the learner's or a frozen snapshot)."""
    net = PolicyNet(observation_size(rules), tuple(args["hidden"]), bool(args.get("card_features", False)))
    net.load_state_dict(state_dict)
    net.eval()
    return net


def collect(task: dict[str, Any]) -> dict[str, np.ndarray]:
    """Roll out until ``decisions`` learner decisions are recorded (one worker).

    Returns flat arrays ordered by trajectory (one trajectory = one seat's decisions
    in one hand) with ``done`` marking each trajectory's last step and ``reward`` on it.
    """
    torch.set_num_threads(1)
    args = task["args"]
    rules = make_rules(args["rules"], args["rule_options"])
    rng = np.random.default_rng(task["seed"])
    policy = _worker_net(task["policy"], rules, args)
    snaps = [_worker_net(sd, rules, args) for sd in task["snapshots"]]
    games = [_new_game(rules, args, rng, len(snaps)) for _ in range(args["num_games"])]
    obs_l: list[np.ndarray] = []
    crit_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    logp_l: list[float] = []
    finished: list[list[int]] = []  # trajectories (sample indices), complete
    rewards_at: dict[int, float] = {}
    hands_done = 0
    wins = 0.0
    target = task["decisions"]
    finished_count = 0
    while finished_count < target:
        requests: dict[str, list[tuple[_Game, int]]] = {}
        for g in games:
            while True:
                m = g.match
                if m.hand.complete:
                    for s, steps in g.traj.items():
                        if steps:
                            rewards_at[steps[-1]] = hand_reward(m, s % 2, args["tens_coef"])
                            finished.append(steps)
                            finished_count += len(steps)
                    learner_sides = {s % 2 for s, c in enumerate(g.controllers) if c == "learn"}
                    if len(learner_sides) == 1:
                        w = m.summaries[-1].hand_winner
                        side = learner_sides.pop()
                        wins += 0.5 if w is None else float(w == side)
                        hands_done += 1
                    new = _new_game(rules, args, rng, len(snaps))
                    g.match, g.encoder, g.controllers, g.bots, g.traj = (
                        new.match,
                        new.encoder,
                        new.controllers,
                        new.bots,
                        {},
                    )
                    continue
                if m.is_chance():
                    m.sample_chance(rng)
                    continue
                seat = m.current_player()
                ctrl = g.controllers[seat]
                if ctrl in ("learn",) or ctrl.startswith("snapshot:"):
                    requests.setdefault(ctrl if ctrl == "learn" else ctrl, []).append((g, seat))
                    break
                m.apply_action(g.bots[seat].act(view_of(m, seat)))
        for ctrl, reqs in requests.items():
            obs = np.stack([g.encoder.encode(g.match, s) for g, s in reqs])
            mask = np.zeros((len(reqs), NUM_ACTIONS), dtype=bool)
            for i, (g, _s) in enumerate(reqs):
                mask[i, g.match.legal_actions()] = True
            net = policy if ctrl == "learn" else snaps[int(ctrl.split(":")[1])]
            with torch.no_grad():
                logits = net.masked_logits(torch.from_numpy(obs), torch.from_numpy(mask))
                dist = torch.distributions.Categorical(logits=logits)
                acts = _sample(logits, rng)
                logp = dist.log_prob(torch.as_tensor(acts)).numpy()
            for i, (g, s) in enumerate(reqs):
                a = int(acts[i])
                if ctrl == "learn" and int(mask[i].sum()) > 1:
                    idx = len(act_l)
                    obs_l.append(obs[i])
                    crit_l.append(privileged_features(g.match, s))
                    mask_l.append(mask[i])
                    act_l.append(a)
                    logp_l.append(float(logp[i]))
                    g.traj.setdefault(s, []).append(idx)
                g.match.apply_action(a)
    order = [i for traj in finished for i in traj]
    done = np.zeros(len(order), dtype=bool)
    reward = np.zeros(len(order), dtype=np.float32)
    pos = 0
    for traj in finished:
        pos += len(traj)
        done[pos - 1] = True
        reward[pos - 1] = rewards_at[traj[-1]]
    sel = np.array(order, dtype=np.int64)
    return {
        "obs": np.stack(obs_l)[sel] if order else np.zeros((0, observation_size(rules)), np.float32),
        "crit": np.stack(crit_l)[sel] if order else np.zeros((0, critic_size(rules) - observation_size(rules))),
        "mask": np.stack(mask_l)[sel] if order else np.zeros((0, NUM_ACTIONS), bool),
        "action": np.array(act_l, dtype=np.int64)[sel],
        "logp": np.array(logp_l, dtype=np.float32)[sel],
        "done": done,
        "reward": reward,
        "hands": np.array([hands_done]),
        "wins": np.array([wins]),
    }


def _sample(logits: torch.Tensor, rng: np.random.Generator) -> np.ndarray:
    """Sample from masked logits with the worker's numpy generator (reproducible)."""
    probs = torch.softmax(logits, -1).numpy().astype(np.float64)
    cum = probs.cumsum(-1)
    u = rng.random(len(probs))[:, None] * cum[:, -1:]
    return np.minimum((cum < u).sum(-1), NUM_ACTIONS - 1)


def collect_imitation(task: dict[str, Any]) -> dict[str, np.ndarray]:
    """Teacher self-play: every decision with more than one legal move, and the result."""
    args = task["args"]
    rules = make_rules(args["rules"], args["rule_options"])
    rng = np.random.default_rng(task["seed"])
    obs_l: list[np.ndarray] = []
    crit_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    ret_l: list[float] = []
    for _ in range(task["hands"]):
        match = MatchState.new(rules, rng)
        match.sample_chance(rng)
        enc = ObservationEncoder(rules)
        bots = [make_agent(args["teacher"], rules, seed=int(rng.integers(2**31))) for _ in range(rules.players)]
        seats_of: list[int] = []
        while not match.hand.complete:
            if match.is_chance():
                match.sample_chance(rng)
                continue
            seat = match.current_player()
            legal = match.legal_actions()
            a = bots[seat].act(view_of(match, seat))
            if len(legal) > 1:
                obs_l.append(enc.encode(match, seat))
                crit_l.append(privileged_features(match, seat))
                mask_l.append(match.legal_mask())
                act_l.append(a)
                seats_of.append(seat)
            match.apply_action(a)
        ret_l.extend(hand_reward(match, s % 2, args["tens_coef"]) for s in seats_of)
    return {
        "obs": np.stack(obs_l),
        "crit": np.stack(crit_l),
        "mask": np.stack(mask_l),
        "action": np.array(act_l),
        "ret": np.array(ret_l, dtype=np.float32),
    }


def collect_distill(task: dict[str, Any]) -> dict[str, np.ndarray]:
    """DAgger labels: hands where every seat is the policy (sampling) or, with chance
    ``distill_mix`` per decision, the teacher; the teacher labels every decision with
    more than one legal move, so the labels cover the states the policy itself reaches."""
    torch.set_num_threads(1)
    args = task["args"]
    rules = make_rules(args["rules"], args["rule_options"])
    rng = np.random.default_rng(task["seed"])
    net = _worker_net(task["policy"], rules, args)
    student = PolicyAgent(None, rules, seed=int(rng.integers(2**31)), net=net, sample=True)
    teachers = [make_agent(args["distill_teacher"], rules, seed=int(rng.integers(2**31))) for _ in range(rules.players)]
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    for _ in range(task["hands"]):
        match = MatchState.new(rules, rng)
        match.sample_chance(rng)
        enc = ObservationEncoder(rules)
        while not match.hand.complete:
            if match.is_chance():
                match.sample_chance(rng)
                continue
            seat = match.current_player()
            legal = match.legal_actions()
            if len(legal) == 1:
                match.apply_action(legal[0])
                continue
            view = view_of(match, seat)
            label = teachers[seat].act(view)
            obs_l.append(enc.encode(match, seat))
            mask_l.append(match.legal_mask())
            act_l.append(label)
            match.apply_action(label if rng.random() < args["distill_mix"] else student.act(view))
    return {"obs": np.stack(obs_l), "mask": np.stack(mask_l), "action": np.array(act_l, dtype=np.int64)}


def distill_fit(
    policy: PolicyNet,
    data: dict[str, np.ndarray],
    a: Args,
    gen: torch.Generator,
    writer: SummaryWriter,
    stop: Stop | None = None,
) -> None:
    """Cross-entropy on the teacher's labels, with suit relabelling, from the PPO policy."""
    opt = torch.optim.Adam(policy.parameters(), lr=a.distill_learning_rate, eps=1e-5)
    obs = torch.from_numpy(data["obs"]).float()
    mask = torch.from_numpy(data["mask"])
    act = torch.from_numpy(data["action"])
    players = make_rules(a.rules, a.rule_options).players
    with torch.no_grad():
        agree = float((policy.masked_logits(obs, mask).argmax(-1) == act).float().mean())
    writer.add_scalar("distill/agreement", agree, 0)
    print(f"distillation: {len(act)} labels, policy agrees with the teacher on {agree:.3f}", flush=True)
    for epoch in range(a.distill_epochs):
        perm = torch.randperm(len(act), generator=gen)
        correct = 0.0
        for start in range(0, len(act), a.minibatch_size):
            if stop is not None:
                stop.check()
            mb = perm[start : start + a.minibatch_size]
            o, m, y = obs[mb], mask[mb], act[mb]
            if a.augment_suits:
                o, m, y, _suits = _relabel_suits(o, m, y, players, gen)
            logits = policy.masked_logits(o, m)
            loss = nn.functional.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), a.max_grad_norm)
            opt.step()
            correct += float((logits.argmax(-1) == y).float().sum())
        writer.add_scalar("distill/agreement", correct / len(act), epoch + 1)
        print(f"distillation epoch {epoch + 1}/{a.distill_epochs}: agreement {correct / len(act):.3f}", flush=True)


# ---------------------------------------------------------------------------- evaluation
def evaluate(net: PolicyNet, rules: Rules, opponent: str, deals: int, seed: int) -> tuple[float, float, float]:
    """Duplicate deals (sides swapped on the same cards): win rate of the policy with
    its 95% interval; a hand with no winner counts half."""
    scores = []
    for d in range(deals):
        drng = np.random.default_rng([seed, d])
        deck = [int(c) % 52 for c in drng.permutation(rules.deck_size)]
        dealer = d % rules.players
        pair = 0.0
        for policy_side in (0, 1):
            seats: list[Agent] = []
            for s in range(rules.players):
                if s % 2 == policy_side:
                    seats.append(PolicyAgent(None, rules, net=net))
                else:
                    seats.append(make_agent(opponent, rules, seed=seed * 1000 + d * 10 + s))
            out = play_hand(rules, deck, dealer, seats, np.random.default_rng([seed, d, 1]))
            pair += 0.5 if out.winner is None else float(out.winner == policy_side)
        scores.append(pair / 2)
    arr = np.array(scores)
    mean = float(arr.mean())
    half = 1.96 * float(arr.std(ddof=1)) / np.sqrt(len(arr)) if len(arr) > 1 else 0.0
    return mean, mean - half, mean + half


# ---------------------------------------------------------------------------- learning
def gae(values: np.ndarray, reward: np.ndarray, done: np.ndarray, lam: float) -> np.ndarray:
    """GAE with gamma 1 over flat trajectories (``done`` ends each one)."""
    adv = np.zeros_like(values)
    last = 0.0
    for t in range(len(values) - 1, -1, -1):
        if done[t]:
            next_value, last = 0.0, 0.0
        else:
            next_value = values[t + 1]
        delta = reward[t] + next_value - values[t]
        last = delta + lam * last
        adv[t] = last
    return adv


def critic_input(obs: torch.Tensor, crit: torch.Tensor, privileged: bool) -> torch.Tensor:
    return torch.cat([obs, crit if privileged else torch.zeros_like(crit)], dim=-1)


def ppo_update(
    policy: PolicyNet,
    critic: ValueNet,
    opt: torch.optim.Optimizer,
    batch: dict[str, np.ndarray],
    a: Args,
    gen: torch.Generator,
    stop: Stop | None = None,
) -> dict[str, float]:
    obs = torch.from_numpy(batch["obs"]).float()
    crit = torch.from_numpy(batch["crit"]).float()
    mask = torch.from_numpy(batch["mask"])
    act = torch.from_numpy(batch["action"])
    old_logp = torch.from_numpy(batch["logp"])
    with torch.no_grad():
        values = critic(critic_input(obs, crit, a.privileged_critic)).numpy()
    adv_np = gae(values, batch["reward"], batch["done"], a.gae_lambda)
    ret = torch.from_numpy(adv_np + values).float()
    adv = torch.from_numpy(adv_np).float()
    n = len(act)
    stats: dict[str, list[float]] = {
        "policy_loss": [],
        "value_loss": [],
        "entropy": [],
        "approx_kl": [],
        "clipfrac": [],
    }
    for _ in range(a.update_epochs):
        perm = torch.randperm(n, generator=gen)
        for start in range(0, n, a.minibatch_size):
            if stop is not None:
                stop.check()
            mb = perm[start : start + a.minibatch_size]
            logits = policy.masked_logits(obs[mb], mask[mb])
            dist = torch.distributions.Categorical(logits=logits)
            logp = dist.log_prob(act[mb])
            ratio = (logp - old_logp[mb]).exp()
            mb_adv = adv[mb]
            mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - a.clip_coef, 1 + a.clip_coef)).mean()
            # masked logits are -inf: the entropy of those terms is 0 by the p*log p limit
            p = torch.softmax(logits, -1)
            ent = -(p * torch.log_softmax(logits, -1).masked_fill(~mask[mb], 0.0)).sum(-1).mean()
            v = critic(critic_input(obs[mb], crit[mb], a.privileged_critic))
            vloss = 0.5 * ((v - ret[mb]) ** 2).mean()
            loss = pg - a.ent_coef * ent + a.vf_coef * vloss
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(list(policy.parameters()) + list(critic.parameters()), a.max_grad_norm)
            opt.step()
            with torch.no_grad():
                stats["policy_loss"].append(pg.item())
                stats["value_loss"].append(vloss.item())
                stats["entropy"].append(ent.item())
                stats["approx_kl"].append(float(((ratio - 1) - (logp - old_logp[mb])).mean()))
                stats["clipfrac"].append(float(((ratio - 1).abs() > a.clip_coef).float().mean()))
    return {k: float(np.mean(v)) for k, v in stats.items()}


def imitation_fit(
    policy: PolicyNet,
    critic: ValueNet,
    opt: torch.optim.Optimizer,
    data: dict[str, np.ndarray],
    a: Args,
    gen: torch.Generator,
    writer: SummaryWriter,
    stop: Stop | None = None,
) -> None:
    obs = torch.from_numpy(data["obs"]).float()
    crit = torch.from_numpy(data["crit"]).float()
    mask = torch.from_numpy(data["mask"])
    act = torch.from_numpy(data["action"])
    ret = torch.from_numpy(data["ret"]).float()
    n = len(act)
    step = 0
    players = make_rules(a.rules, a.rule_options).players
    for epoch in range(a.imitation_epochs):
        perm = torch.randperm(n, generator=gen)
        correct = 0.0
        for start in range(0, n, a.minibatch_size):
            if stop is not None:
                stop.check()
            mb = perm[start : start + a.minibatch_size]
            o, m, y, c = obs[mb], mask[mb], act[mb], crit[mb]
            if a.augment_suits:
                o, m, y, suits = _relabel_suits(o, m, y, players, gen)
                c = c[:, torch.from_numpy(_critic_suit_index(suits, players))]
            logits = policy.masked_logits(o, m)
            ce = nn.functional.cross_entropy(logits, y)
            v = critic(critic_input(o, c, a.privileged_critic))
            vloss = 0.5 * ((v - ret[mb]) ** 2).mean()
            loss = ce + a.vf_coef * vloss
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += float((logits.argmax(-1) == y).float().sum())
            writer.add_scalar("imitation/cross_entropy", ce.item(), step)
            writer.add_scalar("imitation/value_loss", vloss.item(), step)
            step += 1
        writer.add_scalar("imitation/accuracy", correct / n, epoch)
        print(f"imitation epoch {epoch + 1}/{a.imitation_epochs}: accuracy {correct / n:.3f}", flush=True)


# ---------------------------------------------------------------------------- plumbing
class SetupError(Exception):
    """A bad command line, config, setting, run directory or checkpoint, found before
    anything is trained: main prints the message as one line and exits 2."""


class SaveError(OSError):
    """A checkpoint could not be written (disk full, no permission, ...): one line, exit 1."""


class WorkerDied(Exception):
    """A rollout worker ended without being asked to (killed from outside)."""


class Interrupted(BaseException):
    """Raised where the run notices a stop request (see :class:`Stop`); like
    ``KeyboardInterrupt``, no ``except Exception`` on the way swallows it."""


def _one_line(e: BaseException, limit: int = 300) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _checked(key: str, value: Any, hint: Any) -> Any:
    """``value`` as the type of setting ``key`` (``hint``): an int is a float, and so is a
    string such as ``1e-4`` (YAML 1.1 reads it as text); :class:`SetupError` otherwise."""
    origin, params = typing.get_origin(hint), typing.get_args(hint)

    def bad(what: str) -> SetupError:
        return SetupError(f"setting {key}: expected {what}, not {value!r}")

    if hint is Any:
        return value
    if hint is bool:
        if not isinstance(value, bool):
            raise bad("true or false")
    elif hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("an integer")
    elif hint is float:
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise bad("a number") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad("a number")
        return float(value)
    elif hint is str:
        if not isinstance(value, str):
            raise bad("a string")
    elif origin is list:
        if not isinstance(value, list):
            raise bad("a list")
        return [_checked(f"{key}[{i}]", v, params[0]) for i, v in enumerate(value)]
    elif origin is dict:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise bad("a mapping")
        return {k: _checked(f"{key}.{k}", v, params[1]) for k, v in value.items()}
    return value


def load_args(config: str | Path | None, overrides: list[str]) -> Args:
    """Settings from a YAML file, then ``key=value`` overrides; :class:`SetupError` for a
    missing or malformed file, an unknown setting (the message lists the known ones) or
    a value of the wrong type."""
    known = [f.name for f in dataclasses.fields(Args)]
    values: dict[str, Any] = {}

    def take(items: dict[Any, Any], where: str) -> None:
        unknown = sorted(str(k) for k in items if k not in known)
        if unknown:
            raise SetupError(f"unknown setting(s) {', '.join(unknown)} in {where}; known settings: {', '.join(known)}")
        values.update(items)

    if config:
        path = Path(config)
        try:
            loaded = yaml.safe_load(path.read_text())
        except FileNotFoundError:
            raise SetupError(f"{path}: no such config file") from None
        except (OSError, UnicodeDecodeError) as e:
            raise SetupError(f"{path}: cannot read the config: {_one_line(e)}") from None
        except yaml.YAMLError as e:
            raise SetupError(f"{path}: not valid YAML: {_one_line(e)}") from None
        if loaded is not None and not isinstance(loaded, dict):
            raise SetupError(f"{path}: a config is a mapping of settings, not {type(loaded).__name__} {loaded!r:.60}")
        take(loaded or {}, str(path))
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise SetupError(f"--override wants key=value, not {item!r}")
        try:
            take({key.strip(): yaml.safe_load(raw)}, "--override")
        except yaml.YAMLError as e:
            raise SetupError(f"--override {item}: the value is not valid YAML: {_one_line(e)}") from None
    hints = typing.get_type_hints(Args)
    return Args(**{k: _checked(k, v, hints[k]) for k, v in values.items()})


def check_agents(a: Args, rules: Rules, imitation_done: bool, distill_done: bool) -> None:
    """Build every agent the run will use once, here in the parent, so that a bad spec
    (or a ``policy:PATH`` file that is refused) is one line before anything runs, not a
    traceback from a worker."""
    if any(w < 0 for w in a.opponents.values()) or sum(w for k, w in a.opponents.items() if k != "snapshot") <= 0:
        # the first updates have no snapshots to draw
        raise SetupError(f"setting opponents: weights are >= 0, not all 0 besides 'snapshot'; not {a.opponents}")
    specs = [("opponents", k) for k in a.opponents if k not in ("self", "snapshot")]
    specs += [("eval_opponents", s) for s in (a.eval_opponents if a.eval_every else [])]
    if not imitation_done:
        specs.append(("teacher", a.teacher))
    if not distill_done:
        specs.append(("distill_teacher", a.distill_teacher))
    for key, spec in specs:
        try:
            make_agent(spec, rules, seed=0)
        except ValueError as e:  # CheckpointError is one
            raise SetupError(f"setting {key}: {_one_line(e)}") from None


class Stop:
    """Stop requests. The SIGINT/SIGTERM handler records the first signal; the training
    loops call :meth:`check` between steps (it raises :class:`Interrupted`). Inside
    :meth:`abortable` (work that is thrown away when stopped: in-process rollouts,
    evaluation) the handler raises at once."""

    def __init__(self) -> None:
        self.signum = 0
        self._abortable = False

    def handler(self, signum: int, frame: Any) -> None:
        self.signum = self.signum or signum
        if self._abortable:
            self._abortable = False
            raise Interrupted

    def check(self) -> None:
        if self.signum:
            raise Interrupted

    @contextlib.contextmanager
    def abortable(self) -> Iterator[None]:
        self.check()
        self._abortable = True
        try:
            yield
        finally:
            self._abortable = False


def _worker_exit(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def _worker_init() -> None:
    """Rollout workers leave stopping to the parent. They ignore SIGINT: a Ctrl-C reaches
    the whole process group, and a worker that died of it inside a task left the parent
    waiting for its result for ever. SIGTERM (from ``Pool.terminate`` or to the group)
    becomes ``SystemExit``, which releases the task queue's lock on the way out; a
    worker killed while it waits under that lock makes ``Pool.terminate`` hang."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _worker_exit)


class Workers:
    """A persistent pool of rollout processes (``spawn``: forking a process whose torch
    thread pools are running can deadlock the child). ``n <= 0`` runs in-process.

    :meth:`map` waits in short steps, so that it notices a stop request (and a worker
    killed from outside) within a fraction of a second."""

    def __init__(self, n: int, stop: Stop) -> None:
        self.n = n
        self.stop = stop
        self.pool: Any = None
        if n > 0:
            # The workers start with SIGINT ignored (an ignored signal stays ignored across
            # exec), not only from _worker_init on: a Ctrl-C while they import is harmless.
            # Blocked meanwhile, a SIGINT for the parent waits for its handler.
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                self.pool = mp.get_context("spawn").Pool(n, initializer=_worker_init)
            finally:
                signal.signal(signal.SIGINT, handler)
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    def map(self, fn: Any, tasks: list[dict[str, Any]]) -> list[dict[str, np.ndarray]]:
        if self.pool is None:
            with self.stop.abortable():
                return [fn(t) for t in tasks]
        procs = list(self.pool._pool)  # the pool replaces a dead worker, but its task is lost
        pending = self.pool.map_async(fn, tasks)
        while True:
            try:
                return pending.get(timeout=0.2)
            except mp.TimeoutError:
                pass
            self.stop.check()
            dead = [p for p in procs if p.exitcode is not None]
            if dead:
                time.sleep(0.2)  # a signal to the whole group may reach the parent last
                self.stop.check()
                raise WorkerDied(f"rollout worker {dead[0].pid} died (exit code {dead[0].exitcode})")

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()
            self.pool = None

    def terminate(self) -> None:
        """End the workers now, waiting at most a few seconds."""
        if self.pool is None:
            return
        pool, self.pool = self.pool, None
        procs = list(pool._pool)
        ender = threading.Thread(target=pool.terminate, daemon=True)
        ender.start()
        ender.join(10)
        if ender.is_alive():  # a worker died holding a queue lock: kill the rest, move on
            for p in procs + list(pool._pool):
                p.kill()


def concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    """Write ``state`` to ``path`` atomically: serialised in memory, written to ``path``
    with the suffix ``.tmp``, flushed to disk and renamed over ``path``, so a reader sees
    the old file or the new one, never a part of one. On any failure the ``.tmp`` file
    is removed; a full disk or a missing permission is one :class:`SaveError` (torch's
    own file writer reports those as a ``RuntimeError`` of its zip writer)."""
    tmp = path.with_suffix(".tmp")
    buf = io.BytesIO()
    torch.save(state, buf)
    try:
        with open(tmp, "wb") as f:
            f.write(buf.getbuffer())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise SaveError(f"cannot save {path}: {e.strerror or _one_line(e)}") from None
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="YAML file of settings (see Args)")
    parser.add_argument("--override", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--resume", help="run directory to continue")
    cli = parser.parse_args(argv)
    try:
        return train(cli)
    except SetupError as e:
        print(f"train.py: {e}", file=sys.stderr, flush=True)
        return 2
    except SaveError as e:
        print(f"train.py: {e}", file=sys.stderr, flush=True)
        return 1


def train(cli: argparse.Namespace) -> int:
    if cli.resume:
        if cli.config:
            raise SetupError("--resume continues a run with its own config.yaml; change settings with --override")
        run_dir = Path(cli.resume)
        if not run_dir.is_dir():
            raise SetupError(f"--resume {run_dir}: no such run directory")
        if not (run_dir / "config.yaml").is_file():
            raise SetupError(f"--resume {run_dir}: not a run directory (it has no config.yaml)")
        a = load_args(run_dir / "config.yaml", cli.override)
    else:
        a = load_args(cli.config, cli.override)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_dir = Path(a.runs_dir) / f"{a.run_name}__{a.seed}__{stamp}"
    try:
        rules = make_rules(a.rules, a.rule_options)
    except (RulesError, ValueError, TypeError) as e:
        raise SetupError(f"settings rules/rule_options: {_one_line(e)}") from None
    ckpt_path = run_dir / "checkpoint.pt"
    ckpt: dict[str, Any] | None = None
    if cli.resume and ckpt_path.exists():
        try:
            ckpt = read_checkpoint(ckpt_path)
        except CheckpointError as e:
            raise SetupError(f"--resume: {e}") from None
    imitation_done = a.imitation_hands == 0 if ckpt is None else bool(ckpt.get("imitation_done"))
    distill_done = not a.distill_teacher or a.distill_hands == 0
    if ckpt is not None:
        distill_done = bool(ckpt.get("distill_done", distill_done))
    check_agents(a, rules, imitation_done, distill_done)

    torch.set_num_threads(a.torch_threads)
    torch.manual_seed(a.seed)
    gen = torch.Generator().manual_seed(a.seed)
    policy = PolicyNet(observation_size(rules), tuple(a.hidden), a.card_features)
    critic = ValueNet(critic_size(rules), tuple(a.hidden))
    opt = torch.optim.Adam(list(policy.parameters()) + list(critic.parameters()), lr=a.learning_rate, eps=1e-5)
    update = 0
    decisions = 0
    elapsed = 0.0
    snapshots: list[dict[str, torch.Tensor]] = []
    if ckpt is not None:
        try:
            policy.load_state_dict(ckpt["model"])
            critic.load_state_dict(ckpt["critic"])
            opt.load_state_dict(ckpt["optimizer"])
            torch.set_rng_state(ckpt["rng"]["torch"])
            gen.set_state(ckpt["rng"]["generator"])
            update, decisions, elapsed = int(ckpt["update"]), int(ckpt["decisions"]), float(ckpt["elapsed"])
            snapshots = list(ckpt["snapshots"])
        except (KeyError, TypeError, ValueError, RuntimeError, AttributeError, IndexError) as e:
            raise SetupError(f"--resume: {ckpt_path}: does not fit this run's settings: {_one_line(e, 200)}") from None
        for group in opt.param_groups:  # an overridden learning_rate applies from here on
            group["lr"] = a.learning_rate

    try:
        if cli.resume:
            tempfile.TemporaryFile(dir=run_dir).close()  # writable?
            for stale in ("checkpoint.tmp", "policy.tmp"):  # left by a run killed while saving
                (run_dir / stale).unlink(missing_ok=True)
            if cli.override:
                # The resolved settings stay with the run: config.yaml is rewritten and the
                # overrides of every resume are appended to resumes.log.
                (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(a), sort_keys=False))
                with open(run_dir / "resumes.log", "a") as log:
                    log.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(cli.override)}\n")
        else:
            run_dir.mkdir(parents=True, exist_ok=True)
            (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(a), sort_keys=False))
        writer = SummaryWriter(str(run_dir))
    except OSError as e:
        raise SetupError(f"cannot write to the run directory {run_dir}: {e.strerror or _one_line(e)}") from None
    if ckpt is not None:
        print(f"resumed {run_dir} at update {update} ({decisions} decisions, {elapsed / 60:.1f} min)", flush=True)
    else:
        if cli.resume:
            print(f"{run_dir} has no checkpoint yet: starting the run from the beginning", flush=True)
        table = "|setting|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(a).items())
        writer.add_text("hyperparameters", table)
    del ckpt

    def state() -> dict[str, Any]:
        return {
            "model": policy.state_dict(),
            "model_config": policy.config(),
            "critic": critic.state_dict(),
            "optimizer": opt.state_dict(),
            "rng": {"torch": torch.get_rng_state(), "generator": gen.get_state()},
            "update": update,
            "decisions": decisions,
            "elapsed": elapsed,
            "snapshots": snapshots,
            "imitation_done": imitation_done,
            "distill_done": distill_done,
            "rules": {"name": rules.name, "options": rules.option_dict()},
            "args": dataclasses.asdict(a),
        }

    def save(full: dict[str, Any] | None = None) -> None:
        full = state() if full is None else full
        save_checkpoint(ckpt_path, full)
        save_checkpoint(run_dir / "policy.pt", play_checkpoint(full))

    stop = Stop()
    args_dict = dataclasses.asdict(a)
    workers = Workers(a.num_workers, stop)
    old_handlers = {s: signal.signal(s, stop.handler) for s in (signal.SIGINT, signal.SIGTERM)}
    t_start = time.time() - elapsed
    # where the run is, for what an interruption saves (see the module docstring)
    phase = "imitation warm start"
    before: dict[str, Any] = {}
    try:
        if not imitation_done:
            per = max(1, a.imitation_hands // max(1, a.num_workers))
            tasks = [
                {"args": args_dict, "seed": [a.seed, 10**6, w], "hands": per} for w in range(max(1, a.num_workers))
            ]
            print(f"imitation: recording {per * len(tasks)} hands of {a.teacher} self-play", flush=True)
            t0 = time.time()
            data = concat(workers.map(collect_imitation, tasks))
            print(f"imitation data: {len(data['action'])} decisions in {time.time() - t0:.0f}s", flush=True)
            imitation_fit(policy, critic, opt, data, a, gen, writer, stop)
            del data
            imitation_done = True
            elapsed = time.time() - t_start
            save()

        while update < a.updates:
            phase = "PPO rollout"
            stop.check()
            if time.time() - t_start > a.time_budget_minutes * 60:
                print("time budget reached", flush=True)
                break
            if a.anneal_lr:
                progress = update / a.updates
                for group in opt.param_groups:
                    group["lr"] = a.learning_rate * max(0.0, 1.0 - progress)
            t0 = time.time()
            sd = {k: v.clone() for k, v in policy.state_dict().items()}
            tasks = [
                {
                    "args": args_dict,
                    "seed": [a.seed, update, w],
                    "policy": sd,
                    "snapshots": snapshots,
                    "decisions": a.decisions_per_worker,
                }
                for w in range(max(1, a.num_workers))
            ]
            batch = concat(workers.map(collect, tasks))
            t_roll = time.time() - t0
            before = copy.deepcopy(state())
            phase = "PPO update"
            stats = ppo_update(policy, critic, opt, batch, a, gen, stop)
            update += 1
            n_dec = len(batch["action"])
            decisions += n_dec
            hands = int(batch["hands"].sum())
            if a.snapshot_every and update % a.snapshot_every == 0:
                snapshots = (snapshots + [sd])[-a.max_snapshots :]
            elapsed = time.time() - t_start
            phase = "evaluation"
            writer.add_scalar("charts/decisions_per_second", n_dec / max(t_roll, 1e-9), update)
            writer.add_scalar("charts/rollout_win_rate", float(batch["wins"].sum()) / max(hands, 1), update)
            writer.add_scalar("charts/decisions", decisions, update)
            writer.add_scalar("charts/learning_rate", opt.param_groups[0]["lr"], update)
            for k, v in stats.items():
                writer.add_scalar(f"losses/{k}", v, update)
            print(
                f"update {update}: {n_dec} decisions, {n_dec / max(t_roll, 1e-9):.0f}/s rollout, "
                f"win {float(batch['wins'].sum()) / max(hands, 1):.3f} vs pool, "
                f"entropy {stats['entropy']:.3f}, kl {stats['approx_kl']:.4f}, {elapsed / 60:.1f} min",
                flush=True,
            )
            if a.eval_every and update % a.eval_every == 0:
                for opp in a.eval_opponents:
                    with stop.abortable():
                        mean, lo, hi = evaluate(policy, rules, opp, a.eval_deals, a.seed + 17)
                    writer.add_scalar(f"eval/win_rate_vs_{opp}", mean, update)
                    writer.add_scalar(f"eval/ci_low_vs_{opp}", lo, update)
                    writer.add_scalar(f"eval/ci_high_vs_{opp}", hi, update)
                    print(f"  eval vs {opp}: {mean:.3f} [{lo:.3f}, {hi:.3f}] over {a.eval_deals} deals", flush=True)
            if update % a.checkpoint_every == 0:
                save()
        phase = "PPO rollout"
        stop.check()
        if not distill_done:
            # Labels come from seeded workers, so an interrupted distillation restarts from
            # the checkpoint saved here and reaches the same result.
            save()
            phase = "distillation"
            t0 = time.time()
            per = max(1, a.distill_hands // max(1, a.num_workers))
            sd = {k: v.clone() for k, v in policy.state_dict().items()}
            tasks = [
                {"args": args_dict, "seed": [a.seed, 2 * 10**6, w], "policy": sd, "hands": per}
                for w in range(max(1, a.num_workers))
            ]
            data = concat(workers.map(collect_distill, tasks))
            n_labels = len(data["action"])
            print(f"distillation labels from {a.distill_teacher}: {n_labels} in {time.time() - t0:.0f}s", flush=True)
            distill_fit(policy, data, a, gen, writer, stop)
            distill_done = True
            phase = "evaluation"
            for opp in a.eval_opponents if a.eval_every else []:
                with stop.abortable():
                    mean, lo, hi = evaluate(policy, rules, opp, a.eval_deals, a.seed + 17)
                writer.add_scalar(f"eval/distilled_win_rate_vs_{opp}", mean, update)
                print(f"  eval after distillation vs {opp}: {mean:.3f} [{lo:.3f}, {hi:.3f}]", flush=True)
        workers.close()
        elapsed = time.time() - t_start
        save()
    except (Interrupted, WorkerDied) as e:
        workers.terminate()
        why = _one_line(e) if isinstance(e, WorkerDied) else f"stopped by {signal.Signals(stop.signum).name}"
        code = 1 if isinstance(e, WorkerDied) else 128 + stop.signum  # 130 SIGINT, 143 SIGTERM
        again = f"python train.py --resume {run_dir}"
        if phase == "imitation warm start":
            msg = f"{why} during the {phase}, before the first checkpoint; {again} starts the run again"
        elif phase == "distillation":
            msg = f"{why} during the {phase}; the checkpoint from before it (update {update}) stands; {again}"
        else:  # the last completed update: the one in progress is dropped
            elapsed = time.time() - t_start
            point = before if phase == "PPO update" else state()
            try:
                save(point)
                msg = f"{why} during the {phase}; saved update {point['update']} in {ckpt_path}; continue with {again}"
            except SaveError as err:
                msg, code = f"{why} during the {phase}; {err}", 1
        writer.close()
        print(f"train.py: {msg}", file=sys.stderr, flush=True)
        return code
    finally:
        workers.terminate()
        for s, h in old_handlers.items():
            signal.signal(s, h)
    writer.add_scalar("charts/wall_minutes", elapsed / 60, update)
    writer.close()
    summary = {"run_dir": str(run_dir), "updates": update, "decisions": decisions, "minutes": round(elapsed / 60, 2)}
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # during setup, before the run's own handler is in place
        print("train.py: interrupted", file=sys.stderr, flush=True)
        sys.exit(130)
