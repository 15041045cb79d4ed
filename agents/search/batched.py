"""``batched-search``: the search's worlds played out together on the batched engine.

:class:`~agents.search.pimc.SearchAgent` scores each action in each sampled world one world
at a time, playing the world out with a scalar rule or agent. Here a decision is one
batch: the ``k`` worlds come from the same sampler (:class:`agents.bots.sampler.WorldSampler`,
so they are uniform over the deals consistent with the view), every candidate action is
applied in every world, and the ``k x actions`` positions are loaded into one
:class:`~dehla_env.vector.BatchEngine` (:meth:`~dehla_env.vector.BatchEngine.load`) and
played to the end of the hand in lockstep by a *batched* playout policy: the
``cardsense`` bot or a trained network (``policy:NAME``), which then makes one forward
pass per step for the whole batch instead of one per seat and world.

What is kept from the scalar search: the action groups (cards equivalent in every world
are scored once), the exact solver when the decision itself is at most ``depth`` tricks
from the end (the solver is then cheaper than any playout), the score (win 1, no winner
0.5, loss 0, plus ``margin`` times the side's margin,
:meth:`agents.bots.objective.Objective.margin`) and the choice with its tie-breaks. What
differs: the playouts play every seat from that seat's own observation
(information-fair, where the scalar ``rule`` playout sees the whole world), and there is
no time budget. By default every action is scored on every world in one batch; with
``prune`` the worlds come in three batches (a quarter, a quarter, a half of ``k``) and
the moves clearly behind after each are dropped, by the scalar search's successive
elimination rule (:func:`agents.search.pimc.eliminate`), so the later worlds go to the
close candidates. By default the playouts run to the end of the hand; with ``rdepth``
(``rollout_depth``) a game that reaches a trick boundary with at most ``rdepth`` tricks
left is taken off the batch and its ending solved exactly (the scalar search's playouts
end the same way), so the network plays the middle of the hand and the solver its end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from agents.bots.objective import SettledTally
from agents.bots.sampler import Deal, WorldSampler
from agents.gc_pause import cycle_collection_paused
from agents.search.pimc import ActionPrior, SearchAgent, eliminate, outcome_score, tricks_left
from agents.search.solver import Position, solvable
from dehla_env.engine.hand import HandState
from dehla_env.rewards import RewardKind, side0_reward
from dehla_env.rules import Rules, TrumpMaking
from dehla_env.vector import BatchPolicy
from dehla_env.vector.engine import DONE, DRAW, PLAY, BatchEngine

if TYPE_CHECKING:  # torch, for a belief only (a batched bot's playouts need none)
    from agents.search.belief import PlayLikelihood
from dehla_env.vector.observe import BatchObserver
from dehla_env.view import PlayerView


class BatchedSearchAgent(SearchAgent):
    """PIMC whose worlds are played out on the batched engine; see the module docstring."""

    def __init__(
        self,
        rules: Rules,
        playout: BatchPolicy,
        playout_name: str,
        k: int = 32,
        depth: int = 5,
        seed: int | None = None,
        margin: float = 0.01,
        rollout_depth: int | None = None,
        prior: ActionPrior | None = None,
        keep: float = 1.0,
        prune: float = 0.0,
        belief: PlayLikelihood | None = None,
    ) -> None:
        super().__init__(rules, k=k, depth=depth, seed=seed, margin=margin, prune=prune, prior=prior, keep=keep)
        # the scalar search's rollout_depth; here None (as 0) plays to the end of the hand
        self.rollout_depth = rollout_depth or 0
        if rules.players != 4:
            raise ValueError("batched-search plays four-player rulesets (R2.8's six players are not searched)")
        self.playout = playout_name
        self.belief = belief
        self.batch_policy = playout
        # A deterministic policy's move where one action is legal is that action: those
        # rows need no observation and no forward pass. (A sampling or rule policy draws
        # from its generator on every row, so it sees every row as before.)
        self.skip_forced = getattr(playout, "deterministic", False) is True
        # every action of the largest hand in every world: one engine for all decisions
        self.engine = BatchEngine(rules, k * rules.hand_size)
        self.observer = BatchObserver(self.engine)  # its writer compiled, as in every install
        self._tallies = (self.engine.tricks, self.engine.tens)  # (games, 2) each

    def round_ends(self) -> list[int]:
        """How many worlds are scored when each batch ends: all ``k`` in one batch, or
        with ``prune`` a quarter, a half, then all of them, the moves clearly behind
        after each (:func:`agents.search.pimc.eliminate`) dropped from the next."""
        if self.prune <= 0:
            return [self.k]
        return sorted({max(1, self.k // 4), max(1, self.k // 2), self.k})

    def score_actions(self, view: PlayerView, reps: list[int]) -> tuple[dict[int, float], dict[int, int], list[int]]:
        with cycle_collection_paused():
            return self._score_actions(view, reps)

    def _score_actions(self, view: PlayerView, reps: list[int]) -> tuple[dict[int, float], dict[int, int], list[int]]:
        sampler = WorldSampler(view)
        totals = dict.fromkeys(reps, 0.0)
        counts = dict.fromkeys(reps, 0)
        active = reps
        scored = 0
        for end in self.round_ends():
            states: list[HandState] = []
            labels: list[int] = []
            weights: list[float] = []
            deals = [sampler.sample(self.rng) for _ in range(end - scored)]
            for deal, weight in zip(deals, self.world_weights(view, deals).tolist()):
                world = sampler.world(deal)
                if solvable(world) and tricks_left(world) <= self.depth:
                    for a, v in self.evaluate(world, active, view).items():
                        totals[a] += weight * v
                    continue
                for a in active:
                    state = world.clone()
                    state.apply_action(a)
                    states.append(state)
                    labels.append(a)
                    weights.append(weight)
            if states:
                for a, v, weight in zip(labels, self.play_out(states, view.seat & 1).tolist(), weights):
                    totals[a] += weight * v
            for a in active:
                counts[a] = end
            scored = end
            active = eliminate(totals, active, scored, self.prune)
        return totals, counts, active

    def world_weights(self, view: PlayerView, deals: list[Deal]) -> np.ndarray:
        """Each deal's weight in the averages, their mean 1: all 1 without ``belief``,
        else the likelihood of the plays seen in it (:mod:`agents.search.belief`)."""
        if self.belief is None or not deals:
            return np.ones(len(deals))
        log_w = self.belief.log_weights(view, deals)
        w = np.exp(log_w - log_w.max())
        return w * (len(w) / w.sum())

    def play_out(self, states: list[HandState], side: int) -> np.ndarray:
        """Play ``states`` to the end of their hands on the batch; each one's score for
        ``side`` (win 1, no winner 0.5, loss 0, plus the margin tie-break)."""
        eng = self.engine
        g = np.arange(len(states))
        eng.load(g, states)
        live = g
        solved = np.full(len(g), np.nan)  # side 0's score where the solver ended the game
        if self.rollout_depth:
            assert self.solver is not None
            self.solver.reset()  # its table is keyed on whole positions: worlds may share it
        while True:
            live = live[eng.phase[live] != DONE]
            if self.rollout_depth and len(live):
                now = self._solvable_now(live)
                if now.any():
                    solved[live[now]] = self._solve_endings(live[now])
                    live = live[~now]
            if not len(live):
                break
            drawing = eng.phase[live] == DRAW
            if drawing.any():  # R1.4: nobody was void in five tricks; drawn uniformly
                d = live[drawing]
                eng.draw(d, eng.sample_draws(self.rng, d))
                continue
            seats = eng.to_act[live]
            mask = eng.legal_mask(live)
            if self.skip_forced:
                actions = mask.argmax(axis=1)  # right where one action is legal
                free = np.flatnonzero(mask.sum(axis=1) > 1)
                if len(free):
                    actions[free] = self.batch_policy(self.observer.observe(live[free], seats[free]), mask[free])
            else:
                actions = self.batch_policy(self.observer.observe(live, seats), mask)
            eng.step(actions, live)
        res = eng.outcome(g)
        tens0, tricks0 = eng.tens[g, 0], eng.tricks[g, 0]
        win0 = side0_reward(
            RewardKind.WIN,
            self.rules,
            winner=res["winner"],
            tens=eng.tens[g],
            tricks=eng.tricks[g],
            kot=res["kot"],
            score=res["score"],
        )
        margin0 = self.objective.margin(self.objective.count(tricks0, tens0))
        score0 = np.where(np.isnan(solved), 0.5 * (1.0 + win0) + self.margin * margin0, solved)
        return score0 if side == 0 else 1.0 - score0  # zero-sum: side 1's win is side 0's loss

    def _solvable_now(self, live: np.ndarray) -> np.ndarray:
        """Which of the games ``live`` stand at a trick boundary of the card play, within
        ``rollout_depth`` tricks of the end, in a position the solver takes: the batch's
        :func:`agents.search.solver.solvable` (all cards dealt, the trump known or still to be
        made by R2.4a's first void), held to it by ``tests/test_batched_search.py``."""
        eng = self.engine
        known = eng.trump[live] >= 0
        if self.rules.trump_making is TrumpMaking.FIRST_VOID:
            known |= eng.trump_suit[live] < 0
        return (
            (eng.phase[live] == PLAY)
            & (eng.ntrick[live] == 0)
            & (eng.num_tricks - eng.ntricks[live] <= self.rollout_depth)
            & (eng.stage[live] == 2)
            & ~eng.hidden[live]
            & known
        )

    def _solve_endings(self, games: np.ndarray) -> list[float]:
        """Side 0's score of each batch game in ``games`` played out exactly from here
        (the interval the solver settles, scored as the scalar search scores its
        playouts). The games' fields are read as lists once for all of them."""
        eng = self.engine
        solver = self.solver
        assert solver is not None
        packed = np.zeros((len(games), eng.n, 8), np.uint8)
        packed[:, :, :7] = np.packbits(eng.hands[games], axis=2, bitorder="little")
        hands = packed.view("<u8")[:, :, 0].tolist()  # each seat's cards as a 52-bit mask
        columns = (
            eng.to_act,
            eng.trump,
            eng.mid_tens,
            eng.last_winner,
            eng.dealer,
            eng.contract_seat,
            eng.contract_level,
            eng.contract_suit,
        )
        rows = zip(hands, *(c[games].tolist() for c in columns), *(a[games].tolist() for a in self._tallies))
        scores = []
        for masks, leader, trump, mid_tens, last_winner, dealer, seat, level, suit, tricks, tens in rows:
            pos = Position(
                rules=self.rules,
                hands=masks,
                leader=leader,
                trick=[],
                trump=trump,
                trump_pending=trump < 0,
                middle_tens=mid_tens,
                last_winner=last_winner,
                tricks=(tricks[0], tricks[1]),
            )
            tally = SettledTally(
                rules=self.rules,
                dealer=dealer,
                tricks=pos.tricks,
                tens=(tens[0], tens[1]),
                contract=None if seat < 0 else (seat, level, suit),
            )
            lo, hi = solver.interval(pos, self.objective.cuts(tally), fresh=False)
            scores.append(outcome_score(self.objective, tally, lo, 0, hi, margin_weight=self.margin))
        return scores


__all__ = ["BatchedSearchAgent"]
