"""CleanRL-style PPO, self-play, on dehla_env.vector_env: the simplest loop to copy.

    python examples/cleanrl_ppo_vector.py [--rules dehla] [--updates 50] [--num-envs 256]

One network plays every seat of every game (observations are seat-relative). The
vector env steps all games at once with gymnasium's vector API (SAME_STEP autoreset:
a finished hand is dealt anew in the same step); ``info["action_mask"]`` masks the
logits, ``info["seat"]`` says who acts, ``info["rewards"]`` holds every seat's reward of
the step. A hand's reward arrives when it ends, so each decision's return is the
final reward of the seat that made it (gamma = 1 within a hand; decisions of hands
still open at the end of a rollout are left out of the loss). At the end the policy
plays side 0 against a batched bot (``agents.bots.batched``) on fresh games.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn

import dehla_env
from agents.bots.batched import TorchPolicy, make_batched_policy
from dehla_env.vector import LearnerVectorEnv


class ActorCritic(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden: int = 256) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.pi = nn.Linear(hidden, num_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.pi(self.body(obs))

    def logits_value(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(obs)
        return self.pi(h).masked_fill(~mask, -1e9), self.v(h).squeeze(-1)


def returns_of(seats: np.ndarray, ended: np.ndarray, seat_rewards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(T, N) return of each decision (the final reward of its seat's hand) and whether
    that hand ended within the rollout."""
    T, N = seats.shape
    ret = np.zeros((T, N), np.float32)
    valid = np.zeros((T, N), bool)
    future = np.zeros((N, seat_rewards.shape[2]), np.float32)  # per game, each seat's reward to come
    known = np.zeros(N, bool)
    for t in reversed(range(T)):
        future = np.where(ended[t][:, None], seat_rewards[t], future)  # a hand ends here: its rewards
        known |= ended[t]
        ret[t] = future[np.arange(N), seats[t]]
        valid[t] = known
    return ret, valid


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="dehla")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--steps", type=int, default=64, help="rollout length per update")
    parser.add_argument("--updates", type=int, default=50)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--eval-opponent", default="random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # small networks: threads cost more than they give
    torch.manual_seed(args.seed)
    env = dehla_env.vector_env(args.rules, num_envs=args.num_envs, seed=args.seed, autoreset_mode="same_step")
    N, D, A, n = env.num_envs, env.observation_size, env.num_actions, env.num_players
    net = ActorCritic(D, A)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)
    obs, info = env.reset(seed=args.seed)
    t0 = time.time()
    for update in range(args.updates):
        b_obs = np.zeros((args.steps, N, D), np.float32)
        b_mask = np.zeros((args.steps, N, A), bool)
        b_act = np.zeros((args.steps, N), np.int64)
        b_logp = np.zeros((args.steps, N), np.float32)
        b_seat = np.zeros((args.steps, N), np.int64)
        b_end = np.zeros((args.steps, N), bool)
        b_rew = np.zeros((args.steps, N, n), np.float32)
        for t in range(args.steps):
            b_obs[t], b_mask[t], b_seat[t] = obs, info["action_mask"], info["seat"]
            with torch.no_grad():
                logits, _v = net.logits_value(torch.from_numpy(obs), torch.from_numpy(info["action_mask"]))
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
            b_act[t], b_logp[t] = action.numpy(), dist.log_prob(action).numpy()
            obs, _reward, terminated, _truncated, info = env.step(b_act[t])
            b_end[t], b_rew[t] = terminated, info["rewards"]
        ret, valid = returns_of(b_seat, b_end, b_rew)
        flat = valid.reshape(-1)
        o = torch.from_numpy(b_obs.reshape(-1, D)[flat])
        m = torch.from_numpy(b_mask.reshape(-1, A)[flat])
        a = torch.from_numpy(b_act.reshape(-1)[flat])
        old_logp = torch.from_numpy(b_logp.reshape(-1)[flat])
        r = torch.from_numpy(ret.reshape(-1)[flat])
        size = len(r)
        for _epoch in range(args.epochs):
            for idx in torch.randperm(size).chunk(args.minibatches):
                logits, value = net.logits_value(o[idx], m[idx])
                dist = torch.distributions.Categorical(logits=logits)
                adv = r[idx] - value.detach()
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                ratio = (dist.log_prob(a[idx]) - old_logp[idx]).exp()
                pg = -torch.min(ratio * adv, ratio.clamp(1 - args.clip, 1 + args.clip) * adv).mean()
                loss = pg + 0.5 * ((value - r[idx]) ** 2).mean() - args.ent_coef * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                opt.step()
        if update % 10 == 0 or update == args.updates - 1:
            sps = (update + 1) * args.steps * N / (time.time() - t0)
            print(f"update {update}: {size} decisions in the loss, {sps:,.0f} decisions/s", flush=True)
    win_rate = evaluate(net, args.rules, args.eval_opponent, args.seed + 1)
    print(f"side 0 wins {win_rate:.2f} of hands against {args.eval_opponent}")
    return win_rate


def evaluate(net: ActorCritic, rules: str, opponent: str, seed: int, hands: int = 512) -> float:
    """The greedy policy on side 0 against a batched bot on side 1."""
    venv = dehla_env.vector_env(rules, num_envs=128, seed=seed)
    opp = make_batched_policy(opponent, venv.num_players, seed)
    play = LearnerVectorEnv(venv, learner_seats=(0, 2), opponents=opp, seed=seed)
    policy = TorchPolicy(net, deterministic=True)
    obs, info = play.reset(seed=seed)
    won = total = 0
    while total < hands:
        obs, rewards, terminated, _trunc, info = play.step(policy(obs, info["action_mask"]))
        total += int(terminated.sum())
        won += int((rewards[terminated] > 0).sum())
    return won / total


if __name__ == "__main__":
    main()
