"""A whole match: hands in sequence, dealer rotation, kots, streaks, points, the winner.

:class:`MatchState` owns the current :class:`HandState` and applies each complete
hand's :class:`HandResult` by the ruleset's match rules (R1.7-R1.9, R2.6-R2.7,
R3.4-R3.6, R4.4-R4.6). When a hand ends and the match goes on, the next hand's deal is
the next (chance) step; until it is dealt the finished hand stays inspectable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import assert_never

import numpy as np

from ..actions import NUM_ACTIONS
from ..cards import shuffled_deck
from ..errors import IllegalMoveError
from ..rules import MatchScoring, Rules
from .hand import CHANCE, HandResult, HandState, Phase

TERMINAL = -2  # ``current_player`` once the match is over
DRAWN = "draw"  # the winner of a drawn match (R1.9, R2.6, R3.6, R4.5; R6 "draw")
_NO_ROUND = -1  # R2.7: "previous round" before the first round
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
        self.prev_round_winner: int | None = _NO_ROUND  # R2.7
        self.winner: int | str | None = None  # 0, 1, "draw"
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
        dealer and the winner (R1.7-R1.9, R2.6-R2.7, R3.4-R3.6, R4.4-R4.6). The engine
        calls it when a hand ends; an engine that plays hands elsewhere (the batched
        engine's R6 replay) calls it with the result it computed."""
        scoring = self.rules.match_scoring
        self.hands_completed += 1
        match scoring:
            case MatchScoring.KOTS:
                next_dealer, kot = self._score_dehla(dealer, result)
            case MatchScoring.STREAK | MatchScoring.ROUND_POINTS:
                next_dealer, kot = self._score_direct(dealer, result)
            case MatchScoring.COURT_POINTS:
                next_dealer, kot = self._score_court_piece(dealer, result)
            case MatchScoring.GAP:
                next_dealer, kot = self._score_coat_pees(dealer, result)
            case _:
                assert_never(scoring)
        self.summaries.append(
            HandSummary(
                hand_winner=result.winner,
                kot=kot,
                points=(self.points[0], self.points[1]),
                kots=(self.kots[0], self.kots[1]),
                streak=self.streak,
                next_dealer=None if self.winner is not None else next_dealer,
                result=result,
            )
        )

    def _loser_keeps_deal(self, dealer: int, winner: int | None) -> int:
        """R3.5, R4.6 (and R2.7 with a winner): the deal stays if the dealer's side lost."""
        n = self.rules.players
        return dealer if winner is not None and winner != dealer % 2 else (dealer + 1) % n

    def _score_dehla(self, dealer: int, result: HandResult) -> tuple[int, int | None]:
        rules = self.rules
        w = result.winner
        assert w is not None  # R1.6: every dehla hand has a winner
        d = dealer
        # R1.8: one streak; a hand won by the streak's side extends it.
        if self.streak is not None and self.streak[0] == w:
            self.streak = (w, self.streak[1] + 1)
        else:
            self.streak = (w, 1)
        kot = None
        assert rules.kot_streak is not None and rules.kots_to_win is not None
        if result.all_tens is not None or self.streak[1] >= rules.kot_streak:
            kot = w  # at most one kot per hand (R1.8 Decision)
            self.kots[w] += 1
            self.streak = None
        # R1.7
        if w == d % 2:
            next_dealer = (d + 1) % 4
        elif result.all_tens is not None:
            next_dealer = (d + 2) % 4
        else:
            next_dealer = d
        # R1.9
        if kot is not None and self.kots[kot] >= rules.kots_to_win:
            self.winner = kot
        elif rules.max_hands is not None and self.hands_completed >= rules.max_hands:
            k0, k1 = self.kots
            self.winner = 0 if k0 > k1 else 1 if k1 > k0 else DRAWN
        return next_dealer, kot

    def _score_direct(self, dealer: int, result: HandResult) -> tuple[int, int | None]:
        rules = self.rules
        w = result.winner
        d = dealer
        n = rules.players
        kot = None
        if rules.kot_streak is not None:
            # R2.6 streak: a won round extends its side's streak; no winner changes nothing.
            if w is not None:
                if self.streak is not None and self.streak[0] == w:
                    self.streak = (w, self.streak[1] + 1)
                else:
                    self.streak = (w, 1)
            if result.all_tens is not None:
                kot = result.all_tens  # sirr: all the tens win at once
            elif self.streak is not None and w is not None and self.streak[1] >= rules.kot_streak:
                kot = w
        else:
            if w is not None:
                self.points[w] += 1
            if result.all_tens is not None:
                kot = result.all_tens  # four tens still win at once (R2.6 points)
        if kot is not None:
            self.kots[kot] += 1
            self.winner = kot
        elif rules.points_to_win is not None and w is not None and self.points[w] >= rules.points_to_win:
            self.winner = w
        elif rules.max_hands is not None and self.hands_completed >= rules.max_hands:
            self.winner = DRAWN  # R2.6 Decision
        # R2.7
        if w is not None:
            next_dealer = self._loser_keeps_deal(d, w)
        else:
            prev = self.prev_round_winner
            keep = prev is not None and prev != _NO_ROUND and prev != d % 2
            next_dealer = d if keep else (d + 1) % n
        self.prev_round_winner = w
        return next_dealer, kot

    def _score_court_piece(self, dealer: int, result: HandResult) -> tuple[int, int | None]:
        rules = self.rules
        w = result.winner
        assert w is not None
        kot = result.kot
        self.points[w] += 1 + (1 if kot is not None else 0)  # R3.6
        if kot is not None:
            self.kots[kot] += 1
        assert rules.points_to_win is not None
        if self.points[w] >= rules.points_to_win:
            self.winner = w
        elif rules.max_hands is not None and self.hands_completed >= rules.max_hands:
            p0, p1 = self.points
            self.winner = 0 if p0 > p1 else 1 if p1 > p0 else DRAWN
        return self._loser_keeps_deal(dealer, w), kot

    def _score_coat_pees(self, dealer: int, result: HandResult) -> tuple[int, int | None]:
        rules = self.rules
        self.points[0] += result.score[0]
        self.points[1] += result.score[1]
        p0, p1 = self.points
        # R4.5: the gap is checked after every hand, before max_hands.
        if p1 - p0 >= rules.gap:
            self.winner = 1
        elif p0 - p1 >= rules.gap:
            self.winner = 0
        elif rules.max_hands is not None and self.hands_completed >= rules.max_hands:
            self.winner = 0 if p0 > p1 else 1 if p1 > p0 else DRAWN
        return self._loser_keeps_deal(dealer, result.winner), None

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
