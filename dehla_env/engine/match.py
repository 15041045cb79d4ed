"""A whole match: hands in sequence, dealer rotation, kots, streaks, points, the winner.

:class:`MatchState` owns the current :class:`HandState` and applies each complete
hand's :class:`HandResult` by the ruleset's match rules (R1.7-R1.9, R2.6-R2.7,
R3.4-R3.6, R4.4-R4.6). When a hand ends and the match goes on, the next hand's deal is
the next (chance) step; until it is dealt the finished hand stays inspectable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..actions import NUM_ACTIONS
from ..cards import shuffled_deck
from ..errors import IllegalMoveError
from ..rules import Rules
from ..scoring import (
    NO_ROUND,
    NO_SIDE,
    HandOutcome,
    MatchTally,
    MatchWinner,
    match_winner,
    next_dealer,
    score_match,
    side_code,
    side_or_none,
)
from .hand import CHANCE, HandResult, HandState, Phase

TERMINAL = -2  # ``current_player`` once the match is over
_DEAL, _DRAW, _DONE = Phase.DEAL, Phase.DRAW, Phase.DONE  # as globals: see engine/hand.py


@dataclass(frozen=True)
class HandSummary:
    """What the match recorded when a hand ended (the R6 per-hand fields it adds)."""

    hand_winner: int | None
    kot: int | None
    points: tuple[int, int]  # cumulative, after the hand
    kots: tuple[int, int]
    streak: tuple[int, int] | None
    next_dealer: int | None  # None once the match is over
    result: HandResult


class MatchState:
    """A match in progress. Deterministic: all chance comes in through ``apply_deal``
    and ``apply_draw`` (or :meth:`sample_chance` with a caller's generator)."""

    def __init__(self, rules: Rules, first_dealer: int) -> None:
        if isinstance(first_dealer, bool) or not isinstance(first_dealer, int) or not 0 <= first_dealer < rules.players:
            raise ValueError(f"first_dealer must be a seat 0..{rules.players - 1}, not {first_dealer!r}")
        self.rules = rules
        self.first_dealer = first_dealer
        self.hand = HandState(rules, first_dealer)
        self.hands_dealt = 0  # hands begun (R6 hands_played)
        self.hands_completed = 0
        self.kots = [0, 0]
        self.points = [0, 0]
        self.streak: tuple[int, int] | None = None  # (side, count)
        # R2.7: the previous round's winner; None: it had no winner; NO_ROUND: no round yet
        self.prev_round_winner: int | None = NO_ROUND
        self.winner: MatchWinner | None = None  # 0, 1 or DRAWN (R6 "draw"); None while undecided
        self.summaries: list[HandSummary] = []
        self.finished_hands: list[HandState] = []

    @classmethod
    def new(cls, rules: Rules, rng: np.random.Generator, first_dealer: int | None = None) -> MatchState:
        """A match whose first dealer is drawn with ``rng`` unless given (R1.10, R2.1)."""
        if first_dealer is None:
            first_dealer = int(rng.integers(rules.players))
        return cls(rules, first_dealer)

    # ------------------------------------------------------------------ queries
    @property
    def dealer(self) -> int:
        return self.hand.dealer

    def is_chance(self) -> bool:
        return self.winner is None and self.hand.phase in (_DEAL, _DRAW, _DONE)

    def is_terminal(self) -> bool:
        return self.winner is not None

    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` (-1) for a deal or draw, ``TERMINAL`` (-2) at the end."""
        if self.winner is not None:
            return TERMINAL
        hand = self.hand
        if hand.phase == _DONE:
            return CHANCE  # the next hand's deal
        return hand.to_act

    def legal_actions(self) -> list[int]:
        if self.winner is not None:
            return []
        return self.hand.legal_actions()

    def legal_mask(self) -> np.ndarray:
        """Boolean mask of shape ``(NUM_ACTIONS,)`` over the flat action layout."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    # ------------------------------------------------------------------ chance
    def apply_deal(self, deck: Sequence[int]) -> None:
        """Deal the current (or next) hand from ``deck`` (card ids, R0.3)."""
        if self.winner is not None:
            raise IllegalMoveError("deal", CHANCE, f"the match is over (winner {self.winner})", "R5")
        hand = self.hand
        if hand.phase == _DONE:
            assert self.summaries[-1].next_dealer is not None
            hand = HandState(self.rules, self.summaries[-1].next_dealer)
        hand.apply_deal(deck)  # validates before any change
        if hand is not self.hand:
            self.finished_hands.append(self.hand)
            self.hand = hand
        self.hands_dealt += 1

    def apply_draw(self, card: int) -> None:
        """The R1.4 draw: ``card`` is the card drawn from the 20 played."""
        if self.winner is not None:
            raise IllegalMoveError("draw", CHANCE, f"the match is over (winner {self.winner})", "R5")
        self.hand.apply_draw(card)

    def random_deck(self, rng: np.random.Generator) -> list[int]:
        """A uniformly shuffled deck for this ruleset (:func:`~dehla_env.cards.shuffled_deck`)."""
        return shuffled_deck(rng, self.rules.packs)

    def sample_chance(self, rng: np.random.Generator) -> None:
        """Resolve the pending chance step (deal or R1.4 draw) with ``rng``."""
        hand = self.hand
        if hand.phase == _DRAW:
            candidates = hand.draw_candidates()
            self.apply_draw(candidates[int(rng.integers(len(candidates)))])  # R1.4: uniform
        elif self.is_chance():
            self.apply_deal(self.random_deck(rng))
        else:
            raise ValueError("no chance step is due")

    # ------------------------------------------------------------------ decisions
    def apply_action(self, action: int) -> None:
        """Apply the decision of the seat to act; scores the hand when it ends."""
        if self.winner is not None:
            from ..actions import action_text

            text = action_text(action) if isinstance(action, int) and 0 <= action < NUM_ACTIONS else str(action)
            raise IllegalMoveError(text, None, f"the match is over (winner {self.winner})", "R5")
        hand = self.hand
        hand.apply_action(action)  # accepts any integer type, validates first (R5)
        if hand.phase == _DONE:
            self._score(hand)

    # ------------------------------------------------------------------ scoring
    def _score(self, hand: HandState) -> None:
        self.score_hand(hand.result(), hand.dealer)

    def score_hand(self, result: HandResult, dealer: int) -> None:
        """Apply a complete hand's result to the match: kots, streaks, points, the next
        dealer and the winner (R1.7-R1.9, R2.6-R2.7, R3.4-R3.6, R4.4-R4.6), as
        :func:`dehla_env.scoring.score_match` decides them. The engine calls it when a
        hand ends; an engine that plays hands elsewhere (the batched engine's R6 replay)
        calls it with the result it computed."""
        streak = self.streak
        tally = MatchTally(
            kots=(self.kots[0], self.kots[1]),
            points=(self.points[0], self.points[1]),
            streak_side=NO_SIDE if streak is None else streak[0],
            streak_count=0 if streak is None else streak[1],
            prev_round=side_code(self.prev_round_winner),
            hands=self.hands_completed,
            winner=NO_SIDE,
        )
        outcome = HandOutcome(side_code(result.winner), side_code(result.all_tens), side_code(result.kot), result.score)
        step = score_match(self.rules, tally, outcome)
        new = step.tally
        self.hands_completed = int(new.hands)
        self.kots = [int(new.kots[0]), int(new.kots[1])]
        self.points = [int(new.points[0]), int(new.points[1])]
        self.streak = None if new.streak_side == NO_SIDE else (int(new.streak_side), int(new.streak_count))
        self.prev_round_winner = side_or_none(new.prev_round)
        self.winner = match_winner(int(new.winner))
        kot = side_or_none(step.kot)
        self.summaries.append(
            HandSummary(
                hand_winner=result.winner,
                kot=kot,
                points=(self.points[0], self.points[1]),
                kots=(self.kots[0], self.kots[1]),
                streak=self.streak,
                next_dealer=None if self.winner is not None else int(next_dealer(self.rules, tally, outcome, dealer)),
                result=result,
            )
        )

    # ------------------------------------------------------------------ copying
    def clone(self) -> MatchState:
        """An independent copy; finished hands are shared (they never change)."""
        new = MatchState.__new__(MatchState)
        new.__dict__.update(self.__dict__)
        new.hand = self.hand.clone()
        new.kots = self.kots[:]
        new.points = self.points[:]
        new.summaries = self.summaries[:]
        new.finished_hands = self.finished_hands[:]
        return new
