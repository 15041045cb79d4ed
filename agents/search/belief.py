"""World weights from the plays seen: inference for the sampling search.

The sampler (:class:`agents.bots.sampler.WorldSampler`) draws deals uniformly among those
consistent with the view: every hand that could have played the cards seen counts the
same. But players do not play at random. A seat that followed with a low card while its
partner's trick was being beaten probably held nothing higher; a seat that led a
king probably did not hold the ace. PIMC searches in trick-taking games gain from
weighting each world by how likely the plays seen are in it (Buro et al. 2009, Skat;
Solinas et al. 2019).

:class:`PlayLikelihood` does that with a policy network as the model of play: for each
sampled deal it replays the hand from the deal on the rules engine, asks the network,
at every card decision of the other three seats since the full deal (R0.3) with more
than one legal card, for the probability of the card that seat really played (from that
seat's own observation in that world), and returns the sum of the logs. Each
probability is mixed with a uniform choice over the legal cards (``floor``), so that a
single surprising play (a model error, a deliberate false card) lowers a world's weight
without ruling it out.

Scope: the first-void rulesets (R1.4, ``dehla`` and its options with
``TrumpMaking.FIRST_VOID``), whose public history is the cards alone: before the full
deal only each seat's first five cards are in play, and which of its cards those were
is not part of a sampled deal; so the plays of the first stage are replayed (from a
first five made of the cards each seat played in it and any others it may have held
then) but not weighed, and while the first stage lasts every world weighs the same.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.bots.sampler import Deal, match_for
from agents.nets.agent import Network
from dehla_env.cards import NUM_CARDS, cards_in, suit_of
from dehla_env.encoding import ObservationEncoder, layout_for
from dehla_env.engine.hand import FIRST_STAGE_CARDS, FIRST_STAGE_TRICKS, HandState, Phase
from dehla_env.rules import Rules, TrumpMaking
from dehla_env.view import PlayerView

_SUIT_OF = suit_of(np.arange(NUM_CARDS))

#: the uniform share mixed into each modelled probability (see the module docstring)
FLOOR = 0.1
#: the power of the likelihood (tempering): the network is a model of play, not the
#: players, and at full power a few worlds take nearly all the weight (a median
#: effective sample of 7 of 64). Chosen by how well the weighted worlds predict where
#: the unseen cards really are (mean log-probability of each card's true holder, 64
#: worlds, 24 hands from the 3rd trick on), in games of ``medium`` and of
#: ``policy:dehla``: 0.25 is better than uniform worlds for both (-0.945 and -0.879
#: against -0.953 and -0.967) and best on their average; ``hard`` was not consulted.
POWER = 0.25


class PlayLikelihood:
    """``log_weights(view, deals)``: per deal, the log-likelihood of the plays seen,
    tempered by ``power``."""

    def __init__(self, rules: Rules, net: Network, floor: float = FLOOR, power: float = POWER) -> None:
        if rules.trump_making is not TrumpMaking.FIRST_VOID or rules.players != 4 or not rules.staged_deal:
            raise ValueError(
                "belief weights the worlds of the first-void rulesets (R1.4: dehla, four players), "
                f"not trump making {rules.trump_making.name.lower()}"
            )
        self.rules = rules
        self.net = net
        self.floor = floor
        self.power = power
        self.encoder = ObservationEncoder(rules)
        hand = layout_for(rules.players)["hand"]
        self._hand = slice(hand.offset, hand.stop)  # the deciding seat's own cards

    def log_weights(self, view: PlayerView, deals: Sequence[Deal]) -> np.ndarray:
        """(len(deals),) float64: the log-likelihood of the other seats' plays since the
        full deal in each deal, times ``power`` (0 where nothing is weighed yet).

        One replay gives every weighed decision's observation in one world; the others
        differ from it only in the deciding seat's own cards (the rest of an observation
        is public, R0.6), which are that seat's cards in the world now plus those it
        played since. ``tests/test_belief.py`` holds this to a replay of every world."""
        out = np.zeros(len(deals))
        weighed = self.weighed_decisions(view, deals)
        if weighed is None:
            return out
        world, rows, legal, card = weighed
        lg = np.where(legal, self.net.logits(rows)[:, :NUM_CARDS], -np.inf)
        p = np.exp(lg - lg.max(-1, keepdims=True))
        picked = p[np.arange(len(card)), card] / p.sum(-1)
        uniform = 1.0 / legal.sum(-1)
        np.add.at(out, world, self.power * np.log(self.floor * uniform + (1.0 - self.floor) * picked))
        return out

    def weighed_decisions(
        self, view: PlayerView, deals: Sequence[Deal]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """The decisions weighed, over all deals: (deal index, observation, legal cards
        (52 bools), card played) per decision with more than one legal card; None if
        there is none."""
        plays = _public_plays(view)
        first = _first_stage_tricks(view)
        if view.cards_undealt > 0 or first is None or first * 4 >= len(plays):
            return None  # nothing played after the full deal yet
        base = None
        for deal in deals:
            base = self._decisions(view, deal, plays, first)
            if base is not None:
                break
        if not base:
            return None
        index = np.array([i for i, _obs, _legal in base])
        card = np.array([plays[i][1] for i in index])
        # led[r]: the suit led in decision r's trick, -1 if it leads
        led = np.array([suit_of(plays[i - i % 4][1]) if i % 4 else -1 for i in index])
        held = _held_at(view, deals, plays, index)  # (deals, decisions, 52) bool
        follows = held & (_SUIT_OF[None, None, :] == led[None, :, None])
        # R0.4, follow suit if you can: the engine's rule on arrays, held to
        # HandState.legal_card_mask by tests/test_belief.py
        legal = np.where(follows.any(-1, keepdims=True), follows, held)
        world, r = np.nonzero(legal.sum(-1) > 1)
        if not len(world):
            return None
        rows = np.stack([obs for _i, obs, _legal in base])[r]
        rows[:, self._hand] = held[world, r]
        return world, rows, legal[world, r], card[r]

    def _decisions(
        self, view: PlayerView, deal: Deal, plays: list[tuple[int, int]], first: int
    ) -> list[tuple[int, np.ndarray, int]] | None:
        """Replay the hand in ``deal``; (index in ``plays``, observation, the engine's
        legal cards as a mask) at each card decision of another seat since the full
        deal. None if the deal admits no first stage for the plays seen."""
        deck = _deck(view, deal, plays, first)
        if deck is None:
            return None
        hand = HandState(self.rules, view.dealer)
        hand.apply_deal(deck)
        match = match_for(hand, view)
        out = []
        for i, (seat, c) in enumerate(plays):
            if hand.phase == Phase.DRAW:  # R1.4: no void in five tricks, the drawn card's suit is trump
                hand.apply_draw(view.draw_card)
            assert hand.phase == Phase.PLAY and hand.to_act == seat, (hand.phase, hand.to_act, seat)
            if i >= 4 * first and seat != view.seat:
                out.append((i, self.encoder.encode(match, seat), hand.legal_card_mask()))
            hand.apply_action(c)
        return out


def _held_at(view: PlayerView, deals: Sequence[Deal], plays: list[tuple[int, int]], index: np.ndarray) -> np.ndarray:
    """(deals, decisions, 52) bool: the cards the deciding seat held at each decision
    ``plays[index[r]]`` in each deal: its cards in the deal now and every card it played
    from that decision on."""
    n = view.num_players
    later = np.zeros((len(index), 52), bool)  # cards the deciding seat played from then on
    for r, i in enumerate(index.tolist()):
        s = plays[i][0]
        for j in range(i, len(plays)):
            if plays[j][0] == s:
                later[r, plays[j][1]] = True
    seat = np.array([plays[i][0] for i in index.tolist()])
    bits = np.array([[deal.hands[s] for s in range(n)] for deal in deals], dtype=np.uint64)  # (deals, n)
    now = ((bits[:, :, None] >> np.arange(52, dtype=np.uint64)) & np.uint64(1)).astype(bool)  # (deals, n, 52)
    return now[:, seat, :] | later[None]


def _public_plays(view: PlayerView) -> list[tuple[int, int]]:
    """Every (seat, card) played this hand, in order."""
    plays: list[tuple[int, int]] = []
    for leader, cards, _w in view.history:
        plays.extend(((leader + j) % view.num_players, c) for j, c in enumerate(cards))
    plays.extend(view.trick)
    return plays


def _first_stage_tricks(view: PlayerView) -> int | None:
    """How many tricks were played on the first five cards (R1.4): up to the trick in
    which a seat first failed to follow (its card made trump), or five when nobody did
    (the draw); None while that is not known yet."""
    for t, (_leader, cards, _w) in enumerate(view.history[:FIRST_STAGE_TRICKS]):
        led = suit_of(cards[0])
        if any(suit_of(c) != led for c in cards):
            return t + 1
    return FIRST_STAGE_TRICKS if len(view.history) >= FIRST_STAGE_TRICKS else None


def _deck(view: PlayerView, deal: Deal, plays: list[tuple[int, int]], first: int) -> list[int] | None:
    """A deck that deals ``deal``'s hands plus the cards played: each seat's first five
    (positions 0..19, R0.3) are the cards it played in the first ``first`` tricks and
    then its lowest others outside the suits it showed void in there; None if a seat
    has too few such cards."""
    n = view.num_players
    played: list[list[int]] = [[] for _ in range(n)]
    void_suits = [0] * n
    for i, (seat, card) in enumerate(plays):
        played[seat].append(card)
        if i < 4 * first:
            led = suit_of(plays[i - i % 4][1])
            if suit_of(card) != led:
                void_suits[seat] |= 1 << led
    positions = [[i for i in range(FIRST_STAGE_CARDS) if (view.dealer + 1 + i) % n == s] for s in range(n)]
    later = [[i for i in range(FIRST_STAGE_CARDS, 52) if (view.dealer + 1 + i) % n == s] for s in range(n)]
    deck = [-1] * 52
    for s in range(n):
        early = played[s][:first]
        held = deal.hands[s] if s != view.seat else view.hand_mask
        others = cards_in(held) + played[s][first:]
        allowed = [c for c in others if not void_suits[s] & (1 << (suit_of(c)))]
        allowed.sort()
        fill = allowed[: 5 - len(early)]
        if len(fill) < 5 - len(early):
            return None
        five = early + fill
        rest = [c for c in others if c not in fill]
        for i, c in zip(positions[s], five, strict=True):
            deck[i] = c
        for i, c in zip(later[s], rest, strict=True):
            deck[i] = c
    return deck


__all__ = ["FLOOR", "POWER", "PlayLikelihood"]
