"""The batched engine's decisions, one game at a time, compiled: a card played (and the
trick it completes, the middle pile, the early end, the deal's second stage), a trump
call and a bid, over the :class:`~dehla_env.vector.engine.BatchEngine` arrays.

Each rule is written once here, for one game ``g``, as plain Python that numba compiles
as it is, inlined into the entry points (:data:`~dehla_env.vector.kernel_types.inlined`,
:data:`~dehla_env.vector.kernel_types.uncounted`). The entry points (:func:`step_games`,
:func:`deal_games`, :func:`give_cards`, :func:`recount`, :func:`rescore_tricks`) loop over
the games they are given, so a batch costs one compiled call whatever the phases of its
games; :func:`step_one` is one decision of one game, with numbers for arguments. The rules are those
of :class:`dehla_env.engine.hand.HandState`, the reference, which
``tests/test_vector_equivalence.py`` holds this engine to move for move.

Each entry point takes the engine's state as its two buffers and their map
(:mod:`dehla_env.vector.state`: three arrays, so a call costs the same for one game as
for many), and makes from them ``S``, the engine's arrays
(:class:`~dehla_env.vector.kernel_types.HandArrays`), and ``R``, the ruleset's facts
the rules branch on (:class:`~dehla_env.vector.kernel_types.HandFacts`).
"""

from __future__ import annotations

import numpy as np

from ..actions import BID_OFFSET, MIN_BID, PASS_ACTION, TRUMP_OFFSET
from ..cards import NUM_CARDS, NUM_RANKS, TEN_RANK, rank_of, suit_of
from ..engine.hand import FIRST_STAGE_CARDS, FIRST_STAGE_TRICKS, Phase, TrumpContext
from ..seats import side_of
from ..tricks import trick_key
from .kernel_types import HandArrays, HandFacts, inlined, uncounted
from .state import arrays_of, facts_of

DEAL = int(Phase.DEAL)
DRAW = int(Phase.DRAW)
TRUMP = int(Phase.TRUMP)
BID = int(Phase.BID)
PLAY = int(Phase.PLAY)
DONE = int(Phase.DONE)

CTX_NONE = int(TrumpContext.NONE)
CTX_CHOSEN = int(TrumpContext.CHOSEN)
CTX_OPEN = int(TrumpContext.OPEN)
CTX_VOID = int(TrumpContext.VOID)
CTX_ALL_PASS = int(TrumpContext.ALL_PASS)

# the helpers, compiled for the rules below (inlined into them)
_trick_key = inlined(trick_key)
_suit_of = inlined(suit_of)
_rank_of = inlined(rank_of)
_side_of = inlined(side_of)


@inlined
def _is_ten(card: int) -> int:
    return 1 if _rank_of(card) == TEN_RANK else 0


@inlined
def _await(S: HandArrays, g: int, phase: int, seat: int) -> None:
    S.phase[g] = phase
    S.to_act[g] = seat


@inlined
def _recount_game(S: HandArrays, R: HandFacts, g: int) -> None:
    """Cards held per seat and suit, and per seat (doubled), from ``hands``."""
    n = R.n
    for s in range(n):
        total = 0
        for suit in range(4):
            k = 0
            for c in range(suit * NUM_RANKS, (suit + 1) * NUM_RANKS):
                k += S.hands[g, s, c]
            S.suitcnt[g, s, suit] = k
            total += k
        S.counts[g, s] = total
        S.counts[g, s + n] = total


@inlined
def _give_game(S: HandArrays, R: HandFacts, g: int, start: int, stop: int) -> None:
    """Deck positions ``start..stop-1`` to their seats: position ``p`` goes to seat
    ``(dealer + 1 + p) % n`` (R0.3)."""
    n = R.n
    first = S.dealer[g] + 1
    for p in range(start, stop):
        S.hands[g, (first + p) % n, S.deck[g, p]] += 1
    _recount_game(S, R, g)


@inlined
def _deal_rest(S: HandArrays, R: HandFacts, g: int) -> None:
    """The staged deal's second stage: positions 20.. (R0.3), eight more each."""
    _give_game(S, R, g, FIRST_STAGE_CARDS, R.deck_size)
    S.stage[g] = 2


@inlined
def _rescore(S: HandArrays, R: HandFacts, g: int) -> None:
    """The card winning the trick in progress, again, after the trump changed: the
    first highest key (R0.4; between equal cards the earlier, R2.8)."""
    lead = S.led[g]
    trump = S.trump[g]
    best = 0
    best_key = _trick_key(S.trick_cards[g, 0], lead, trump)
    for p in range(1, S.ntrick[g]):
        key = _trick_key(S.trick_cards[g, p], lead, trump)
        if key > best_key:
            best, best_key = p, key
    S.best_key[g] = best_key
    S.best_seat[g] = (S.leader[g] + best) % R.n


@inlined
def _middle_trick(S: HandArrays, R: HandFacts, g: int, w: int, side: int, done: int, tens_here: int) -> None:
    """R1.5: the trick goes to the middle; the same seat winning twice in a row since
    the last take, or the last trick, takes the whole pile for its side."""
    n = R.n
    for p in range(n):
        S.middle[g, S.trick_cards[g, p]] += 1
    count = S.mid_count[g] + n
    tens = S.mid_tens[g] + tens_here
    if S.last_winner[g] == w or done == R.num_tricks:
        S.tens[g, side] += tens
        S.cards_won[g, side] += count
        for c in range(NUM_CARDS):
            S.won[g, side, c] += S.middle[g, c]
            S.middle[g, c] = 0
        S.take_cards[g, done - 1] = count
        S.mid_count[g] = 0
        S.mid_tens[g] = 0
        S.last_winner[g] = -1
    else:
        S.mid_count[g] = count
        S.mid_tens[g] = tens
        S.last_winner[g] = w


@inlined
def _finish_trick(S: HandArrays, R: HandFacts, g: int) -> None:
    """The trick just completed: its winner (the card winning so far) and side, where
    the cards go (R1.5 the middle, else the winner's side at once, R2.3 / R3.2 / R4.3),
    then what comes next: the hand's end (the last trick, or R3.3's early end), the
    staged deal's second stage once trump is made (R1.4), the R1.4 draw when nobody was
    void in five tricks, or the winner's lead."""
    n = R.n
    w = S.best_seat[g]
    side = _side_of(w)
    done = S.ntricks[g] + 1
    S.ntricks[g] = done
    S.trick_winners[g, done - 1] = w
    S.tricks[g, side] += 1
    tens_here = 0
    for p in range(n):
        tens_here += _is_ten(S.trick_cards[g, p])
    if R.has_middle:
        _middle_trick(S, R, g, w=w, side=side, done=done, tens_here=tens_here)
    else:
        S.tens[g, side] += tens_here
        S.cards_won[g, side] += n
        for p in range(n):
            S.won[g, side, S.trick_cards[g, p]] += 1
    for p in range(n):
        S.trick_cards[g, p] = -1
    S.best_key[g] = 0
    S.best_seat[g] = -1
    S.ntrick[g] = 0
    S.led[g] = -1
    S.leader[g] = w
    if done == R.num_tricks or (R.round_tricks > 0 and S.tricks[g, side] >= R.round_tricks):
        _await(S, g, DONE, -1)
        return
    if R.staged and S.stage[g] == 1:
        if S.trump_suit[g] >= 0:
            _deal_rest(S, R, g)  # R1.4: after the trump-making trick, eight more each
        elif R.draw_if_no_void and done == FIRST_STAGE_TRICKS:
            _await(S, g, DRAW, -1)  # R1.4: nobody was void: draw
            return
    _await(S, g, PLAY, w)


@inlined
def _play_card(S: HandArrays, R: HandFacts, g: int, c: int) -> None:
    """Card ``c`` played by the seat to act: out of the hand, into ``played`` and the
    counts; the suit led (the first card's); a seat that did not follow is void in it
    (R0.4), and under R1.4 the first such card makes its suit trump, in force in this
    trick already; the card winning so far (a later card must be strictly higher, R2.8).
    Then the trick's completion, or the next seat: under a trump made by the first void
    (R2.4c/d) a next seat unable to follow first makes trump, and a closed trump's maker
    unable to follow again reveals it, in force for the whole trick (R2.4c)."""
    n = R.n
    s = S.to_act[g]
    suit = _suit_of(c)
    S.hands[g, s, c] -= 1
    S.played2[g, s, c] += 1
    S.played2[g, s + n, c] += 1
    S.suitcnt[g, s, suit] -= 1
    S.counts[g, s] -= 1
    S.counts[g, s + n] -= 1
    pos = S.ntrick[g]
    if pos == 0:
        S.led[g] = suit
    lead = S.led[g]
    if suit != lead:
        S.voids2[g, s, lead] = 1
        S.voids2[g, s + n, lead] = 1
        if R.first_void and S.trump_suit[g] < 0:  # R1.4 / R2.4a
            S.trump[g] = suit
            S.trump_suit[g] = suit
            S.trump_maker[g] = s
    S.trick_cards[g, pos] = c
    key = _trick_key(c, lead, S.trump[g])
    if pos == 0 or key > S.best_key[g]:
        S.best_key[g] = key
        S.best_seat[g] = s
    pos += 1
    S.ntrick[g] = pos
    if pos == n:
        _finish_trick(S, R, g)
        return
    nxt = s + 1 if s + 1 < n else 0
    S.to_act[g] = nxt
    if R.void_choice and S.suitcnt[g, nxt, lead] == 0:
        if S.trump_suit[g] < 0:  # R2.4c/d: the first seat unable to follow makes trump first
            S.ctx[g] = CTX_VOID
            S.phase[g] = TRUMP
        elif R.closed and S.hidden[g] and nxt == S.trump_maker[g]:
            S.hidden[g] = False  # R2.4c: revealed, in force for the whole trick
            S.trump[g] = S.trump_suit[g]
            _rescore(S, R, g)


@inlined
def _make_trump(S: HandArrays, R: HandFacts, g: int, suit: int) -> None:
    """The seat to act names ``suit`` trump: on a void (R2.4c closed, hidden until
    revealed; R2.4d named, in force at once for the whole trick) it then plays a card;
    otherwise (R1.4 chosen, R2.4b open, R3.1, R4.2's all-pass contract of 7) the rest of
    a staged deal comes and the leader leads."""
    s = S.to_act[g]
    ctx = S.ctx[g]
    S.trump_maker[g] = s
    S.trump_suit[g] = suit
    S.ctx[g] = CTX_NONE
    if ctx == CTX_VOID:
        if R.closed:
            S.hidden[g] = True
        else:
            S.trump[g] = suit
            _rescore(S, R, g)
        S.phase[g] = PLAY  # the same seat now plays any card
        return
    S.trump[g] = suit
    if ctx == CTX_ALL_PASS:
        S.contract_seat[g] = s  # R4.2: dealer+1 takes 7
        S.contract_level[g] = MIN_BID
        S.contract_suit[g] = suit
    if R.staged and S.stage[g] == 1:
        _deal_rest(S, R, g)
    leader = (S.dealer[g] + 1) % R.n if ctx == CTX_OPEN else s  # R2.4b: dealer+1 leads
    S.leader[g] = leader
    _await(S, g, PLAY, leader)


@inlined
def _bid(S: HandArrays, R: HandFacts, g: int, a: int) -> None:
    """R4.2: a pass or a bid by the seat to act; the bidding ends at a bid of 13 or
    after the dealer's call. The highest bid, the last one made, is the contract: its
    suit is trump, the rest of the deal comes and the bidder leads. Four passes: the
    dealer's next seat takes 7 and names trump from its five cards."""
    n = R.n
    s = S.to_act[g]
    code = 1 if a == PASS_ACTION else 2 + a - BID_OFFSET
    S.bid_code2[g, s] = code
    S.bid_code2[g, s + n] = code
    if a != PASS_ACTION:
        b = a - BID_OFFSET
        S.high_bid[g] = MIN_BID + b // 4
        S.bid_seat[g] = s
        S.bid_suit[g] = b % 4
    if S.high_bid[g] != 13 and s != S.dealer[g]:
        S.to_act[g] = (s + 1) % n
        return
    bidder = S.bid_seat[g]
    if bidder < 0:
        S.ctx[g] = CTX_ALL_PASS
        _await(S, g, TRUMP, (S.dealer[g] + 1) % n)
        return
    suit = S.bid_suit[g]
    S.contract_seat[g] = bidder
    S.contract_level[g] = S.high_bid[g]
    S.contract_suit[g] = suit
    S.trump[g] = suit
    S.trump_suit[g] = suit
    S.trump_maker[g] = bidder
    _deal_rest(S, R, g)
    S.leader[g] = bidder
    _await(S, g, PLAY, bidder)


@inlined
def _deal_game(S: HandArrays, R: HandFacts, g: int, deck: np.ndarray, dealer: int) -> None:
    """A new hand in game ``g``: everything of the last one cleared, ``deck[p]`` for
    seat ``(dealer + 1 + p) % n`` (R0.3; a staged deal gives out positions 0..19 now),
    the dealer's next seat leads (R1.2, R2.2), and the hand waits for its first
    decision (a trump call, a bid or a card, by the ruleset)."""
    n = R.n
    S.hands[g] = 0
    S.played2[g] = 0
    S.voids2[g] = 0
    S.bid_code2[g] = 0
    S.won[g] = 0
    S.middle[g] = 0
    S.trick_cards[g] = -1
    S.trick_winners[g] = -1
    S.take_cards[g] = 0
    S.tricks[g] = 0
    S.tens[g] = 0
    S.cards_won[g] = 0
    for p in range(R.deck_size):
        S.deck[g, p] = deck[p]
    S.best_key[g] = 0
    S.best_seat[g] = -1
    S.ntrick[g] = 0
    S.ntricks[g] = 0
    S.mid_count[g] = 0
    S.mid_tens[g] = 0
    S.led[g] = -1
    S.trump[g] = -1
    S.trump_suit[g] = -1
    S.trump_maker[g] = -1
    S.last_winner[g] = -1
    S.bid_seat[g] = -1
    S.bid_suit[g] = -1
    S.contract_seat[g] = -1
    S.contract_suit[g] = -1
    S.contract_level[g] = 0
    S.high_bid[g] = MIN_BID - 1
    S.hidden[g] = False
    S.dealer[g] = dealer
    S.leader[g] = (dealer + 1) % n
    _give_game(S, R, g, 0, FIRST_STAGE_CARDS if R.staged else R.deck_size)
    S.stage[g] = 1 if R.staged else 2
    S.ctx[g] = R.deal_ctx
    _await(S, g, R.deal_phase, (dealer + R.deal_first) % n)


@inlined
def _decide(S: HandArrays, R: HandFacts, g: int, a: int) -> None:
    """Decision ``a`` of the seat to act in game ``g``, by the game's phase."""
    phase = S.phase[g]
    if phase == PLAY:
        _play_card(S, R, g, a)
    elif phase == TRUMP:
        _make_trump(S, R, g, a - TRUMP_OFFSET)
    elif phase == BID:
        _bid(S, R, g, a)


@uncounted
def step_games(u8: np.ndarray, i64: np.ndarray, meta: np.ndarray, games: np.ndarray, actions: np.ndarray) -> None:
    """Decision ``actions[j]`` of the seat to act in game ``games[j]``, for every ``j``
    (legal, as :meth:`~dehla_env.vector.engine.BatchEngine.legal_mask` says: nothing is
    checked here), by the game's phase. ``u8, i64, meta``: the engine's state
    (:mod:`dehla_env.vector.state`)."""
    S, R = arrays_of(u8, i64, meta), facts_of(meta)
    for j in range(len(games)):
        _decide(S, R, games[j], actions[j])


@uncounted
def step_one(u8: np.ndarray, i64: np.ndarray, meta: np.ndarray, game: int, action: int) -> None:
    """:func:`step_games` for one game: numbers, not arrays of them (a call looks at
    each array it is passed; what an environment of one game calls at every step)."""
    _decide(arrays_of(u8, i64, meta), facts_of(meta), game, action)


@uncounted
def deal_games(
    u8: np.ndarray, i64: np.ndarray, meta: np.ndarray, games: np.ndarray, decks: np.ndarray, dealers: np.ndarray
) -> None:
    """A new hand in each game ``games[j]``: deck ``decks[j]``, dealer ``dealers[j]``."""
    S, R = arrays_of(u8, i64, meta), facts_of(meta)
    for j in range(len(games)):
        _deal_game(S, R, games[j], decks[j], dealers[j])


@uncounted
def give_cards(u8: np.ndarray, i64: np.ndarray, meta: np.ndarray, games: np.ndarray, start: int, stop: int) -> None:
    """Deck positions ``start..stop-1`` of each game of ``games`` to their seats (R0.3)."""
    S, R = arrays_of(u8, i64, meta), facts_of(meta)
    for g in games:
        _give_game(S, R, g, start, stop)


@uncounted
def recount(u8: np.ndarray, i64: np.ndarray, meta: np.ndarray, games: np.ndarray) -> None:
    """The per-seat and per-suit counts of ``games`` from their ``hands``."""
    S, R = arrays_of(u8, i64, meta), facts_of(meta)
    for g in games:
        _recount_game(S, R, g)


@uncounted
def rescore_tricks(u8: np.ndarray, i64: np.ndarray, meta: np.ndarray, games: np.ndarray) -> None:
    """The card winning the trick in progress of each game of ``games`` (a card played)."""
    S, R = arrays_of(u8, i64, meta), facts_of(meta)
    for g in games:
        _rescore(S, R, g)
