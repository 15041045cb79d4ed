"""One browser match: the engine, the bots, the R6 record and the log, without any web code.

A :class:`WebGame` is a person at one seat and bots at the others, driven step by step
by the server: :meth:`WebGame.play` for the person's moves, :meth:`WebGame.bot_turn` /
:meth:`WebGame.apply_bot` and :meth:`WebGame.draw` for everything else, and
:meth:`WebGame.deal_next` between hands (the page asks for it, so a person can read
the hand's result first). Every move goes through :class:`MatchState`, which validates
before it changes anything (R5); this module only adds the checks that belong to the
table (is it the person's turn, is the text a move at all), and raises the engine's own
:class:`IllegalMoveError` for them, so every refusal reads the same.

Deals nobody can know in advance: without a seed from the client the game draws 128
bits of :mod:`secrets` and shows :attr:`WebGame.commitment` (the seed's SHA-256,
:func:`dehla_env.records.seed_commitment`) from the first card; the record reveals the
seed, and ``dehla-replay --check-seed`` confirms the deals followed from it. A client's
seed (practice) makes the deal known to whoever chose it, and the page says so.

The game keeps its R6 record as it goes (the deck of each hand and every move's text,
``draw:XX`` included), because the engine's event list also holds the automatic
closed-trump reveal (R2.4c), which is not a move.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.base import Agent
from agents.playing.deals import bot_seed
from agents.playing.narrate import Narrator
from agents.registry import make_agent
from dehla_env.actions import action_text, parse_action
from dehla_env.cards import card_text, cards_text
from dehla_env.engine import MatchState, Phase
from dehla_env.errors import IllegalMoveError
from dehla_env.records import deal_rng, seed_commitment
from dehla_env.rules import Rules
from dehla_env.seats import side_of
from dehla_env.view import PlayerView, view_of

HUMAN = "human"  # the spec recorded for the person's seat
SEED_BITS = 128  # a secret match seed: no seat's cards single it out

DeckSource = Callable[[int, np.random.Generator], Sequence[int]]  # (dealer, rng) -> deck (R0.3)


class SetupError(ValueError):
    """A game that cannot be started (bad seat, unknown agent spec, missing checkpoint)."""


@dataclass
class HandRecord:
    """One R6 ``hands`` entry, filled in as the hand is played."""

    deck: str
    moves: list[str] = field(default_factory=list)


class WebGame:
    """A match between a person at ``human_seat`` and bots (see the module docstring).

    ``seed`` fixes the deals and the bots; without one a secret seed of
    :data:`SEED_BITS` bits is drawn, committed to (:attr:`commitment`) and kept, so
    that the record says how to play the same match again and proves the deal fair. ``deck_source(dealer,
    rng)`` may give the decks instead of shuffling (prepared deals, tests);
    ``first_dealer`` and ``chance_seed`` (the seed of the R1.4 draw's generator) replay
    a deal of a fixed set exactly as the arena deals it (:class:`agents.playing.deals.FixedDeals`).
    """

    def __init__(
        self,
        game_id: str,
        rules: Rules,
        human_seat: int,
        partner: str,
        opponents: str,
        *,
        seed: int | None = None,
        bot_delay: float = 0.0,
        deck_source: DeckSource | None = None,
        first_dealer: int | None = None,
        chance_seed: int | None = None,
    ) -> None:
        n = rules.players
        if isinstance(human_seat, bool) or not isinstance(human_seat, int) or not 0 <= human_seat < n:
            raise SetupError(f"seat must be 0..{n - 1}, not {human_seat!r}")
        #: the SHA-256 of a secret seed, shown before the first card; None: the deal is known
        self.commitment: str | None = None
        if seed is None:
            seed = secrets.randbits(SEED_BITS)
            if deck_source is None and chance_seed is None and first_dealer is None:
                self.commitment = seed_commitment(seed)
        self.id = game_id
        self.rules = rules
        self.human = human_seat
        self.seed = seed
        self.bot_delay = bot_delay
        self.created = time.time()
        self.touched = self.created
        self.rng = deal_rng(seed) if chance_seed is None else np.random.default_rng(chance_seed)
        self.specs: list[str] = []
        self.bots: dict[int, Agent] = {}
        for s in range(n):
            spec = HUMAN if s == human_seat else partner if side_of(s) == side_of(human_seat) else opponents
            if s != human_seat:
                self.bots[s] = self.build_bot(s, spec)
            self.specs.append(spec)
        self.match = MatchState.new(rules, self.rng, first_dealer)
        self.hands: list[HandRecord] = []
        self.version = 0  # bumped by every change, so a page can tell a stale state
        self.saved_to: str | None = None  # the record's file once saved
        self.ended: str | None = None  # "finished" or "abandoned" once saved
        self.narrator = Narrator(self.rules, self.human)
        self.deck_source = deck_source
        self._deal()

    def build_bot(self, seat: int, spec: str) -> Agent:
        """The bot ``spec`` for ``seat``, seeded from the game's seed; :class:`SetupError` if it cannot be made."""
        try:
            return make_agent(spec, self.rules, bot_seed(self.seed, seat))
        except (ValueError, OSError, ImportError, KeyError) as e:
            raise SetupError(f"agent {spec!r} for seat {seat}: {e}") from None

    def view(self) -> PlayerView:
        """What the person may see now (R0.6): the only window the page gets."""
        return view_of(self.match, self.human)

    #: the status while a person is to act (a table with several people says ``person``)
    PERSON_TO_ACT = "your-turn"

    def status(self) -> str:
        """:attr:`PERSON_TO_ACT`, ``bot`` (a bot or the R1.4 draw is next), ``hand-over``
        or ``match-over``."""
        match = self.match
        if match.is_terminal():
            return "match-over"
        if match.hand.phase == Phase.DONE:
            return "hand-over"
        if match.hand.phase == Phase.DRAW or not self.is_person(match.current_player()):
            return "bot"
        return self.PERSON_TO_ACT

    def play(self, text: Any, seat: int | None = None) -> None:
        """Apply the person's move given as R6 text (``TS``, ``trump:S``, ``bid:8H``, ``pass``).

        Raises :class:`IllegalMoveError` (naming move, seat and rule) and changes
        nothing when the move is malformed, out of turn or illegal.
        """
        if seat is not None and seat != self.human:
            shown = text if isinstance(text, str) else repr(text)
            raise IllegalMoveError(shown, seat, f"seat {seat} is played by a bot here; you are seat {self.human}")
        self.play_for(self.human, text)

    def play_for(self, seat: int, text: Any) -> None:
        """A person's move for ``seat``, a seat a person plays: checked against the match
        (over, between hands, not this seat's turn), parsed as R6 text and applied; the
        engine's error, and no change, if refused."""
        shown = text if isinstance(text, str) else repr(text)
        match = self.match
        if match.is_terminal():
            raise IllegalMoveError(shown, seat, f"the match is over (winner {match.winner})")
        hand = match.hand
        if hand.phase == Phase.DONE:
            raise IllegalMoveError(shown, seat, "the hand is over: deal the next hand first")
        if match.current_player() != seat:
            raise IllegalMoveError(shown, seat, f"it is not your turn: {hand.due_text()}")
        if not isinstance(text, str):
            raise IllegalMoveError(shown, seat, "a move is a text such as TS, trump:S, bid:8H or pass", "R6")
        try:
            action = parse_action(text)
        except ValueError as e:
            raise IllegalMoveError(text, seat, f"malformed move ({e})", "R6") from None
        self._apply(seat, action)

    def is_person(self, seat: int) -> bool:
        """Whether a person plays ``seat`` (here: the one person's seat)."""
        return seat == self.human

    def bot_turn(self) -> tuple[int, Agent, PlayerView] | None:
        """The bot to act, its agent and its own view, or None when no bot is to act.

        The view is frozen, so the server may compute the bot's move off the event
        loop while nothing else can change the game (only the person's moves can, and
        they are refused while a bot is to act).
        """
        match = self.match
        seat = match.current_player()
        if seat < 0 or self.is_person(seat):
            return None
        return seat, self.bots[seat], view_of(match, seat)

    def apply_bot(self, seat: int, action: int) -> None:
        """Apply a bot's move; the engine checks it like any other."""
        if self.match.current_player() != seat:
            raise IllegalMoveError(action_text(action), seat, f"it is not seat {seat}'s turn")
        self._apply(seat, int(action))

    def draw(self) -> bool:
        """The R1.4 chance draw if it is due (True), else nothing (False)."""
        match = self.match
        if match.is_terminal() or match.hand.phase != Phase.DRAW:
            return False
        before = self.view()
        match.sample_chance(self.rng)
        self.hands[-1].moves.append("draw:" + card_text(match.hand.draw_card))
        self._changed()
        self.narrator.after_draw(before, self.view())
        return True

    def deal_next(self) -> None:
        """Deal the next hand once the current one is over and the match goes on."""
        match = self.match
        if match.is_terminal():
            raise IllegalMoveError("deal", None, f"the match is over (winner {match.winner})")
        if match.hand.phase != Phase.DONE:
            raise IllegalMoveError("deal", None, f"the hand is not over: {match.hand.due_text()}")
        self._deal()

    def _deal(self) -> None:
        match = self.match
        if self.deck_source is None:
            deck = match.random_deck(self.rng)
        else:
            hand = match.hand
            dealer = hand.dealer if hand.phase == Phase.DEAL else match.summaries[-1].next_dealer
            assert dealer is not None
            deck = list(self.deck_source(dealer, self.rng))
        match.apply_deal(deck)  # checks the deck is a permutation of the pack (R5)
        self.hands.append(HandRecord(cards_text(deck)))
        self._changed()
        self.narrator.after_deal(self.view(), self.match.hands_dealt)

    def _apply(self, seat: int, action: int) -> None:
        if self.ended == "abandoned":  # its record is written: a later move would be missing from it
            raise IllegalMoveError(action_text(action), seat, "the game was saved and closed")
        before = self.view()
        self.match.apply_action(action)  # validates first: a refused move changes nothing (R5)
        self.hands[-1].moves.append(action_text(action))
        self._changed()
        summary = self.match.summaries[-1] if self.match.hand.phase == Phase.DONE else None
        self.narrator.after_move(seat, action, before, self.view(), summary)

    def _changed(self) -> None:
        self.version += 1
        self.touched = time.time()


__all__ = ["HUMAN", "SEED_BITS", "HandRecord", "SetupError", "WebGame"]
