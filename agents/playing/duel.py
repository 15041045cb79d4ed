"""The duplicate deal: one deal played both ways round (sides swapped), as one hand or
one whole match on the deal's deck streams, scored from A's side.

Every game is played by :func:`.loop.play`, so agents see only what their seat may
know. Agents are made fresh for every game from their spec and the
seed of their seat (:func:`agent_seed`), so a deal's result depends on the deal alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent
from agents.playing.deals import FixedDeals, agent_seed, deal_dealer, game_chance, seat_specs
from agents.playing.loop import by_seat, play
from agents.playing.stats import Estimate, ratio_ci
from agents.registry import make_agent
from dehla_env.engine import DRAWN, NOBODY, MatchState, MatchWinner
from dehla_env.rules import Rules
from dehla_env.seats import side_of
from dehla_env.view import PlayerView

MODES = ("hand", "match")
MATCH_HAND_CAP = 1000  # a match with no max_hands stops here (a draw)

#: per spec: [seconds inside ``act``, decisions]
Clock = dict[str, list[float]]


def roles(match: MatchState) -> tuple[int, int | None]:
    """(side that led the first trick, side that made trump or None) of the hand just
    completed: the seats' roles in it, for the per-role breakdowns."""
    hand = match.hand
    maker = hand.contract[0] if hand.contract is not None else hand.trump_maker  # R4.2: all-pass too
    leader = side_of(hand.history[0][0]) if hand.history else 0
    return leader, (None if maker == NOBODY else side_of(maker))


#: one hand of a game: (its winner, side that led the first trick, side that made trump, tens per side)
HandPlayed = tuple[int | None, int, int | None, tuple[int, int]]


def _play_game(task: Task, index: int, seats: Sequence[Agent]) -> tuple[MatchState, list[HandPlayed], int]:
    """One game of deal ``index``: one hand, or a whole match on the deal's deck streams
    (:func:`.deals.game_chance`), so both games of a deal see the same decks in the same
    order however long each runs. Returns the match, its hands and the decisions."""
    rules = task.rules
    match = MatchState(rules, deal_dealer(rules, index, task.fixed))
    hands: list[HandPlayed] = []
    cap = 1 if task.mode == "hand" else rules.max_hands if rules.max_hands is not None else MATCH_HAND_CAP

    def apply(_seat: int, action: int) -> None:
        match.apply_action(action)
        if match.hand.complete:
            hands.append((match.summaries[-1].hand_winner, *roles(match), (match.hand.tens[0], match.hand.tens[1])))

    chance = game_chance(rules, task.seed, index, task.fixed, whole_match=task.mode == "match")
    decisions = play(
        match, by_seat(seats), chance, over=lambda m: m.is_terminal() or m.hands_completed >= cap, apply=apply
    )
    return match, hands, decisions


class TimedAgent(Agent):
    """Counts the decisions and the seconds spent inside ``act`` of the wrapped agent, so
    the arena reports each spec's own speed, not the engine's."""

    def __init__(self, inner: Agent, clock: Clock, spec: str) -> None:
        self.inner = inner
        self.name = inner.name
        self.rng = inner.rng
        self._entry = clock.setdefault(spec, [0.0, 0.0])

    def seed(self, seed: int | None) -> None:
        self.inner.seed(seed)
        self.rng = self.inner.rng

    def act(self, view: PlayerView) -> int:
        t = time.perf_counter()
        action = self.inner.act(view)
        entry = self._entry
        entry[0] += time.perf_counter() - t
        entry[1] += 1
        return action


@dataclass(frozen=True)
class Task:
    """Deals ``start..stop-1`` of one duel: what a worker process is sent (picklable)."""

    rules: Rules
    spec_a: str
    spec_b: str
    partner_a: str | None
    partner_b: str | None
    seed: int
    mode: str
    start: int
    stop: int
    key: Any = None  # which duel of a round robin
    fixed: FixedDeals | None = None  # explicit deals (a benchmark's set) instead of generated ones


@dataclass(frozen=True)
class DealRecord:
    """Both games of one deal, from A's side."""

    index: int
    hands: int  # hands played in the two games
    a_hands: float  # hands won by A, no-winner counting half
    tens_diff: int  # A minus B, summed over the hands
    points_diff: int
    kots_a: int
    kots_b: int
    a_matches: float  # match mode: matches won by A of the two (draw: half); hand mode: 0
    decisions: int
    game_scores: tuple[float, float]  # A's share of the hands won in game 0 and game 1
    # per role of A's side, hands held and A's score in them (no winner: half)
    lead_hands: int = 0  # A's side led the first trick
    lead_won: float = 0.0
    make_hands: int = 0  # A's side made trump (with bidding: won the contract)
    make_won: float = 0.0
    defend_hands: int = 0  # B's side made trump
    defend_won: float = 0.0


def _share(winner: MatchWinner | None, a_side: int) -> float:
    """A's score of one hand or match: a win 1, no winner or a draw half."""
    if winner is None or winner == DRAWN:
        return 0.5
    return 1.0 if winner == a_side else 0.0


def play_deal(
    task: Task, index: int, clock: Clock | None = None, make: Callable[[str, int], Agent] | None = None
) -> DealRecord:
    """Play deal ``index`` both ways round; ``make(spec, seed)`` builds each seat's agent
    (default: :func:`~agents.registry.make_agent`)."""
    rules = task.rules
    clock = {} if clock is None else clock
    build = make or (lambda spec, seed: make_agent(spec, rules, seed))
    hands = 0
    a_hands = 0.0
    tens_diff = points_diff = kots_a = kots_b = decisions = 0
    a_matches = 0.0
    game_scores = []
    roles = [0, 0.0, 0, 0.0, 0, 0.0]  # lead_hands, lead_won, make_hands, make_won, defend_hands, defend_won
    for game in (0, 1):
        a, b = game, 1 - game  # A's side, B's side
        specs = seat_specs(
            rules.players, game, task.spec_a, task.spec_b, partner_a=task.partner_a, partner_b=task.partner_b
        )
        seats: list[Agent] = [
            TimedAgent(build(spec, agent_seed(task.seed, index, s)), clock, spec) for s, spec in enumerate(specs)
        ]
        match, played, n_decisions = _play_game(task, index, seats)
        won = 0.0
        for winner, leader, maker, tens in played:
            share = _share(winner, a)
            if leader == a:
                roles[0] += 1
                roles[1] += share
            if maker is not None:
                k = 2 if maker == a else 4
                roles[k] += 1
                roles[k + 1] += share
            won += share
            tens_diff += tens[a] - tens[b]
        hands += len(played)
        a_hands += won
        game_scores.append(won / len(played) if played else 0.5)
        points_diff += match.points[a] - match.points[b]
        kots_a += match.kots[a]
        kots_b += match.kots[b]
        a_matches += _share(match.winner, a) if task.mode == "match" else 0.0
        decisions += n_decisions
    return DealRecord(
        index=index,
        hands=hands,
        a_hands=a_hands,
        tens_diff=tens_diff,
        points_diff=points_diff,
        kots_a=kots_a,
        kots_b=kots_b,
        a_matches=a_matches,
        decisions=decisions,
        game_scores=(game_scores[0], game_scores[1]),
        lead_hands=int(roles[0]),
        lead_won=float(roles[1]),
        make_hands=int(roles[2]),
        make_won=float(roles[3]),
        defend_hands=int(roles[4]),
        defend_won=float(roles[5]),
    )


def run_chunk(task: Task) -> tuple[Any, list[DealRecord], Clock, float]:
    """Worker entry point: the records of deals ``task.start..task.stop-1``, the time
    each spec spent deciding, and the chunk's wall time."""
    t = time.perf_counter()
    clock: Clock = {}
    records = [play_deal(task, i, clock) for i in range(task.start, task.stop)]
    return task.key, records, clock, time.perf_counter() - t


#: the seat spec that stands for side A's agent in :func:`duel_in_process`
SIDE_A = "A"


def duel_in_process(rules: Rules, make_a: Callable[[int], Agent], b: str, *, deals: int, seed: int) -> Estimate:
    """Side A's share of hands won against the spec ``b`` on the arena's duplicate deals,
    in this process, with A an agent built by ``make_a(agent_seed)`` rather than a spec:
    a network in memory (the trainer's evaluation), or an agent no spec names (the
    experiments). Deals, seats, agent seeds and the interval are the arena's, so an
    agent that a spec also builds gets exactly ``dehla-arena --a SPEC --b B``'s figure;
    no winner counts half."""
    task = Task(rules, SIDE_A, b, None, None, seed=seed, mode="hand", start=0, stop=deals)

    def make(spec: str, seat_seed: int) -> Agent:
        return make_a(seat_seed) if spec == SIDE_A else make_agent(spec, rules, seat_seed)

    records = [play_deal(task, index, make=make) for index in range(deals)]
    return ratio_ci(np.array([r.a_hands for r in records]), np.array([r.hands for r in records], float))
