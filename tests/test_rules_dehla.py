"""R1: `dehla`, Dehla Pakad standard rules: staged deal, trump making, the middle,
hand result, next dealer, kots and the match.

Deals are written per seat (``tests/helpers.py``). The *split deal* (``split_hands``,
``split_opening``) is the workhorse for hand results: spades trump, the dealer's side
wins tricks 1-2 (P takes them as a pair) and the tens named, the other side everything
else; so any tens split can be dealt for any dealer.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    assert_rejected,
    cards,
    deal_next,
    hand_report,
    new_match,
    play,
    play_highest,
    play_lowest,
    split_hands,
    split_opening,
)

from dehla_env import CHANCE, TERMINAL, IllegalMoveError, MatchState, make_rules
from dehla_env.actions import TRUMP_OFFSET
from dehla_env.cards import parse_card
from dehla_env.engine import Phase
from dehla_env.records import replay_record
from tests.deals import deck_from_hands

# --------------------------------------------------------------------- deals used below

#: One suit per seat: seat 0 holds every spade. Dealer 3, so seat 0 leads (R1.2).
ONE_SUIT_EACH = [
    "AS KS QS JS TS | 9S 8S 7S 6S 5S 4S 3S 2S",
    "AC KC QC JC TC | 9C 8C 7C 6C 5C 4C 3C 2C",
    "AD KD QD JD TD | 9D 8D 7D 6D 5D 4D 3D 2D",
    "AH KH QH JH TH | 9H 8H 7H 6H 5H 4H 3H 2H",
]

#: Dealer 3, seat 0 leads. Trick 1 (hearts) everybody follows; trick 2 seat 0 leads 2C,
#: seat 1 follows, seats 2 and 3 hold no club.
FIRST_VOID = [
    "AH 2C 3C 4C 5C",
    "KH 6C 7C 8C 9C",
    "QH 2D 3D 4D 5D",
    "JH 6D 7D 8D 9D",
]

#: Dealer 3, seat 0 leads. Every seat holds two spades and one card of each other
#: suit: whatever is led, everybody can follow. Seat 0 wins four tricks leading AS KS
#: AH AD, then leads the 2C and seat 1 wins the fifth with the AC.
ALL_FOLLOW = [
    "AS KS AH AD 2C",
    "QS JS KH KD AC",
    "TS 9S QH QD QC",
    "8S 7S JH JD JC",
]
ALL_FOLLOW_MOVES = "AS QS TS 8S  KS JS 9S 7S  AH KH QH JH  AD KD QD JD  2C AC QC JC"


def split_hand(dealer: int, early: str, **options) -> MatchState:
    """A complete split-deal hand: dealer+1 names spades; the dealer's side gets the
    tens of ``early``, the other side the rest."""
    match = new_match("dehla", dealer, split_hands(dealer), trump="chosen", **options)
    finish_split(match, early)
    return match


def finish_split(match: MatchState, early: str) -> None:
    play(match, ["trump:S", *split_opening(early)])
    play_highest(match)


def next_split(match: MatchState, early: str) -> None:
    deal_next(match, split_hands(match.summaries[-1].next_dealer))
    finish_split(match, early)


# --------------------------------------------------------------------- R1.2, R1.3


@pytest.mark.parametrize("dealer", range(4))
def test_r1_2_seat_to_the_dealers_right_leads_the_first_trick(dealer: int) -> None:
    """R1.2: "The seat to the dealer's right, dealer+1, leads the first trick."
    With R1.4 chosen, that seat also names trump first."""
    match = new_match("dehla", dealer, [None] * 4)
    assert match.current_player() == (dealer + 1) % 4
    assert match.hand.phase == Phase.PLAY
    chosen = new_match("dehla", dealer, [None] * 4, trump="chosen")
    assert chosen.current_player() == (dealer + 1) % 4
    play(chosen, "trump:H")
    assert chosen.current_player() == (dealer + 1) % 4


def test_r1_3_staged_deal_gives_five_each_then_eight_each() -> None:
    """R1.3: "Staged: five each (positions 0..19), then trump is made (R1.4), then the
    other eight each (positions 20..51)." (first-void: after the trump-making trick.)"""
    deck = list(range(52))
    match = MatchState(make_rules("dehla"), 3)
    match.apply_deal(deck)
    # R0.3: position i goes to seat (dealer + 1 + i) % 4 = i % 4 here
    for seat in range(4):
        assert match.hand.hand_cards(seat) == [seat + 4 * k for k in range(5)]
    assert match.hand.hand_counts == [5, 5, 5, 5]
    chosen = MatchState(make_rules("dehla", trump="chosen"), 3)
    chosen.apply_deal(deck)
    assert chosen.hand.hand_counts == [5, 5, 5, 5]
    play(chosen, "trump:C")
    for seat in range(4):
        assert chosen.hand.hand_cards(seat) == [seat + 4 * k for k in range(13)]


# --------------------------------------------------------------------- R1.4 first-void


def test_r1_4_first_void_card_makes_trump_and_a_later_void_overtrumps() -> None:
    """R1.4 first-void: "The first player who cannot follow suit plays any card; that
    card's suit becomes trump ... that card is already a trump in the current trick (a
    later player in the same trick who is also void may beat it with a higher trump).
    When that trick is complete, the other eight cards each are dealt, and play
    continues with the trick's winner leading." """
    match = new_match("dehla", 3, FIRST_VOID)
    play(match, "AH KH QH JH")  # trick 1: everyone follows, no trump yet
    assert match.hand.trump_suit == -1 and match.hand.trick_winners == [0]
    play(match, "2C 6C")
    assert match.legal_actions() == cards("2D 3D 4D 5D")  # seat 2 is void: any card
    play(match, "2D")  # the first card not following: diamonds are trump
    hand = match.hand
    assert (hand.trump_suit, hand.trump_maker) == (parse_card("2D") // 13, 2)
    assert hand.current_winner() == 2  # 2D already beats the 6C led over
    assert hand.hand_counts == [3, 3, 3, 4]  # the trick is not complete: no second stage yet
    play(match, "6D")  # seat 3, also void, overtrumps
    assert hand.trick_winners == [0, 3]
    assert hand.hand_counts == [11, 11, 11, 11]  # the other eight each, dealt now
    assert match.current_player() == 3  # the trick's winner leads
    assert hand_report(match)["trump"] == "D" and hand_report(match)["trump_maker"] == 2


def test_r1_4_first_void_card_wins_its_own_trick_over_the_suit_led() -> None:
    """R1.4: the trump-making card "is already a trump in the current trick": a 2 of
    the new trump beats the ace of the suit led."""
    hands = [*FIRST_VOID[:3], "JH AC 6D 7D 8D"]
    match = new_match("dehla", 3, hands)
    play(match, "AH KH QH JH  2C 6C 2D AC")
    assert match.hand.trick_winners == [0, 2]
    assert match.current_player() == 2


def test_r1_4_no_void_in_five_tricks_means_a_chance_draw_from_the_twenty_played() -> None:
    """R1.4: "If every player follows suit through all five tricks, one card is drawn
    from the 20 cards played so far ...; its suit is trump; then the other eight each
    are dealt and the fifth trick's winner leads the sixth." The draw is a chance
    event, not any seat's move."""
    match = new_match("dehla", 3, ALL_FOLLOW)
    play(match, ALL_FOLLOW_MOVES)
    hand = match.hand
    assert hand.trick_winners == [0, 0, 0, 0, 1] and hand.trump_suit == -1
    assert match.is_chance() and match.current_player() == CHANCE
    assert match.legal_actions() == [] and not match.legal_mask().any()
    assert sorted(hand.draw_candidates()) == sorted(cards(ALL_FOLLOW_MOVES))
    # a card while the draw is due, or a draw of an unplayed card, is refused (R5)
    assert_rejected(match, lambda: match.apply_action(parse_card("9H")), "9H", "R5")
    assert_rejected(match, lambda: play(match, "draw:2H"), "draw:2H", "R1.4")
    play(match, "draw:JH")
    assert hand.trump_suit == parse_card("JH") // 13
    assert hand_report(match)["trump"] == "H" and hand_report(match)["trump_maker"] is None  # R6
    assert hand.hand_counts == [8, 8, 8, 8]
    assert match.current_player() == 1  # the fifth trick's winner leads the sixth, not dealer+1
    assert hand.takes == [(2, 0, 8), (4, 0, 8)] and hand.last_winner == 1  # R1.5 goes on across the draw


def test_r1_4_draw_is_uniform_over_the_twenty_cards_played() -> None:
    """R1.4 Decision: the draw is "uniformly at random" among the 20 played cards."""
    match = new_match("dehla", 3, ALL_FOLLOW)
    play(match, ALL_FOLLOW_MOVES)
    rng = np.random.default_rng(1)
    counts: dict[int, int] = {}
    for _ in range(2000):
        trial = match.clone()
        trial.sample_chance(rng)
        counts[trial.hand.draw_card] = counts.get(trial.hand.draw_card, 0) + 1
    assert set(counts) == set(cards(ALL_FOLLOW_MOVES))
    assert min(counts.values()) > 50 and max(counts.values()) < 160  # expected 100 each


def test_r1_4_no_draw_after_a_trump_was_made_by_a_void() -> None:
    """R1.4: the draw happens only "if every player follows suit through all five
    tricks"; once a void made trump there is never a draw."""
    match = new_match("dehla", 3, FIRST_VOID)
    play(match, "AH KH QH JH 2C 6C 2D 6D")
    rng = np.random.default_rng(0)
    while not match.hand.complete:
        assert match.hand.phase != Phase.DRAW
        legal = match.legal_actions()
        match.apply_action(legal[int(rng.integers(len(legal)))])
    assert match.hand.draw_card == -1


def test_r1_4_chosen_dealer_plus_one_names_any_suit_on_five_cards_then_leads() -> None:
    """R1.4 chosen: "The seat to the dealer's right looks at its first five cards and
    names a trump suit. Then the other eight each are dealt and that seat leads."
    R3.1 Decision: any suit, held or not."""
    hands = ["AS KS QS JS TS", None, None, None]  # dealer 3: seat 0 holds no club
    match = new_match("dehla", 3, hands, trump="chosen")
    assert match.current_player() == 0
    assert match.legal_actions() == [TRUMP_OFFSET + s for s in range(4)]
    assert match.hand.hand_counts == [5, 5, 5, 5]
    assert_rejected(match, lambda: play(match, "AS"), "AS", "seat 0", "R5")
    play(match, "trump:C")  # a suit seat 0 does not hold
    hand = match.hand
    assert (hand.trump_suit, hand.trump_maker) == (0, 0)
    assert hand.hand_counts == [13, 13, 13, 13]
    assert match.current_player() == 0 and hand.phase == Phase.PLAY
    assert hand_report(match)["trump"] == "C"


# --------------------------------------------------------------------- R1.5 the middle


def test_r1_5_same_seat_winning_twice_takes_the_middle() -> None:
    """R1.5: "When a seat wins a trick and it also won the previous trick since the
    last take, that seat takes the whole middle (this trick included) for its side.
    ... After a take, the pile is empty and the record of the last winner is cleared:
    the next trick can only be the first of a new pair." Seat 0 (all spades, trumps)
    wins every trick: takes at tricks 2, 4, ..., 12 (never at 3, 5, ...)."""
    match = new_match("dehla", 3, ONE_SUIT_EACH, trump="chosen")
    play(match, "trump:S AS 2C 2D 2H")
    hand = match.hand
    assert hand.takes == [] and len(hand.middle) == 4 and hand.last_winner == 0
    play(match, "KS 3C 3D 3H")
    assert hand.takes == [(2, 0, 8)]
    assert hand.middle == [] and hand.last_winner == -1  # record cleared
    play(match, "QS 4C 4D 4H")  # seat 0 again, but only the first of a new pair
    assert hand.takes == [(2, 0, 8)] and len(hand.middle) == 4 and hand.last_winner == 0
    play_lowest(match)
    assert hand.takes == [(2, 0, 8), (4, 0, 8), (6, 0, 8), (8, 0, 8), (10, 0, 8), (12, 0, 8), (13, 0, 4)]
    assert hand.tens == [4, 0] and hand.cards_won == [52, 0]


def test_r1_5_partners_winning_one_each_do_not_take() -> None:
    """R1.5: "Partners winning one each do not count: it must be the same seat."
    Seat 0 wins trick 1, its partner seat 2 trick 2, seat 0 trick 3: nothing is taken
    (12 cards and the TS wait in the middle) until seat 0 wins trick 4 as well."""
    hands = [
        "AS 2S QS AH KH QH JH TH 9H 8H 7H 6H 5H",
        "8S 3S 7S JS 2H AC KC QC JC TC 9C 8C 7C",
        "9S KS 5S 3H 6C 5C 4C 3C 2C AD KD QD JD",
        "TS 4S 6S 4H TD 9D 8D 7D 6D 5D 4D 3D 2D",
    ]
    match = new_match("dehla", 3, hands, trump="chosen")
    play(match, "trump:H  AS 8S 9S TS")
    hand = match.hand
    assert hand.trick_winners == [0] and hand.last_winner == 0 and hand.middle_tens == 1
    play(match, "2S 3S KS 4S")  # seat 2 wins
    assert hand.trick_winners == [0, 2] and hand.takes == [] and hand.last_winner == 2
    play(match, "5S 6S QS 7S")  # seat 2 leads, seat 0 wins
    assert hand.trick_winners == [0, 2, 0] and hand.takes == []
    assert len(hand.middle) == 12 and hand.middle_tens == 1 and hand.tens == [0, 0]
    play(match, "AH 2H 3H 4H")  # seat 0 twice in a row: takes all 16
    assert hand.takes == [(4, 0, 16)] and hand.middle == [] and hand.tens == [1, 0]
    report = hand_report(match)
    assert report["tricks"] == [4, 0] and report["takes"] == [[4, 0, 16]]


def _play_split_leads(match: MatchState, spades_led: int) -> None:
    """Seat 0 leads ``spades_led`` spades from the top, the others play their lowest."""
    for _ in range(spades_led):
        spade = max(c for c in match.legal_actions() if c // 13 == 3)
        match.apply_action(spade)
        for _ in range(3):
            match.apply_action(match.legal_actions()[0])


#: Dealer 3: seat 0 twelve spades (trumps) and the 2H, seat 1 the 2S and twelve hearts.
LAST_TRICK = [
    "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2H",
    "2S AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H",
    "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
    "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
]


def test_r1_5_thirteenth_trick_takes_what_is_left_whoever_won_the_twelfth() -> None:
    """R1.5: "The winner of the 13th trick takes whatever is left in the middle (this
    trick included), whoever won the 12th." Seat 0 wins tricks 1-11 (takes at 2..10),
    seat 1 wins trick 12 with a heart over the 2H, seat 0 trumps trick 13 and takes
    the 12 cards of tricks 11-13."""
    match = new_match("dehla", 3, LAST_TRICK, trump="chosen")
    play(match, "trump:S")
    _play_split_leads(match, 11)
    hand = match.hand
    assert hand.trick_winners == [0] * 11 and len(hand.middle) == 4
    play(match, "2H")
    play_lowest(match)
    assert hand.trick_winners[11:] == [1, 0]
    assert hand.takes[-1] == (13, 0, 12)
    assert [t[0] for t in hand.takes] == [2, 4, 6, 8, 10, 13]
    assert sum(t[2] for t in hand.takes) == 52 and hand.middle == []


def test_r1_5_thirteenth_trick_completing_a_pair_is_one_take() -> None:
    """R6 on R1.5: "a 13th-trick take that also completes a pair is one entry".
    Seat 1 wins trick 11, seat 0 tricks 12 and 13: one take of 12 cards."""
    match = new_match("dehla", 3, LAST_TRICK, trump="chosen")
    play(match, "trump:S")
    _play_split_leads(match, 10)
    play(match, "2H")  # trick 11: seat 1 wins with a heart
    play_lowest(match)
    hand = match.hand
    assert hand.trick_winners[10:] == [1, 0, 0]
    assert hand.takes[-1] == (13, 0, 12) and [t[0] for t in hand.takes] == [2, 4, 6, 8, 10, 13]


def test_r1_5_middle_is_public() -> None:
    """R1.5: "the number of cards and the tens in the middle are public (R0.6)"."""
    from dehla_env import view_of

    match = new_match("dehla", 3, ONE_SUIT_EACH, trump="chosen")
    play(match, "trump:S TS 2C 2D 2H")
    for seat in range(4):
        view = view_of(match, seat)
        assert len(view.middle) == 4 and view.middle_tens == 1 and view.last_winner == 0


# --------------------------------------------------------------------- R1.6, R1.7


@pytest.mark.parametrize(
    ("early", "dealer_tens", "winner_is_dealers_side", "kot"),
    [
        ("", 0, False, True),  # 0-4: the other side, all four tens
        ("H", 1, False, False),  # 1-3
        ("HD", 2, False, False),  # 2-2: the side that did not deal
        ("HDC", 3, True, False),  # 3-1: the dealer's side
    ],
)
@pytest.mark.parametrize("dealer", range(4))
def test_r1_6_hand_winner_by_tens(dealer: int, early: str, dealer_tens: int, winner_is_dealers_side, kot) -> None:
    """R1.6: "A side with all four tens wins the hand and a kot (R1.8). A side with three
    tens wins the hand. With two each, the side that did not deal wins the hand." """
    match = split_hand(dealer, early)
    side = dealer % 2
    report = hand_report(match)
    assert report["tens"][side] == dealer_tens and report["tens"][1 - side] == 4 - dealer_tens
    assert report["hand_winner"] == (side if winner_is_dealers_side else 1 - side)
    assert report["kot"] == (1 - side if kot else None)
    assert report["complete"] and report["tricks"][side] == 2


@pytest.mark.parametrize("dealer", range(4))
def test_r1_6_two_tens_each_goes_to_the_side_that_did_not_deal(dealer: int) -> None:
    """R1.6: "With two each, the side that did not deal wins the hand", although the
    dealer's side made the first take here."""
    match = split_hand(dealer, "HD")
    assert match.hand.tens == [2, 2]
    assert match.summaries[-1].hand_winner == (dealer + 1) % 2


@pytest.mark.parametrize(
    ("early", "case", "offset"),
    [
        ("HDC", "dealer's side won (3 tens)", 1),
        ("", "other side won with four tens", 2),
        ("H", "other side won with three tens", 0),
        ("HD", "other side won with two tens", 0),
    ],
)
@pytest.mark.parametrize("dealer", range(4))
def test_r1_7_next_dealer(dealer: int, early: str, case: str, offset: int) -> None:
    """R1.7: "If the dealer's side won the hand: dealer+1 deals next. If the other side
    won with four tens: the dealer's partner, dealer+2. If the other side won with two
    or three tens: the same dealer deals again." """
    match = split_hand(dealer, early, kots=3)
    assert match.summaries[-1].next_dealer == (dealer + offset) % 4, case
    deal_next(match, [None] * 4)
    assert match.hand.dealer == (dealer + offset) % 4
    assert match.current_player() == (dealer + offset + 1) % 4  # R1.2 for the new dealer


# --------------------------------------------------------------------- R1.8 kots


def test_r1_8_four_tens_is_a_kot_and_clears_the_streak() -> None:
    """R1.8: "A side wins a kot by taking all four tens in a hand ... After any kot
    the streak is cleared (count 0)." """
    match = split_hand(0, "H", kots=3)  # side 1 wins 3-1
    assert match.streak == (1, 1) and match.kots == [0, 0]
    next_split(match, "")  # dealer kept (R1.7); side 1 takes all four tens
    assert match.summaries[-1].kot == 1
    assert match.kots == [0, 1] and match.streak is None
    assert hand_report(match)["streak"] is None  # R6: null after a kot clears it
    next_split(match, "H")  # dealer 2 now (R1.7): its side 0 takes one ten, side 1 three
    assert match.summaries[-1].hand_winner == 1 and match.streak == (1, 1)  # a new streak


def test_r1_8_a_hand_won_by_the_other_side_starts_a_new_streak() -> None:
    """R1.8: "a hand won by the streak's side adds one; a hand won by the other side
    starts a new streak of one for that side." """
    match = split_hand(0, "H")  # side 1 wins; dealer 0 deals again
    next_split(match, "HD")  # side 1 (non-dealer) wins 2-2
    assert match.streak == (1, 2)
    next_split(match, "HDC")  # the dealer's side 0 wins 3-1
    assert match.streak == (0, 1)
    assert [s.streak for s in match.summaries] == [(1, 1), (1, 2), (0, 1)]


def test_r1_8_seven_hands_in_a_row_is_a_kot() -> None:
    """R1.8: "or by winning seven hands in a row." Side 1 wins seven 3-1 hands (the
    dealer keeps the deal, R1.7); the seventh is a kot and clears the streak."""
    match = split_hand(0, "H", kots=3)
    for _ in range(6):
        next_split(match, "H")
    assert [s.streak for s in match.summaries] == [(1, n) for n in range(1, 7)] + [None]
    assert [s.kot for s in match.summaries] == [None] * 6 + [1]
    assert match.kots == [0, 1] and match.winner is None
    next_split(match, "H")
    assert match.streak == (1, 1)  # counting starts again


def test_r1_8_a_seventh_hand_with_four_tens_is_still_one_kot() -> None:
    """R1.8 Decision: "a hand is worth at most one kot, even if it is both a four-tens
    hand and the seventh in a row." """
    match = split_hand(0, "H", kots=3)
    for _ in range(5):
        next_split(match, "H")
    assert match.streak == (1, 6)
    next_split(match, "")  # the seventh, with all four tens
    assert match.summaries[-1].kot == 1
    assert match.kots == [0, 1] and match.streak is None


# --------------------------------------------------------------------- R1.9 match


def test_r1_9_first_side_to_reach_kots_wins_the_match() -> None:
    """R1.9: "The first side to reach kots kots wins the match." With kots=1, a
    four-tens hand ends it; nothing more can be dealt or played."""
    match = split_hand(1, "", kots=1)
    assert match.winner == 0 and match.kots == [1, 0]
    assert match.current_player() == TERMINAL and match.legal_actions() == []
    assert match.summaries[-1].next_dealer is None  # R6: null once the match is over
    deck = deck_from_hands(0, [None] * 4)
    assert_rejected(match, lambda: match.apply_deal(deck), "match is over")


def test_r1_9_default_match_is_two_kots() -> None:
    """R1.9: "Option kots (default 2; 1 = short, 3 = long)." """
    match = split_hand(1, "")  # side 0: first kot; next dealer 1+2 = 3
    assert match.winner is None and match.kots == [1, 0]
    next_split(match, "")  # dealer 3: side 0 again takes all four
    assert match.winner == 0 and match.kots == [2, 0]


def test_r1_9_max_hands_more_kots_wins() -> None:
    """R1.9: "if no side has reached kots when that many hands are complete, the side
    with more kots wins"."""
    match = split_hand(1, "", kots=3, max_hands=2)  # side 0 kot
    next_split(match, "HDC")  # dealer 3: side 1 wins 3-1, no kot
    assert match.kots == [1, 0] and match.winner == 0


def test_r1_9_max_hands_equal_kots_is_a_draw() -> None:
    """R1.9 Decision: "equal kots then is a draw." """
    match = split_hand(1, "H", max_hands=1)
    assert match.kots == [0, 0] and match.winner == "draw"
    assert match.current_player() == TERMINAL


# --------------------------------------------------------------------- R6 replay of R1


def test_r1_record_replays_to_the_same_report() -> None:
    """R6: a split-deal hand written as a record replays to the fields asserted above."""
    hands = split_hands(2)
    deck = deck_from_hands(2, hands)
    from dehla_env.cards import card_text

    record = {
        "id": "r1-split",
        "rules": "dehla",
        "options": {"trump": "chosen", "kots": 3},
        "first_dealer": 2,
        "hands": [{"deck": " ".join(card_text(c) for c in deck), "moves": ["trump:S", *split_opening("H")]}],
    }
    out = replay_record(record)
    assert out["error"] is None and out["hands_played"] == 1
    (h,) = out["hands"]
    assert h["dealer"] == 2 and h["trump"] == "S" and h["trump_maker"] == 3
    assert h["trick_winners"] == [0, 0] and h["takes"] == [[2, 0, 8]] and h["tens"] == [1, 0]
    assert h["complete"] is False and h["hand_winner"] is None and h["next_dealer"] is None


def test_r1_illegal_second_stage_card_before_it_is_dealt() -> None:
    """R0.3/R5: during a first-void trick the second-stage cards are not yet in hand."""
    match = new_match("dehla", 3, ["AH 2C 3C 4C 5C | AS", None, None, None])
    err = assert_rejected(match, lambda: play(match, "AS"), "AS", "seat 0", "R5")
    assert isinstance(err, IllegalMoveError)
