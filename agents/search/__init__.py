"""Search players: they look ahead over sampled worlds instead of following rules.

- :mod:`agents.search.solver`: the exact open-hands (double-dummy) solver.
- :mod:`agents.search.pimc`: ``search``, perfect-information Monte Carlo over sampled worlds.
- :mod:`agents.search.batched`: ``batched-search``, the same idea with the worlds played
  out together on the batched engine.
- :mod:`agents.search.ismcts`: ``ismcts``, one tree over the seat's information set
  (information-set Monte Carlo tree search), each iteration one sampled world.
- :mod:`agents.search.belief`: world weights from the plays seen (inference for the sampler).

May import :mod:`dehla_env`, :mod:`agents.base`, :mod:`agents.bots` (playout rules,
world sampling) and :mod:`agents.nets` (priors and values); never the registry or an
application.
"""
