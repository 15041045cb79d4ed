"""Play a whole match in the terminal against bots.

    python -m agents.play --rules dehla [--option key=value ...] --seat 0 \\
        --partner hard --opponents medium [--seed S] [--symbols]

You see what your seat may see (R0.6): your hand sorted by suit, the trick in
progress, the middle (cards and tens waiting, and who threatens to take it), the trump
(a closed trump you did not choose shows as hidden), the score and the kots. Every bot
move is printed as it happens, and every trick's winner.

When it is your turn the legal moves are listed with numbers. Type a number from the
list, a card (``TS``, ``10s``, ``ts``: case does not matter), a move (``trump:S``,
``bid:8H``, ``pass``; when a trump choice is due a bare suit letter ``S`` will do, and
in the bidding ``8H``), ``help`` to show the table again, or ``q`` to quit. A bad
entry is explained and asked again; the end of the input leaves the game cleanly.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np

from dehla_env.actions import PASS_ACTION, action_text, is_bid, is_card, is_trump, parse_action
from dehla_env.cards import SUIT_LETTERS, card_text
from dehla_env.engine import DRAW, MatchState, Phase, TrumpContext
from dehla_env.render import hand_by_suit, render_match
from dehla_env.rules import PRESETS, Rules, TrumpMaking, make_rules
from dehla_env.view import view_of

from .registry import make_agent

_SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
QUIT = "quit"


class BadInput(ValueError):
    """A line that is not a legal move now; the message says why."""


def _canonical(text: str, phase: Phase) -> str:
    """Tolerant text -> strict R6 move text (``ts`` -> ``TS``, ``10s`` -> ``TS``,
    ``trump:s`` -> ``trump:S``, ``S`` -> ``trump:S`` when a trump choice is due)."""
    t = text.strip()
    low = t.lower().replace(" ", "")
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


def parse_move(text: str, legal: list[int] | tuple[int, ...], match: MatchState, seat: int) -> int | str:
    """The action meant by ``text``, or :data:`QUIT`; raises :class:`BadInput`."""
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
    name = action_text(action)
    if hand.phase == Phase.PLAY:
        if not is_card(action):
            raise BadInput(f"{name} is not due now: play a card.")
        if action not in hand.hand_cards(seat):
            raise BadInput(f"You do not hold {name}.")
        if hand.led >= 0:
            suit = SUIT_LETTERS[hand.led]
            raise BadInput(f"You must follow suit: play a card of {_SUIT_NAMES[suit]} ({suit}).")
    if hand.phase == Phase.TRUMP and not is_trump(action):
        raise BadInput(f"{name} is not due now: choose a trump suit (trump:C, trump:D, trump:H or trump:S).")
    if hand.phase == Phase.BID:
        if is_bid(action):
            raise BadInput(f"{name} is not high enough: a bid must name more tricks than {hand.high_bid}.")
        raise BadInput(f"{name} is not due now: bid (e.g. bid:8H) or pass.")
    raise BadInput(f"{name} is not a legal move now.")


def _seed_for(seed: int | None, seat: int) -> int | None:
    if seed is None:
        return None
    return int(np.random.SeedSequence([seed, 1000 + seat]).generate_state(1)[0])


class TerminalGame:
    """One match: a person at ``human_seat``, bots everywhere else.

    ``input_fn(prompt) -> str`` and ``print_fn(text)`` do the talking (``input`` and
    ``print`` by default), so tests can script the person.
    """

    def __init__(
        self,
        rules: Rules,
        human_seat: int = 0,
        partner: str = "hard",
        opponents: str = "medium",
        seed: int | None = None,
        input_fn: Callable[[str], str] = input,
        print_fn: Callable[..., Any] = print,
        symbols: bool = False,
    ) -> None:
        n = rules.players
        if not 0 <= human_seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, not {human_seat}")
        self.rules = rules
        self.human = human_seat
        self.input_fn = input_fn
        self.print_fn = print_fn
        self.symbols = symbols
        self.rng = np.random.default_rng(None if seed is None else [seed, 0])
        self.match = MatchState.new(rules, self.rng)
        self.specs: dict[int, str] = {}
        self.bots = {}
        for s in range(n):
            if s == human_seat:
                continue
            spec = partner if s % 2 == human_seat % 2 else opponents
            self.specs[s] = spec
            self.bots[s] = make_agent(spec, rules, _seed_for(seed, s))
        self.rejected = 0  # bad entries seen (for tests)

    # ------------------------------------------------------------------ text
    def say(self, text: str = "") -> None:
        self.print_fn(text)

    def who(self, seat: int) -> str:
        if seat == self.human:
            return f"seat {seat} (you)"
        role = "partner" if seat % 2 == self.human % 2 else "opponent"
        return f"seat {seat} ({role}, {self.specs[seat]})"

    def _hand_line(self) -> str:
        return hand_by_suit(self.match.hand.hand_cards(self.human))

    # ------------------------------------------------------------------ the match
    def run(self) -> int | str | None:
        """Play until the match ends (returns the winner: 0, 1 or ``"draw"``) or the
        person leaves (returns None)."""
        rules = self.rules
        n = rules.players
        human_side = self.human % 2
        mates = [s for s in range(n) if s % 2 == human_side and s != self.human]
        others = [s for s in range(n) if s % 2 != human_side]
        self.say(f"{rules}")
        mate_text = ", ".join(f"seat {s} ({self.specs[s]})" for s in mates)
        opp_text = ", ".join(f"seat {s} ({self.specs[s]})" for s in others)
        self.say(f"You are seat {self.human}, side {human_side}; partner {mate_text}; opponents {opp_text}.")
        self.say("Type a number from the list or a move (TS, trump:S, bid:8H, pass); help shows the table; q quits.")
        match = self.match
        while not match.is_terminal():
            if match.is_chance():
                self._chance()
                continue
            seat = match.current_player()
            if seat == self.human:
                action = self._ask()
                if action is None:
                    self.say("Goodbye: the match was left unfinished.")
                    return None
            else:
                action = self.bots[seat].act(view_of(match, seat))
            self._apply(seat, action)
        return match.winner

    def _chance(self) -> None:
        match = self.match
        hand = match.hand
        if hand.phase == Phase.DRAW:
            match.sample_chance(self.rng)
            card = match.hand.draw_card
            suit = SUIT_LETTERS[card // 13]
            self.say(f"Nobody was void in five tricks: drew {card_text(card)}, so {suit} is trump (R1.4).")
            self.say(f"Eight more cards each are dealt. Your hand: {self._hand_line()}")
            return
        match.sample_chance(self.rng)
        hand = match.hand
        self.say("")
        if hand.phase == Phase.PLAY:
            first = f"seat {hand.leader} leads"
        elif hand.phase == Phase.BID:
            first = f"seat {hand.to_act} bids first"
        else:
            first = f"seat {hand.to_act} names trump"
        self.say(f"=== Hand {match.hands_dealt}: seat {hand.dealer} deals; {first} ===")
        self.say(f"Your hand: {self._hand_line()}")

    def _apply(self, seat: int, action: int) -> None:
        match = self.match
        hand = match.hand
        before_tricks = len(hand.history)
        before_trump = hand.trump_suit
        before_hidden = hand.trump_hidden
        before_stage = hand.stage
        before_tens = tuple(hand.tens)
        ctx = hand.trump_context
        phase = hand.phase
        # what everybody sees of the move
        if phase == Phase.TRUMP and ctx == TrumpContext.VOID and self.rules.trump_making is TrumpMaking.CLOSED:
            if seat == self.human:
                self.say(f"  {self.who(seat)} chooses {action_text(action)} in secret (closed trump)")
            else:
                self.say(f"  {self.who(seat)} cannot follow and chooses a trump in secret")
        elif phase == Phase.TRUMP:
            self.say(f"  {self.who(seat)} names trump: {SUIT_LETTERS[action - 52]}")
        elif phase == Phase.BID:
            self.say(f"  {self.who(seat)}: {'pass' if action == PASS_ACTION else action_text(action)}")
        else:
            self.say(f"  {self.who(seat)} plays {action_text(action)}")
        match.apply_action(action)
        hand = match.hand
        if before_trump < 0 <= hand.trump_suit and phase == Phase.PLAY:
            self.say(f"  {self.who(seat)} could not follow: {SUIT_LETTERS[hand.trump_suit]} is trump now")
        if phase == Phase.BID and hand.phase != Phase.BID:
            if hand.contract is not None:
                s, t, su = hand.contract
                self.say(f"  Bidding over: {self.who(s)} plays {t} tricks with {SUIT_LETTERS[su]} trump and leads.")
            else:
                self.say(f"  Everyone passed: {self.who(hand.to_act)} takes 7 and names trump.")
        if before_hidden and not hand.trump_hidden and hand.trump >= 0:
            self.say(f"  {self.who(hand.trump_maker)} reveals the closed trump: {SUIT_LETTERS[hand.trump]}")
        if len(hand.history) > before_tricks:
            self._trick_done(before_tens)
        if before_stage == 1 and hand.stage == 2:
            self.say(f"  Eight more cards each are dealt. Your hand: {self._hand_line()}")
        if hand.complete:
            self._hand_done()

    def _trick_done(self, before_tens: tuple[int, ...]) -> None:
        match = self.match
        hand = match.hand
        n = hand.n
        leader, cards, winner = hand.history[-1]
        played = "  ".join(f"{(leader + i) % n}:{card_text(c)}" for i, c in enumerate(cards))
        self.say(f"  Trick {len(hand.history)}: {played}  -> won by {self.who(winner)}")
        gained = [hand.tens[i] - before_tens[i] for i in range(2)]
        if self.rules.has_middle:
            if hand.takes and hand.takes[-1][0] == len(hand.history):
                _t, taker, count = hand.takes[-1]
                tens = gained[taker % 2]
                self.say(f"  {self.who(taker)} takes the middle: {count} cards, {tens} ten{'s' if tens != 1 else ''}")
            elif hand.middle:
                self.say(
                    f"  Middle: {len(hand.middle)} cards, {hand.middle_tens} tens; "
                    f"seat {hand.last_winner} takes it by winning the next trick"
                )
        elif self.rules.tens_scoring and any(gained):
            side = 0 if gained[0] else 1
            self.say(f"  Side {side} captures {gained[side]} ten{'s' if gained[side] != 1 else ''}")

    def _hand_done(self) -> None:
        match = self.match
        hand = match.hand
        summary = match.summaries[-1]
        rules = self.rules
        mine = self.human % 2
        self.say("")
        self.say(f"--- Hand {match.hands_completed} over ---")
        parts = [f"tricks {hand.tricks[0]}-{hand.tricks[1]}"]
        if rules.tens_scoring:
            parts.append(f"tens {hand.tens[0]}-{hand.tens[1]}")
        if hand.contract is not None:
            s, t, su = hand.contract
            parts.append(f"contract {t}{SUIT_LETTERS[su]} by seat {s}")
        self.say("  " + ", ".join(parts) + " (side 0 - side 1)")
        w = summary.hand_winner
        if w is None:
            self.say("  No winner this hand.")
        else:
            self.say(f"  Side {w} wins the hand ({'your side' if w == mine else 'the opponents'}).")
        if summary.kot is not None:
            self.say(f"  Kot for side {summary.kot}!")
        score = f"  Kots {match.kots[0]}-{match.kots[1]}"
        if rules.scores_points:
            score += f", points {match.points[0]} : {match.points[1]}"
        if match.streak is not None:
            score += f", streak: side {match.streak[0]} x{match.streak[1]}"
        self.say(score)
        if match.winner is not None:
            if match.winner == DRAW:
                self.say("=== The match is drawn. ===")
            else:
                result = "you win" if match.winner == mine else "you lose"
                self.say(f"=== Side {match.winner} wins the match: {result}. ===")

    # ------------------------------------------------------------------ the person
    def _moves_text(self, legal: list[int]) -> str:
        items = [f"{i}) {action_text(a)}" for i, a in enumerate(legal, 1)]
        lines = []
        for k in range(0, len(items), 8):
            lines.append("  " + "   ".join(items[k : k + 8]))
        return "\n".join(lines)

    def _situation(self) -> str:
        match = self.match
        hand = match.hand
        if hand.phase == Phase.BID:
            high = f"the highest bid is {hand.high_bid}" if hand.high_bid >= 7 else "no bid yet"
            return f"Your bid ({high}): bid:N plus a suit, N from 7 to 13, or pass."
        if hand.phase == Phase.TRUMP:
            ctx = hand.trump_context
            if ctx == TrumpContext.VOID and self.rules.trump_making is TrumpMaking.CLOSED:
                return "You cannot follow suit: choose a trump suit in secret (revealed when you next cannot follow)."
            if ctx == TrumpContext.VOID:
                return "You cannot follow suit: name the trump suit, then play any card."
            if ctx == TrumpContext.ALL_PASS:
                return "Everyone passed: you take 7 tricks; name the trump suit."
            return "Name the trump suit."
        if hand.led >= 0:
            return f"Your card ({_SUIT_NAMES[SUIT_LETTERS[hand.led]]} led):"
        return "Your lead:"

    def _show(self, legal: list[int]) -> None:
        self.say("")
        self.say(render_match(self.match, seat=self.human, symbols=self.symbols))
        self.say(self._situation())
        self.say(self._moves_text(legal))

    def _ask(self) -> int | None:
        """The person's move (None if they quit or the input ended)."""
        match = self.match
        legal = match.legal_actions()
        self._show(legal)
        prompt = f"your move [1-{len(legal)}, move text, help, q]: "
        while True:
            try:
                line = self.input_fn(prompt)
            except EOFError:
                self.say("")
                self.say("End of input: leaving the game.")
                return None
            except KeyboardInterrupt:
                self.say("")
                self.say("Interrupted: leaving the game.")
                return None
            if line is None:
                self.say("End of input: leaving the game.")
                return None
            if line.strip().lower() in ("help", "?", "h"):
                self._show(legal)
                continue
            try:
                move = parse_move(line, legal, match, self.human)
            except BadInput as e:
                self.rejected += 1
                self.say(f"  {e}")
                continue
            if move == QUIT:
                return None
            assert isinstance(move, int)
            return move


def main(argv: list[str] | None = None) -> int:
    from dehla_env.demo import parse_options

    parser = argparse.ArgumentParser(prog="python -m agents.play", description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="dehla", choices=PRESETS)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rules option")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--partner", default="hard", metavar="SPEC", help="your partner(s) (default hard)")
    parser.add_argument("--opponents", default="medium", metavar="SPEC", help="the opponents (default medium)")
    parser.add_argument("--seed", type=int, default=None, help="deals and bots (default: a fresh random match)")
    parser.add_argument("--symbols", action="store_true", help="suit symbols in the table")
    args = parser.parse_args(argv)
    try:
        rules = make_rules(args.rules, parse_options(args.option))
        game = TerminalGame(rules, args.seat, args.partner, args.opponents, args.seed, symbols=args.symbols)
    except ValueError as e:
        parser.error(str(e))
    try:
        game.run()
    except KeyboardInterrupt:
        print("\nInterrupted: leaving the game.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
