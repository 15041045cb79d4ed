"""The rule-based bots and the card counting they stand on.

- :mod:`agents.bots.heuristic`: ``easy``, ``medium`` and ``hard`` for every ruleset.
- :mod:`agents.bots.knowledge`: what a seat can count from its view (unseen cards, voids).
- :mod:`agents.bots.sampler`: hidden hands consistent with a seat's view, drawn uniformly.
- :mod:`agents.bots.objective`: what a hand is worth: the search's objective, the trick stake.
- :mod:`agents.bots.batched`: bots as ``policy(obs, mask)`` callables for the batched engine.

May import :mod:`dehla_env`, :mod:`agents.base` and :mod:`agents.nets`; never search,
the registry or an application (arena, bench, training, web, terminal play).
"""
