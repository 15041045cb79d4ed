"""Neural networks: the policy and value networks, their checkpoint format, and export.

- :mod:`agents.nets.policy`: ``PolicyNet``/``ValueNet`` and the safe checkpoint reader (torch).
- :mod:`agents.nets.play`: the play format (safetensors) and the network in numpy.
- :mod:`agents.nets.agent`: the ``policy:PATH`` agent, numpy or torch.
- :mod:`agents.nets.suitnet`: the suit-equivariant network (``arch: suits``).
- :mod:`agents.nets.features`: card-counting features computed inside the network.
- :mod:`agents.nets.export`: a checkpoint to a play-only file, TorchScript or ONNX.

May import :mod:`dehla_env`, :mod:`agents.base` and :mod:`agents.user_files` (a policy
file is read as untrusted); nothing else of the bots.
"""
