"""Beyond one process: Ray as a backend and RLlib.

- :mod:`agents.distributed.cluster`: the arena's deals, the benchmark's blocks and the
  trainer's rollout shards on a Ray cluster (or a Ray started on this machine).
- :mod:`agents.distributed.rllib`: the environment as an RLlib multi-agent env.

Ray is imported lazily, so importing this package needs no extra. May import
:mod:`dehla_env`; the callers pass it the work to spread.
"""
