"""``ismcts``: information-set Monte Carlo tree search (single observer).

**Why.** The ``search`` bot (:mod:`agents.search.pimc`, perfect-information Monte Carlo)
scores every move in every sampled deal as if the deal were known, then averages over
the deals. It cannot value information: a move that keeps options open until the
cards are known scores no better than one that commits now, because in each world the
right choice is already clear (strategy fusion), and it never asks what the other
seats can or cannot know. IS-MCTS (Cowling, Powley and Whitehouse, "Information Set
Monte Carlo Tree Search", 2012) instead grows **one tree over the seat's information
set**: a node is a public history of plays from the decision on, the same node in
every sampled deal, so its statistics are a value over everything the seat considers
possible, and a move must be good across the deals that reach it, not in each one.

**An iteration** (single-observer IS-MCTS, SO-ISMCTS):

1. sample one deal of the hidden cards consistent with the seat's
   :class:`~dehla_env.view.PlayerView` (:class:`agents.bots.sampler.WorldSampler`, the
   search's sampler: uniform over consistent deals);
2. descend the tree from the root, at each node choosing among the moves legal *in
   that deal* for the seat to act (cards equivalent from that seat's point of view are
   one move, :func:`agents.search.pimc.card_classes`): UCB1 with availability counts (a move's exploration
   term counts the visits in which it was legal, not the parent's visits), or PUCT
   with ``prior`` (a policy network's probabilities at the searching seat's own nodes,
   uniform at the other seats' nodes, whose hands differ from deal to deal) or with
   ``guide`` (that share of the prior moved, at every node, to the move the ``rule``
   playout would make in the deal: the tree's early visits then follow the playout's
   sensible line instead of trying every reply once);
3. add the first node not yet in the tree and play the deal out from there with the
   search's playouts (:meth:`agents.search.pimc.SearchAgent.rollout`: the ``rule``
   playout, then the exact solver once ``depth`` tricks or fewer are left);
4. back the score up the path: win 1, no winner 0.5, loss 0, plus the search's margin
   tie-break, for the searching side; a node of the other side takes one minus it.

The tree holds card plays only: a trump decision of another seat, the R1.4 draw and
the end of the hand stop the descent (the playout takes over), so no hidden choice is
ever a key of the tree. The move played is the root's most visited, ties to the higher
mean, then to the lowest action.

**What is reused** from the search: the sampler, the playout rules and the solver at the
end (a :class:`~agents.search.pimc.SearchAgent` is kept for its ``rollout``), and what
makes the decisions the search leaves (bids, the trump decisions at the start of a hand,
six players: :meth:`~agents.search.pimc.SearchAgent.unsearched`): the prior's most
probable move, else the hard bot's.

Options (``ismcts:iterations=400,budget_ms=100,c=1.5,prior=policy:dehla,guide=0.5``)::

    ``iterations``  iterations per decision (default 400)
    ``budget_ms``   stop once a decision has taken this long (at least one iteration;
                    default none: then fully deterministic per seed)
    ``c``           exploration constant (PUCT; UCB1 with ``guide=0`` and no ``prior``;
                    default 1.0)
    ``prior``       a policy spec (``policy:dehla``): PUCT prior at the seat's own nodes
    ``playout``     ``rule``, ``greedy`` or an agent spec (default ``rule``, as the search)
    ``depth``       solve exactly when at most this many tricks are left in a sampled
                    deal (default 5, as the search; 0: play out to the end)
    ``guide``       share of the PUCT prior on the ``rule`` playout's move in the deal
                    (default 0.5; 0 with no ``prior``: UCB1)

The bot reads only its view: the deals come from the view and the bot's own generator.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from agents.base import Agent
from agents.bots.sampler import WorldSampler, match_for, view_in_world
from agents.search.pimc import TIE_WEIGHT, ActionPrior, SearchAgent, card_classes, child_seed, rule_action, view_groups
from dehla_env.engine.hand import HandState, Phase
from dehla_env.rules import Rules
from dehla_env.seats import side_of
from dehla_env.view import PlayerView

#: the solver's transposition table is dropped when it grows past this many entries
#: (it is keyed on whole positions, so the deals of one decision may share it)
MAX_TABLE_ENTRIES = 200_000


@dataclass(slots=True, eq=False)
class Node:
    """One node of the tree: an information set of the searching seat (the public plays
    from the decision on). Statistics are per move (a card class's lowest card), for
    the side of the seat acting here, which is public."""

    visits: dict[int, int] = field(default_factory=dict)
    total: dict[int, float] = field(default_factory=dict)  # summed scores for the side acting here
    avail: dict[int, int] = field(default_factory=dict)  # iterations in which the move was legal
    children: dict[int, Node] = field(default_factory=dict)
    prior: dict[int, float] | None = None  # PUCT prior over the moves (the searching seat's nodes)

    def mean(self, a: int) -> float:
        n = self.visits.get(a, 0)
        return self.total[a] / n if n else 0.0

    def value(self) -> float:
        """The mean score of the side acting here over every visit so far (0.5 before any):
        what PUCT assumes of a move not tried yet."""
        n = sum(self.visits.values())
        return sum(self.total.values()) / n if n else 0.5


# ---------------------------------------------------------------------- moves
def world_groups(world: HandState) -> list[list[int]]:
    """The moves of the seat to act in a sampled deal during card play: its classes of
    equivalent cards (:func:`agents.search.pimc.card_classes`, from that seat's knowledge)."""
    seat = world.to_act
    trick = 0
    for c in world.trick_cards:
        trick |= 1 << c
    return card_classes(world.legal_actions(), world.hands[seat], world.played_mask, trick, world.rules.tens_scoring)


def guide_move(world: HandState, groups: list[list[int]]) -> int:
    """The class (its lowest card) of the search's ``rule`` playout move in the deal
    (:func:`agents.search.pimc.rule_action`: the hard bot's rule, knowing the deal)."""
    card = rule_action(world)
    return next(g[0] for g in groups if card in g)


# ---------------------------------------------------------------------- selection
def ucb_choice(node: Node, moves: list[int], c: float, rng: np.random.Generator) -> int:
    """UCB1 with availability counts; a move never tried first (drawn uniformly)."""
    untried = [a for a in moves if not node.visits.get(a)]
    if untried:
        return untried[int(rng.integers(len(untried)))]
    best, best_score = moves[0], -math.inf
    for a in moves:
        n = node.visits[a]
        score = node.total[a] / n + c * math.sqrt(math.log(node.avail[a]) / n)
        if score > best_score:
            best, best_score = a, score
    return best


def puct_choice(node: Node, moves: list[int], c: float, guide: int = -1, weight: float = 0.0) -> int:
    """PUCT with availability counts: mean + ``c * P * sqrt(available) / (1 + visits)``;
    ``P`` the node's prior (uniform without one), a share ``weight`` of it moved to
    the ``guide`` move; a move not tried yet is valued at the node's mean."""
    fpu = node.value()
    prior = node.prior
    uniform = 1.0 / len(moves)
    best, best_score = moves[0], -math.inf
    for a in moves:
        n = node.visits.get(a, 0)
        p = uniform if prior is None else prior.get(a, 0.0)
        if weight:
            p = (1.0 - weight) * p + (weight if a == guide else 0.0)
        q = node.total[a] / n if n else fpu
        score = q + c * p * math.sqrt(node.avail[a]) / (1 + n)
        if score > best_score:
            best, best_score = a, score
    return best


def class_prior(probs: np.ndarray, groups: list[list[int]]) -> dict[int, float]:
    """A policy's probabilities summed over each class, normalised, by the class's lowest card."""
    mass = {g[0]: float(probs[g].sum()) for g in groups}
    total = sum(mass.values())
    if total <= 0.0:
        return {a: 1.0 / len(mass) for a in mass}
    return {a: m / total for a, m in mass.items()}


# ---------------------------------------------------------------------- the agent
class ISMCTSAgent(Agent):
    """Single-observer information-set MCTS; see the module docstring."""

    name = "ismcts"

    def __init__(
        self,
        rules: Rules,
        iterations: int = 400,
        budget_ms: float | None = None,
        c: float = 1.0,
        prior: ActionPrior | None = None,
        playout: str | Agent = "rule",
        depth: int = 5,
        seed: int | None = None,
        margin: float = TIE_WEIGHT,
        guide: float = 0.5,
    ) -> None:
        super().__init__(seed)
        if iterations < 1 or depth < 0 or c < 0 or not 0.0 <= guide <= 1.0:
            raise ValueError("ismcts needs iterations >= 1, depth >= 0, c >= 0 and guide in [0, 1]")
        self.guide = guide
        self.rules = rules
        self.iterations = iterations
        self.budget_ms = budget_ms
        self.c = c
        self.prior = prior
        self.depth = depth
        # the search, for its playouts, its solver and the decisions it leaves (to the prior, else hard)
        self.search = SearchAgent(
            rules, k=1, depth=depth, playout=playout, seed=child_seed(seed, 2), margin=margin, prior=prior
        )
        self.playout = self.search.playout
        self.last_scores: dict[int, float] = {}
        self.last_visits: dict[int, int] = {}
        self.last_iterations = 0

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.search.seed(child_seed(seed, 2))

    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if not self.search.searchable(view):
            return self.search.unsearched(view)
        groups = view_groups(view)
        if len(groups) == 1:
            self.last_scores, self.last_visits, self.last_iterations = {}, {}, 0
            return groups[0][0]
        root = self.run(view, groups)
        moves = [g[0] for g in groups]
        self.last_visits = {a: root.visits.get(a, 0) for a in moves}
        self.last_scores = {a: root.mean(g[0]) for g in groups for a in g}
        return max(moves, key=lambda a: (root.visits.get(a, 0), root.mean(a), -a))

    def run(self, view: PlayerView, groups: list[list[int]]) -> Node:
        """The tree after the iterations (or the time budget) of one decision."""
        start = time.perf_counter()
        root = Node()
        if self.prior is not None:
            root.prior = class_prior(self.prior.probabilities(view), groups)
        sampler = WorldSampler(view)
        solver = self.search.solver
        assert solver is not None  # searchable: four players
        solver.reset()
        done = 0
        while done < self.iterations:
            self.iterate(root, groups, sampler, view)
            done += 1
            if len(solver.tt) > MAX_TABLE_ENTRIES:
                solver.reset()
            if self.budget_ms is not None and (time.perf_counter() - start) * 1000.0 >= self.budget_ms:
                break
        self.last_iterations = done
        return root

    def iterate(self, root: Node, root_groups: list[list[int]], sampler: WorldSampler, view: PlayerView) -> None:
        """One iteration: a sampled deal, a descent, one new node, a playout, the backup."""
        world = sampler.world(sampler.sample(self.rng))
        side = view.side
        path: list[tuple[Node, int, int]] = []  # (node, move, side acting there)
        node = root
        groups = root_groups
        while True:
            moves = [g[0] for g in groups]
            for a in moves:
                node.avail[a] = node.avail.get(a, 0) + 1
            a = self.choose(node, moves, world, groups)
            path.append((node, a, side_of(world.to_act)))
            world.apply_action(a)
            child = node.children.get(a)
            if child is None:  # expand: the first node of this iteration not yet in the tree
                child = node.children[a] = Node()
                break
            node = child
            if world.phase != Phase.PLAY:  # a trump decision, the R1.4 draw, the end
                break
            groups = world_groups(world)
            if node.prior is None and self.prior is not None and world.to_act == view.seat:
                node.prior = self.seat_prior(world, view)
        score = self.search.rollout(world, side, view)
        for n, a, acting in path:
            n.visits[a] = n.visits.get(a, 0) + 1
            n.total[a] = n.total.get(a, 0.0) + (score if acting == side else 1.0 - score)

    def choose(self, node: Node, moves: list[int], world: HandState, groups: list[list[int]]) -> int:
        """UCB1 without a prior or a guide, else PUCT (see :func:`puct_choice`)."""
        if len(moves) == 1:
            return moves[0]
        if self.prior is None and not self.guide:
            return ucb_choice(node, moves, self.c, self.rng)
        if self.guide and world.phase == Phase.PLAY:
            return puct_choice(node, moves, self.c, guide_move(world, groups), self.guide)
        return puct_choice(node, moves, self.c)

    def seat_prior(self, world: HandState, view: PlayerView) -> dict[int, float]:
        """The prior at one of the searching seat's own nodes below the root: its view
        there is the same in every deal that reaches the node (its own hand and the
        public plays), so it is computed once per node."""
        assert self.prior is not None
        here = view_in_world(match_for(world, view), view.seat)
        return class_prior(self.prior.probabilities(here), view_groups(here))

    def __repr__(self) -> str:
        return f"ISMCTSAgent(iterations={self.iterations}, c={self.c}, depth={self.depth}, playout={self.playout!r})"


__all__ = ["ISMCTSAgent", "Node", "class_prior", "guide_move", "puct_choice", "ucb_choice", "world_groups"]
