"""Play a whole match in the terminal against bots.

    python -m agents.play --rules dehla [--option key=value ...] --seat 0 \\
        [--partner SPEC] [--opponents SPEC] [--seed S] [--symbols] [--auto-forced]

You see what your seat may see (R0.6), read from the seat's :class:`PlayerView`: your
hand, the trick in progress, the middle (cards and tens waiting, and who takes it with
this trick, R1.5), the trump (a closed trump you did not choose shows as hidden), and
the score, as :func:`dehla_env.render.table_text` draws them. Every move is told as it
happens (:mod:`agents.playing.narrate`), and every trick's winner.

When it is your turn the legal moves are listed with numbers, cards in the order of
your hand (spades, hearts, diamonds, clubs; high cards first). Type a number from the
list, a card (``TS``, ``10s``, ``ts``, ``T♠``: case does not matter, and suit symbols
are letters too), a move (``trump:S``, ``bid:8H``, ``pass``; when a trump choice is
due a bare suit ``S`` or ``♠`` will do, and in the bidding ``8H``), ``help`` to show
the table again, or ``q`` to quit. A bad entry is explained and asked again.
``--symbols`` writes suits as ``♠ ♥ ♦ ♣`` everywhere; ``--auto-forced`` plays a move
for you when it is the only legal one.

Exit status: 0 when the match ends or you quit with ``q``; 1 at the end of the input;
130 on Ctrl-C; 2 for a bad command line (one line on stderr).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, NoReturn

import numpy as np

from agents.playing.deals import bot_seed
from agents.playing.loop import play
from agents.playing.narrate import Narrator
from agents.registry import default_bot, make_agent, spec_help
from dehla_env.actions import PASS_ACTION, TRUMP_OFFSET, bid_of, is_bid, is_card, is_trump, parse_action
from dehla_env.cards import SUIT_LETTERS, rank_of, suit_of
from dehla_env.commands import typed_command
from dehla_env.engine import HandSummary, MatchState, MatchWinner, Phase
from dehla_env.render import (
    SUIT_NAMES,
    SUIT_ORDER,
    hand_score_row,
    hand_text,
    match_score_row,
    move_label,
    relation,
    suit_label,
    table_text,
)
from dehla_env.rules import PRESETS, Rules, make_rules, parse_option_pairs
from dehla_env.seats import side_of
from dehla_env.view import PlayerView, view_of

#: every suit symbol a person may type (black, white and emoji forms) -> its letter
_SYMBOL_INPUT = {"♣": "C", "♧": "C", "♦": "D", "♢": "D", "♥": "H", "♡": "H", "♠": "S", "♤": "S"}
_VARIATION_SELECTORS = ("\ufe0e", "\ufe0f")  # the emoji forms add one of these after the symbol
QUIT = "quit"


class BadInput(ValueError):
    """A line that is not a legal move now; the message says why."""


class _Leaving(Exception):
    """The person left at the prompt (:attr:`TerminalGame.left` says how): stops the loop."""


class Left(Enum):
    """Why the person left before the match ended; :func:`main` turns it into the exit status."""

    QUIT = 0  # typed q: a choice, not a failure
    END_OF_INPUT = 1  # stdin ran out (a script too short, or Ctrl-D)
    INTERRUPT = 130  # Ctrl-C: 128 + SIGINT, as shells report it


# ---------------------------------------------------------------------- words
def display_order(legal: Sequence[int]) -> list[int]:
    """The legal moves in the order the hand shows cards (:data:`SUIT_ORDER`, high first),
    so that move 1 is the leftmost card of the hand; pass before bids, bids by size."""

    def key(a: int) -> tuple[int, ...]:
        if a == PASS_ACTION:
            return (0,)
        if is_bid(a):
            tricks, suit = bid_of(a)
            return (1, tricks, SUIT_ORDER.index(suit))
        if is_trump(a):
            return (2, SUIT_ORDER.index(a - TRUMP_OFFSET))
        return (3, SUIT_ORDER.index(suit_of(a)), -(rank_of(a)))

    return sorted(legal, key=key)


# ---------------------------------------------------------------------- input
def _canonical(text: str, phase: Phase) -> str:
    """Tolerant text -> strict R6 move text (``ts`` -> ``TS``, ``10s`` -> ``TS``,
    ``K♣`` -> ``KC``, ``trump:s`` -> ``trump:S``, ``S`` or ``♠`` -> ``trump:S`` when a
    trump choice is due, ``8h`` -> ``bid:8H`` in the bidding)."""
    low = text.strip().lower().replace(" ", "")
    for v in _VARIATION_SELECTORS:
        low = low.replace(v, "")
    low = "".join(_SYMBOL_INPUT.get(ch, ch) for ch in low).lower()
    if low == "pass":
        return "pass"
    if low.startswith("trump:"):
        return "trump:" + low[6:].upper()
    if low.startswith("bid:"):
        return "bid:" + low[4:].upper()
    if phase == Phase.TRUMP and len(low) == 1 and low.upper() in SUIT_LETTERS:
        return "trump:" + low.upper()
    if phase == Phase.BID and len(low) >= 2 and low[:-1].isdigit() and low[-1].upper() in SUIT_LETTERS:
        return "bid:" + low.upper()
    if low.startswith("10") and len(low) == 3:
        low = "t" + low[2:]
    return low.upper()


def parse_move(text: str, legal: Sequence[int], match: MatchState, seat: int, symbols: bool = False) -> int | str:
    """The action meant by ``text``, or :data:`QUIT`; raises :class:`BadInput`.

    A number picks from ``legal`` in the order given (the order the list was shown in).
    """
    t = text.strip()
    if not t:
        raise BadInput("Please type a move: a number from the list, a card like TS, or q to quit.")
    if t.lower() in ("q", "quit", "exit"):
        return QUIT
    if t.isdigit():
        k = int(t)
        if 1 <= k <= len(legal):
            return legal[k - 1]
        raise BadInput(f"There is no move number {k}: choose 1 to {len(legal)}.")
    hand = match.hand
    try:
        action = parse_action(_canonical(t, hand.phase))
    except ValueError:
        raise BadInput(
            f"{t!r} is not a move: type a number from the list, a card like TS, trump:S, bid:8H or pass."
        ) from None
    if action in legal:
        return action
    name = move_label(action, symbols)
    if hand.phase == Phase.PLAY:
        if not is_card(action):
            raise BadInput(f"{name} is not due now: play a card.")
        if action not in hand.hand_cards(seat):
            raise BadInput(f"You do not hold {name}.")
        if hand.led >= 0:
            suit = SUIT_LETTERS[hand.led]
            raise BadInput(
                f"You must follow suit: play a card of {SUIT_NAMES[suit]} ({suit_label(hand.led, symbols)})."
            )
    if hand.phase == Phase.TRUMP and not is_trump(action):
        raise BadInput(f"{name} is not due now: choose a trump suit (trump:C, trump:D, trump:H or trump:S).")
    if hand.phase == Phase.BID:
        if is_bid(action):
            raise BadInput(f"{name} is not high enough: a bid must name more tricks than {hand.high_bid}.")
        raise BadInput(f"{name} is not due now: bid (e.g. bid:8H) or pass.")
    raise BadInput(f"{name} is not a legal move now.")


class TerminalGame:
    """One match: a person at ``human_seat``, bots everywhere else (``partner`` and
    ``opponents``: agent specs; left out, :func:`agents.registry.default_bot`).

    ``input_fn(prompt) -> str`` and ``print_fn(text)`` do the talking (``input`` and
    ``print`` by default), so tests can script the person. After :meth:`run`,
    :attr:`left` says why the person left early (None if the match ended).
    """

    def __init__(
        self,
        rules: Rules,
        human_seat: int = 0,
        partner: str | None = None,
        opponents: str | None = None,
        seed: int | None = None,
        input_fn: Callable[[str], str] = input,
        print_fn: Callable[..., Any] = print,
        symbols: bool = False,
        auto_forced: bool = False,
    ) -> None:
        n = rules.players
        if not 0 <= human_seat < n:
            raise ValueError(f"seat must be 0..{n - 1} for {n} players, not {human_seat}")
        self.rules, self.human, self.symbols, self.auto_forced = rules, human_seat, symbols, auto_forced
        self.input_fn, self.print_fn = input_fn, print_fn
        self.rng = np.random.default_rng(None if seed is None else [seed, 0])
        self.match = MatchState.new(rules, self.rng)
        self.specs: dict[int, str] = {}
        self.bots = {}
        for s in range(n):
            if s == human_seat:
                continue
            role = "partner" if side_of(s) == side_of(human_seat) else "opponents"
            spec = (partner if role == "partner" else opponents) or default_bot(rules)
            self.specs[s] = spec
            try:
                self.bots[s] = make_agent(spec, rules, None if seed is None else bot_seed(seed, s))
            except ValueError as e:  # name the flag: the same spec text can be either side's
                raise ValueError(f"--{role} {spec}: {e}") from None
        self.rejected = 0  # bad entries seen (for tests)
        self.left: Left | None = None
        self.seen = self._look()  # the person's view as last narrated
        self.narrator = _Commentary(self)

    # ------------------------------------------------------------------ text
    def say(self, text: str = "") -> None:
        self.print_fn(text)

    def move(self, action: int) -> str:
        return move_label(action, self.symbols)

    def table(self) -> str:
        """The table as the person's seat sees it (R0.6): built from its PlayerView only."""
        return table_text(view_of(self.match, self.human), self.symbols, self.specs)

    # ------------------------------------------------------------------ the match
    def run(self) -> MatchWinner | None:
        """Play until the match ends (returns the winner: 0, 1 or ``"draw"``) or the
        person leaves (returns None; :attr:`left` says how)."""
        rules = self.rules
        n = rules.players
        human_side = side_of(self.human)
        mates = [s for s in range(n) if side_of(s) == human_side and s != self.human]
        others = [s for s in range(n) if side_of(s) != human_side]
        self.say(f"{rules}")
        mate_text = ", ".join(f"seat {s} ({self.specs[s]})" for s in mates)
        opp_text = ", ".join(f"seat {s} ({self.specs[s]})" for s in others)
        self.say(f"You are seat {self.human}, side {human_side}; partner {mate_text}; opponents {opp_text}.")
        self.say("Type a number from the list or a move (TS, trump:S, bid:8H, pass); help shows the table; q quits.")
        try:
            play(self.match, self._decide, self._chance, over=MatchState.is_terminal, apply=self._apply)
        except _Leaving:
            if self.left is Left.QUIT:
                self.say("Goodbye: the match was left unfinished.")
            return None
        return self.match.winner

    def _look(self) -> PlayerView:
        """The person's view now: everything narrated is read from it (R0.6, R2.4c)."""
        return view_of(self.match, self.human)

    def _chance(self, match: MatchState) -> None:
        match.sample_chance(self.rng)
        before, self.seen = self.seen, self._look()
        if before.phase == Phase.DRAW:
            self.narrator.after_draw(before, self.seen)
        else:
            self.narrator.after_deal(self.seen, self.match.hands_dealt)

    def _apply(self, seat: int, action: int) -> None:
        """Apply a move and narrate it from the person's views before and after: what of
        a closed trump shows is what the view holds (R2.4c), never the engine's state."""
        self.match.apply_action(action)
        before, self.seen = self.seen, self._look()
        summary = self.match.summaries[-1] if self.seen.phase == Phase.DONE else None
        self.narrator.after_move(seat, action, before, self.seen, summary)

    # ------------------------------------------------------------------ the person
    def _moves_text(self, legal: Sequence[int]) -> str:
        items = [f"{i}) {self.move(a)}" for i, a in enumerate(legal, 1)]
        return "\n".join("  " + "   ".join(items[k : k + 8]) for k in range(0, len(items), 8))

    def _show(self, legal: Sequence[int]) -> None:
        self.say("")
        self.say(self.table())
        self.say(self.narrator.your_turn(self._look()))
        self.say(self._moves_text(legal))

    def leave(self, why: Left, message: str) -> None:
        """End the prompt's line and say why, in one line: no traceback, no second message."""
        self.left = why
        self.say("")
        self.say(message)

    def _decide(self, seat: int, view: PlayerView) -> int:
        """A bot's move, or the person's, asked for at the prompt (:class:`_Leaving` when
        they quit or the input ends)."""
        if seat != self.human:
            return self.bots[seat].act(view)
        legal = display_order(view.legal_actions)
        if self.auto_forced and len(legal) == 1:
            self.say(f"  Your only legal move, {self.move(legal[0])}, is played for you (--auto-forced).")
            return legal[0]
        self._show(legal)
        numbers = "1" if len(legal) == 1 else f"1-{len(legal)}"
        prompt = f"your move [{numbers}, move text, help, q]: "
        while True:
            try:
                line = self.input_fn(prompt)
            except EOFError:
                self.leave(Left.END_OF_INPUT, "End of input: leaving the game.")
                raise _Leaving from None
            except KeyboardInterrupt:
                self.leave(Left.INTERRUPT, "Interrupted: leaving the game.")
                raise _Leaving from None
            if line.strip().lower() in ("help", "?", "h"):
                self._show(legal)
                continue
            try:
                move = parse_move(line, legal, self.match, self.human, self.symbols)
            except BadInput as e:
                self.rejected += 1
                self.say(f"  {e}")
                continue
            if move == QUIT:
                self.left = Left.QUIT
                raise _Leaving
            assert isinstance(move, int)
            return move


class _Commentary(Narrator):
    """The shared narration, printed as it happens, with the terminal's words for seats
    (``Seat 2 (partner, hard)``), cards and suits (letters, or ``--symbols``); the
    person's hand after each deal, and the score rows after each hand."""

    def __init__(self, game: TerminalGame) -> None:
        super().__init__(game.rules, game.human)
        self.game = game
        for s, spec in game.specs.items():
            self.names[s] = f"Seat {s} ({relation(s, game.human)}, {spec})"

    def say(self, text: str) -> None:
        self.game.say("  " + text)

    def card(self, card: int) -> str:
        return self.game.move(card)

    def suit(self, suit: int) -> str:
        return suit_label(suit, self.game.symbols)

    def your_hand(self, view: PlayerView) -> str:
        return f"Your hand: {hand_text(view.hand, self.game.symbols)}"

    def more_dealt(self, after: PlayerView) -> None:
        self.say(f"Eight more cards each are dealt. {self.your_hand(after)}")

    def after_deal(self, view: PlayerView, hand_no: int) -> None:
        self.game.say()
        super().after_deal(view, hand_no)
        self.say(self.your_hand(view))

    def _hand_done(self, after: PlayerView, summary: HandSummary) -> None:
        self.game.say()
        self.say(hand_score_row(after, self.human))
        self.say(match_score_row(after, self.human))
        super()._hand_done(after, summary)


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line (no usage block), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _parser() -> _Parser:
    parser = _Parser(
        prog=typed_command("agents.play"),
        description=(__doc__ or "").splitlines()[0],
        epilog=spec_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--rules", default="dehla", choices=PRESETS)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rules option")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    best = "(default: the ruleset's shipped policy, else hard)"
    parser.add_argument("--partner", metavar="SPEC", help=f"your partner(s) {best}")
    parser.add_argument("--opponents", metavar="SPEC", help=f"the opponents {best}")
    parser.add_argument("--seed", type=int, default=None, help="deals and bots (default: a fresh random match)")
    parser.add_argument("--symbols", action="store_true", help="suit symbols (♠ ♥ ♦ ♣) in everything printed")
    parser.add_argument("--auto-forced", action="store_true", help="play your move for you when only one is legal")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the game; returns the exit status (see the module docstring)."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        rules = make_rules(args.rules, parse_option_pairs(args.option))
    except ValueError as e:
        parser.error(f"--option: {e}")
    if not 0 <= args.seat < rules.players:
        parser.error(f"--seat {args.seat}: {rules.name} has seats 0..{rules.players - 1}")
    try:
        game = TerminalGame(
            rules,
            args.seat,
            args.partner,
            args.opponents,
            args.seed,
            symbols=args.symbols,
            auto_forced=args.auto_forced,
        )
    except (ValueError, OSError) as e:
        parser.error(str(e))
    try:
        game.run()
    except KeyboardInterrupt:  # while a bot thinks; at the prompt TerminalGame handles it
        game.leave(Left.INTERRUPT, "Interrupted: leaving the game.")
    return game.left.value if game.left is not None else 0


if __name__ == "__main__":
    raise SystemExit(main())
