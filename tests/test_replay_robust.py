"""R6 replay robustness: one bad line must not cost any other result.

R6: "Replaying a record prints one JSON object per input line". These tests hold the
command (``python -m dehla_env.replay``) and :mod:`dehla_env.records` to that for any
bytes: one result per line, blank lines included; strict JSON out (the id policy);
every move error naming the move, the seat (or chance) and a rule (R5); documented
exit codes and no traceback for a missing file, a directory or a closed stdout. The
hypothesis fuzz at the end replays mutated records and arbitrary bytes.
"""

from __future__ import annotations

import copy
import io
import json
import re
import shlex
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dehla_env import MatchState, make_rules, replay
from dehla_env.actions import NUM_ACTIONS, action_text
from dehla_env.cards import card_text, cards_text
from dehla_env.engine import Phase
from dehla_env.records import EMPTY_LINE, MAX_SAFE_ID, SHOWN_CHARS, replay_line, replay_lines, replay_record
from dehla_env.replay import main
from tests.deals import deck_from_hands
from tests.rulesets import RULESETS

ROOT = Path(__file__).resolve().parents[1]
SEAT = re.compile(r"by seat \d+|by chance|with no seat to act")
RULES_CITED = re.compile(r"\(R\d+(\.\d+)?(, R\d+(\.\d+)?)*\)$")
RESULT_KEYS = {"id", "error", "winner", "hands_played", "hands"}


# ===================================================================== helpers


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} in the output")


def _strict(line: str) -> dict[str, Any]:
    """Parse one output line as strict JSON (no NaN/Infinity) and check its shape."""
    obj = json.loads(line, parse_constant=_refuse)
    assert isinstance(obj, dict) and set(obj) == RESULT_KEYS, line[:200]
    json.dumps(obj, allow_nan=False, ensure_ascii=False).encode("utf-8")  # no lone surrogate either
    return obj


def _run_cli(args: list[str], data: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "dehla_env.replay", *args], input=data, capture_output=True, cwd=ROOT, timeout=60
    )


def _main_on_bytes(data: bytes, tmp: Path) -> tuple[int, list[str]]:
    """``main([file])`` on a file holding ``data``: the exit status and output lines."""
    path = tmp / "records.jsonl"
    path.write_bytes(data)
    out = io.StringIO()
    status = main([str(path)], stdout=out)
    return status, out.getvalue().splitlines()


def _input_lines(data: bytes) -> int:
    """Lines as R6 / JSON Lines count them: ended by \\n, a final newline adds none."""
    return 0 if not data else data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _check_move_error(result: dict[str, Any], record: Any) -> None:
    """A move error names the move, the seat (or chance) and a rule number (R5, R6)."""
    err = result["error"]
    if not isinstance(err, dict) or err["move"] is None:
        return
    reason = err["reason"]
    assert SEAT.search(reason), reason
    assert RULES_CITED.search(reason), reason
    hand = record["hands"][err["hand"]]
    moves = hand.get("moves")
    move = moves[err["move"]] if isinstance(moves, list) else moves
    if isinstance(move, str) and len(move) <= SHOWN_CHARS:
        readable = move.encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate, escaped
        assert f'"{readable}"' in reason, reason
    else:
        assert '"' in reason, reason


def _all_follow_deck(dealer: int) -> list[int]:
    """Every seat's first five have one suit pattern (2 clubs, a diamond, a heart, a
    spade): everybody can always follow, so dehla's five tricks make no trump and the
    R1.4 draw is due."""
    firsts = [
        f"{r1}C {r2}C {r3}D {r3}H {r3}S"
        for r1, r2, r3 in (("2", "3", "2"), ("4", "5", "3"), ("6", "7", "4"), ("8", "9", "5"))
    ]
    return deck_from_hands(dealer, firsts)


def _play_record(rules_name: str, options: dict[str, Any], seed: int, hands: int, all_follow: bool = False) -> dict:
    """An R6 record of ``hands`` hands of random legal play (a valid record)."""
    rules = make_rules(rules_name, options)
    rng = np.random.default_rng(seed)
    match = MatchState(rules, int(rng.integers(rules.players)))
    recorded = []
    while match.winner is None and len(recorded) < hands:
        deck = _all_follow_deck(match.first_dealer) if all_follow and not recorded else match.random_deck(rng)
        match.apply_deal(deck)
        moves = []
        while not match.hand.complete:
            if match.hand.phase == Phase.DRAW:
                candidates = match.hand.draw_candidates()
                card = candidates[int(rng.integers(len(candidates)))]
                match.apply_draw(card)
                moves.append("draw:" + card_text(card))
            else:
                legal = match.legal_actions()
                action = legal[int(rng.integers(len(legal)))]
                match.apply_action(action)
                moves.append(action_text(action))
        recorded.append({"deck": cards_text(deck), "moves": moves})
    return {
        "id": f"{rules_name}-{seed}",
        "rules": rules_name,
        "options": options,
        "first_dealer": match.first_dealer,
        "hands": recorded,
    }


@lru_cache(maxsize=1)
def _base_records() -> tuple[dict[str, Any], ...]:
    """Valid records of every ruleset, the seeds of the mutation fuzz."""
    # every entry of tests/rulesets.py, two hands each, and a first hand where every seat
    # follows suit (R1.4: the draw)
    records = (
        _play_record("dehla", {"max_hands": 2}, 1, 2, all_follow=True),
        *(_play_record(name, options, seed, 2) for seed, (name, options) in enumerate(RULESETS, start=2)),
    )
    for record in records:
        assert replay_record(record)["error"] is None, record["id"]
    return records


def _dehla_record(**options: Any) -> dict[str, Any]:
    return _play_record("dehla", options, 11, 1)


# ===================================================================== one test per finding


def test_deeply_nested_json_line_is_an_error_object_and_later_lines_replay(tmp_path: Path) -> None:
    """JSON nested ~1,000 deep used to end the replay in a RecursionError."""
    good = json.dumps(_dehla_record()).encode()
    deep = b'{"id": "deep", "x": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    status, lines = _main_on_bytes(deep + b"\n" + good + b"\n", tmp_path)
    assert status == 0 and len(lines) == 2
    first, second = map(_strict, lines)
    assert first["error"] == {"hand": None, "move": None, "reason": first["error"]["reason"]}
    assert "nested deeper" in first["error"]["reason"]
    assert second["error"] is None and second["hands_played"] == 1


def test_integer_over_4300_digits_is_an_error_object(tmp_path: Path) -> None:
    """An integer Python will not read (ValueError, not JSONDecodeError) used to crash."""
    status, lines = _main_on_bytes(b'{"id": ' + b"9" * 5000 + b', "rules": "dehla"}\n{"id": "next"}\n', tmp_path)
    assert status == 0 and len(lines) == 2
    first, second = map(_strict, lines)
    assert first["id"] is None and first["error"]["hand"] is None and "not JSON" in first["error"]["reason"]
    assert second["id"] == "next"


def test_invalid_utf8_line_on_stdin_costs_no_other_line() -> None:
    """Bytes that are not UTF-8 used to kill the replay, losing even the records read
    before them (the text reader's buffer)."""
    good = json.dumps(_dehla_record()).encode()
    data = good + b"\n" + b'{"id": "\xff\xfe"}\n' + good + b"\n"
    proc = _run_cli([], data)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    results = [_strict(line) for line in proc.stdout.decode("ascii").splitlines()]
    assert len(results) == 3
    assert results[0]["error"] is None and results[2]["error"] is None
    assert results[1]["id"] is None and "not UTF-8" in results[1]["error"]["reason"]


def test_utf16_file_gets_one_error_object_per_line(tmp_path: Path) -> None:
    """A UTF-16 file used to end in a UnicodeDecodeError traceback. R6 records are UTF-8
    JSON Lines: lines end at 0x0A bytes, so the NUL after the last one (UTF-16-LE) is a
    fourth line; each gets an error object that suggests UTF-16, none is lost."""
    text = "\n".join(json.dumps({"id": f"r{i}"}) for i in range(3)) + "\n"
    data = text.encode("utf-16")
    status, lines = _main_on_bytes(data, tmp_path)
    assert status == 0 and len(lines) == _input_lines(data) == 4
    for result in map(_strict, lines):
        assert result["error"]["hand"] is None and "UTF-16" in result["error"]["reason"]


def test_blank_lines_get_an_empty_line_error_object(tmp_path: Path) -> None:
    """R6 promises one object per input line: blank lines used to be skipped silently.
    A final newline ends the last line and makes no line of its own."""
    good = json.dumps(_dehla_record()).encode()
    data = b"\n" + good + b"\n  \r\n\n" + good
    status, lines = _main_on_bytes(data + b"\n", tmp_path)
    assert status == 0 and len(lines) == _input_lines(data) == 5
    results = list(map(_strict, lines))
    for i in (0, 2, 3):
        assert results[i]["error"] == {"hand": None, "move": None, "reason": EMPTY_LINE}
    assert results[1]["error"] is None and results[4]["error"] is None
    assert _main_on_bytes(b"", tmp_path) == (0, [])


@pytest.mark.parametrize(
    ("id_text", "echoed"),
    [
        ('"dp-0001"', "dp-0001"),
        ("17", 17),
        ("null", None),
        (str(MAX_SAFE_ID), MAX_SAFE_ID),
        (str(MAX_SAFE_ID + 1), None),
        ("9" * 4000, None),
        ("1.5", None),
        ("1e400", None),
        ("true", None),
        ('{"a": [1, 2]}', None),
        ('"\\ud800"', None),
        ('"\\ud83d\\ude00"', "\U0001f600"),
        ("[1]", None),
        ("NaN", None),
        ("-Infinity", None),
    ],
)
def test_output_is_strict_json_whatever_the_id(id_text: str, echoed: Any) -> None:
    """A NaN id used to be echoed as ``NaN`` (not JSON). Id policy: strings, null and
    integers within +-(2**53-1) come back as given, any other id as null; the NaN and
    Infinity constants are not JSON, so such a line is an error object."""
    record = json.dumps({k: v for k, v in _dehla_record().items() if k != "id"})
    out = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.jsonl"
        path.write_text('{"id": ' + id_text + ", " + record[1:] + "\n")
        assert main([str(path)], stdout=out) == 0
    (line,) = out.getvalue().splitlines()
    result = _strict(line)
    assert result["id"] == echoed and type(result["id"]) is type(echoed)
    if id_text in ("NaN", "-Infinity"):
        assert "not JSON" in result["error"]["reason"]
    else:
        assert result["error"] is None and result["hands_played"] == 1


def test_every_move_error_names_the_move_seat_and_rule() -> None:
    """R5/R6: "name the move, seat and rule". Moves after the match or the hand is over
    used to name no rule and no seat, and a bad R1.4 draw named no seat (not "chance")."""
    record = _dehla_record(kots=1, max_hands=1)
    over = copy.deepcopy(record)
    over["hands"][0]["moves"].append("AS")  # the match is over after its one hand
    hand_over = _dehla_record(max_hands=3)
    hand_over["hands"][0]["moves"].append("pass")  # the hand is over, the match is not
    draw = _play_record("dehla", {}, 1, 1, all_follow=True)
    moves = draw["hands"][0]["moves"]
    at = next(i for i, m in enumerate(moves) if m.startswith("draw:"))
    played = set(moves[:at])
    unplayed = next(card_text(c) for c in range(52) if card_text(c) not in played)
    draw["hands"][0]["moves"] = [*moves[:at], "draw:" + unplayed]
    not_list = _dehla_record()
    not_list["hands"][0]["moves"] = "AS KS"
    junk = _dehla_record()
    junk["hands"][0]["moves"][3:] = [{"card": "AS"}]
    for rec, fragments in (
        (over, ['"AS" with no seat to act', "match is over", "(R6, R5)"]),
        (hand_over, ['"pass" by chance', "hand is over", "(R6, R5)"]),
        (draw, [f'"draw:{unplayed}" by chance', "(R1.4, R5)"]),
        (not_list, ['"AS KS" by seat', "moves must be a list", "(R6, R5)"]),
        (junk, ['"{"card": "AS"}" by seat', "(R6, R5)"]),
    ):
        result = replay_record(rec)
        assert result["error"]["move"] is not None, result["error"]
        for fragment in fragments:
            assert fragment in result["error"]["reason"], (fragment, result["error"])
        _check_move_error(result, rec)


def test_missing_file_exits_2_with_one_line_on_stderr(tmp_path: Path) -> None:
    """A missing file used to end in a FileNotFoundError traceback."""
    proc = _run_cli([str(tmp_path / "no-such.jsonl")])
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode().count("\n") == 1 and b"No such file" in proc.stderr, proc.stderr


def test_directory_exits_2_with_one_line_on_stderr(tmp_path: Path) -> None:
    """A directory as FILE used to end in an IsADirectoryError traceback."""
    proc = _run_cli([str(tmp_path)])
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode().count("\n") == 1 and b"directory" in proc.stderr, proc.stderr


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused_with_one_line_before_it_is_read(path: str, capsys: pytest.CaptureFixture[str]) -> None:
    """/dev/zero as FILE used to be read as one endless line, gigabytes and no output."""
    if not Path(path).exists():
        pytest.skip(f"no {path} here")
    out = io.StringIO()
    assert main([path], stdout=out) == 2 and out.getvalue() == ""
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a character device" in err, err


def test_an_over_long_line_gets_one_error_result_and_the_input_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(replay, "MAX_LINE_BYTES", 100)
    monkeypatch.setattr(replay, "_SKIP_CHUNK", 7)  # the long line is skipped in pieces, never held
    record = b'{"id": "after"}\n'
    status, lines = _main_on_bytes(b"x" * 1000 + b"\n" + record + b"y" * 250, tmp_path)
    assert status == 0 and len(lines) == 3
    first, second, third = (_strict(line) for line in lines)
    assert "longer than 100 bytes" in first["error"]["reason"] and "longer than" in third["error"]["reason"]
    assert second["id"] == "after"
    monkeypatch.setattr(replay, "MAX_INPUT_BYTES", 1000)
    status, lines = _main_on_bytes(record * 100, tmp_path)
    assert status == 2 and len(lines) == 1000 // len(record)  # the lines read before the bound
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "more than 1000 bytes" in err, err


def test_broken_pipe_exits_1_without_a_traceback(tmp_path: Path) -> None:
    """A reader that goes away (``| head -1``) used to leave a BrokenPipeError traceback."""
    path = tmp_path / "many.jsonl"
    path.write_bytes(b'{"id": "x"}\n' * 5000)  # ~900 kB of results: far more than a pipe holds
    proc = subprocess.Popen(
        [sys.executable, "-m", "dehla_env.replay", str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    _strict(proc.stdout.readline().decode())
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=60) == 1
    assert stderr == b"", stderr


def test_closed_stdout_exits_1_with_one_line_on_stderr(tmp_path: Path) -> None:
    """With stdout closed (``>&-``) Python has no sys.stdout: that used to crash."""
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"id": "x"}\n')
    command = f"{shlex.quote(sys.executable)} -m dehla_env.replay {shlex.quote(str(path))} >&-"
    proc = subprocess.run(["sh", "-c", command], cwd=ROOT, capture_output=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.decode().count("\n") == 1 and b"standard output is closed" in proc.stderr, proc.stderr


def test_exit_codes_are_documented_and_main_returns_them(capsys: pytest.CaptureFixture[str]) -> None:
    """--help lists the exit codes; main() returns them instead of raising SystemExit."""
    assert main(["--help"], stdout=io.StringIO()) == 0
    shown = capsys.readouterr().out
    for code in ("0 ", "1 ", "2 ", "130"):
        assert f"\n  {code}" in shown, shown
    assert main(["one.jsonl", "two.jsonl"], stdout=io.StringIO()) == 2
    assert main(["--bogus"], stdout=io.StringIO()) == 2
    capsys.readouterr()


# ===================================================================== the fuzz

_JSON_JUNK = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**53, max_value=10**30)
    | st.just(10**4000)
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(
        ["AS", "TS", "10S", "ts", "trump:S", "trump:X", "bid:8H", "bid:14S", "pass", "draw:KD", "", "\ud800"]
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
_MOVE_TEXTS = st.sampled_from(
    [action_text(a) for a in range(NUM_ACTIONS)] + [f"draw:{card_text(c)}" for c in (0, 25, 51)]
)


@st.composite
def _mutated_record(draw: st.DrawFn) -> tuple[Any, bytes]:
    """A valid record, mutated in its structure and then, maybe, in its bytes."""
    record: Any = copy.deepcopy(draw(st.sampled_from(_base_records())))
    for _ in range(draw(st.integers(0, 3))):
        hands = record.get("hands")
        hand = hands[draw(st.integers(0, len(hands) - 1))] if isinstance(hands, list) and hands else None
        moves = hand.get("moves") if isinstance(hand, dict) else None
        op = draw(st.integers(0, 7))
        if op <= 2 and isinstance(moves, list) and moves:
            i = draw(st.integers(0, len(moves) - 1))
            if op == 0:
                moves[i] = draw(_MOVE_TEXTS)
            elif op == 1:
                moves[i] = draw(_JSON_JUNK)
            else:
                moves.insert(i, draw(_MOVE_TEXTS))
                del moves[draw(st.integers(i, len(moves) - 1)) :]
        elif op == 3 and isinstance(hand, dict) and isinstance(hand.get("deck"), str) and hand["deck"].split():
            cards = hand["deck"].split()  # a deck an earlier mutation left empty has no card to change
            i, j = draw(st.integers(0, len(cards) - 1)), draw(st.integers(0, len(cards) - 1))
            cards[i] = cards[j] if draw(st.booleans()) else draw(st.sampled_from(["XX", "10S", "AS", ""]))
            hand["deck"] = " ".join(cards)
        elif op == 4 and isinstance(record.get("hands"), list):
            record["hands"].append(copy.deepcopy(draw(st.sampled_from(record["hands"] or [{}]))))
        elif op == 5 and isinstance(record.get("options"), dict):
            key = draw(st.sampled_from(["kots", "max_hands", "trump", "players", "points", "colour"]))
            record["options"][key] = draw(_JSON_JUNK)
        elif op == 6:
            key = draw(st.sampled_from(["id", "rules", "options", "first_dealer", "hands"]))
            record[key] = draw(_JSON_JUNK)
        elif op == 7 and isinstance(hand, dict):
            hand[draw(st.sampled_from(["deck", "moves"]))] = draw(_JSON_JUNK)
    data = json.dumps(record).encode()  # NaN / Infinity allowed here: the replay must refuse them
    if draw(st.booleans()):
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, len(data)))
            data = data[:i] + draw(st.binary(max_size=3)) + data[i + draw(st.integers(0, 3)) :]
    return record, data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated_record())
def test_fuzz_mutated_records_always_get_one_strict_result(case: tuple[Any, bytes]) -> None:
    """Any mutation of a valid record: one strict-JSON result, no internal error, and a
    move error names the move, the seat and a rule."""
    record, data = case
    result = replay_line(data)
    _strict(json.dumps(result, allow_nan=False))
    reason = result["error"]["reason"] if result["error"] else ""
    assert "internal error" not in reason, reason
    if b"\n" not in data and data == json.dumps(record).encode():
        _check_move_error(result, record)
        assert result["id"] is None or type(result["id"]) in (str, int)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=40),
            _mutated_record().map(lambda case: case[1]),
            st.sampled_from(
                [
                    b"",
                    b" ",
                    b"\r",
                    b"\xef\xbb\xbf{}",
                    b"\xff\xfe{\x00}\x00",
                    b"[" * 3000,
                    b"-" + b"1" * 5000,
                    b'{"id": "\\udfff"}',
                ]
            ),
        ),
        max_size=6,
    ),
    st.booleans(),
)
def test_fuzz_arbitrary_bytes_give_exactly_one_strict_result_per_line(chunks: list[bytes], final_newline: bool) -> None:
    """Any bytes through main(): exit 0 and exactly one strict-JSON result per input line."""
    data = b"\n".join(chunks) + (b"\n" if final_newline and chunks else b"")
    with tempfile.TemporaryDirectory() as tmp:
        status, lines = _main_on_bytes(data, Path(tmp))
    assert status == 0
    assert len(lines) == _input_lines(data), (data[:200], lines[:3])
    for line in lines:
        result = _strict(line)
        assert "internal error" not in (result["error"] or {}).get("reason", "")
    assert [json.loads(line) for line in lines] == list(replay_lines(io.BytesIO(data)))
