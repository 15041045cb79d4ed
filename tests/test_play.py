"""The terminal game, driven by a scripted person: every ruleset, bad input, quit, EOF."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agents.play import QUIT, BadInput, TerminalGame, parse_move
from dehla_env.actions import PASS_ACTION, bid_action, trump_action
from dehla_env.cards import card_text, parse_card
from dehla_env.deals import deck_from_hands
from dehla_env.engine import MatchState, Phase
from dehla_env.rules import make_rules

ROOT = Path(__file__).resolve().parents[1]

# (ruleset, options making the match short, human seat)
SHORT_MATCHES = [
    ("dehla", {"kots": 1, "max_hands": 1}, 0),
    ("dehla", {"trump": "chosen", "kots": 1, "max_hands": 2}, 1),
    ("dehla-direct", {"trump": "closed", "max_hands": 1}, 2),
    ("dehla-direct", {"trump": "named", "scoring": "double-sar", "max_hands": 1}, 3),
    ("dehla-direct", {"trump": "open", "match": "points", "points": 1}, 0),
    ("dehla-direct", {"players": 6, "max_hands": 1}, 5),
    ("court-piece", {"points": 1}, 1),
    ("coat-pees", {"gap": 1}, 0),
    ("coat-pees", {"gap": 1}, 3),
]


class ScriptedPerson:
    """Answers with the first legal move (by number or as lower-case text) and, every
    few decisions, first types a batch of bad entries that must each be rejected."""

    def __init__(self, game: TerminalGame, style: str = "number", bad_every: int = 3) -> None:
        self.game = game
        self.style = style
        self.bad_every = bad_every
        self.queue: list[str] = []
        self.decisions = 0
        self.bad_sent = 0
        self.prompts: list[str] = []

    def answer(self) -> str:
        legal = self.game.match.legal_actions()
        if self.style == "number":
            return "1"
        from dehla_env.actions import action_text

        return action_text(legal[0]).lower()

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.queue:
            return self.queue.pop(0)
        self.decisions += 1
        if self.bad_every <= 0 or self.decisions % self.bad_every != 1 % self.bad_every:
            return self.answer()
        match = self.game.match
        hand = match.hand
        legal = match.legal_actions()
        bad = ["ZZ", "99", "", "   "]
        if hand.phase == Phase.PLAY:
            held = hand.hand_cards(self.game.human)
            bad.append(card_text(next(c for c in range(52) if c not in held)))  # a card not in hand
            illegal = [c for c in held if c not in legal]
            if illegal:
                bad.append(card_text(illegal[0]).lower())  # must follow suit
            bad.append("pass")  # not a card
        elif hand.phase == Phase.TRUMP:
            bad.append("AS")
        elif hand.phase == Phase.BID and hand.high_bid >= 7:
            bad.append(f"bid:{hand.high_bid}C")  # not above the highest bid
        self.bad_sent += len(bad)
        self.queue = bad[1:] + [self.answer()]
        return bad[0]


def make_game(name, options, seat, seed=1, style="number", bad_every=3, **kw):
    out: list[str] = []
    game = TerminalGame(make_rules(name, options), seat, "hard", "medium", seed=seed, print_fn=out.append, **kw)
    person = ScriptedPerson(game, style, bad_every)
    game.input_fn = person
    return game, person, out


@pytest.mark.parametrize(("name", "options", "seat"), SHORT_MATCHES)
def test_whole_short_match_with_bad_input(name, options, seat):
    game, person, out = make_game(name, options, seat)
    winner = game.run()
    text = "\n".join(out)
    assert winner in (0, 1, "draw"), text[-2000:]
    assert game.match.is_terminal()
    assert person.decisions > 0 and person.bad_sent > 0
    assert game.rejected == person.bad_sent  # every bad entry rejected, none accepted
    assert "There is no move number 99" in text
    assert "'ZZ' is not a move" in text
    assert "Please type a move" in text
    assert "=== " in text and ("wins the match" in text or "drawn" in text)
    if any("You do not hold" in line for line in out):
        assert "Trick 1:" in text
    # the person's seat is marked and the others' hands stay hidden
    assert f"seat {seat} (you)" in text
    n = game.rules.players
    for s in range(n):
        if s != seat:
            assert f"seat {s} [side {s % 2}]  " in text


@pytest.mark.parametrize(("name", "options", "seat"), SHORT_MATCHES[:6] + SHORT_MATCHES[7:8])
def test_typed_moves_in_lower_case(name, options, seat):
    game, person, out = make_game(name, options, seat, seed=4, style="text", bad_every=0)
    assert game.run() in (0, 1, "draw")
    assert game.rejected == 0


def test_messages_for_not_held_and_must_follow():
    game, person, out = make_game("dehla-direct", {"max_hands": 1}, 0, seed=2, bad_every=1)
    game.run()
    text = "\n".join(out)
    assert "You do not hold" in text
    assert "You must follow suit" in text
    assert "is not due now: play a card" in text


def test_parse_move_tolerance_and_errors():
    rules = make_rules("dehla-direct")
    deck = deck_from_hands(3, ["AS TS 2S AH 2H 3H 4H 5H 6H 7H 8H 9H TH", None, None, None])
    match = MatchState(rules, 3)
    match.apply_deal(deck)
    legal = match.legal_actions()
    assert parse_move("ts", legal, match, 0) == parse_card("TS")
    assert parse_move(" 10s ", legal, match, 0) == parse_card("TS")
    assert parse_move("As", legal, match, 0) == parse_card("AS")
    assert parse_move("1", legal, match, 0) == legal[0]
    assert parse_move(str(len(legal)), legal, match, 0) == legal[-1]
    assert parse_move("q", legal, match, 0) == QUIT
    assert parse_move("QUIT", legal, match, 0) == QUIT
    for bad, message in [
        ("0", "no move number 0"),
        ("14", "no move number 14"),
        ("", "Please type a move"),
        ("XS", "is not a move"),
        ("KD", "You do not hold KD"),
        ("trump:S", "not due now: play a card"),
    ]:
        with pytest.raises(BadInput, match=message):
            parse_move(bad, legal, match, 0)
    # a trump choice due (court-piece) accepts a bare suit letter and trump:x
    cp = MatchState(make_rules("court-piece"), 3)
    cp.apply_deal(deck)
    legal = cp.legal_actions()
    assert cp.hand.phase == Phase.TRUMP
    assert parse_move("s", legal, cp, 0) == trump_action(3)
    assert parse_move("trump:h", legal, cp, 0) == trump_action(2)
    with pytest.raises(BadInput, match="choose a trump suit"):
        parse_move("AS", legal, cp, 0)
    # bidding: 8h, bid:8H, pass; a bid not above the highest is explained
    cpe = MatchState(make_rules("coat-pees"), 3)
    cpe.apply_deal(deck)
    legal = cpe.legal_actions()
    assert parse_move("8h", legal, cpe, 0) == bid_action(8, 2)
    assert parse_move("BID:9s", legal, cpe, 0) == bid_action(9, 3)
    assert parse_move("Pass", legal, cpe, 0) == PASS_ACTION
    cpe.apply_action(bid_action(9, 3))
    legal = cpe.legal_actions()
    with pytest.raises(BadInput, match="not high enough"):
        parse_move("bid:8C", legal, cpe, 1)
    with pytest.raises(BadInput, match="bid"):
        parse_move("TS", legal, cpe, 1)


def test_must_follow_message():
    rules = make_rules("dehla-direct")
    deck = deck_from_hands(3, ["AS TS 2S AH 2H 3H 4H 5H 6H 7H 8H 9H TH", "KS", None, None])
    match = MatchState(rules, 3)
    match.apply_deal(deck)
    match.apply_action(parse_card("AS"))  # seat 0 leads
    legal = match.legal_actions()  # seat 1 holds KS: must follow
    other = next(c for c in match.hand.hand_cards(1) if c // 13 != 3)
    with pytest.raises(BadInput, match="You must follow suit: play a card of spades"):
        parse_move(card_text(other), legal, match, 1)


def test_quit_and_eof_leave_cleanly():
    out: list[str] = []
    game = TerminalGame(make_rules("dehla"), 0, seed=1, input_fn=lambda p: "q", print_fn=out.append)
    assert game.run() is None
    assert "Goodbye" in out[-1]

    def eof(prompt: str) -> str:
        raise EOFError

    out = []
    game = TerminalGame(make_rules("coat-pees"), 2, seed=1, input_fn=eof, print_fn=out.append)
    assert game.run() is None
    assert any("End of input" in line for line in out)


def test_help_reprints_the_table():
    answers = iter(["help", "1"] * 1000)
    out: list[str] = []
    game = TerminalGame(make_rules("dehla", kots=1, max_hands=1), 0, seed=3, input_fn=lambda p: next(answers))
    game.print_fn = out.append
    assert game.run() in (0, 1, "draw")
    assert game.rejected == 0


def test_closed_trump_of_a_bot_stays_hidden():
    """R2.4c: a bot's secret trump choice is announced without its suit, and the table
    shows the trump as hidden until the reveal."""
    found = False
    for seed in range(20):
        out: list[str] = []
        rules = make_rules("dehla-direct", trump="closed", max_hands=1)
        game = TerminalGame(rules, 0, seed=seed, input_fn=lambda p: "1", print_fn=out.append)
        game.run()
        lines = "\n".join(out).splitlines()
        start = next((i for i, ln in enumerate(lines) if "chooses a trump in secret" in ln), None)
        if start is None or "(you)" in lines[start]:
            continue
        found = True
        assert "trump:" not in lines[start]
        end = next((i for i, ln in enumerate(lines) if "reveals the closed trump" in ln), len(lines))
        shown = [ln for ln in lines[start:end] if ln.startswith("trump:")]
        assert shown and all(ln.startswith("trump: hidden (closed)") for ln in shown)
        break
    assert found


def test_stdin_game_and_immediate_eof():
    cmd = [sys.executable, "-m", "agents.play", "--rules", "court-piece", "--option", "points=1", "--seed", "5"]
    proc = subprocess.run(cmd, cwd=ROOT, input="1\n" * 400, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "wins the match" in proc.stdout
    proc = subprocess.run(cmd, cwd=ROOT, input="", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "End of input" in proc.stdout
