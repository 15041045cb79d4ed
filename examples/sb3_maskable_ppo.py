"""sb3-contrib's MaskablePPO on a registered id: one seat (or a vector of four) against bots.

    pip install sb3-contrib          # stable-baselines3 comes with it
    python examples/sb3_maskable_ppo.py [--timesteps 20000] [--n-envs 4] [--opponents hard]

The registered ids (``import agents``) are gymnasium envs with a ``Dict(observation,
action_mask)`` observation and an ``action_masks()`` method, which is all MaskablePPO
needs: no glue. ``"agents:DehlaPakad-v0"`` names the module to import, so the id also
resolves inside SubprocVecEnv workers.

Threads: on a small machine torch's intra-op threads fight the env for the cores; SB3
ran 6x faster here with ``torch.set_num_threads(1)``.
"""

from __future__ import annotations

import argparse

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from stable_baselines3.common.env_util import make_vec_env

import agents  # noqa: F401  (registers DehlaPakad-v0 ...)


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--n-envs", type=int, default=4, help="1: a single env, else a DummyVecEnv of them")
    parser.add_argument("--opponents", default="easy", help="agent spec for the other seats")
    parser.add_argument("--eval-episodes", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    kwargs = {"opponents": args.opponents, "learner": "side"}
    if args.n_envs == 1:
        env = gymnasium.make("agents:DehlaPakad-v0", **kwargs)
    else:
        env = make_vec_env("agents:DehlaPakad-v0", n_envs=args.n_envs, seed=args.seed, env_kwargs=kwargs)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=256, batch_size=256, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.timesteps)
    eval_env = gymnasium.make("agents:DehlaPakad-v0", **kwargs)
    mean, _std = evaluate_policy(model, eval_env, n_eval_episodes=args.eval_episodes, warn=False)
    win_rate = (float(mean) + 1) / 2  # reward "win": +1 won, -1 lost
    print(f"MaskablePPO after {args.timesteps} steps: wins {win_rate:.2f} of hands against {args.opponents}")
    return win_rate


if __name__ == "__main__":
    main()
