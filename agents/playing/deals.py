"""The duplicate deals: which cards, which dealer, which seat plays which spec, and the
seeds of the agents, all pure functions of ``(seed, deal index, seat)``.

Nothing here depends on how deals are split between worker processes; that is what
makes a result the same with one worker or sixteen (see the package docstring).

A :class:`FixedDeals` replaces the generated cards, dealers and R1.4 draws by explicit
ones (the benchmark's shipped deal sets, :mod:`agents.playing.deal_sets`): the same deals
then whatever numpy's generators do in a later version.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.playing.loop import Chance
from dehla_env.cards import shuffled_deck
from dehla_env.engine import MatchState, Phase
from dehla_env.rules import Rules
from dehla_env.seats import side_of

# Stream tags under (seed, deal): keep the generators of different purposes apart.
CHANCE = 1  # the R1.4 draw of a one-hand game
AGENT = 2  # agent seeds: (seed, deal, AGENT, seat)
MATCH_DECK = 3  # match mode: deck of hand k
MATCH_DRAW = 4  # match mode: R1.4 draw of hand k


@dataclass(frozen=True, eq=False)
class FixedDeals:
    """Deals ``0..n-1`` given explicitly: per deal the deck (card ids in dealing order),
    the dealer and the seed of its chance generator (the R1.4 draw)."""

    decks: np.ndarray  # (n, cards) integer card ids
    dealers: np.ndarray  # (n,)
    chance: np.ndarray  # (n,) seeds

    def __post_init__(self) -> None:
        n = len(self.decks)
        if self.decks.ndim != 2 or len(self.dealers) != n or len(self.chance) != n:
            raise ValueError("fixed deals: decks (n, cards), dealers (n,) and chance seeds (n,) must agree")

    def __len__(self) -> int:
        return len(self.decks)


def deal_deck(rules: Rules, seed: int, index: int, fixed: FixedDeals | None = None) -> list[int]:
    """Deck of deal ``index`` (card ids in dealing order, three packs with six players)."""
    if fixed is not None:
        return [int(c) for c in fixed.decks[index]]
    return shuffled_deck(np.random.default_rng([seed, index]), rules.packs)


def chance_rng(seed: int, index: int, fixed: FixedDeals | None = None) -> np.random.Generator:
    """The chance generator of a one-hand game of deal ``index`` (both games of the deal)."""
    if fixed is not None:
        return np.random.default_rng(int(fixed.chance[index]))
    return np.random.default_rng([seed, index, CHANCE])


def match_deck(rules: Rules, seed: int, index: int, k: int) -> list[int]:
    """Match mode: the deck of hand ``k >= 1`` of deal ``index`` (hand 0 is :func:`deal_deck`)."""
    return shuffled_deck(np.random.default_rng([seed, index, MATCH_DECK, k]), rules.packs)


def game_chance(rules: Rules, seed: int, index: int, fixed: FixedDeals | None, *, whole_match: bool) -> Chance:
    """The chance of one game of deal ``index``: hand 0 dealt :func:`deal_deck`; one
    hand draws (R1.4) from :func:`chance_rng`; a whole match deals hand ``k >= 1``
    :func:`match_deck` and draws hand ``k``'s card from a generator of its own."""
    draws = None if whole_match else chance_rng(seed, index, fixed)
    dealt = 0

    def chance(match: MatchState) -> None:
        nonlocal dealt
        if match.hand.phase == Phase.DRAW:
            rng = draws if draws is not None else np.random.default_rng([seed, index, MATCH_DRAW, dealt - 1])
            match.sample_chance(rng)
        else:
            first = dealt == 0
            match.apply_deal(deal_deck(rules, seed, index, fixed) if first else match_deck(rules, seed, index, dealt))
            dealt += 1

    return chance


def deal_dealer(rules: Rules, index: int, fixed: FixedDeals | None = None) -> int:
    """The dealer of deal ``index``: the seats take turns, so no side always deals."""
    if fixed is not None:
        return int(fixed.dealers[index])
    return index % rules.players


def seed_of(*parts: int) -> int:
    """One reproducible seed from integers (a game's seed, a deal, a seat, a decision)."""
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


def agent_seed(seed: int, index: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in deal ``index`` (both games of the deal)."""
    return seed_of(seed, index, AGENT, seat)


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in a game seeded ``seed`` (the terminal and web games)."""
    return seed_of(seed, 1000 + seat)


def seat_specs(
    players: int, game: int, spec_a: str, spec_b: str, *, partner_a: str | None = None, partner_b: str | None = None
) -> list[str]:
    """The spec at every seat in game ``game`` (0: A on the even seats, 1: A on the odd).

    Each side's lowest seat plays its lead spec, the other seats of the side its partner
    spec (the lead spec when no partner is given)."""
    a_side = game
    specs = []
    for s in range(players):
        lead = s < 2
        if side_of(s) == a_side:
            specs.append(spec_a if lead or partner_a is None else partner_a)
        else:
            specs.append(spec_b if lead or partner_b is None else partner_b)
    return specs
