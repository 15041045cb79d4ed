"""What ``agents.train`` is built from, one job per module:

* :mod:`.selfplay` - :class:`~.selfplay.SelfPlayEnv`, the learner's vector env of
  self-play against the opponent pool on the batched engine, and the rollout loop over it;
* :mod:`.pool` - the opponent pool (the policy, snapshots, the warm start, batched bots,
  scalar bots on mirrors of their games);
* :mod:`.ppo` - one PPO update: the learner and its device, its inputs, GAE, the loss;
* :mod:`.imitation` - the teacher's recorded hands and the warm-start fit;
* :mod:`.evaluation` - the arena's duel of the network in memory;
* :mod:`.setup` - the checks before a run trains, and resuming from a checkpoint;
* :mod:`.workers` - worker processes that a stop request interrupts;
* :mod:`.runs` - settings from YAML, stop requests, atomic checkpoints, one-line errors.
"""
