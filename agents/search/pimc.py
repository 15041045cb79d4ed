"""``search``: an information-fair Monte Carlo search bot (PIMC).

For each decision the bot samples ``k`` deals of the hidden cards consistent with its
own :class:`~dehla_env.view.PlayerView` (:mod:`agents.bots.sampler`: hand sizes, played
cards, known voids, the staged deal, a hidden closed trump; uniform over consistent
deals) and scores every legal action in every sampled world:

* **exactly** with the open-hands solver (:mod:`agents.search.solver`) when the world is
  solvable and at most ``depth`` tricks are left (the trick in progress included);
* otherwise by **playing the world out** with a policy, every seat, until that point
  is reached, then solving. Positions the solver does not take (R1.4 staged deal
  before its second stage, R2.4c closed trump chosen but hidden, R2.4c/d trump still
  to be chosen) are played out too; the R1.4 draw is drawn uniformly.

**Playout policies.** ``rule`` (default) is the hard bot's expected-value rule
(:func:`rule_action`) applied with the knowledge of the sampled world, on the raw
engine state: about 20 microseconds a decision instead of a few hundred for the hard
bot itself. ``greedy`` (:func:`greedy_action`) is a plainer rule: win cheaply when
the trick can be held, else play low. Any agent spec (``hard``, later
``policy:PATH``) is asked on views built in the sampled world (its own sampling, if
any, switched off). Measured in ``dehla`` against ``hard``, k=16, 200 duplicate deals:
``rule`` 64%, ``greedy`` 59%, ``hard`` 59.5% at twice the time.

**Score.** The hand's outcome for the bot's side in the world (win 1, no winner 0.5,
loss 0) plus a small tie-break (``margin``, default 0.01) by the side's margin in the
ruleset's units (tens, points, tricks). The result depends only on which side of the
ruleset's cuts the solver's value falls (:meth:`agents.bots.objective.Objective.cuts`: for
``dehla``, three tens or two for the side that did not deal), so by default the
solver only settles that, with one or two null-window searches, and the tie-break
uses the middle of the interval found (``exact=1``: exact values, about twice the
time). The same worlds serve every action (common random numbers), and one
transposition table serves all the playouts of a world.

**Choice.** The action with the best mean over the worlds; ties go to the hard bot's
choice if it is among them, else to the lowest card. Actions are eliminated
successively (``prune``): every 4 worlds, an action whose mean is more than
``prune / sqrt(worlds)`` below the best is dropped, so the time goes to the close
candidates. Cards equivalent from the seat's point of view (no unseen card and no
card of the trick between them, a ten never merged with a non-ten where tens score)
are scored once.

Bids (R4.2) and the trump decisions at the start of a hand (R1.4 chosen, R2.4b, R3.1,
four passes in R4.2) are not searched, nor is any decision with six players (R2.8: the
solver and sampler are for one pack): the ``prior``'s most probable move makes them
where there is a prior, else the hard bot's. The R2.4c/d trump choice of the first void
seat is searched.

Options (``search:k=48,depth=5,budget_ms=100,playout=rule``)::

    ``k``          worlds sampled per decision (default 48)
    ``depth``      solve exactly when at most this many tricks are left (default 5)
    ``budget_ms``  stop sampling once a decision has taken this long (at least one world
                   is always scored; default none: then fully deterministic per seed)
    ``playout``    ``rule``, ``greedy`` or an agent spec (default ``rule``)
    ``prune``      successive elimination constant, 0 to score every action on every
                   world (default 1.0; the batched search's default is 0, and its worlds then come in
                   three batches, :mod:`agents.search.batched`)
    ``exact``      1: exact solver values instead of result intervals (default 0)
    ``margin``     weight of the margin tie-break (default 0.01)
    ``rdepth``     solve depth at the end of playouts (default: ``depth``; 0 plays out to
                   the end of the hand)
    ``opp``        an agent spec for the opponents in playouts (default: ``playout``)
    ``prior``      a policy spec (``policy:dehla``) whose move probabilities prune the
                   candidates before any world is scored, and whose most probable move
                   makes the decisions the search leaves (default none: the hard bot's)
    ``keep``       with ``prior``: the candidates kept, most probable first, until they
                   hold this much of the prior's mass (default 1: all)
    ``relabel``    with ``prior``: the prior averaged over the 24 suit relabellings, as
                   ``policy:NAME,relabel=1`` plays (default 0)

The bot reads only its view: the worlds come from the view and the bot's own
generator, so re-dealing the hidden cards consistently changes nothing it does
(``tests/test_search.py``).
"""

from __future__ import annotations

import math
import time
from functools import partial
from typing import Protocol

import numpy as np

from agents.base import Agent
from agents.bots.heuristic import HardAgent
from agents.bots.knowledge import trump_strength
from agents.bots.objective import HandTally, Objective, objective, trick_stake
from agents.bots.sampler import WorldSampler, match_for, view_in_world
from agents.search.solver import Solver, position_of, solvable
from dehla_env.actions import TRUMP_OFFSET
from dehla_env.cards import (
    FULL_PACK_MASK,
    NUM_RANKS,
    SUIT_MASKS,
    TEN_RANK,
    TENS_MASK,
    cards_in,
    cards_of_suit,
    rank_of,
    suit_of,
)
from dehla_env.engine.hand import HandState, Phase
from dehla_env.rules import Rules, TrumpMaking
from dehla_env.tricks import trick_winner
from dehla_env.view import PlayerView


class ActionPrior(Protocol):
    """A move distribution over a view's legal actions (:class:`agents.nets.policy.PolicyAgent`)."""

    def probabilities(self, view: PlayerView) -> np.ndarray: ...


TIE_WEIGHT = 0.01  # weight of the margin tie-break next to win 1 / no winner 0.5 / loss 0
_HALF = partial(float, 0.5)  # a share of the pile that does not depend on the cards (R1.5)
#: the built-in playout rules (the alternative is a playout agent)
PLAYOUT_RULES = ("rule", "greedy")


def tricks_left(hand: HandState) -> int:
    """Tricks not yet completed, the one in progress included."""
    return hand.rules.num_tricks - len(hand.trick_winners)


def outcome_score(
    goal: Objective, hand: HandTally, lo: float, side: int, hi: float | None = None, margin_weight: float = TIE_WEIGHT
) -> float:
    """The score for ``side`` once side 0 gains a value in ``[lo, hi]`` (``goal``'s units,
    an interval no :meth:`~agents.bots.objective.Objective.cuts` splits; ``hi`` defaults to
    ``lo``; 0 for a finished hand): win 1, no winner 0.5, loss 0, plus ``margin_weight``
    times the side's margin at the middle of the interval."""
    winner = goal.winner(hand, int(lo))
    base = 0.5 if winner is None else (1.0 if winner == side else 0.0)
    f = lo if hi is None else (lo + hi) / 2  # side 0's future gain, in the objective's units
    margin = goal.margin(goal.value(hand) + f)
    return base + margin_weight * (margin if side == 0 else -margin)


# ---------------------------------------------------------------------- greedy playout
def greedy_action(hand: HandState) -> int:
    """A fast playout rule on the raw state of a sampled world (every hand is known in
    it): win the trick with the cheapest card no later opponent can beat; with the
    trick safe for the side, throw a ten on it where tens score (with the R1.5 middle:
    only when the trick takes the pile), else play low; lead
    a sure winner if there is one, else the lowest card, keeping tens. Trump choices:
    the longest suit."""
    seat = hand.to_act
    h = hand.hands[seat]
    if hand.phase == Phase.TRUMP:
        return TRUMP_OFFSET + max(range(4), key=lambda s: ((h & SUIT_MASKS[s]).bit_count(), s))
    tens_matter = hand.rules.tens_scoring
    trump = hand.trump
    pending = trump < 0 and hand.trump_suit < 0 and hand.rules.trump_making is TrumpMaking.FIRST_VOID
    hands = hand.hands
    cards = hand.trick_cards
    n = len(cards)
    later = [(seat + i) & 3 for i in range(1, 4 - n)]
    opp_later = [s for s in later if (s ^ seat) & 1]
    if n == 0:
        # lead: a sure winner (highest live card of its suit nobody can trump), else low
        best = -1
        for s in range(4):
            mine = h & SUIT_MASKS[s]
            if not mine:
                continue
            top = mine.bit_length() - 1
            if _holds(top, s, trump, pending, opp_later, hands):
                best = top if best < 0 or (top % NUM_RANKS) < (best % NUM_RANKS) else best
        if best >= 0:
            return best
        return _lowest(h, tens_matter, trump)
    led = cards[0] // NUM_RANKS
    follow = h & SUIT_MASKS[led]
    legal = follow or h
    wi = trick_winner(cards, trump)
    wcard = cards[wi]
    wseat = hand.trick_seats[wi]
    if not follow and pending:
        # R1.4 / R2.4a: our card makes trump and wins for now: our longest suit, low
        s = max(range(4), key=lambda x: ((h & SUIT_MASKS[x]).bit_count(), x))
        return _lowest(h & SUIT_MASKS[s], tens_matter, -1)
    partner_wins = not ((wseat ^ seat) & 1)
    if partner_wins and _holds(wcard, led, trump, pending, opp_later, hands):
        # a ten on a trick our side wins; with the middle (R1.5) only if it takes now
        taken = (
            not hand.rules.has_middle
            or hand.last_winner == wseat
            or len(hand.trick_winners) + 1 == hand.rules.num_tricks
        )
        if tens_matter and taken:
            ten = legal & TENS_MASK
            if ten:
                return ten.bit_length() - 1
        return _lowest(legal, tens_matter, trump)
    # cheapest card that wins and holds
    wsuit = wcard // NUM_RANKS
    m = legal
    best = -1
    best_key = 99
    while m:
        b = m & -m
        m ^= b
        c = b.bit_length() - 1
        s = c // NUM_RANKS
        if ((s == wsuit and c > wcard) or (s == trump and wsuit != trump)) and _holds(
            c, led, trump, pending, opp_later, hands
        ):
            key = (c % NUM_RANKS) + (13 if s == trump else 0)
            if key < best_key:
                best, best_key = c, key
    if best >= 0:
        return best
    return _lowest(legal, tens_matter, trump)


# ---------------------------------------------------------------------- rule playout
def _suit_strength(h: int, suit: int, tens_matter: bool) -> float:
    """The bots' measure of a suit as trump (:func:`agents.bots.knowledge.trump_strength`)."""
    return trump_strength(cards_of_suit(h, suit), tens_matter)


def rule_action(hand: HandState) -> int:
    """The ``rule`` playout: the hard bot's expected-value idea (agents/bots/heuristic.py) played
    with the knowledge of a sampled world: each legal card is worth the stake of the
    trick if its side then holds the trick, minus the stake if the other side takes
    it, minus the future value of the card spent (R1.5: the middle, the pair threat,
    the fight against the other side's second trick in a row). Where the hard bot
    estimates chances from unseen cards, here they are 0 or 1: every hand is known in
    the world. Trump choices: the hard bot's strongest suit."""
    seat = hand.to_act
    h = hand.hands[seat]
    rules = hand.rules
    tens_matter = rules.tens_scoring
    if hand.phase == Phase.TRUMP:
        return TRUMP_OFFSET + max(range(4), key=lambda s: (_suit_strength(h, s, tens_matter), s))
    trump = hand.trump
    known_trump = hand.trump_suit
    pending = trump < 0 and known_trump < 0 and rules.trump_making is TrumpMaking.FIRST_VOID
    hands = hand.hands
    cards = hand.trick_cards
    n = len(cards)
    later = [(seat + i) & 3 for i in range(1, 4 - n)]
    opp_later = [s for s in later if (s ^ seat) & 1]
    led = cards[0] // NUM_RANKS if n else -1
    follow = h & SUIT_MASKS[led] if n else 0
    if n and not follow and pending:
        # R1.4 / R2.4a: the card played makes trump: the lowest of the strongest suit
        best_suit = max((x for x in range(4) if h & SUIT_MASKS[x]), key=lambda x: _suit_strength(h, x, tens_matter))
        return _lowest(h & SUIT_MASKS[best_suit], tens_matter, -1)
    legal = follow or h
    if n:
        wi = trick_winner(cards, trump)
        wcard = cards[wi]
        wseat = hand.trick_seats[wi]
    else:
        wcard = wseat = -1
    middle = rules.has_middle
    middle_tens = hand.middle_tens
    last_winner = hand.last_winner
    last_trick = len(hand.trick_winners) + 1 == rules.num_tricks
    trick_tens = 0
    for c in cards:
        if c % NUM_RANKS == TEN_RANK:
            trick_tens += 1
    live_others = 0
    for o in range(4):
        if o != seat:
            live_others |= hands[o]
    lead_chance = -1.0

    def threat() -> float:
        """R1.5: the share of the pile a new pair threat is worth: ours 1 if we can
        win the next trick on lead (a card nobody beats), else 0; theirs a half."""
        nonlocal lead_chance
        if lead_chance < 0:
            them = [s for s in range(4) if (s ^ seat) & 1]
            lead_chance = float(any(_holds(c, c // NUM_RANKS, trump, pending, them, hands) for c in cards_in(h)))
        return lead_chance

    best = -1
    best_key = (-1e9, 0)
    m = legal
    while m:
        b = m & -m
        m ^= b
        card = b.bit_length() - 1
        suit = card // NUM_RANKS
        r = card % NUM_RANKS
        ten = 1 if tens_matter and r == TEN_RANK else 0
        if not n or (suit == wcard // NUM_RANKS and card > wcard) or (suit == trump and wcard // NUM_RANKS != trump):
            p_us = 1.0 if _holds(card, led if n else suit, trump, pending, opp_later, hands) else 0.0
            our = seat
            their = next((o for o in opp_later if o == last_winner), opp_later[0] if opp_later else -1)
        elif not ((wseat ^ seat) & 1):
            p_us = 1.0 if _holds(wcard, led, trump, pending, opp_later, hands) else 0.0
            our = wseat
            their = opp_later[0] if opp_later else -1
        else:
            their = wseat
            partner_after = [o for o in later if not ((o ^ seat) & 1)]
            our = partner_after[0] if partner_after else seat
            p_us = 0.0
            if partner_after:
                ph = hands[our]
                wsuit = wcard // NUM_RANKS
                pf = ph & SUIT_MASKS[led]
                can = pf & SUIT_MASKS[wsuit] & ~((2 << wcard) - 1) if wsuit == led else 0
                if not pf and trump >= 0:
                    tm = ph & SUIT_MASKS[trump]
                    can = tm & ~((2 << wcard) - 1) if wsuit == trump else tm
                if can:
                    top = can.bit_length() - 1
                    rest = [o for o in opp_later if o != our and later.index(o) > later.index(our)]
                    p_us = 0.7 if _holds(top, led, trump, pending, rest, hands) else 0.0
        # what the trick is worth to us, and to them (a pair threat not ours worth a half, R1.5)
        t, share = trick_tens + ten, threat if our == seat else _HALF
        gain = trick_stake(rules, t, middle_tens, last_trick or last_winner == our, share)
        loss = trick_stake(rules, t, middle_tens, last_trick or last_winner == their, _HALF) if their >= 0 else gain
        if middle and last_winner >= 0 and (last_winner ^ seat) & 1 and their == last_winner:
            loss += 0.4  # fight hardest against the other side's second trick in a row
        cost = 0.02 * r
        if suit == known_trump:
            cost += 0.12 + 0.02 * r
        if r >= 9 and not live_others & SUIT_MASKS[suit] & ~((2 << card) - 1):
            cost += 0.15
        value = p_us * gain - (1.0 - p_us) * loss - 2.0 * cost
        key = (value, -r)
        if key > best_key:
            best, best_key = card, key
    return best


def _holds(card: int, led: int, trump: int, pending: bool, opponents: list[int], hands: list[int]) -> bool:
    """Would ``card`` (winning now) still win after ``opponents`` play (full knowledge)?"""
    s = card // NUM_RANKS
    above = SUIT_MASKS[s] & ~((2 << card) - 1)
    for o in opponents:
        ho = hands[o]
        if ho & SUIT_MASKS[led]:
            if s == led and ho & above:
                return False  # follows with a higher card
        elif pending:
            return False  # R1.4 / R2.4a: its card makes trump and wins
        elif s == trump:
            if ho & above:
                return False  # over-trumps
        elif trump >= 0 and ho & SUIT_MASKS[trump]:
            return False  # trumps
    return True


def _lowest(mask: int, tens_matter: bool, trump: int) -> int:
    """The lowest card by rank, a non-trump before a trump, a ten only if nothing else."""
    best = -1
    best_key = 99
    m = mask
    while m:
        b = m & -m
        m ^= b
        c = b.bit_length() - 1
        key = (
            (c % NUM_RANKS)
            + (13 if c // NUM_RANKS == trump else 0)
            + (40 if tens_matter and c % NUM_RANKS == TEN_RANK else 0)
        )
        if key < best_key:
            best, best_key = c, key
    return best


# ---------------------------------------------------------------------- the agent
def eliminate(totals: dict[int, float], active: list[int], worlds: int, prune: float) -> list[int]:
    """Successive elimination: the actions of ``active`` not clearly behind the best,
    whose mean score is within ``prune / sqrt(worlds)`` of the best mean (every one of
    them scored on the same ``worlds`` worlds, so the comparison is paired); ``prune``
    0 keeps them all."""
    if prune <= 0 or len(active) < 2:
        return active
    cut = max(totals[a] for a in active) / worlds - prune / math.sqrt(worlds)
    return [a for a in active if totals[a] / worlds >= cut]


def child_seed(seed: int | None, stream: int) -> int | None:
    """A seed for stream ``stream`` of a bot seeded ``seed`` (its fallback, its playout
    agents), independent of the bot's own generator; None for None."""
    return None if seed is None else int(np.random.SeedSequence([seed, stream]).generate_state(1)[0])


def card_classes(legal: list[int], hand: int, played: int, trick: int, tens_matter: bool) -> list[list[int]]:
    """``legal`` cards grouped into classes equivalent for a seat holding ``hand``:
    cards of one suit with no live card of another seat (not ``played``, not in
    ``hand``) and no card of the ``trick`` between them; a ten is never merged with a
    non-ten where tens score. Each class ascending, the classes by their lowest card.
    For the searching seat (:func:`view_groups`) the classes hold in every consistent
    world; :mod:`agents.search.ismcts` also groups another seat's cards in one world."""
    others = (FULL_PACK_MASK & ~played & ~hand) | trick
    groups: list[list[int]] = []
    prev = -1
    for c in sorted(legal):
        if (
            prev >= 0
            and suit_of(c) == suit_of(prev)
            and not others & ((1 << c) - (2 << prev))
            and not (tens_matter and TEN_RANK in (rank_of(c), rank_of(prev)))
        ):
            groups[-1].append(c)
        else:
            groups.append([c])
        prev = c
    return groups


def view_groups(view: PlayerView) -> list[list[int]]:
    """The seat's legal actions grouped into classes equivalent in every consistent world
    (:func:`card_classes` from what it knows); a trump decision or a bid alone."""
    legal = list(view.legal_actions)
    if view.phase != Phase.PLAY:
        return [[a] for a in legal]
    trick = 0
    for _seat, c in view.trick:
        trick |= 1 << c
    return card_classes(legal, view.hand_mask, view.played_mask, trick, view.rules.tens_scoring)


class SearchAgent(Agent):
    """Perfect-information Monte Carlo over uniformly sampled consistent deals."""

    name = "search"

    def __init__(
        self,
        rules: Rules,
        k: int = 48,
        depth: int = 5,
        budget_ms: float | None = None,
        playout: str | Agent = "rule",
        seed: int | None = None,
        exact: bool = False,
        margin: float = TIE_WEIGHT,
        prune: float = 1.0,
        rollout_depth: int | None = None,
        opponents: Agent | None = None,
        prior: ActionPrior | None = None,
        keep: float = 1.0,
    ) -> None:
        """``playout`` is one of :data:`PLAYOUT_RULES` or an agent that plays every seat
        in playouts; ``opponents`` an agent for the opponents' seats there instead.
        Both are re-seeded from ``seed`` (agents are built from specs by
        :func:`agents.registry.make_agent`). ``prior`` and ``keep``: see
        :meth:`pruned_by_prior`."""
        super().__init__(seed)
        if k < 1 or depth < 0:
            raise ValueError("search needs k >= 1 and depth >= 0")
        if not 0.0 < keep <= 1.0:
            raise ValueError(f"search: keep is a share of the prior's mass in (0, 1], not {keep}")
        self.prior = prior
        self.keep = keep
        self.rules = rules
        self.k = k
        self.depth = depth
        self.budget_ms = budget_ms
        self.playout = playout if isinstance(playout, str) else playout.name  # the spec, for reports
        if isinstance(playout, str) and playout not in PLAYOUT_RULES:
            raise ValueError(f"search: playout is one of {', '.join(PLAYOUT_RULES)} or an agent, not {playout!r}")
        self.exact = exact
        self.margin = margin
        self.prune = prune
        self.rollout_depth = depth if rollout_depth is None else rollout_depth
        child = child_seed(seed, 1)
        self.fallback = HardAgent(child)
        self.policy: Agent | None = None if isinstance(playout, str) else playout
        self.opponent_policy: Agent | None = opponents
        for agent in (self.policy, self.opponent_policy):
            if agent is not None:
                agent.seed(child)
                if isinstance(agent, HardAgent):
                    agent.samples = 0  # its own sampling would nest worlds in worlds
        self.solver = Solver(rules) if rules.players == 4 else None
        self.objective = objective(rules)
        self.last_scores: dict[int, float] = {}
        self.last_worlds = 0

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        child = child_seed(seed, 1)
        self.fallback.seed(child)
        for agent in (self.policy, self.opponent_policy):
            if agent is not None:
                agent.seed(child)

    # ------------------------------------------------------------------ decisions
    def searchable(self, view: PlayerView) -> bool:
        """Card play, and the R2.4c/d trump choice of the first void seat."""
        if view.num_players != 4:
            return False
        if view.phase == Phase.PLAY:
            return True
        return view.phase == Phase.TRUMP and view.rules.trump_making.by_first_void and bool(view.trick)

    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if not self.searchable(view):
            return self.unsearched(view)
        groups = self.action_groups(view)
        if self.prior is not None and self.keep < 1.0:
            groups = self.pruned_by_prior(view, groups)
            if len(groups) == 1:  # what scoring one class would choose, without the worlds
                self.last_worlds, self.last_scores = 0, {}
                return groups[0][0]
        totals, counts, active = self.score_actions(view, [g[0] for g in groups])
        self.last_worlds = max(counts.values())
        self.last_scores = {a: totals[g[0]] / max(counts[g[0]], 1) for g in groups for a in g}
        top = max(totals[a] for a in active)
        tied = [a for a in active if totals[a] >= top - 1e-9]
        if len(tied) == 1:
            return tied[0]
        members = {a: g[0] for g in groups for a in g}
        hint = self.fallback.act(view)
        if members.get(hint) in tied:
            return hint
        return min(tied, key=lambda a: (a % NUM_RANKS, a))

    def unsearched(self, view: PlayerView) -> int:
        """A decision the search leaves (:meth:`searchable`): the prior's most probable
        move where there is one, the network the search already trusts to rank its
        moves, else the hard bot's. In court-piece the shipped network's trump call
        wins about 0.01 more of its hands than the hard bot's."""
        if self.prior is None:
            return self.fallback.act(view)
        return int(np.argmax(self.prior.probabilities(view)))

    def pruned_by_prior(self, view: PlayerView, groups: list[list[int]]) -> list[list[int]]:
        """The classes of :meth:`action_groups` worth scoring: the ``prior``'s most
        probable first until they hold ``keep`` of its mass (a class's mass is its
        cards'), so the worlds go to the moves the network considers at all."""
        assert self.prior is not None
        if len(groups) == 1:
            return groups
        probs = self.prior.probabilities(view)
        ranked = sorted(((float(probs[g].sum()), g) for g in groups), key=lambda mg: -mg[0])
        kept: list[list[int]] = []
        held = 0.0
        for mass, g in ranked:
            kept.append(g)
            held += mass
            if held >= self.keep:
                break
        return kept

    def score_actions(self, view: PlayerView, reps: list[int]) -> tuple[dict[int, float], dict[int, int], list[int]]:
        """Each action's total score over the worlds it was scored on, how many those
        were, and the actions still in play (the others were eliminated, which only
        the successive elimination of ``prune`` does)."""
        start = time.perf_counter()
        totals = dict.fromkeys(reps, 0.0)
        counts = dict.fromkeys(reps, 0)
        active = reps
        sampler = WorldSampler(view)
        for worlds in range(1, self.k + 1):
            world = sampler.world(sampler.sample(self.rng))
            for a, v in self.evaluate(world, active, view).items():
                totals[a] += v
                counts[a] += 1
            if self.budget_ms is not None and (time.perf_counter() - start) * 1000.0 >= self.budget_ms:
                break
            if worlds % 4 == 0:
                active = eliminate(totals, active, worlds, self.prune)
        return totals, counts, active

    def action_groups(self, view: PlayerView) -> list[list[int]]:
        """Legal actions grouped into classes equivalent in every consistent world
        (:func:`view_groups`)."""
        return view_groups(view)

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, world: HandState, actions: list[int], view: PlayerView) -> dict[int, float]:
        """Score of each action in one sampled world."""
        side = view.seat & 1
        solver = self.solver
        assert solver is not None
        obj = self.objective
        if solvable(world) and tricks_left(world) <= self.depth:
            pos = position_of(world)
            only = set(actions)
            if self.exact:
                vals = solver.move_values(pos, only=only)
                return {a: outcome_score(obj, world, vals[a], side, margin_weight=self.margin) for a in actions}
            bounds = solver.move_intervals(pos, obj.cuts(world), only=only)
            return {a: outcome_score(obj, world, bounds[a][0], side, bounds[a][1], self.margin) for a in actions}
        out = {}
        solver.reset()  # one table for the rollouts of this world: their endings transpose
        for a in actions:
            w = world.clone()
            w.apply_action(a)
            out[a] = self.rollout(w, side, view)
        return out

    def rollout(self, w: HandState, side: int, view: PlayerView) -> float:
        """Play ``w`` out with the playout policy until it can be solved within the
        depth (or ends); the score for ``side``."""
        solver = self.solver
        assert solver is not None
        obj = self.objective
        match = None
        policy = self.policy
        opp = self.opponent_policy
        rule = rule_action if self.playout == "rule" else greedy_action
        rng = self.rng
        depth = self.rollout_depth
        while True:
            phase = w.phase
            if phase == Phase.DONE:
                return outcome_score(obj, w, 0, side, margin_weight=self.margin)
            if phase == Phase.DRAW:
                candidates = w.draw_candidates()
                w.apply_draw(candidates[int(rng.integers(len(candidates)))])  # R1.4: uniform
                continue
            if phase == Phase.PLAY and tricks_left(w) <= depth and solvable(w):
                pos = position_of(w)
                if self.exact:
                    return outcome_score(obj, w, solver.value(pos, fresh=False), side, margin_weight=self.margin)
                lo, hi = solver.interval(pos, obj.cuts(w), fresh=False)
                return outcome_score(obj, w, lo, side, hi, self.margin)
            actor = policy
            if opp is not None and (w.to_act ^ side) & 1:
                actor = opp
            if actor is None:
                action = rule(w)
            else:
                if match is None:
                    match = match_for(w, view)
                action = actor.act(view_in_world(match, w.to_act))
            w.apply_action(action)


__all__ = ["SearchAgent", "eliminate", "greedy_action", "outcome_score", "rule_action", "tricks_left"]
