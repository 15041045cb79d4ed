"""What ``agents.train`` is built from, one job per module:

* :mod:`.selfplay` - rollouts on the batched engine against the opponent pool;
* :mod:`.pool` - the opponent pool (the policy, snapshots, the warm start, batched bots);
* :mod:`.imitation` - the teacher's recorded hands and the warm-start fit;
* :mod:`.batches` - the learner's inputs for a whole rollout, built once per update;
* :mod:`.setup` - the checks before a run trains, and resuming from a checkpoint;
* :mod:`.workers` - worker processes that a stop request interrupts;
* :mod:`.runs` - settings from YAML, stop requests, atomic checkpoints, one-line errors.
"""
