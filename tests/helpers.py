"""Shared helpers for the rules tests: deals from compact hand text, state snapshots
for the R5 "state unchanged" check, and random legal play.

A deal is written per seat (see :func:`tests.deals.deck_from_hands`)::

    match = new_match("dehla", 3, [
        "AS KS QS JS TS | 9S 8S 7S 6S 5S 4S 3S 2S",  # seat 0: first five | other eight
        "AH KH QH JH TH | 9H 8H 7H 6H 5H 4H 3H 2H",  # seat 1
        None,  # seat 2: filled with the unused cards, in id order
        None,  # seat 3
    ], trump="chosen")
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dehla_env import IllegalMoveError, MatchState, make_rules
from dehla_env.actions import action_text
from dehla_env.cards import TEN_RANK, card_text, parse_card
from dehla_env.engine import HandState, Phase
from dehla_env.records import match_report
from tests.deals import deck_from_hands, play_moves

__all__ = [
    "Recorder",
    "cards",
    "deal_next",
    "hand_report",
    "new_match",
    "play",
    "play_highest",
    "play_lowest",
    "random_play",
    "report",
    "snapshot",
    "split_hands",
    "split_opening",
    "tens_in",
]


def cards(text: str) -> list[int]:
    """``"AS TD"`` -> card ids."""
    return [parse_card(t) for t in text.split()]


def tens_in(card_ids: Sequence[int]) -> int:
    return sum(1 for c in card_ids if c % 13 == TEN_RANK)


def new_match(rules_name: str, dealer: int, hands: Sequence[str | None], **options: Any) -> MatchState:
    """A match whose first hand is dealt (by ``dealer``) from compact hand text."""
    rules = make_rules(rules_name, **options)
    match = MatchState(rules, dealer)
    match.apply_deal(deck_from_hands(dealer, list(hands), packs=rules.packs))
    return match


def deal_next(match: MatchState, hands: Sequence[str | None]) -> None:
    """Deal the match's next hand (by the next dealer the rules chose) from hand text."""
    assert match.hand.complete and match.summaries, "the current hand is not over"
    dealer = match.summaries[-1].next_dealer
    assert dealer is not None, "the match is over"
    match.apply_deal(deck_from_hands(dealer, list(hands), packs=match.rules.packs))


def play(match: MatchState, moves: str | Sequence[str]) -> None:
    """Apply R6 move texts (``"AH 2H trump:S bid:8H pass draw:KD"``)."""
    play_moves(match, moves)


def play_lowest(match: MatchState, until: Callable[[MatchState], bool] | None = None) -> None:
    """Play the lowest legal action until ``until(match)`` or the current hand is over.

    Used where the outcome of the rest of a hand is forced whatever is played.
    """
    while not match.hand.complete and not (until and until(match)):
        assert not match.is_chance(), "a chance step is due"
        match.apply_action(match.legal_actions()[0])


def play_highest(match: MatchState, until: Callable[[MatchState], bool] | None = None) -> None:
    """Play the highest legal action until ``until(match)`` or the current hand is over."""
    while not match.hand.complete and not (until and until(match)):
        assert not match.is_chance(), "a chance step is due"
        match.apply_action(match.legal_actions()[-1])


# --------------------------------------------------------------------- the split deal
#: Hands of the *split deal*, by seat relative to the dealer: L = dealer+1 (leads),
#: P = dealer+2 (the dealer's partner), Q = dealer+3 (L's partner), R = the dealer.
#: With spades trump, the dealer's side (P, R) wins tricks 1 and 2, and L wins the other
#: eleven by trumping the third and leading spades from the top: see split_opening.
_SPLIT = {
    1: "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 2H 3H",  # L: eleven spades and two low hearts
    2: "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 2C 3C",  # P: eleven hearts
    3: "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",  # Q: every diamond
    0: "3S 2S AC KC QC JC TC 9C 8C 7C 6C 5C 4C",  # R: two low spades and eleven clubs
}


def split_hands(dealer: int) -> list[str]:
    """The split deal's hands for ``dealer`` (see ``_SPLIT``)."""
    return [_SPLIT[(seat - dealer) % 4] for seat in range(4)]


def split_opening(early: str = "", leader: str = "L") -> list[str]:
    """The first two tricks of the split deal, spades being trump.

    The dealer's side wins both; it captures (or, in ``dehla``, P takes) the tens whose
    suits are in ``early`` (any of ``"HDC"``); every other ten stays in hand and falls to
    L's side later, whatever is played (:func:`play_highest` finishes the hand). So the
    tens split ``len(early)`` : ``4 - len(early)`` between the dealer's side and the other,
    and the tricks 2 : 11. ``leader="L"``: L leads the 2H (the usual start);
    ``leader="P"``: P leads (a P contract in ``coat-pees``).
    """
    assert set(early) <= set("HDC"), "the ten of spades always goes to L's side"
    h = "TH" if "H" in early else "4H"
    d = "TD" if "D" in early else "2D"
    c = "TC" if "C" in early else "4C"
    # play goes L, P, Q, R (R0.2); from P: P, Q, R, L
    first = ["2H", h, d, c] if leader == "L" else [h, d, c, "2H"]
    return [*first, "5H", "3D", "5C", "3H"]  # trick 2: P, Q, R, L


def report(match: MatchState) -> dict[str, Any]:
    """The R6 report of the match so far."""
    return match_report(match)


def hand_report(match: MatchState, index: int = -1) -> dict[str, Any]:
    """The R6 per-hand fields of one hand (default: the latest)."""
    return match_report(match)["hands"][index]


# --------------------------------------------------------------------- snapshots
def _freeze(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return tuple(_freeze(v) for v in x)
    if isinstance(x, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in x.items()))
    if isinstance(x, (np.integer,)):
        return int(x)
    return x


def hand_snapshot(hand: HandState) -> tuple[Any, ...]:
    """Every field of a hand, as nested tuples."""
    return tuple((name, _freeze(getattr(hand, name))) for name in HandState.__slots__ if name != "rules")


def snapshot(match: MatchState) -> tuple[Any, ...]:
    """Everything observable about a match, for the R5 "state unchanged" check."""
    fields_ = {k: v for k, v in vars(match).items() if k not in ("hand", "finished_hands", "rules")}
    return (
        _freeze(fields_),
        hand_snapshot(match.hand),
        tuple(id(h) for h in match.finished_hands),
        tuple(match.legal_actions()),
        match.current_player(),
        tuple(tuple(match.hand.hand_cards(s)) for s in range(match.rules.players)),
        json.dumps(match_report(match), sort_keys=True),
    )


def assert_rejected(match: MatchState, apply: Callable[[], Any], *fragments: str) -> IllegalMoveError:
    """``apply()`` must raise IllegalMoveError naming every fragment, and change nothing (R5)."""
    before = snapshot(match)
    try:
        apply()
    except IllegalMoveError as e:
        err = e
    else:  # pragma: no cover - the assertion message is the point
        raise AssertionError(f"no IllegalMoveError; fragments expected: {fragments}")
    message = str(err)
    for frag in fragments:
        assert frag in message, f"{frag!r} not in {message!r}"
    assert snapshot(match) == before, "the rejected move changed the state"
    return err


# --------------------------------------------------------------------- random play
@dataclass
class Recorder:
    """The R6 record of a match played through :func:`random_play` (deck and move texts)."""

    hands: list[dict[str, Any]] = field(default_factory=list)

    def deal(self, deck: Sequence[int]) -> None:
        self.hands.append({"deck": " ".join(card_text(c) for c in deck), "moves": []})

    def move(self, text: str) -> None:
        self.hands[-1]["moves"].append(text)

    def record(self, match: MatchState) -> dict[str, Any]:
        return {
            "id": "random",
            "rules": match.rules.name,
            "options": dict(match.rules.option_dict()),
            "first_dealer": match.first_dealer,
            "hands": self.hands,
        }


def random_step(match: MatchState, rng: np.random.Generator, recorder: Recorder | None = None) -> None:
    """One step of random legal play: a chance step (deal, draw) or a uniform legal action."""
    hand = match.hand
    if match.is_chance():
        if hand.phase == Phase.DRAW:
            candidates = hand.draw_candidates()
            card = candidates[int(rng.integers(len(candidates)))]
            match.apply_draw(card)
            if recorder is not None:
                recorder.move("draw:" + card_text(card))
        else:
            deck = match.random_deck(rng)
            match.apply_deal(deck)
            if recorder is not None:
                recorder.deal(deck)
        return
    legal = match.legal_actions()
    action = legal[int(rng.integers(len(legal)))]
    match.apply_action(action)
    if recorder is not None:
        recorder.move(action_text(action))


def random_play(
    match: MatchState,
    rng: np.random.Generator,
    until: Callable[[MatchState], bool] | str = "match",
    recorder: Recorder | None = None,
    max_steps: int = 1_000_000,
) -> None:
    """Play random legal moves (and chance steps) until ``until``.

    ``until`` is ``"match"`` (the match is over), ``"hand"`` (the current hand is over;
    if it is already over, the next one is dealt and played out) or a predicate.
    """
    if until == "match":
        stop: Callable[[MatchState], bool] = lambda m: m.winner is not None  # noqa: E731
    elif until == "hand":
        start = match.hands_completed
        stop = lambda m: m.winner is not None or m.hands_completed > start  # noqa: E731
    else:
        assert callable(until)
        stop = until
    for _ in range(max_steps):
        if stop(match) or match.winner is not None:
            return
        random_step(match, rng, recorder)
    raise AssertionError("random play did not stop")


def card_decisions(rules: Any, seed: int, every: int, dealer: int) -> Any:
    """(match, view) at every ``every``-th decision of a hand of ``hard`` bots, dealt by
    ``dealer`` from ``seed``, where a card is chosen among several: the positions the
    search tests ask their searchers about."""
    from agents.bots.heuristic import HardAgent
    from dehla_env.view import view_of

    rng = np.random.default_rng(seed)
    match = MatchState(rules, dealer)
    match.apply_deal(match.random_deck(rng))
    bots = [HardAgent(s) for s in range(rules.players)]
    step = 0
    while not match.hand.complete:
        if match.is_chance():
            match.sample_chance(rng)
            continue
        seat = match.hand.to_act
        view = view_of(match, seat)
        if step % every == 0 and match.hand.phase == Phase.PLAY and len(view.legal_actions) > 1:
            yield match, view
        match.apply_action(bots[seat].act(view))
        step += 1
