"""The duplicate deals: which cards, which dealer, which seat plays which spec, and the
seeds of the agents, all pure functions of ``(seed, deal index, seat)``.

Nothing here depends on how deals are split between worker processes; that is what
makes a result the same with one worker or sixteen (see the package docstring).
"""

from __future__ import annotations

import numpy as np

from dehla_env.cards import shuffled_deck
from dehla_env.rules import Rules

# Stream tags under (seed, deal): keep the generators of different purposes apart.
CHANCE = 1  # the R1.4 draw of a one-hand game
AGENT = 2  # agent seeds: (seed, deal, AGENT, seat)
MATCH_DECK = 3  # match mode: deck of hand k
MATCH_DRAW = 4  # match mode: R1.4 draw of hand k


def deal_deck(rules: Rules, seed: int, index: int) -> list[int]:
    """Deck of deal ``index`` (card ids in dealing order, three packs with six players)."""
    return shuffled_deck(np.random.default_rng([seed, index]), rules.packs)


def match_deck(rules: Rules, seed: int, index: int, k: int) -> list[int]:
    """Match mode: the deck of hand ``k >= 1`` of deal ``index`` (hand 0 is :func:`deal_deck`)."""
    return shuffled_deck(np.random.default_rng([seed, index, MATCH_DECK, k]), rules.packs)


def deal_dealer(rules: Rules, index: int) -> int:
    """The dealer of deal ``index``: the seats take turns, so no side always deals."""
    return index % rules.players


def agent_seed(seed: int, index: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in deal ``index`` (both games of the deal)."""
    return int(np.random.SeedSequence([seed, index, AGENT, seat]).generate_state(1)[0])


def seat_specs(
    players: int, game: int, spec_a: str, spec_b: str, partner_a: str | None = None, partner_b: str | None = None
) -> list[str]:
    """The spec at every seat in game ``game`` (0: A on the even seats, 1: A on the odd).

    Each side's lowest seat plays its lead spec, the other seats of the side its partner
    spec (the lead spec when no partner is given)."""
    a_side = game
    specs = []
    for s in range(players):
        lead = s < 2
        if s % 2 == a_side:
            specs.append(spec_a if lead or partner_a is None else partner_a)
        else:
            specs.append(spec_b if lead or partner_b is None else partner_b)
    return specs
