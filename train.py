"""Train a policy network for a Dehla Pakad family ruleset, from a clone of the repository:

    python train.py --config configs/dehla.yaml           # a shipped config (configs/)
    python train.py --config configs/small.yaml --policy-out small.pt
    python train.py --help                                 # every setting, documented

The trainer itself is ``agents/train.py``, read top to bottom like CleanRL's ``ppo.py``:
the settings, seeding, the learner, the imitation warm start, then per update a rollout,
the PPO update, logging, evaluation and a checkpoint. It is installed with the package
as ``dehla-train`` (``dehla-train --config dehla`` finds the same configs by name), so
this file only runs it.
"""

import sys

from agents import train

if __name__ == "__main__":
    train.PROG = f"python {sys.argv[0]}"  # its usage and error lines name the command as typed
    sys.exit(train.main())
