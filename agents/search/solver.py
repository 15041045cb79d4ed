"""Exact open-hands (double-dummy) solver for every four-player ruleset.

With every card known, a hand from a given position is a two-sided zero-sum game of
perfect information. :class:`Solver` computes its exact value: the best outcome side 0
can force against best defence (:meth:`Solver.value`), the value of every legal card
(:meth:`Solver.move_values`), or just enough to settle the hand's result
(:meth:`Solver.interval`, :meth:`Solver.move_intervals`).

**Objective** (:mod:`agents.bots.objective`, one object per hand-scoring mode): side
0's value from the position on (tens, points or tricks, always counted for side 0), an
integer the hand's result is a monotone function of, so the play that maximises the
value also maximises the result. :meth:`~agents.bots.objective.Objective.winner` maps
a value to the result and :meth:`~agents.bots.objective.Objective.cuts` lists the values
where the result changes (one or two): a null-window search at each settles the result
without the exact value.

**Positions** (:class:`Position`, :func:`position_of`) need all cards dealt and the
trump known to both sides: in force, or in ``dehla-direct`` ``first-void`` still to be
made (the first card played by a seat unable to follow makes its suit trump at once,
R2.4a). Not solvable (:func:`solvable` says so): the R1.4 staged deal before its second
stage (cards not dealt), an R2.4c closed trump chosen but not revealed, an R2.4c/d
trump still to be chosen or named, a decision that is not a card, six players (R2.8).

**Search.** Integer alpha-beta, fail-soft, with null windows (a value by binary search
over its small range; the table makes the repeated searches cheap); a transposition
table keyed at trick boundaries on relative ranks (per suit, who holds the cards still
in play in rank order, and where the ten is when tens score: positions that differ
only in cards already played share an entry), the leader, the trump and the scoring
state (middle tens and the pair-threat seat for ``dehla``, tricks so far for
``court-piece``), holding lower and upper bounds and the best lead; equivalent-card
merging (two cards of one seat in a suit with no live card of another seat or of the
current trick between them are interchangeable; a ten is never merged with a non-ten
where tens score); static bounds (the tens, points or tricks still out); move ordering
(the table's lead, else high cards first; followers: the cheapest winning card first
against the other side, low cards and tens first on a partner's trick). The four
plays of a trick are nested loops of one function per trick, the last trick is
resolved directly, and the state is bit masks mutated in place and restored.

Speed (``benchmarks/search_speed.py``, ``dehla``, 100 random positions at a lead, CPU
time): 5 tricks left 0.6 ms median / 11 ms worst, 6: 2.5 / 34, 7: 14 / 229,
8: 31 / 911 ms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agents.bots.objective import Resolver, objective
from dehla_env.cards import NUM_RANKS, SUIT_MASKS, TEN_RANK, TENS_MASK
from dehla_env.engine.hand import HandState, Phase
from dehla_env.rules import Rules, TrumpMaking
from dehla_env.tricks import trick_winner

_INF = 1 << 20
_SUIT = tuple(c // NUM_RANKS for c in range(52))
_RANK = tuple(c % NUM_RANKS for c in range(52))
# sort keys: tens first then low; tens last then low; high ranks first (ties: suit order)
_TEN_FIRST = tuple((0 if c % NUM_RANKS == TEN_RANK else 16) + c % NUM_RANKS for c in range(52))
_TEN_LAST = tuple((16 if c % NUM_RANKS == TEN_RANK else 0) + c % NUM_RANKS for c in range(52))
_HIGH_FIRST = tuple(-(c % NUM_RANKS) for c in range(52))

# Relative ranks (transposition keys): one suit's four holdings, packed as 4 x 13 bits,
# map to a code that keeps only who holds the cards still in play in rank order (and
# where the ten is, when tens score). Positions equal up to cards already played share
# a table entry. Cached across searches; the cache is bounded.
_CANON: dict[bool, dict[int, int]] = {False: {}, True: {}}
_CANON_MAX = 1 << 20
_TEN_BIT = 1 << TEN_RANK


def _canon_code(x: int, tens_matter: bool) -> int:
    """The relative-rank code of one suit's holdings ``x`` (seat ``s``'s cards in bits
    ``13 s .. 13 s + 12``): the seat of each card still in play, lowest rank first, two
    bits each, their number at bit 26 and, when tens score, at bit 30 the ten's place in
    that order (1-based; 0: played). Only the cards in play are visited."""
    f0 = x & 8191
    f1 = x >> 13 & 8191
    f2 = x >> 26 & 8191
    f3 = x >> 39
    m = f0 | f1 | f2 | f3
    code = 0
    k = 0
    ten = 0
    while m:
        b = m & -m
        m ^= b
        seat = 0 if f0 & b else 1 if f1 & b else 2 if f2 & b else 3
        code |= seat << (2 * k)
        k += 1
        if b == _TEN_BIT:
            ten = k
    code |= k << 26
    if tens_matter:
        code |= ten << 30
    return code


@dataclass
class Position:
    """A solvable position: all four hands known, the trick in progress, the trump.

    ``trick`` holds the cards played to the current trick in order from ``leader``.
    ``trump`` is the suit in force (-1: none); ``trump_pending`` means the first card
    played by a seat unable to follow will make its suit trump (R2.4a). ``middle_tens``
    and ``last_winner`` are the R1.5 pile state (``dehla``); ``tricks`` the tricks won
    per side so far (needed by ``court-piece``, and for :func:`outcome`).
    """

    rules: Rules
    hands: list[int]
    leader: int
    trick: list[int] = field(default_factory=list)
    trump: int = -1
    trump_pending: bool = False
    middle_tens: int = 0
    last_winner: int = -1
    tricks: tuple[int, int] = (0, 0)

    @property
    def to_act(self) -> int:
        return (self.leader + len(self.trick)) & 3

    def legal_cards(self) -> list[int]:
        h = self.hands[self.to_act]
        if self.trick:
            f = h & SUIT_MASKS[self.trick[0] // NUM_RANKS]
            if f:
                h = f
        return _bits(h)


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        b = mask & -mask
        out.append(b.bit_length() - 1)
        mask ^= b
    return out


def solvable(hand: HandState) -> bool:
    """Whether :func:`position_of` accepts ``hand`` (see the module docstring)."""
    rules = hand.rules
    if hand.n != 4 or hand.phase != Phase.PLAY or hand.stage != 2 or hand.trump_hidden:
        return False
    if hand.trump >= 0:
        return True
    # No trump in force: only R2.4a's first void (it is public who makes it, and how).
    return rules.trump_making is TrumpMaking.FIRST_VOID and hand.trump_suit < 0


def position_of(hand: HandState) -> Position:
    """The solver's position for an engine state (which must be :func:`solvable`)."""
    if not solvable(hand):
        raise ValueError("position not solvable: cards undealt, trump hidden or unchosen, or not a card decision")
    pending = hand.trump < 0
    return Position(
        rules=hand.rules,
        hands=list(hand.hands),
        leader=hand.trick_seats[0] if hand.trick_seats else hand.to_act,
        trick=list(hand.trick_cards),
        trump=hand.trump,
        trump_pending=pending,
        middle_tens=hand.middle_tens,
        last_winner=hand.last_winner,
        tricks=(hand.tricks[0], hand.tricks[1]),
    )


class Solver:
    """Exact values of open-hands positions. One instance can solve many positions;
    its transposition table is cleared by :meth:`reset` (or ``fresh=True``)."""

    def __init__(self, rules: Rules) -> None:
        if rules.players != 4:
            raise ValueError("the solver handles four players only")
        self.rules = rules
        self.objective = objective(rules)
        self.tens_matter = self.objective.tens_matter
        self._resolve = self.objective.resolver()
        self._upper = self.objective.upper_bound()
        self.tt: dict[tuple, list[int]] = {}
        self.nodes = 0
        self._hands: list[int] = [0, 0, 0, 0]
        self._trick = self._build_trick()

    def reset(self) -> None:
        """Forget the transposition table (positions of another world)."""
        self.tt.clear()

    # ------------------------------------------------------------------ public API
    def value(self, pos: Position, fresh: bool = True) -> int:
        """Exact future value for side 0 (see the module docstring)."""
        if fresh:
            self.reset()
        node = self._root(pos)
        return self._exact(node)

    def move_values(self, pos: Position, fresh: bool = True, only: set[int] | None = None) -> dict[int, int]:
        """Exact future value for side 0 after each legal card of the seat to act
        (equivalent cards share one search); with ``only``, just for the cards in it."""
        if fresh:
            self.reset()
        node = self._root(pos)
        seat = node[0]
        self._hands[:] = pos.hands
        h = pos.hands[seat]
        legal = pos.legal_cards()
        reps = self._representatives(node, h, legal)
        out: dict[int, int] = {}
        for rep, group in reps:
            if only is not None and not any(c in only for c in group):
                continue
            self._hands[:] = pos.hands
            self._hands[seat] = h ^ (1 << rep)
            gain, child = self._step(node, rep)
            v = gain if child is None else gain + self._exact(child)
            for c in group:
                out[c] = v
        self._hands[:] = pos.hands
        return out

    def interval(self, pos: Position, cuts: list[int], fresh: bool = True) -> tuple[int, int]:
        """Bounds ``(lo, hi)`` on side 0's future value that no cut ``t`` separates
        (``lo < t <= hi`` for none): with the cuts where the hand's result changes,
        this settles the result with one or two null-window searches instead of an
        exact value."""
        if fresh:
            self.reset()
        node = self._root(pos)
        return self._classify(node, cuts, 0)

    def move_intervals(
        self, pos: Position, cuts: list[int], fresh: bool = True, only: set[int] | None = None
    ) -> dict[int, tuple[int, int]]:
        """:meth:`interval` after each legal card (cuts in the same units as for the
        position itself: future value from ``pos`` on); with ``only``, just for the
        cards in it."""
        if fresh:
            self.reset()
        node = self._root(pos)
        seat = node[0]
        h = pos.hands[seat]
        out: dict[int, tuple[int, int]] = {}
        for rep, group in self._representatives(node, h, pos.legal_cards()):
            if only is not None and not any(c in only for c in group):
                continue
            self._hands[:] = pos.hands
            self._hands[seat] = h ^ (1 << rep)
            gain, child = self._step(node, rep)
            if child is None:
                bounds = (gain, gain)
            else:
                lo, hi = self._classify(child, cuts, gain)
                bounds = (gain + lo, gain + hi)
            for c in group:
                out[c] = bounds
        self._hands[:] = pos.hands
        return out

    def _classify(self, node: tuple, cuts: list[int], offset: int) -> tuple[int, int]:
        lo, hi = self._bounds(node)
        todo = sorted(t - offset for t in cuts if lo < t - offset <= hi)
        while todo:
            t = todo[len(todo) // 2]
            v = self._mid(node, t - 1, t)
            if v >= t:
                lo = max(lo, v)
            else:
                hi = min(hi, v)
            todo = [x for x in todo if lo < x <= hi]
        return lo, hi

    # ------------------------------------------------------------------ internals
    def _root(self, pos: Position) -> tuple:
        """Node tuple (seat, n, led, wc, ws, tmask, ttens, trump, pending, sc)."""
        self._hands[:] = pos.hands
        trick = pos.trick
        n = len(trick)
        seat = (pos.leader + n) & 3
        led = trick[0] // NUM_RANKS if n else -1
        wc = ws = -1
        tmask = ttens = 0
        trump = pos.trump
        if n:
            i = trick_winner(trick, trump)
            wc = trick[i]
            ws = (pos.leader + i) & 3
            for c in trick:
                tmask |= 1 << c
                if c % NUM_RANKS == TEN_RANK:
                    ttens += 1
        pending = pos.trump_pending and trump < 0
        sc = self.objective.start(pos.middle_tens, pos.last_winner, pos.tricks)
        return (seat, n, led, wc, ws, tmask, ttens, trump, pending, sc)

    def _bounds(self, node: tuple) -> tuple[int, int]:
        """Static bounds on side 0's future value at ``node``."""
        h = self._hands
        allc = h[0] | h[1] | h[2] | h[3]
        return 0, self._upper(allc.bit_count() + node[1], (allc & TENS_MASK).bit_count() + node[6], node[9])

    def _exact(self, node: tuple) -> int:
        lo, hi = self._bounds(node)
        while lo < hi:
            mid = (lo + hi + 1) >> 1
            v = self._mid(node, mid - 1, mid)
            if v >= mid:
                lo = v if v > mid else mid
            else:
                hi = v if v < mid - 1 else mid - 1
        return lo

    def _representatives(self, node: tuple, h: int, legal: list[int]) -> list[tuple[int, list[int]]]:
        """Group ``legal`` into classes of equivalent cards: [(representative, group)]."""
        hs = self._hands
        others = ((hs[0] | hs[1] | hs[2] | hs[3]) & ~h) | node[5]
        groups: list[tuple[int, list[int]]] = []
        prev = -2
        for c in legal:  # ascending
            if (
                prev >= 0
                and c // NUM_RANKS == prev // NUM_RANKS
                and not others & ((1 << c) - (2 << prev))
                and not (self.tens_matter and (c % NUM_RANKS == TEN_RANK or prev % NUM_RANKS == TEN_RANK))
            ):
                groups[-1][1].append(c)
            else:
                groups.append((c, [c]))
            prev = c
        return groups

    def _step(self, node: tuple, c: int) -> tuple[int, tuple | None]:
        """Play ``c`` at ``node`` (hands already updated by the caller): (gain for side
        0, child node or None at the end of the hand)."""
        seat, n, led, wc, ws, tmask, ttens, trump, pending, sc = node
        s = c // NUM_RANKS
        if n == 0:
            led, wc, ws = s, c, seat
        else:
            if pending and s != led:
                trump = s
                pending = False
                wc, ws = c, seat
            elif (s == wc // NUM_RANKS and c > wc) or (s == trump and wc // NUM_RANKS != trump):
                wc, ws = c, seat
        if c % NUM_RANKS == TEN_RANK:
            ttens += 1
        if n < 3:
            return 0, ((seat + 1) & 3, n + 1, led, wc, ws, tmask | (1 << c), ttens, trump, pending, sc)
        hs = self._hands
        # the caller removed c from the hand already
        last = not (hs[0] | hs[1] | hs[2] | hs[3])
        gain, sc, end = self._resolve(ws, ttens, sc, last)
        if end:
            return gain, None
        return gain, (ws, 0, -1, -1, -1, 0, 0, trump, pending, sc)

    def _build_trick(self):  # noqa: C901 - the hot path, kept flat on purpose
        """``trick(L, trump, pending, sc, alpha, beta)``: the fail-soft alpha-beta value
        of the trick-boundary position with ``L`` to lead (hands in ``self._hands``).
        The four plays of a trick are nested loops, not calls."""
        tens_matter = self.tens_matter
        tbits = TENS_MASK if tens_matter else 0
        H = self._hands
        TT = self.tt
        SM = SUIT_MASKS
        SUIT = _SUIT
        RANK = _RANK
        TENS = TENS_MASK
        INF = _INF
        resolve = self._resolve
        upper = self._upper
        last_trick = _last_trick
        solver = self

        def gen(cands, others):
            """Representative cards of ``cands`` (ascending), equivalent runs merged."""
            if not cands & (cands - 1):
                return [cands.bit_length() - 1]
            moves = []
            prev = -2
            pbit = 0
            m = cands
            while m:
                b = m & -m
                m ^= b
                c = b.bit_length() - 1
                if prev >= 0 and SUIT[c] == SUIT[prev] and not others & (b - (pbit << 1)) and not tbits & (b | pbit):
                    prev = c
                    pbit = b
                    continue
                moves.append(c)
                prev = c
                pbit = b
            return moves

        def order_follow(moves, wc, wsuit, trump, pending, led, partner_wins):
            if partner_wins:
                if tens_matter:
                    moves.sort(key=_TEN_FIRST.__getitem__)
                else:
                    moves.sort(key=RANK.__getitem__)
                return moves
            win = []
            lose = []
            for x in moves:
                xs = SUIT[x]
                if (xs == wsuit and x > wc) or (xs == trump and wsuit != trump) or (pending and xs != led):
                    win.append(x)
                else:
                    lose.append(x)
            if len(lose) > 1:
                lose.sort(key=_TEN_LAST.__getitem__ if tens_matter else RANK.__getitem__)
            return win + lose

        def trick(L, trump, pending, sc, alpha, beta):
            solver.nodes += 1
            hL, hA, hB, hC = H[L], H[(L + 1) & 3], H[(L + 2) & 3], H[(L + 3) & 3]
            allc = hL | hA | hB | hC
            cnt = allc.bit_count()
            if cnt == 4:
                return last_trick(resolve, L, H, trump, pending, sc)
            h0, h1, h2, h3 = H
            x = (h0 & 8191) | (h1 & 8191) << 13 | (h2 & 8191) << 26 | (h3 & 8191) << 39
            k0 = canon_get(x)
            if k0 is None:
                k0 = canon_new(x)
            x = (h0 >> 13 & 8191) | (h1 >> 13 & 8191) << 13 | (h2 >> 13 & 8191) << 26 | (h3 >> 13 & 8191) << 39
            k1 = canon_get(x)
            if k1 is None:
                k1 = canon_new(x)
            x = (h0 >> 26 & 8191) | (h1 >> 26 & 8191) << 13 | (h2 >> 26 & 8191) << 26 | (h3 >> 26 & 8191) << 39
            k2 = canon_get(x)
            if k2 is None:
                k2 = canon_new(x)
            x = (h0 >> 39) | (h1 >> 39) << 13 | (h2 >> 39) << 26 | (h3 >> 39) << 39
            k3 = canon_get(x)
            if k3 is None:
                k3 = canon_new(x)
            key = (k0, k1, k2, k3, L, trump, sc)
            ent = TT.get(key)
            if ent is not None:
                lo, hi, best_lead = ent
                if best_lead >= 0:
                    # stored as (suit, how many of the leader's cards of that suit are lower)
                    m = hL & SM[best_lead >> 4]
                    for _ in range(best_lead & 15):
                        m &= m - 1
                    best_lead = (m & -m).bit_length() - 1
            else:
                lo, hi = 0, upper(cnt, (allc & TENS).bit_count(), sc)
                if lo == hi:
                    return lo
                best_lead = -1
                ent = [lo, hi, -1]
                TT[key] = ent
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
            s1 = (L + 1) & 3
            s2 = (L + 2) & 3
            s3 = (L + 3) & 3
            mx0 = not (L & 1)  # levels 0 and 2 maximise iff the leader is on side 0
            oA = allc ^ hA
            oB = allc ^ hB
            oC = allc ^ hC

            moves0 = gen(hL, allc ^ hL)
            if len(moves0) > 1:
                if best_lead >= 0 and best_lead in moves0:
                    moves0.remove(best_lead)
                    moves0.insert(0, best_lead)
                else:
                    moves0.sort(key=_HIGH_FIRST.__getitem__)
            g0 = -INF if mx0 else INF
            a0 = alpha
            b0 = beta
            best = -1
            for c0 in moves0:
                H[L] = hL ^ (1 << c0)
                led = SUIT[c0]
                ledm = SM[led]
                tt0 = 1 if RANK[c0] == 8 else 0
                # ---------------- level 1: the leader's left-hand opponent
                f = hA & ledm
                moves1 = gen(f or hA, oA)
                if len(moves1) > 1:
                    moves1 = order_follow(moves1, c0, led, trump, pending and not f, led, False)
                g1 = INF if mx0 else -INF
                a1 = a0
                b1 = b0
                for c1 in moves1:
                    H[s1] = hA ^ (1 << c1)
                    x = SUIT[c1]
                    t1 = trump
                    p1 = pending
                    if pending and x != led:
                        t1 = x
                        p1 = False
                        w1, ws1 = c1, s1
                    elif (x == led and c1 > c0) or (x == trump and led != trump):
                        w1, ws1 = c1, s1
                    else:
                        w1, ws1 = c0, L
                    tt1 = tt0 + 1 if RANK[c1] == 8 else tt0
                    # ------------ level 2: the leader's partner
                    f = hB & ledm
                    moves2 = gen(f or hB, oB)
                    if len(moves2) > 1:
                        moves2 = order_follow(moves2, w1, SUIT[w1], t1, p1 and not f, led, ws1 == L)
                    g2 = -INF if mx0 else INF
                    a2 = a1
                    b2 = b1
                    for c2 in moves2:
                        H[s2] = hB ^ (1 << c2)
                        x = SUIT[c2]
                        t2 = t1
                        p2 = p1
                        ws = SUIT[w1]
                        if p1 and x != led:
                            t2 = x
                            p2 = False
                            w2, ws2 = c2, s2
                        elif (x == ws and c2 > w1) or (x == t1 and ws != t1):
                            w2, ws2 = c2, s2
                        else:
                            w2, ws2 = w1, ws1
                        tt2 = tt1 + 1 if RANK[c2] == 8 else tt1
                        # -------- level 3: the last to play
                        f = hC & ledm
                        moves3 = gen(f or hC, oC)
                        if len(moves3) > 1:
                            moves3 = order_follow(moves3, w2, SUIT[w2], t2, p2 and not f, led, ws2 == s1)
                        g3 = INF if mx0 else -INF
                        a3 = a2
                        b3 = b2
                        for c3 in moves3:
                            H[s3] = hC ^ (1 << c3)
                            x = SUIT[c3]
                            t3 = t2
                            p3 = p2
                            ws = SUIT[w2]
                            if p2 and x != led:
                                t3 = x
                                p3 = False
                                ws3 = s3
                            elif (x == ws and c3 > w2) or (x == t2 and ws != t2):
                                ws3 = s3
                            else:
                                ws3 = ws2
                            tt3 = tt2 + 1 if RANK[c3] == 8 else tt2
                            gain, sc3, end = resolve(ws3, tt3, sc, False)
                            if end:
                                v = gain
                            else:
                                v = gain + trick(ws3, t3, p3, sc3, a3 - gain, b3 - gain)
                            if mx0:  # level 3 minimises
                                if v < g3:
                                    g3 = v
                                    if g3 < b3:
                                        b3 = g3
                                        if a3 >= b3:
                                            break
                            elif v > g3:
                                g3 = v
                                if g3 > a3:
                                    a3 = g3
                                    if a3 >= b3:
                                        break
                        H[s3] = hC
                        v = g3
                        if mx0:  # level 2 maximises
                            if v > g2:
                                g2 = v
                                if g2 > a2:
                                    a2 = g2
                                    if a2 >= b2:
                                        break
                        elif v < g2:
                            g2 = v
                            if g2 < b2:
                                b2 = g2
                                if a2 >= b2:
                                    break
                    H[s2] = hB
                    v = g2
                    if mx0:  # level 1 minimises
                        if v < g1:
                            g1 = v
                            if g1 < b1:
                                b1 = g1
                                if a1 >= b1:
                                    break
                    elif v > g1:
                        g1 = v
                        if g1 > a1:
                            a1 = g1
                            if a1 >= b1:
                                break
                H[s1] = hA
                v = g1
                if mx0:
                    if v > g0:
                        g0 = v
                        best = c0
                        if g0 > a0:
                            a0 = g0
                            if a0 >= b0:
                                break
                elif v < g0:
                    g0 = v
                    best = c0
                    if g0 < b0:
                        b0 = g0
                        if a0 >= b0:
                            break
            H[L] = hL
            g = g0
            if g <= alpha:
                if g < ent[1]:
                    ent[1] = g
                cut = not mx0
            elif g >= beta:
                if g > ent[0]:
                    ent[0] = g
                cut = mx0
            else:
                ent[0] = ent[1] = g
                cut = True
            if cut:  # the move that refuted (or decided) this node leads first next time
                bs = SUIT[best]
                ent[2] = (bs << 4) | (hL & SM[bs] & ((1 << best) - 1)).bit_count()
            return g

        canon = _CANON[tens_matter]
        canon_get = canon.get

        def canon_new(x):
            if len(canon) > _CANON_MAX:
                canon.clear()
            code = _canon_code(x, tens_matter)
            canon[x] = code
            return code

        return trick

    def _mid(self, node: tuple, alpha: int, beta: int) -> int:
        """Fail-soft alpha-beta from a node inside a trick (the root only: from the
        next lead on, :meth:`_build_trick`'s function takes over)."""
        seat, n, led, _wc, _ws, tmask, _tt, trump, pending, sc = node
        if n == 0:
            return self._trick(seat, trump, pending, sc, alpha, beta)
        H = self._hands
        h = H[seat]
        follow = h & SUIT_MASKS[led]
        legal = _bits(follow or h)
        maximize = not seat & 1
        g = -_INF if maximize else _INF
        for rep, _group in self._representatives(node, h, legal):
            H[seat] = h ^ (1 << rep)
            gain, child = self._step(node, rep)
            v = gain if child is None else gain + self._mid(child, alpha - gain, beta - gain)
            H[seat] = h
            if maximize:
                if v > g:
                    g = v
                    alpha = max(alpha, g)
            elif v < g:
                g = v
                beta = min(beta, g)
            if alpha >= beta:
                break
        return g


def _last_trick(resolve: Resolver, leader: int, hands: list[int], trump: int, pending: bool, sc: int) -> int:
    """Value of a last trick (one card each), played from ``leader``."""
    c = hands[leader].bit_length() - 1
    led = c // NUM_RANKS
    wc, ws = c, leader
    ttens = 1 if c % NUM_RANKS == TEN_RANK else 0
    for k in (1, 2, 3):
        seat = (leader + k) & 3
        x = hands[seat].bit_length() - 1
        s = x // NUM_RANKS
        if pending and s != led:
            trump = s
            pending = False
            wc, ws = x, seat
        elif (s == wc // NUM_RANKS and x > wc) or (s == trump and wc // NUM_RANKS != trump):
            wc, ws = x, seat
        if x % NUM_RANKS == TEN_RANK:
            ttens += 1
    return resolve(ws, ttens, sc, True)[0]
