"""The terminal game, driven by a scripted person: every ruleset, bad input, quit, EOF, the
table (side labels, rows by the typed facts, symbols, singular/plural), exit statuses."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agents.play import (
    QUIT,
    BadInput,
    Left,
    TerminalGame,
    display_order,
    parse_move,
)
from agents.play import main as play_main
from agents.registry import spec_help
from dehla_env.actions import PASS_ACTION, action_text, bid_action, trump_action
from dehla_env.cards import card_text, parse_card
from dehla_env.engine import MatchState, Phase
from dehla_env.render import hand_text, move_label, plural, score_pair
from dehla_env.rules import make_rules
from tests.deals import deck_from_hands
from tests.rulesets import short_matches

ROOT = Path(__file__).resolve().parents[1]

# (ruleset, options making the match one hand, human seat): every ruleset
SHORT_MATCHES = short_matches()


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
    assert "Match over" in text or "The match is drawn" in text
    if any("You do not hold" in line for line in out):
        assert "Trick 1 to" in text
    # the person's seat is marked and the others' hands stay hidden
    assert f"seat {seat} (you)" in text
    n = game.rules.players
    for s in range(n):
        if s != seat:
            assert f"seat {s} [side {s % 2}]  " in text


@pytest.mark.parametrize(("name", "options", "seat"), SHORT_MATCHES[::2])
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
        end = next((i for i, ln in enumerate(lines) if "the closed trump is" in ln), len(lines))
        shown = [ln for ln in lines[start:end] if ln.startswith("trump:")]
        assert shown and all(ln.startswith("trump: hidden (closed)") for ln in shown)
        break
    assert found


def test_stdin_game_and_immediate_eof():
    cmd = [sys.executable, "-m", "agents.play", "--rules", "court-piece", "--option", "points=1", "--seed", "5"]
    proc = subprocess.run(cmd, cwd=ROOT, input="1\n" * 400, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Match over" in proc.stdout
    proc = subprocess.run(cmd, cwd=ROOT, input="", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr  # the end of the input is not a finished match
    assert proc.stdout.rstrip().splitlines()[-1] == "End of input: leaving the game."
    assert proc.stderr == ""


# ---------------------------------------------------------------------- the table
_COUNT_WORDS = ("card", "ten", "trick", "kot", "point", "hand")
_BAD_SINGULAR = re.compile(r"(?<![\d-])1 (" + "|".join(w + "s" for w in _COUNT_WORDS) + r")\b")
_BAD_PLURAL = re.compile(r"\b([02-9]|\d\d+) (" + "|".join(_COUNT_WORDS) + r")\b")


def _tables(out: list[str]) -> list[str]:
    """Each table printed (a block from the ruleset header to the score rows)."""
    return [block for block in out if "\n" in block and "dealer: seat" in block]


def _row(table: str, start: str) -> str:
    return next(line for line in table.splitlines() if line.startswith(start))


def test_score_rows_say_which_side_is_first():
    """Every score row is written side 0 : side 1 and says which of them is the person's."""
    for seat, label in ((0, "(side 0 yours : side 1)"), (1, "(side 0 : side 1 yours)")):
        game, _person, out = make_game("dehla", {"kots": 1, "max_hands": 1}, seat, bad_every=0)
        game.run()
        tables = _tables(out)
        assert tables
        for table in tables:
            assert _row(table, "hand ").startswith(f"hand  {label}  tricks ")
            assert _row(table, "match ").startswith(f"match {label}  kots ")
        text = "\n".join(out)
        assert f"  hand  {label}  tricks " in text  # the hand summary too
        assert "(side 0 - side 1)" not in text


@pytest.mark.parametrize(("name", "options"), [("court-piece", {"points": 1}), ("coat-pees", {"gap": 1})])
def test_tens_and_kots_hidden_where_not_scored(name, options):
    """R3, R4 score tricks, not tens; kots do not decide those matches (R3.4, R3.6, R4.5)."""
    game, _person, out = make_game(name, options, 0, bad_every=0)
    game.run()
    assert not game.rules.tens_scoring
    tables = _tables(out)
    assert tables
    for block in out:
        for line in block.splitlines():
            if line.startswith(("hand ", "match ", "  hand ", "  match ")):
                assert "tens" not in line and "kots" not in line, line
                assert "points" in line or "tricks" in line
    assert all("middle" not in t for t in tables)  # R2.3, R3.2: no middle either


def test_tens_and_kots_shown_in_dehla_and_hidden_by_the_typed_fact():
    game, _person, out = make_game("dehla", {"kots": 1, "max_hands": 1}, 0, bad_every=0)
    game.run()
    table = _tables(out)[0]
    assert "tens 0 : 0" in _row(table, "hand ") and "kots 0 : 0" in _row(table, "match ")
    # dehla-direct scored by tricks (R2.5): tens count for nothing, by the fact, not the name
    game, _person, out = make_game("dehla-direct", {"scoring": "tricks", "max_hands": 1}, 0, bad_every=0)
    game.run()
    assert all("tens" not in _row(t, "hand ") for t in _tables(out))


def test_negative_points_are_not_a_double_dash():
    assert score_pair((0, -26)) == "0 : -26"
    game, _person, _out = make_game("coat-pees", {}, 0, bad_every=0)
    game.match.points = [0, -26]  # R4.4: 13 bid and lost
    row = _row(game.table(), "match ")
    assert "points 0 : -26 (gap 26; a side 52 behind loses, R4.5)" in row
    assert "--" not in row
    game, _person, out = make_game("coat-pees", {"max_hands": 1}, 0, seed=3, bad_every=0)
    game.run()
    text = "\n".join(out)
    assert "points 0 : -7 " in text  # side 1 bid 7 and failed (R4.4)
    assert not re.search(r"\d--\d", text)


def test_counts_are_singular_and_plural():
    assert [plural(k, "ten") for k in (0, 1, 2)] == ["0 tens", "1 ten", "2 tens"]
    seen_one = False
    for name, options, seat in SHORT_MATCHES:
        game, _person, out = make_game(name, options, seat, bad_every=0)
        game.run()
        text = "\n".join(out)
        assert not _BAD_SINGULAR.search(text), _BAD_SINGULAR.search(text)
        assert not _BAD_PLURAL.search(text), _BAD_PLURAL.search(text)
        seen_one = seen_one or bool(re.search(r"\b1 (card|ten)\b", text))
    assert seen_one


def test_the_middle_threat_is_worded_for_this_trick():
    """R1.5: the seat that won the last trick since the last take takes the middle if it
    wins the trick being played; the 13th trick's winner takes what is left."""
    game, _person, out = make_game("dehla", {"kots": 1, "max_hands": 1}, 0, bad_every=0)
    game.run()
    rows = [_row(t, "middle:") for t in _tables(out)]
    assert any(re.search(r"seat \d \(\w+\) takes it with this trick if it wins it", r) for r in rows)
    assert all("next trick" not in r for r in rows)
    assert "middle: empty" in rows
    last = [r for r in rows if "the last trick" in r]
    assert all("the winner of this trick takes it" in r for r in last)


def _symbol_typist(game: TerminalGame) -> Callable[[str], str]:
    """A person who types the first listed move as it is shown with symbols (``K♣``)."""
    return lambda _p: move_label(display_order(game.match.legal_actions())[0], symbols=True)


def test_symbols_everywhere_and_typed():
    """--symbols writes every suit as a symbol; typing symbols (K♣, ♠, 8♥) works too."""
    letter_card = re.compile(r"\b[2-9TJQKA][CDHS]\b|trump:[CDHS]|bid:\d+[CDHS]|\b[CDHS]: ")
    for name, options, seat in [("dehla", {"kots": 1, "max_hands": 1}, 0), ("coat-pees", {"gap": 1}, 1)]:
        out: list[str] = []
        rules = make_rules(name, options)
        game = TerminalGame(rules, seat, seed=2, print_fn=out.append, symbols=True)
        game.input_fn = _symbol_typist(game)
        assert game.run() in (0, 1, "draw")
        assert game.rejected == 0  # every symbol move typed was understood
        body = "\n".join(out[3:])  # after the greeting, which explains the letter syntax
        assert "♠" in body and "♥" in body and "♦" in body and "♣" in body
        assert not letter_card.search(body), letter_card.search(body)
    rules = make_rules("dehla-direct")
    deck = deck_from_hands(3, ["AS TS 2S AH 2H 3H 4H 5H 6H 7H 8H 9H TH", None, None, None])
    match = MatchState(rules, 3)
    match.apply_deal(deck)
    legal = match.legal_actions()
    assert parse_move("T♠", legal, match, 0) == parse_card("TS")
    assert parse_move("10♤", legal, match, 0) == parse_card("TS")
    assert parse_move("a♥\ufe0f", legal, match, 0) == parse_card("AH")
    with pytest.raises(BadInput, match="You do not hold K♣"):
        parse_move("K♣", legal, match, 0, symbols=True)
    cp = MatchState(make_rules("court-piece"), 3)
    cp.apply_deal(deck)
    assert parse_move("♠", cp.legal_actions(), cp, 0) == trump_action(3)
    assert parse_move("trump:♦", cp.legal_actions(), cp, 0) == trump_action(1)
    cpe = MatchState(make_rules("coat-pees"), 3)
    cpe.apply_deal(deck)
    assert parse_move("8♥", cpe.legal_actions(), cpe, 0) == bid_action(8, 2)


def test_move_list_in_the_order_of_the_hand():
    cards = [parse_card(t) for t in ["AS", "TS", "2S", "AH", "2H", "KD", "3C", "QC"]]
    assert hand_text(cards) == "S: A T 2  H: A 2  D: K  C: Q 3"
    assert [card_text(c) for c in display_order(sorted(cards))] == ["AS", "TS", "2S", "AH", "2H", "KD", "QC", "3C"]
    assert [action_text(a) for a in display_order([bid_action(8, 0), PASS_ACTION, bid_action(7, 3)])] == [
        "pass",
        "bid:7S",
        "bid:8C",
    ]
    # in a game: a lead may be any card, so the list is the hand, card for card
    game, _person, out = make_game("dehla-direct", {"max_hands": 1}, 0, bad_every=0)
    game.run()
    checked = 0
    for k, block in enumerate(out):
        if block != "Your lead: play any card.":  # printed between the table and the move list
            continue
        hand_row = _row(out[k - 1], "> seat 0 (you) [side 0]  ").split("]  ", 1)[1]
        hand_cards = [r + s[0] for s in hand_row.split("  ") for r in s[3:].split() if r != "-"]
        listed = re.findall(r"\d+\) (\S+)", out[k + 1])
        assert listed == hand_cards
        checked += 1
    assert checked


class _Counting:
    """A person who records how many moves were legal each time they were asked."""

    def __init__(self, game: TerminalGame) -> None:
        self.game = game
        self.sizes: list[int] = []

    def __call__(self, prompt: str) -> str:
        self.sizes.append(len(self.game.match.legal_actions()))
        return "1"


def test_forced_moves_auto_played_only_when_asked():
    def play(auto: bool) -> tuple[_Counting, str]:
        out: list[str] = []
        game = TerminalGame(make_rules("dehla-direct", max_hands=1), 0, seed=2, print_fn=out.append, auto_forced=auto)
        person = _Counting(game)
        game.input_fn = person
        assert game.run() in (0, 1, "draw")
        return person, "\n".join(out)

    asked, text = play(False)
    assert 1 in asked.sizes and "played for you" not in text  # without the option, asked anyway
    auto, text = play(True)
    assert 1 not in auto.sizes
    assert text.count("is played for you (--auto-forced)") == asked.sizes.count(1)


def test_interrupt_and_end_of_input_leave_with_one_line():
    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    def eof(prompt: str) -> str:
        raise EOFError

    for fn, left, message in [
        (interrupt, Left.INTERRUPT, "Interrupted: leaving the game."),
        (eof, Left.END_OF_INPUT, "End of input: leaving the game."),
    ]:
        out: list[str] = []
        game = TerminalGame(make_rules("dehla"), 0, seed=1, input_fn=fn, print_fn=out.append)
        assert game.run() is None
        assert game.left is left
        assert out[-2:] == ["", message]  # the prompt's line ended, then one line
        assert not any("Goodbye" in line for line in out)
    assert (Left.QUIT.value, Left.END_OF_INPUT.value, Left.INTERRUPT.value) == (0, 1, 130)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX")
def test_ctrl_c_at_the_prompt_exits_130_without_traceback():
    cmd = [sys.executable, "-m", "agents.play", "--rules", "dehla", "--seed", "1"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    seen = b""
    deadline = time.monotonic() + 60
    try:
        while b"your move [" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if ready:
                seen += os.read(proc.stdout.fileno(), 65536)
        assert b"your move [" in seen
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert b"Traceback" not in stderr and stderr == b""
    assert (seen + stdout).decode().rstrip().splitlines()[-1] == "Interrupted: leaving the game."


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--partner", "hard:foo=1"], ["--partner hard:foo=1", "no parameter 'foo'"]),
        (["--opponents", "policy:missing.pt"], ["--opponents policy:missing.pt", "no such file"]),
        (["--opponents", "nobody"], ["unknown agent 'nobody'"]),
        (["--option", "kots=0"], ["--option", "kots"]),
        (["--option", "colour=red"], ["--option", "unknown option"]),
        (["--option", "kots"], ["--option", "key=value"]),
        (["--seat", "4"], ["--seat 4", "0..3"]),
        (["--rules", "court-piece", "--seat", "-1"], ["--seat -1"]),
        (["--seat", "x"], ["--seat", "invalid int"]),
        (["--rules", "bridge"], ["--rules", "bridge"]),
    ],
)
def test_bad_command_line_one_line_exit_2(argv, words, capsys):
    with pytest.raises(SystemExit) as exc:
        play_main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("python -m agents.play: error: ")
    for w in words:
        assert w in lines[0]
    assert captured.out == ""


def test_help_lists_the_agent_specs(capsys):
    with pytest.raises(SystemExit) as exc:
        play_main(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert spec_help() in text
    assert "--auto-forced" in text and "--symbols" in text
