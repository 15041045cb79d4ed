"""Batched bots: callables ``policy(obs, mask) -> actions`` over a whole batch, for
the batched engine (:mod:`dehla_env.vector`).

``obs`` is (k, D) float32 (the flat observation of :mod:`dehla_env.encoding`), ``mask``
(k, 85) bool; the result is (k,) int64 legal actions. Every policy here reads only the
observation and the mask, so it sees exactly what the seat may know (R0.6).

These are *not* the view-based bots of :mod:`agents.bots.heuristic` and do not share their
names: ``easy`` and ``hard`` name those bots only.

* :class:`~dehla_env.vector.wrappers.RandomPolicy` - a uniformly random legal action.
* :class:`TenSafePolicy` (``tensafe``) - a random legal card, but it never throws a ten
  into a trick the other side is winning while it holds another legal card. Trump: its
  longest suit. Bidding: passes.
* :class:`CardSensePolicy` (``cardsense``) - simple card sense, no counting and no search:

  - *leading*: having won the last trick (one more takes the middle, R1.5), its
    strongest card (trumps first); else a non-trump ace if it has one, else the lowest
    card of its longest suit, keeping tens and trumps back;
  - *partner winning*: it feeds the partner a ten when last to play, or when the partner
    won the last trick and holds this one with an ace, king or trump (about to take
    the middle); otherwise it plays its lowest card, keeping tens and trumps back;
  - *opponent winning*: if it can beat the trick it does: last to play with a ten that
    wins, that ten; when the trick holds a ten or would give the opponent who won the
    last trick a second in a row (R1.5 pair threat), its highest winning card (fight
    hardest; likewise when it won the last trick itself and tens lie in the middle); else
    its lowest winning card. If it cannot win, its lowest card, never a ten when another
    card is legal;
  - *void with no trump made yet* (first-void trump, R1.4 / R2.4a): the lowest card of
    its longest suit, which becomes trump;
  - *trump*: the suit it holds most of (ties: higher cards); *bidding* (R4.2): 7 in its
    longest suit when that suit has three of its five cards and it holds two aces or
    kings, else pass.

* :class:`TorchPolicy` - wraps a torch module mapping a (k, D) float tensor to (k, 85)
  logits (or a tuple whose first item is that); illegal actions are masked out, then it
  samples (or takes the argmax). Any other callable with the same signature plugs in
  the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dehla_env.actions import BID_OFFSET, NUM_ACTIONS, PASS_ACTION, TRUMP_OFFSET
from dehla_env.cards import NUM_CARDS, TEN_RANK, rank_of, suit_of
from dehla_env.encoding import layout_for
from dehla_env.seats import side_of
from dehla_env.tricks import LED_KEY, trick_keys
from dehla_env.vector import BatchPolicy, random_legal
from dehla_env.vector.wrappers import RandomPolicy

_SUIT = suit_of(np.arange(NUM_CARDS))
_RANK = rank_of(np.arange(NUM_CARDS))
_IS_TEN = _RANK == TEN_RANK


class _Reader:
    """Named parts of a batch of flat observations (``n`` players)."""

    def __init__(self, num_players: int) -> None:
        self.n = num_players
        self.layout = layout_for(num_players)

    def part(self, obs: np.ndarray, name: str) -> np.ndarray:
        s = self.layout[name]
        return obs[:, s.offset : s.stop].reshape((len(obs), *s.shape))

    @staticmethod
    def index(onehot: np.ndarray) -> np.ndarray:
        """Index of the set entry per row, -1 where none is set."""
        return np.where(onehot.any(axis=1), onehot.argmax(axis=1), -1)


def _pick(candidates: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Per row, the candidate column with the highest score (-1 if none)."""
    s = np.where(candidates, score, -np.inf)
    return np.where(candidates.any(axis=1), s.argmax(axis=1), -1)


def _longest_suit(hand: np.ndarray) -> np.ndarray:
    """(k,) the suit with most cards in ``hand`` (k, 52); ties: the higher cards."""
    per_suit = hand.reshape(len(hand), 4, 13)
    score = per_suit.sum(axis=2) * 1000.0 + (per_suit * np.arange(13)).sum(axis=2)
    return score.argmax(axis=1)


class _Heuristic:
    def __init__(self, num_players: int = 4, seed: int | None = None) -> None:
        self.read = _Reader(num_players)
        self.n = num_players
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, bool)
        actions = random_legal(mask, self.rng)
        phase = self.read.index(self.read.part(obs, "phase"))
        hand = self.read.part(obs, "hand") > 0
        trump = phase == 0
        if trump.any():
            actions[trump] = TRUMP_OFFSET + _longest_suit(hand[trump])
        bid = phase == 1
        if bid.any():
            actions[bid] = self.bid(obs[bid], mask[bid], hand[bid])
        card = phase == 2
        if card.any():
            actions[card] = self.card(obs[card], mask[card])
        return actions

    def bid(self, obs: np.ndarray, mask: np.ndarray, hand: np.ndarray) -> np.ndarray:
        return np.full(len(obs), PASS_ACTION, np.int64)

    def card(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def trick_facts(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """What the heuristics use about the trick in progress, per row."""
        r = self.read
        k = len(obs)
        rows = np.arange(k)
        trick = r.part(obs, "trick")  # (k, n, 52) by relative seat
        played = trick.sum(axis=(1, 2))
        winning = r.index(r.part(obs, "trick_winning"))  # relative seat, -1 before the lead
        led = r.index(r.part(obs, "led_suit"))
        in_force = r.part(obs, "trump_state")[:, 1] > 0
        trump = np.where(in_force, r.index(r.part(obs, "trump_suit")), -1)
        best_card = trick[rows, np.maximum(winning, 0)].argmax(axis=1)
        keys = trick_keys(np.arange(NUM_CARDS), led[:, None], trump[:, None])  # (k, 52): each card's rank here
        best_key = np.where(winning >= 0, keys[rows, best_card], -1)
        middle = r.part(obs, "middle_info")
        return {
            "no_trump_yet": r.part(obs, "trump_state")[:, 0] > 0,
            "middle_tens": middle[:, 1] > 0,
            "led": led,
            "played": played,
            "winning": winning,
            "partner_winning": (winning > 0) & (side_of(winning) == 0),
            "opponent_winning": (winning >= 0) & (side_of(winning) == 1),
            "last": played == self.n - 1,
            "keys": keys,
            "best_key": best_key,
            "trump": trump,
            "tens_in_trick": (trick.sum(axis=1)[:, _IS_TEN]).sum(axis=1),
            "threat": r.index(r.part(obs, "pair_threat")),
        }


class TenSafePolicy(_Heuristic):
    """Random legal cards, but no ten thrown to the other side; see the module docstring."""

    def card(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        f = self.trick_facts(obs)
        legal = mask[:, :NUM_CARDS]
        safe = legal & ~(_IS_TEN & f["opponent_winning"][:, None])
        choice = np.where(safe.any(axis=1)[:, None], safe, legal)
        full = np.zeros((len(obs), NUM_ACTIONS), bool)
        full[:, :NUM_CARDS] = choice
        return random_legal(full, self.rng)


class CardSensePolicy(_Heuristic):
    """Simple card sense; see the module docstring."""

    def bid(self, obs: np.ndarray, mask: np.ndarray, hand: np.ndarray) -> np.ndarray:
        suit = _longest_suit(hand)
        rows = np.arange(len(obs))
        length = hand.reshape(len(hand), 4, 13).sum(axis=2)[rows, suit]
        honours = hand[:, _RANK >= 11].sum(axis=1)  # aces and kings
        seven = BID_OFFSET + suit  # bid_action(7, suit)
        ok = (length >= 3) & (honours >= 2) & mask[rows, seven]
        return np.where(ok, seven, PASS_ACTION)

    def card(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        f = self.trick_facts(obs)
        k = len(obs)
        legal = mask[:, :NUM_CARDS]
        hand = self.read.part(obs, "hand") > 0
        trump = f["trump"][:, None]
        is_trump = trump == _SUIT
        low = -_RANK - 100.0 * _IS_TEN - 50.0 * is_trump  # lowest, tens and trumps kept back
        out = _pick(legal, low)  # default: the lowest legal card
        # leading
        lead = f["played"] == 0
        suit_len = hand.reshape(k, 4, 13).sum(axis=2)[:, _SUIT]  # (k, 52) length of the card's suit
        aces = legal & (_RANK == 12) & ~is_trump
        lead_pick = np.where(aces.any(axis=1), _pick(aces, _RANK + 0.0), _pick(legal, 100.0 * suit_len + low))
        # leading after winning the last trick: one more wins the middle (R1.5): lead high
        strong = _pick(legal, 32.0 * is_trump + _RANK - 100.0 * _IS_TEN)
        lead_pick = np.where(f["threat"] == 0, strong, lead_pick)
        out = np.where(lead, lead_pick, out)
        # partner winning: feed a ten when last to play, or when the partner is about to
        # take the middle (R1.5) with a high card (an ace or king led, or a trump)
        tens = legal & _IS_TEN
        safe = f["last"] | ((f["threat"] == f["winning"]) & (f["best_key"] >= LED_KEY + 11))
        feed = f["partner_winning"] & safe & tens.any(axis=1)
        out = np.where(feed, _pick(tens, _RANK + 0.0), out)
        # opponent winning: beat it if possible
        wins = legal & (f["keys"] > f["best_key"][:, None])
        can = f["opponent_winning"] & wins.any(axis=1)
        lowest_win = _pick(wins, -f["keys"].astype(np.float64))
        highest_win = _pick(wins, f["keys"].astype(np.float64))
        # fight hardest: a ten at stake, or a pair of tricks (R1.5) for either side
        fight = (f["tens_in_trick"] > 0) | (f["threat"] == f["winning"]) | ((f["threat"] == 0) & f["middle_tens"])
        win_pick = np.where(fight & ~f["last"], highest_win, lowest_win)
        ten_win = wins & _IS_TEN
        win_pick = np.where(f["last"] & ten_win.any(axis=1), _pick(ten_win, _RANK + 0.0), win_pick)
        out = np.where(can, win_pick, out)
        # first-void trump (R1.4, R2.4a): void with no trump yet, the card played makes
        # its suit trump and wins for now: make it the longest suit, a low card
        void = (f["led"] >= 0) & ~(legal & (f["led"][:, None] == _SUIT)).any(axis=1)
        make = void & f["no_trump_yet"] & (f["played"] > 0)
        out = np.where(make, _pick(legal, 100.0 * suit_len - _RANK - 100.0 * _IS_TEN), out)
        return out


class TorchPolicy:
    """A torch module as a batched policy; see the module docstring."""

    def __init__(self, model: Any, device: Any = "cpu", deterministic: bool = False, seed: int | None = None) -> None:
        import torch

        self.torch = torch
        self.model = model
        self.device = torch.device(device)
        self.deterministic = deterministic
        self.generator = torch.Generator(device=self.device)
        if seed is not None:
            self.generator.manual_seed(seed)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        torch = self.torch
        with torch.no_grad():
            x = torch.as_tensor(obs, dtype=torch.float32, device=self.device)
            logits = self.model(x)
            if isinstance(logits, (tuple, list)):
                logits = logits[0]
            m = torch.as_tensor(mask, dtype=torch.bool, device=self.device)
            logits = logits.float().masked_fill(~m, float("-inf"))
            if self.deterministic:
                a = logits.argmax(dim=1)
            else:
                probs = torch.softmax(logits, dim=1)
                a = torch.multinomial(probs, 1, generator=self.generator).squeeze(1)
        return a.cpu().numpy().astype(np.int64)


#: the batched bots by name
BATCHED_POLICIES: dict[str, Callable[[int, int | None], BatchPolicy]] = {
    "random": lambda num_players, seed: RandomPolicy(seed),
    "tensafe": TenSafePolicy,
    "cardsense": CardSensePolicy,
}


def make_batched_policy(name: str, num_players: int = 4, seed: int | None = None) -> BatchPolicy:
    """A batched bot by name (:data:`BATCHED_POLICIES`)."""
    if name not in BATCHED_POLICIES:
        raise ValueError(f"unknown batched policy {name!r}; known: {', '.join(BATCHED_POLICIES)}")
    return BATCHED_POLICIES[name](num_players, seed)
