"""The numba kernels of :class:`~dehla_env.compiled_encoder.CompiledEncoder` (imported
only when ``kernel="numba"`` is asked for; the ``fast`` extra).

The compiled encoder keeps the encoder's *board* (:func:`~dehla_env.encoding.board_layout`:
the public slices in absolute seats, each seat's own slices in a row of its own) and a
mirror of the hand, both updated here from the hand's event stream
(:attr:`~dehla_env.engine.hand.HandState.events`: the deal, the R1.4 draw, every card,
trump choice and bid). The rules engine stays the one that decides: it has validated
every event before the encoder sees it (R5), so nothing here checks legality; this is a
fast copy of the hand's bookkeeping (R0.4 follow suit, the trick rule of
:mod:`dehla_env.tricks`, R0.3 staged deal, R1.4 / R2.4 / R3.1 / R4.2 trump making, R1.5
the middle, R3.3 the early end), and ``tests/test_compiled_encoder.py`` holds every
observation it gathers to :class:`~dehla_env.encoding.ObservationEncoder`, bit for bit,
at every decision of every ruleset.

Arrays: ``S`` (int64) holds the mirror (the ``S_*`` offsets below), then from ``S_F`` the
ruleset's facts and the board's offsets (``F_*``, read through the view ``F = S[S_F:]``),
then from ``S_RUNS`` each seat's gather (:func:`gather_runs`); one array, since every
array argument costs numba's dispatch some 50 ns per call. ``B`` is the board (float32).
"""

from __future__ import annotations

import numba
import numpy as np

from .actions import BID_OFFSET, MAX_BID, MIN_BID, PASS_ACTION, TRUMP_OFFSET
from .cards import NUM_CARDS, NUM_RANKS, TEN_RANK
from .encoding import NUM_BID_CHOICES
from .engine.hand import FIRST_STAGE_CARDS, FIRST_STAGE_TRICKS, Phase, TrumpContext
from .rules import TrumpMaking

jit = numba.njit(cache=True, nogil=True)

# the engine's phases and trump contexts as plain ints (numba freezes globals as constants)
DEAL, DRAW, TRUMP, BID, PLAY, DONE = (int(p) for p in Phase)
CTX_NONE, CTX_CHOSEN, CTX_OPEN, CTX_VOID, CTX_ALL_PASS = (int(c) for c in TrumpContext)
#: the ruleset's trump making as the int ``F[F_MAKING]`` holds
MAKING_CODE = {making: code for code, making in enumerate(TrumpMaking)}
MAKE_FIRST_VOID, MAKE_CHOSEN, MAKE_OPEN, MAKE_CLOSED, MAKE_NAMED, MAKE_BIDDING = (MAKING_CODE[m] for m in TrumpMaking)

# ---- the mirror S: scalars, then arrays (n <= 6 seats, a deck of up to 156 cards)
S_PHASE, S_TO_ACT, S_DEALER, S_LEADER, S_LED, S_TRUMP, S_TSUIT, S_MAKER = 0, 1, 2, 3, 4, 5, 6, 7
S_HIDDEN, S_CTX, S_STAGE, S_NTRICKS, S_M, S_LAST_WINNER, S_MID_COUNT, S_MID_TENS = 8, 9, 10, 11, 12, 13, 14, 15
S_TRICKS, S_TENS = 16, 18  # two sides each
S_HIGH_BID, S_C_SEAT, S_C_TRICKS, S_BID_SEAT, S_BID_ACTION = 20, 21, 22, 23, 24
S_TRICK_CARDS, S_TRICK_SEATS, S_COUNTS = 32, 38, 44  # six each
S_DECK = 50  # 156
S_HANDS = S_DECK + 156  # n x 52 card counts
S_MIDDLE = S_HANDS + 6 * NUM_CARDS  # 52 card counts
S_F = S_MIDDLE + NUM_CARDS  # then the facts F (F_SIZE), then the gather runs

# ---- facts F: the ruleset, then the board's offsets
(
    F_N,
    F_MAKING,
    F_HAS_MIDDLE,
    F_STAGED,
    F_DRAW_IF_NO_VOID,
    F_ROUND_TRICKS,
    F_NUM_TRICKS,
    F_DECK_SIZE,
    F_HAND_SIZE,
    F_NUM_TENS,
) = range(10)
(
    F_O_HAND,
    F_O_COUNTS,
    F_O_TRICK,
    F_O_LEADER,
    F_O_LED,
    F_O_WIN,
    F_O_PLAYED,
    F_O_WON,
    F_O_MIDDLE,
    F_O_MIDINFO,
    F_O_THREAT,
    F_O_VOIDS,
    F_O_TSUIT,
    F_O_TSTATE,
    F_O_MAKER,
    F_O_BIDS,
    F_O_CSEAT,
    F_O_CINFO,
    F_O_DEALER,
    F_O_PHASE,
    F_O_PROGRESS,
    F_O_TRICKS,
    F_O_TENS,
    F_O_MATCH,
) = range(10, 34)
F_SIZE = 34
S_RUNS = S_F + F_SIZE
#: the gather of one seat as at most RUNS_MAX copies (dst, src, count); 39 are needed
RUNS_MAX = 48
RUN_ROW = 1 + 3 * RUNS_MAX  # per seat: the number of runs, then the triples


def mirror_size(n: int) -> int:
    """The length of ``S`` for ``n`` seats."""
    return S_RUNS + n * RUN_ROW


#: the board slice of each F_O_* offset, in order (CompiledEncoder fills F from these)
BOARD_SLICES = (
    "hand",
    "hand_counts",
    "trick",
    "trick_leader",
    "led_suit",
    "trick_winning",
    "played",
    "won",
    "middle",
    "middle_info",
    "pair_threat",
    "voids",
    "trump_suit",
    "trump_state",
    "trump_maker",
    "bids",
    "contract_seat",
    "contract_info",
    "dealer",
    "phase",
    "progress",
    "tricks_won",
    "tens_won",
    "match",
)


@jit
def _holds_suit(S: np.ndarray, seat: int, suit: int) -> bool:
    """Whether ``seat`` holds a card of ``suit``."""
    o = S_HANDS + seat * NUM_CARDS + suit * NUM_RANKS
    for r in range(NUM_RANKS):  # noqa: SIM110 (a loop numba compiles; no generator)
        if S[o + r] > 0:
            return True
    return False


@jit
def _give(S: np.ndarray, B: np.ndarray, start: int, stop: int) -> None:
    """Deck positions ``start..stop`` to seats dealer+1, dealer+2, ... (R0.3)."""
    F = S[S_F:]
    n = F[F_N]
    d = S[S_DEALER]
    for i in range(start, stop):
        seat = (d + 1 + i) % n
        c = S[S_DECK + i]
        S[S_HANDS + seat * NUM_CARDS + c] += 1
        S[S_COUNTS + seat] += 1
        B[F[F_O_HAND] + seat * NUM_CARDS + c] += 1.0


@jit
def _deal_rest(S: np.ndarray, B: np.ndarray) -> None:
    """The second stage of a staged deal: positions 20.. (R0.3)."""
    _give(S, B, FIRST_STAGE_CARDS, S[S_F + F_DECK_SIZE])
    S[S_STAGE] = 2


@jit
def _winner_position(S: np.ndarray) -> int:
    """:func:`dehla_env.tricks.trick_winner` over the trick in progress."""
    trump = S[S_TRUMP]
    best_i = 0
    best = S[S_TRICK_CARDS]
    for i in range(1, S[S_M]):
        c = S[S_TRICK_CARDS + i]
        s, b = c // NUM_RANKS, best // NUM_RANKS
        if (c > best) if s == b else (s == trump):
            best_i, best = i, c
    return best_i


@jit
def deal(S: np.ndarray, B: np.ndarray, deck: np.ndarray, dealer: int) -> None:
    """A new hand dealt from ``deck`` by ``dealer`` (``HandState.apply_deal``): the mirror
    and the board start afresh, but for the match rows (written by the caller)."""
    F = S[S_F:]
    n = F[F_N]
    S[:S_F] = 0
    B[: F[F_O_MATCH]] = 0.0  # the match rows are the board's last slice
    S[S_DEALER] = dealer
    S[S_LEADER] = (dealer + 1) % n
    S[S_LED] = -1
    S[S_TRUMP] = -1
    S[S_TSUIT] = -1
    S[S_MAKER] = -1
    S[S_LAST_WINNER] = -1
    S[S_HIGH_BID] = MIN_BID - 1
    S[S_C_SEAT] = -1
    S[S_BID_SEAT] = -1
    for i in range(F[F_DECK_SIZE]):
        S[S_DECK + i] = deck[i]
    if F[F_STAGED]:
        _give(S, B, 0, FIRST_STAGE_CARDS)
        S[S_STAGE] = 1
    else:
        _give(S, B, 0, F[F_DECK_SIZE])
        S[S_STAGE] = 2
    making = F[F_MAKING]
    if making == MAKE_BIDDING:
        S[S_PHASE], S[S_TO_ACT] = BID, (dealer + 1) % n  # R4.2
    elif making == MAKE_CHOSEN:
        S[S_CTX] = CTX_CHOSEN  # R1.4 chosen, R3.1
        S[S_PHASE], S[S_TO_ACT] = TRUMP, (dealer + 1) % n
    elif making == MAKE_OPEN:
        S[S_CTX] = CTX_OPEN  # R2.4b
        S[S_PHASE], S[S_TO_ACT] = TRUMP, (dealer + 2) % n
    else:
        S[S_PHASE], S[S_TO_ACT] = PLAY, S[S_LEADER]
    for s in range(n):  # bids: "not yet" for every seat
        B[F[F_O_BIDS] + s * NUM_BID_CHOICES] = 1.0
    B[F[F_O_DEALER] + dealer] = 1.0
    _write_state(S, B)


@jit
def event(S: np.ndarray, B: np.ndarray, seat: int, action: int) -> None:
    """One event of ``HandState.events`` after the deal: the R1.4 draw (``seat`` -1), a
    card, a trump choice (a trump record while cards are due is the R2.4c reveal, which
    the card before it has already made here), a pass or a bid."""
    if seat < 0:
        _draw(S, B, action)
    elif action < NUM_CARDS:
        if _card(S, B, seat, action):
            _write_trick(S, B, seat)
            return
    elif action < PASS_ACTION:
        if S[S_PHASE] == TRUMP:
            _make_trump(S, B, seat, action - TRUMP_OFFSET)
    else:
        _bid(S, B, seat, action)
    _write_state(S, B)


@jit
def event_gather(S: np.ndarray, B: np.ndarray, seat: int, action: int, observer: int, out: np.ndarray) -> None:
    """:func:`event`, then :func:`gather` (the usual step of ``CompiledEncoder.encode``)."""
    event(S, B, seat, action)
    gather(S, B, observer, out)


@jit
def event_turn(
    S: np.ndarray, B: np.ndarray, seat: int, action: int, observer: int, out: np.ndarray, mask: np.ndarray
) -> None:
    """:func:`event_gather`, then :func:`card_mask` (the usual step of an env: the
    observation and the legal cards of the seat to act, in one call)."""
    event(S, B, seat, action)
    gather(S, B, observer, out)
    card_mask(S, observer, mask)


@jit
def card_mask(S: np.ndarray, seat: int, mask: np.ndarray) -> None:
    """Ones in ``mask`` (zeros on entry) at the cards ``seat`` may play: the cards of
    the suit led if it holds any, else every card it holds (R0.4,
    ``HandState.legal_card_mask``); nothing outside the card phase or for another seat."""
    if S[S_PHASE] != PLAY or S[S_TO_ACT] != seat:
        return
    o = S_HANDS + seat * NUM_CARDS
    led = S[S_LED]
    if led >= 0 and _holds_suit(S, seat, led):
        for c in range(led * NUM_RANKS, (led + 1) * NUM_RANKS):
            if S[o + c] > 0:
                mask[c] = 1
        return
    for c in range(NUM_CARDS):
        if S[o + c] > 0:
            mask[c] = 1


@jit
def gather(S: np.ndarray, B: np.ndarray, observer: int, out: np.ndarray) -> None:
    """``out[:] = B[gather_indices(n)[observer]]``, the observer's flat observation, as
    the few contiguous copies that index is made of (:func:`gather_runs`)."""
    at = S_RUNS + observer * RUN_ROW
    for r in range(S[at]):
        k = at + 1 + 3 * r
        d, src, count = np.uintp(S[k]), np.uintp(S[k + 1]), np.uintp(S[k + 2])
        for j in range(count):
            out[d + j] = B[src + j]


@jit
def _draw(S: np.ndarray, B: np.ndarray, card: int) -> None:
    """R1.4: nobody was void in five tricks; the drawn card's suit is trump."""
    S[S_TRUMP] = S[S_TSUIT] = card // NUM_RANKS
    _deal_rest(S, B)
    S[S_PHASE], S[S_TO_ACT] = PLAY, S[S_LEADER]


@jit
def _card(S: np.ndarray, B: np.ndarray, seat: int, card: int) -> bool:
    """``HandState._play_card`` (the move already validated). True when the card only
    added to the trick in progress (no trick completed, trump and phase as they were):
    then only :func:`_write_trick`'s slices changed."""
    F = S[S_F:]
    n = F[F_N]
    trump_before = S[S_TRUMP]
    led = S[S_LED]
    suit = card // NUM_RANKS
    off_suit = led >= 0 and suit != led
    if off_suit and F[F_MAKING] == MAKE_FIRST_VOID and S[S_TSUIT] < 0:
        S[S_TRUMP] = S[S_TSUIT] = suit  # R1.4 / R2.4a: the first card off suit makes trump
        S[S_MAKER] = seat
    S[S_HANDS + seat * NUM_CARDS + card] -= 1
    B[F[F_O_HAND] + seat * NUM_CARDS + card] -= 1.0
    S[S_COUNTS + seat] -= 1
    B[F[F_O_PLAYED] + seat * NUM_CARDS + card] += 1.0
    if off_suit:
        B[F[F_O_VOIDS] + seat * 4 + led] = 1.0  # R0.4: shown void
    if led < 0:
        S[S_LED] = suit
    m = S[S_M]
    S[S_TRICK_CARDS + m] = card
    S[S_TRICK_SEATS + m] = seat
    S[S_M] = m + 1
    B[F[F_O_TRICK] + seat * NUM_CARDS + card] = 1.0
    if m + 1 == n:
        _finish_trick(S, B)
        return False
    nxt = (seat + 1) % n
    S[S_TO_ACT] = nxt
    making = F[F_MAKING]
    if making in (MAKE_CLOSED, MAKE_NAMED) and not _holds_suit(S, nxt, S[S_LED]):
        if S[S_TSUIT] < 0:
            S[S_CTX] = CTX_VOID  # R2.4c/d: the first seat unable to follow makes trump first
            S[S_PHASE] = TRUMP
        elif S[S_HIDDEN] and nxt == S[S_MAKER]:
            S[S_HIDDEN] = 0  # R2.4c: revealed before the chooser's card, in force for the trick
            S[S_TRUMP] = S[S_TSUIT]
            return False
        return S[S_PHASE] == PLAY and S[S_TRUMP] == trump_before
    return S[S_TRUMP] == trump_before


@jit
def _write_trick(S: np.ndarray, B: np.ndarray, seat: int) -> None:
    """What a card that only added to the trick changed beyond the card slices: the
    seat's count, the suit led (on the lead) and the trick's winner so far."""
    F = S[S_F:]
    B[F[F_O_COUNTS] + seat] = S[S_COUNTS + seat] * (1.0 / F[F_HAND_SIZE])
    if S[S_M] == 1:
        _one_hot(B, F[F_O_LED], 4, S[S_LED])
    _one_hot(B, F[F_O_WIN], F[F_N], S[S_TRICK_SEATS + _winner_position(S)])


@jit
def _finish_trick(S: np.ndarray, B: np.ndarray) -> None:
    """``HandState._finish_trick``: the winner, R1.5 the middle or R2.3 capture, R3.3."""
    F = S[S_F:]
    n = F[F_N]
    w = _winner_position(S)
    winner = S[S_TRICK_SEATS + w]
    side = winner & 1
    tens_here = 0
    for i in range(n):
        if S[S_TRICK_CARDS + i] % NUM_RANKS == TEN_RANK:
            tens_here += 1
    S[S_TRICKS + side] += 1
    S[S_NTRICKS] += 1
    done = S[S_NTRICKS]
    last = done == F[F_NUM_TRICKS]
    o_won = F[F_O_WON] + side * NUM_CARDS
    if F[F_HAS_MIDDLE]:
        o_mid = F[F_O_MIDDLE]
        for i in range(n):
            c = S[S_TRICK_CARDS + i]
            S[S_MIDDLE + c] += 1
            B[o_mid + c] = 1.0
        S[S_MID_COUNT] += n
        S[S_MID_TENS] += tens_here
        if S[S_LAST_WINNER] == winner or last:  # R1.5: the pile is taken
            S[S_TENS + side] += S[S_MID_TENS]
            for c in range(NUM_CARDS):
                k = S[S_MIDDLE + c]
                if k > 0:
                    B[o_won + c] += k
                    B[o_mid + c] = 0.0
                    S[S_MIDDLE + c] = 0
            S[S_MID_COUNT] = 0
            S[S_MID_TENS] = 0
            S[S_LAST_WINNER] = -1
        else:
            S[S_LAST_WINNER] = winner
    else:
        S[S_TENS + side] += tens_here
        for i in range(n):
            B[o_won + S[S_TRICK_CARDS + i]] += 1.0
    o_trick = F[F_O_TRICK]
    for i in range(n):
        B[o_trick + S[S_TRICK_SEATS + i] * NUM_CARDS + S[S_TRICK_CARDS + i]] = 0.0
        S[S_TRICK_CARDS + i] = 0
        S[S_TRICK_SEATS + i] = 0
    S[S_M] = 0
    S[S_LED] = -1
    S[S_LEADER] = winner
    rt = F[F_ROUND_TRICKS]
    if last or (rt > 0 and S[S_TRICKS + side] >= rt):
        S[S_PHASE], S[S_TO_ACT] = DONE, -1  # R3.3: the round ends at 7 tricks
        return
    if S[S_STAGE] == 1:
        if S[S_TSUIT] >= 0:
            _deal_rest(S, B)  # R1.4: eight more each once trump is made
        elif done == FIRST_STAGE_TRICKS and F[F_DRAW_IF_NO_VOID]:
            S[S_PHASE], S[S_TO_ACT] = DRAW, -1  # R1.4: the draw is due
            return
    S[S_PHASE], S[S_TO_ACT] = PLAY, winner


@jit
def _make_trump(S: np.ndarray, B: np.ndarray, seat: int, suit: int) -> None:
    """``HandState._make_trump``."""
    F = S[S_F:]
    n = F[F_N]
    ctx = S[S_CTX]
    S[S_MAKER] = seat
    S[S_TSUIT] = suit
    S[S_CTX] = CTX_NONE
    if ctx == CTX_VOID:
        if F[F_MAKING] == MAKE_CLOSED:
            S[S_HIDDEN] = 1  # R2.4c: not in force until revealed
        else:
            S[S_TRUMP] = suit  # R2.4d
        S[S_PHASE] = PLAY  # the same seat now plays
        return
    S[S_TRUMP] = suit
    if ctx == CTX_ALL_PASS:
        S[S_C_SEAT] = seat  # R4.2: dealer+1 takes 7
        S[S_C_TRICKS] = MIN_BID
    if S[S_STAGE] == 1:
        _deal_rest(S, B)
    leader = (S[S_DEALER] + 1) % n if ctx == CTX_OPEN else seat
    S[S_LEADER] = leader
    S[S_PHASE], S[S_TO_ACT] = PLAY, leader


@jit
def _bid(S: np.ndarray, B: np.ndarray, seat: int, action: int) -> None:
    """``HandState._bid`` and ``_end_bidding`` (R4.2); the seat's bid on the board."""
    F = S[S_F:]
    n = F[F_N]
    row = F[F_O_BIDS] + seat * NUM_BID_CHOICES
    for k in range(NUM_BID_CHOICES):
        B[row + k] = 0.0
    if action == PASS_ACTION:
        B[row + 1] = 1.0
    else:
        B[row + 2 + action - BID_OFFSET] = 1.0
        S[S_HIGH_BID] = MIN_BID + (action - BID_OFFSET) // 4
        S[S_BID_SEAT] = seat
        S[S_BID_ACTION] = action
    if S[S_HIGH_BID] == MAX_BID or seat == S[S_DEALER]:
        if S[S_BID_SEAT] < 0:
            S[S_CTX] = CTX_ALL_PASS  # R4.2: four passes: dealer+1 names trump
            S[S_PHASE], S[S_TO_ACT] = TRUMP, (S[S_DEALER] + 1) % n
            return
        k = S[S_BID_ACTION] - BID_OFFSET  # the highest bid is the last one made
        bidder = S[S_BID_SEAT]
        S[S_C_SEAT] = bidder
        S[S_C_TRICKS] = MIN_BID + k // 4
        S[S_TRUMP] = S[S_TSUIT] = k % 4
        S[S_MAKER] = bidder
        _deal_rest(S, B)
        S[S_LEADER] = bidder
        S[S_PHASE], S[S_TO_ACT] = PLAY, bidder
    else:
        S[S_TO_ACT] = (seat + 1) % n


@jit
def _one_hot(B: np.ndarray, at: int, size: int, i: int) -> None:
    """The one-hot slice of ``size`` at ``at`` with its one at ``i`` (-1: none)."""
    for k in range(size):
        B[at + k] = 0.0
    if i >= 0:
        B[at + i] = 1.0


@jit
def _write_state(S: np.ndarray, B: np.ndarray) -> None:
    """Every small slice of the board from the mirror (the card slices are kept as the
    events come): what :meth:`ObservationEncoder._sync_public` and the own rows hold."""
    F = S[S_F:]
    FF_hand = 1.0 / F[F_HAND_SIZE]  # the encoder's fractions, the same doubles
    FF_deck = 1.0 / F[F_DECK_SIZE]
    FF_tricks = 1.0 / F[F_NUM_TRICKS]
    FF_tens = 1.0 / F[F_NUM_TENS]
    n = F[F_N]
    phase = S[S_PHASE]
    m = S[S_M]
    for s in range(n):
        B[F[F_O_COUNTS] + s] = S[S_COUNTS + s] * FF_hand
    _one_hot(B, F[F_O_LEADER], n, S[S_LEADER] if phase == PLAY else -1)
    _one_hot(B, F[F_O_LED], 4, S[S_LED] if m > 0 else -1)
    _one_hot(B, F[F_O_WIN], n, S[S_TRICK_SEATS + _winner_position(S)] if m > 0 else -1)
    o = F[F_O_MIDINFO]
    if S[S_MID_COUNT] > 0:
        B[o] = S[S_MID_COUNT] * FF_deck
        B[o + 1] = S[S_MID_TENS] * FF_tens
        B[o + 2] = 1.0
    else:
        B[o] = B[o + 1] = B[o + 2] = 0.0
    lw = S[S_LAST_WINNER]
    _one_hot(B, F[F_O_THREAT], n + 1, lw if lw >= 0 else n)
    maker = S[S_MAKER]
    _one_hot(B, F[F_O_MAKER], n + 1, maker if maker >= 0 else n)
    ts, hidden = S[S_TSUIT], S[S_HIDDEN]
    for s in range(n):  # trump as each seat knows it (view.visible_trump, R2.4c)
        os_, ot = F[F_O_TSUIT] + s * 4, F[F_O_TSTATE] + s * 4
        if ts < 0:
            _one_hot(B, os_, 4, -1)
            _one_hot(B, ot, 4, 0)
        elif hidden:
            if s == maker:
                _one_hot(B, os_, 4, ts)
                _one_hot(B, ot, 4, 2)
            else:
                _one_hot(B, os_, 4, -1)
                _one_hot(B, ot, 4, 3)
        else:
            _one_hot(B, os_, 4, ts)
            _one_hot(B, ot, 4, 1 if S[S_TRUMP] >= 0 else 2)
    cs = S[S_C_SEAT] if phase != DEAL and phase != BID else -1  # view.visible_contract
    _one_hot(B, F[F_O_CSEAT], n + 1, cs if cs >= 0 else n)
    for s in range(n):
        o = F[F_O_CINFO] + s * 2
        if cs >= 0:
            B[o] = S[S_C_TRICKS] / 13
            B[o + 1] = 1.0 if cs % 2 == s % 2 else 0.0
        else:
            B[o] = B[o + 1] = 0.0
    _one_hot(B, F[F_O_PHASE], 4, 0 if phase == TRUMP else 1 if phase == BID else 2 if phase == PLAY else 3)
    o = F[F_O_PROGRESS]
    B[o] = S[S_NTRICKS] * FF_tricks
    stage = S[S_STAGE]
    undealt = 0 if stage == 2 else F[F_DECK_SIZE] - (FIRST_STAGE_CARDS if stage == 1 else 0)
    B[o + 1] = undealt * FF_deck
    for side in range(2):
        B[F[F_O_TRICKS] + side] = S[S_TRICKS + side] * FF_tricks
        B[F[F_O_TENS] + side] = S[S_TENS + side] * FF_tens


def gather_runs(gather: np.ndarray) -> list[list[tuple[int, int, int]]]:
    """Per seat, ``gather_indices(n)[seat]`` as maximal runs ``(dst, src, count)`` with
    ``out[dst : dst + count] = B[src : src + count]``."""
    runs = []
    for idx in gather:
        row: list[tuple[int, int, int]] = []
        start = 0
        for j in range(1, len(idx) + 1):
            if j == len(idx) or idx[j] != idx[j - 1] + 1:
                row.append((start, int(idx[start]), j - start))
                start = j
        assert len(row) <= RUNS_MAX
        runs.append(row)
    return runs
