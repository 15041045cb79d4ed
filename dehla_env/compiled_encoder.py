"""The observation encoder with its board kept by compiled kernels (``kernel="numba"``).

:class:`~dehla_env.encoding.ObservationEncoder` is the reference, in pure Python: it
reads the engine's hand at every call and writes what changed. :class:`CompiledEncoder`
gives the identical vectors (``tests/test_compiled_encoder.py``: every seat, every
decision, every ruleset, bit for bit) a different way: it follows the hand's event
stream (:attr:`~dehla_env.engine.hand.HandState.events`, already validated by the
engine) and mirrors the hand's bookkeeping in the numba kernels of
:mod:`dehla_env.board_kernel`, so an observation after a card costs one compiled call
(the card's effects on the board, then the observer's gather) instead of some forty
Python-level reads and writes. ``raw_env(kernel="numba")`` uses it; it needs the
``fast`` extra (numba), and a missing numba is one line naming it.

What it does not mirror it leaves to the reference: the match rows (written from the
match's own values whenever a hand is completed) and a hand that has not been dealt.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from .actions import NUM_ACTIONS
from .encoding import ObservationEncoder, _match_features, board_layout, gather_indices
from .engine import MatchState
from .rules import Rules
from .seats import side_of

#: the encoders a caller can ask for: the pure-Python reference, or the compiled board
ENCODER_KERNELS = ("python", "numba")

_MASK_SHAPE = (NUM_ACTIONS,)
_FLOAT32 = np.dtype(np.float32)  # a dtype object: np.empty takes it some 30 ns faster than the type


def board_kernel() -> ModuleType:
    """:mod:`dehla_env.board_kernel`, imported (and numba with it) on first use."""
    from .vector.kernels import compiled_module  # here: dehla_env.vector imports this env

    return compiled_module("dehla_env.board_kernel")


def make_encoder(rules: Rules, kernel: str = "python") -> ObservationEncoder:
    """The encoder ``kernel`` names (:data:`ENCODER_KERNELS`) for ``rules``."""
    if kernel == "python":
        return ObservationEncoder(rules)
    if kernel == "numba":
        return CompiledEncoder(rules)
    raise ValueError(f"kernel must be one of {', '.join(ENCODER_KERNELS)}, not {kernel!r}")


class CompiledEncoder(ObservationEncoder):
    """:class:`ObservationEncoder` whose :meth:`encode` keeps its board with compiled
    kernels (see the module docstring); everything else is inherited."""

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules)
        k = self._k = board_kernel()
        n = rules.players
        board = board_layout(n)
        facts = [
            n,
            k.MAKING_CODE[rules.trump_making],
            int(rules.has_middle),
            int(rules.staged_deal),
            int(rules.draw_if_no_void),
            rules.round_tricks or 0,
            rules.num_tricks,
            rules.deck_size,
            rules.hand_size,
            rules.num_tens,
        ]
        facts += [board[name].offset for name in k.BOARD_SLICES]
        assert len(facts) == k.F_SIZE
        # one int64 array for the kernels: the mirror, the facts, the gather runs
        S = self._mirror = np.zeros(k.mirror_size(n), dtype=np.int64)
        S[k.S_F : k.S_F + k.F_SIZE] = facts
        for seat, runs in enumerate(k.gather_runs(gather_indices(n))):
            at = k.S_RUNS + seat * k.RUN_ROW
            S[at] = len(runs)
            S[at + 1 : at + 1 + 3 * len(runs)] = np.array(runs, dtype=np.int64).reshape(-1)
        self._values = np.zeros(board.size, dtype=np.float32)
        self._obs_size = self.layout.size
        self._o_match = board["match"].offset
        assert board["match"].stop == board.size  # the kernels' deal clears all before it
        self._event_gather = k.event_gather
        self._event_turn = k.event_turn
        self._match_rows: dict[tuple, np.ndarray] = {}  # the match rows by the match values
        self._hand: Any = None  # the hand the mirror follows (None: none yet)
        self._seen = 0  # events of that hand applied
        self._match_seen = -1  # hands_completed when the match rows were written

    def __getstate__(self) -> dict[str, Any]:
        """For copies and pickles (an env is deep-copied, or sent to a worker): the
        arrays and the hand followed, without the kernels (a module does not pickle)."""
        state = self.__dict__.copy()
        for name in ("_k", "_event_gather", "_event_turn"):
            del state[name]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        k = self._k = board_kernel()
        self._event_gather = k.event_gather
        self._event_turn = k.event_turn

    def encode(self, match: MatchState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The flat observation of ``seat`` in ``match`` now (a new array unless ``out``)."""
        if not 0 <= seat < self.n:  # the kernels index without bounds checks
            raise ValueError(f"no seat {seat!r} with {self.n} players")
        hand = match.hand
        if out is None:
            out = np.empty(self._obs_size, _FLOAT32)
        elif out.shape != (self._obs_size,) or out.dtype != _FLOAT32:
            raise ValueError(f"out must be a float32 array of shape ({self._obs_size},), not {out.dtype} {out.shape}")
        events = hand.events
        if hand is self._hand:
            if len(events) == self._seen + 1 and match.hands_completed == self._match_seen:  # the usual step
                self._seen += 1
                s, a = events[-1]
                self._event_gather(self._mirror, self._values, s, a, seat, out)
                return out
        elif hand.deck is None:  # nothing dealt yet: the reference writes that board
            return super().encode(match, seat, out)
        else:  # a new hand: its deal, then whatever happened since
            self._hand = hand
            self._seen = 1
            self._k.deal(self._mirror, self._values, np.asarray(hand.deck, dtype=np.int64), hand.dealer)
            self._match_seen = -1
        S, B, event = self._mirror, self._values, self._k.event
        for s, a in events[self._seen :]:
            event(S, B, s, a)
        self._seen = len(events)
        if match.hands_completed != self._match_seen:
            self._write_match_rows(match)
        self._k.gather(S, B, seat, out)
        return out

    def encode_turn(self, match: MatchState, seat: int, mask: np.ndarray) -> np.ndarray:
        """:meth:`encode` for ``seat``, the seat to act in the card phase, and its legal
        cards set in ``mask`` (an all-zero action mask): what an env needs at every
        card decision, in one compiled call on the usual step."""
        if not 0 <= seat < self.n or mask.shape != _MASK_SHAPE:  # no bounds checks below
            raise ValueError(f"no seat {seat!r} with {self.n} players, or a mask not of shape {_MASK_SHAPE}")
        hand = match.hand
        out = np.empty(self._obs_size, _FLOAT32)
        events = hand.events
        if hand is self._hand and len(events) == self._seen + 1 and match.hands_completed == self._match_seen:
            self._seen += 1
            s, a = events[-1]
            self._event_turn(self._mirror, self._values, s, a, seat, out, mask)
            return out
        self.encode(match, seat, out)
        self._k.card_mask(self._mirror, seat, mask)
        return out

    def _write_match_rows(self, match: MatchState) -> None:
        """Every seat's eight match values (they change between hands only)."""
        rules, n = self.rules, self.n
        over = match.winner is not None
        key = (tuple(match.kots), tuple(match.points), match.streak, match.hands_completed, over)
        rows = self._match_rows.get(key)
        if rows is None:
            values = [
                _match_features(rules, side_of(s), match.kots, match.points, match.streak, match.hands_completed, over)
                for s in range(n)
            ]
            rows = self._match_rows[key] = np.array(values, dtype=np.float64).reshape(-1).astype(np.float32)
            if len(self._match_rows) > 256:  # a long match: keep the cache small
                self._match_rows.clear()
        self._values[self._o_match : self._o_match + 8 * n] = rows
        self._match_seen = match.hands_completed
