"""Ray RLlib: multi-agent PPO, one shared policy for every seat, action masking.

    pip install 'dehla[rllib]'      # in its own environment: Ray pins its own gymnasium
    python examples/rllib_multiagent.py [--iterations 3] [--workers 0] [--address auto]

``agents.distributed.rllib.ppo_config`` is the glue (env creator, observation keys, the shared masked
module); the rest is RLlib's own API. ``--address auto`` joins a running cluster
(``ray start --head`` on the head node); otherwise a local Ray starts on this machine.
"""

from __future__ import annotations

import argparse

import ray

from agents.distributed.rllib import ppo_config


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="dehla")
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--workers", type=int, default=0, help="RLlib env runners (0: in the driver)")
    parser.add_argument("--batch", type=int, default=1000, help="train batch size (decisions)")
    parser.add_argument("--address", default=None, help="a Ray cluster to join (default: a local Ray)")
    args = parser.parse_args(argv)
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=max(1, args.workers) + 1, include_dashboard=False, log_to_driver=False)
    try:
        config = (
            ppo_config(args.rules)
            .env_runners(num_env_runners=args.workers)
            .training(train_batch_size_per_learner=args.batch, minibatch_size=min(args.batch, 250), num_epochs=2)
        )
        algo = config.build_algo()
        returns = 0.0
        for i in range(args.iterations):
            result = algo.train()
            runners = result.get("env_runners", {})
            # the game is zero-sum: the return that says something is one seat's
            returns = float(runners.get("agent_episode_returns_mean", {}).get("player_0", 0.0))
            episodes = runners.get("num_episodes_lifetime", 0)
            print(f"iteration {i}: {episodes:.0f} hands, player_0's mean return {returns:+.3f}", flush=True)
        algo.stop()
        return returns
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
