"""Neural networks: the policy and value networks, their checkpoint format, and export.

- :mod:`agents.nets.policy`: ``PolicyNet``/``ValueNet``, the safe checkpoint reader and
  the ``policy:PATH`` agent.
- :mod:`agents.nets.suitnet`: the suit-equivariant network (``arch: suits``).
- :mod:`agents.nets.features`: card-counting features computed inside the network.
- :mod:`agents.nets.export`: a checkpoint to a play-only file, TorchScript or ONNX.

May import :mod:`dehla_env` and :mod:`agents.base`; nothing else of the bots.
"""
