"""R6 conformance records replayed through the batched engine: the test that holds the
batched engine to the rule book's records, as the reference engine's replay is held to them.

:func:`replay_records` takes R6 records (dicts, as in ``records.jsonl``) and returns
one R6 result object per record, like :func:`dehla_env.records.replay_record`, but every
hand is dealt and played by :class:`~dehla_env.vector.engine.BatchEngine`: records
with the same rules run as the games of one engine, one move per game per lockstep
round.

What comes from where:

* per hand (dealer, trump, trump_maker, trick_winners, takes, tricks, tens, contract,
  complete, and the hand's outcome): the batched engine;
* legality: the batched engine's legal mask (and its R1.4 draw candidates); move texts
  are parsed with the reference parsers (:mod:`dehla_env.actions`), a deck is checked
  with :meth:`HandState.check_deck`, so malformed input is rejected at the same place;
* match scoring (points, kots, streak, next dealer, the match winner) is *delegated* to
  the reference :class:`~dehla_env.engine.MatchState`: each batched hand outcome is
  fed to its scoring (``MatchState.score_hand``) as a :class:`HandResult`. The batched
  engine plays hands, not matches.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import numpy as np

from dehla_env.actions import NUM_ACTIONS, parse_action, parse_draw
from dehla_env.cards import parse_card
from dehla_env.engine import HandResult, HandState, MatchState
from dehla_env.errors import IllegalMoveError
from dehla_env.rules import Rules, RulesError, make_rules
from dehla_env.vector.engine import DONE, DRAW, BatchEngine


def _opt(x: int) -> int | None:
    return None if x < 0 else int(x)


class _Game:
    """One record being replayed in slot ``slot`` of its group's engine."""

    def __init__(self, record: dict[str, Any], rules: Rules, match: MatchState, slot: int) -> None:
        self.record = record
        self.rules = rules
        self.match = match
        self.slot = slot
        self.hands: list[Any] = record["hands"]
        self.h = -1  # index of the hand being played
        self.moves: list[Any] = []
        self.i = 0  # next move
        self.done = False
        self.error: dict[str, Any] | None = None
        self.reports: list[dict[str, Any]] = []  # per hand dealt
        self.live = False  # the engine slot holds hand ``h``

    def fail(self, hand: int | None, move: int | None, reason: str) -> None:
        self.error = {"hand": hand, "move": move, "reason": reason}
        self.done = True


def _hand_report(game: _Game, engine: BatchEngine) -> dict[str, Any]:
    rep = engine.summary(game.slot)
    m = game.match
    rep.update(
        points=[m.points[0], m.points[1]],
        hand_winner=None,
        kot=None,
        next_dealer=None,
        kots=[m.kots[0], m.kots[1]],
        streak=list(m.streak) if m.streak is not None and game.rules.tracks_streak else None,
    )
    return rep


def _finish_hand(game: _Game, engine: BatchEngine) -> None:
    """Score a complete hand through the reference match scoring; record its report."""
    g = np.array([game.slot])
    res = engine.outcome(g)
    result = HandResult(
        winner=_opt(res["winner"][0]),
        all_tens=_opt(res["all_tens"][0]),
        kot=_opt(res["kot"][0]),
        score=(int(res["score"][0, 0]), int(res["score"][0, 1])),
    )
    m = game.match
    m.score_hand(result, int(engine.dealer[game.slot]))
    summary = m.summaries[-1]
    rep = engine.summary(game.slot)
    rep.update(
        points=list(summary.points),
        hand_winner=summary.hand_winner,
        kot=summary.kot,
        next_dealer=summary.next_dealer,
        kots=list(summary.kots),
        streak=list(summary.streak) if summary.streak is not None and game.rules.tracks_streak else None,
    )
    game.reports.append(rep)
    game.live = False


def _start_next_hand(game: _Game, engine: BatchEngine) -> None:
    """Move on to the record's next hand (R6 checks first), dealing it in the engine."""
    while not game.done:
        if game.live:  # the hand ran out of moves before it was complete
            game.reports.append(_hand_report(game, engine))
            game.live = False
            incomplete = True
        else:
            incomplete = False
        h = game.h + 1
        if h >= len(game.hands):
            game.done = True
            return
        m = game.match
        if m.winner is not None:
            game.fail(h, None, f"hand {h}: the match is over: no further hand can be played")
            return
        if incomplete:
            game.fail(h, None, f"hand {h}: hand {h - 1} is not complete")
            return
        rec = game.hands[h]
        if not isinstance(rec, dict):
            game.fail(h, None, f"hand {h}: not an object")
            return
        dealer = m.first_dealer if not m.summaries else m.summaries[-1].next_dealer
        assert dealer is not None
        try:
            text = rec.get("deck")
            if not isinstance(text, str):
                raise ValueError("deck must be a string of card texts")
            deck = [parse_card(t) for t in text.split()]
            HandState(game.rules, dealer).check_deck(deck)
        except (IllegalMoveError, ValueError) as e:
            game.fail(h, None, f"hand {h}: {e}")
            return
        engine.deal(np.array([game.slot]), np.array([deck]), np.array([dealer]))
        game.h = h
        game.live = True
        moves = rec.get("moves", [])
        if not isinstance(moves, list):
            game.reports.append(_hand_report(game, engine))
            game.live = False
            game.fail(h, 0, f"hand {h}: moves must be a list")
            return
        game.moves = moves
        game.i = 0
        if moves:
            return


def _replay_group(games: list[_Game], rules: Rules) -> None:
    engine = BatchEngine(rules, len(games))
    for game in games:
        _start_next_hand(game, engine)
    while True:
        active = [gm for gm in games if not gm.done and gm.live and gm.i < len(gm.moves)]
        if not active:
            break
        slots = np.array([gm.slot for gm in active])
        mask = engine.legal_mask(slots)
        phase = engine.phase[slots]
        cand = engine.draw_candidates(slots) if engine.draw_if_no_void else None
        d_slots, d_cards, a_slots, a_actions = [], [], [], []
        moved = []
        for j, gm in enumerate(active):
            text = gm.moves[gm.i]
            err = _check_move(gm, text, int(phase[j]), mask[j], None if cand is None else cand[j])
            if isinstance(err, str):
                gm.reports.append(_hand_report(gm, engine))
                gm.live = False
                gm.fail(gm.h, gm.i, err)
                continue
            kind, value = err
            if kind == "draw":
                d_slots.append(gm.slot)
                d_cards.append(value)
            else:
                a_slots.append(gm.slot)
                a_actions.append(value)
            moved.append(gm)
        if d_slots:
            engine.draw(np.array(d_slots), np.array(d_cards))
        if a_slots:
            engine.step(np.array(a_actions), np.array(a_slots))
        for gm in moved:
            gm.i += 1
            if engine.phase[gm.slot] == DONE:
                _finish_hand(gm, engine)
                if gm.i < len(gm.moves):
                    # moves left after the hand ended: the next one is an error
                    if gm.match.winner is not None:
                        reason = f"the match is over (winner {gm.match.winner})"
                    else:
                        reason = "the hand is over"
                    gm.fail(gm.h, gm.i, f"{gm.moves[gm.i]!r}: {reason}")
                    continue
            if gm.i >= len(gm.moves):
                _start_next_hand(gm, engine)
    for gm in games:
        if gm.live:
            gm.reports.append(_hand_report(gm, engine))
            gm.live = False


def _check_move(
    game: _Game, text: Any, phase: int, mask: np.ndarray, candidates: np.ndarray | None
) -> str | tuple[str, int]:
    """The move as ``("draw", card)`` or ``("action", a)``, or the reason it is rejected."""
    if not isinstance(text, str):
        return f"{json.dumps(text)}: unknown card text or move"
    if text.startswith("draw:"):
        try:
            card = parse_draw(text)
        except ValueError:
            return f"{text}: malformed draw"
        if phase != DRAW:
            return f"{text}: no chance draw is due (R1.4)"
        assert candidates is not None
        if not candidates[card]:
            return f"{text}: the drawn card must be one of the 20 played so far (R1.4)"
        return ("draw", card)
    try:
        action = parse_action(text)
    except ValueError:
        return f"{text}: malformed or unknown move"
    if not 0 <= action < NUM_ACTIONS or not mask[action]:
        return f"{text}: not legal now (R0.4, R4.2, R5)"
    return ("action", action)


def replay_records(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """R6 result objects for ``records``, hands played by the batched engine."""
    outputs: list[dict[str, Any]] = []
    groups: dict[Rules, tuple[Rules, list[_Game]]] = {}
    games: list[_Game | None] = []
    for record in records:
        out: dict[str, Any] = {"id": record.get("id"), "error": None, "winner": None, "hands_played": 0, "hands": []}
        outputs.append(out)
        try:
            options = record.get("options") or {}
            if not isinstance(options, dict):
                raise RulesError("options must be an object")
            rules = make_rules(record.get("rules"), options)  # type: ignore[arg-type]
            match = MatchState(rules, record.get("first_dealer"))  # type: ignore[arg-type]
            if not isinstance(record.get("hands"), list):
                raise RulesError("hands must be a list")
        except (RulesError, ValueError, TypeError) as e:
            out["error"] = {"hand": None, "move": None, "reason": str(e)}
            games.append(None)
            continue
        key = rules
        if key not in groups:
            groups[key] = (rules, [])
        group = groups[key][1]
        game = _Game(record, rules, match, len(group))
        group.append(game)
        games.append(game)
    for rules, group in groups.values():
        _replay_group(group, rules)
    for out, played in zip(outputs, games):
        if played is None:
            continue
        out["error"] = played.error
        out["winner"] = played.match.winner
        out["hands_played"] = len(played.reports)
        out["hands"] = played.reports
    return outputs
