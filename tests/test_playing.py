"""The one play loop (``agents.playing.loop``): every decision is asked of the seat to
act, from that seat's own view (R0.6), and the loop stops where it is told."""

from __future__ import annotations

import numpy as np
import pytest

from agents.playing.loop import play, sampled
from dehla_env.engine import MatchState
from dehla_env.view import PlayerView
from tests.rulesets import RULESETS, rules_of, ruleset_id


@pytest.mark.parametrize("config", RULESETS, ids=ruleset_id)
def test_each_decision_is_asked_of_the_seat_to_act_with_its_own_view(config) -> None:
    rules = rules_of(config)
    match = MatchState(rules, 1)
    rng = np.random.default_rng(3)
    asked: list[tuple[int, PlayerView]] = []

    def decide(seat: int, view: PlayerView) -> int:
        assert view.seat == seat == match.current_player()
        assert list(view.hand) == match.hand.hand_cards(seat)  # its own cards, nobody else's
        asked.append((seat, view))
        return view.legal_actions[int(rng.integers(len(view.legal_actions)))]

    decisions = play(match, decide, sampled(rng))
    assert match.hand.complete and match.hands_completed == 1
    assert decisions == len(asked) > 0


def test_a_whole_match_runs_to_its_end_and_every_move_goes_through_apply() -> None:
    rules = rules_of(("dehla", {"max_hands": 2}))
    match = MatchState(rules, 0)
    rng = np.random.default_rng(5)
    applied: list[int] = []

    def apply(seat: int, action: int) -> None:
        applied.append(seat)
        match.apply_action(action)

    decisions = play(match, lambda _s, v: v.legal_actions[0], sampled(rng), over=MatchState.is_terminal, apply=apply)
    assert match.is_terminal() and match.hands_completed <= 2
    assert decisions == len(applied)
