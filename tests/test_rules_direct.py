"""R2: `dehla-direct`, Dehla Pakad with direct capture: full deal, the four trump
modes, round scoring (tens, tricks, double-sar), streak and points matches, the next
dealer, and six players with three packs.

The *split deal* (``tests/helpers.py``) with the open trump: the dealer's partner
names spades, the dealer's side wins tricks 1-2 and captures the tens named, the other
side captures the rest.
"""

from __future__ import annotations

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

from dehla_env import TERMINAL, MatchState, make_rules, view_of
from dehla_env.actions import TRUMP_OFFSET
from dehla_env.cards import parse_card
from dehla_env.engine import Phase
from dehla_env.render import render_match
from dehla_env.tricks import trick_winner
from dehla_env.view import public_events
from tests.deals import deck_from_hands

S, H, D, C = 3, 2, 1, 0

# --------------------------------------------------------------------- deals used below

#: Dealer 3, seat 0 leads the AC; seat 1 follows; seats 2 and 3 hold no club. In
#: trick 2 (seat 0 leads the QC) seat 1 is void as well.
VOID_DEAL = [
    "AC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C AS",
    "KC 3D AH KH QH JH TH 9H 8H 7H 6H 5H 4H",
    "2D 2H 3H KS QS JS TS 9S 8S 7S 6S 5S 4S",
    "AD 4D 5D 6D 7D 8D 9D TD JD QD KD 3S 2S",
]

#: Dealer 3. Seat 2 holds no club, and the top seven spades and top six hearts: once
#: it has the lead it keeps it (with no trump in force) and is never void again.
MAKER_NEVER_VOID_AGAIN = [
    "AC 7S 6S 5S 4S 3S 2S 8H 7H 6H 5H 4H 3H",
    "KC QC JC TC 9C 8C 2H AD KD QD JD TD 9D",
    "AS KS QS JS TS 9S 8S AH KH QH JH TH 9H",
    "7C 6C 5C 4C 3C 2C 8D 7D 6D 5D 4D 3D 2D",
]

#: Dealer 3, spades named by seat 1 (open). Seat 3 trumps trick 1 with the TS over
#: seat 1's TH and seat 2's TD, then wins trick 2 with the TC; seat 0 wins the other
#: eleven. Side 1: all four tens in 8 cards.
ALL_TENS_IN_TWO_TRICKS = [
    "AS KS QS JS 9S 8S 7S 6S 5S 4S 3S 2H 2C",
    "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 3C",
    "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
    "TS 2S AC KC QC JC TC 9C 8C 7C 6C 5C 4C",
]
ALL_TENS_IN_TWO_TRICKS_MOVES = "trump:S  2H TH TD TS  TC 2C 3C 2D"

#: As above, but side 1 wins six tricks (24 cards and all four tens: 28 double-sar
#: points) and side 0 seven tricks without a ten (28 cards: 28 points).
SIX_TRICKS_FOUR_TENS = [
    "AS KS QS JS 9S 8S 7S 2H 2C 3C 4C 5C 6C",
    "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 5D",
    "6S 5S 4S 3S AD KD QD JD TD 9D 8D 7D 6D",
    "TS 2S AC KC QC JC TC 9C 8C 7C 2D 3D 4D",
]
SIX_TRICKS_FOUR_TENS_MOVES = "trump:S  2H TH TD TS  TC 2C 5D 6D  AC 3C 3H 7D  KC 4C 4H 8D  QC 5C 5H 9D  JC 6C 6H JD"


def direct(dealer: int, hands, **options) -> MatchState:
    return new_match("dehla-direct", dealer, hands, **options)


def split_round(match: MatchState, early: str) -> None:
    """Play a split-deal round already dealt: the dealer's partner names spades (open)."""
    play(match, ["trump:S", *split_opening(early)])
    play_highest(match)


def split_match(dealer: int, early: str, **options) -> MatchState:
    match = direct(dealer, split_hands(dealer), trump="open", **options)
    split_round(match, early)
    return match


def next_split(match: MatchState, early: str) -> None:
    deal_next(match, split_hands(match.summaries[-1].next_dealer))
    split_round(match, early)


# --------------------------------------------------------------------- R2.1 - R2.3


@pytest.mark.parametrize("dealer", range(4))
def test_r2_1_all_thirteen_each_at_once_and_r2_2_dealer_plus_one_leads(dealer: int) -> None:
    """R2.1: "All thirteen each at once (positions 0..51), no second stage."
    R2.2: "dealer+1 leads the first trick." """
    deck = list(range(52))
    match = MatchState(make_rules("dehla-direct"), dealer)
    match.apply_deal(deck)
    for seat in range(4):
        assert match.hand.hand_cards(seat) == [i for i in range(52) if (dealer + 1 + i) % 4 == seat]
    assert match.current_player() == (dealer + 1) % 4 and match.hand.phase == Phase.PLAY


def test_r2_3_winner_captures_each_trick_at_once_no_middle() -> None:
    """R2.3: "The winner of each trick takes its four cards for its side at once. There
    is no middle." (R6: takes is [] outside dehla.)"""
    hands = ["AH TH 2C", "KH 2H 3C", "QH 3H 4C", "JH 4H 5C"]  # dealer 3
    match = direct(3, hands)
    play(match, "AH KH QH JH")
    hand = match.hand
    assert hand.trick_winners == [0] and hand.cards_won == [4, 0] and hand.middle == []
    play(match, "TH 2H 3H 4H")  # a ten, captured at once
    assert hand.tens == [1, 0] and hand.cards_won == [8, 0]
    assert hand.takes == [] and hand_report(match)["takes"] == []


# --------------------------------------------------------------------- R2.4a first-void


def test_r2_4a_first_void_makes_trump_and_a_later_void_overtrumps() -> None:
    """R2.4a: "as R1.4 first-void (the card played by the first player unable to follow
    sets the trump and counts as a trump in that trick), without the staged deal and
    without the random draw"."""
    match = direct(3, VOID_DEAL)
    play(match, "AC KC 2D")
    assert match.hand.trump_suit == D and match.hand.trump_maker == 2 and match.hand.current_winner() == 2
    play(match, "AD")
    assert match.hand.trick_winners == [3] and match.hand.tens == [0, 0]
    assert match.current_player() == 3 and match.hand.hand_counts == [12, 12, 12, 12]


def test_r2_4a_first_void_card_wins_its_own_trick() -> None:
    """R2.4a: the first void card "counts as a trump in that trick": 2D beats the AC."""
    match = direct(3, VOID_DEAL)
    play(match, "AC KC 2D 3S")
    assert match.hand.trick_winners == [2]


# --------------------------------------------------------------------- R2.4b open


@pytest.mark.parametrize("dealer", range(4))
def test_r2_4b_open_dealers_partner_names_trump_then_dealer_plus_one_leads(dealer: int) -> None:
    """R2.4b: "before the first lead, the dealer's partner (dealer+2) names the trump
    suit after seeing its 13 cards." R2.2: dealer+1 leads. Any suit may be named."""
    match = direct(dealer, [None] * 4, trump="open")
    assert match.current_player() == (dealer + 2) % 4
    assert match.hand.hand_counts == [13] * 4
    assert match.legal_actions() == [TRUMP_OFFSET + s for s in range(4)]
    card = match.hand.hand_cards((dealer + 2) % 4)[0]
    assert_rejected(match, lambda: match.apply_action(card), f"seat {(dealer + 2) % 4}", "R5")
    play(match, "trump:H")
    assert (match.hand.trump, match.hand.trump_maker) == (H, (dealer + 2) % 4)
    assert match.current_player() == (dealer + 1) % 4


def test_r2_4b_open_with_six_players() -> None:
    """R6 on R2.4b: "with six players: dealer+2 names the trump (a partner), dealer+1
    leads." """
    match = direct(4, [None] * 6, trump="open", players=6)
    assert match.current_player() == 0  # (4 + 2) % 6
    play(match, "trump:D")
    assert match.hand.trump_maker == 0 and match.current_player() == 5


# --------------------------------------------------------------------- R2.4c closed


def test_r2_4c_closed_first_void_chooses_in_secret_and_trump_is_not_yet_in_force() -> None:
    """R2.4c: "the first player unable to follow first chooses a trump suit in secret
    (only that player observes it), then plays any card. Decision: the trump is not in
    force yet: tricks are decided as if there were no trump." Seat 2's 2D and seat 3's
    AD do not beat the AC led."""
    match = direct(3, VOID_DEAL, trump="closed")
    play(match, "AC KC")
    assert match.hand.phase == Phase.TRUMP and match.current_player() == 2
    assert match.legal_actions() == [TRUMP_OFFSET + s for s in range(4)]
    assert_rejected(match, lambda: play(match, "2D"), "2D", "seat 2", "R5")  # choice first
    play(match, "trump:D")
    assert match.current_player() == 2 and match.legal_actions() == cards("2D 2H 3H 4S 5S 6S 7S 8S 9S TS JS QS KS")
    play(match, "2D AD")
    assert match.hand.trick_winners == [0]
    assert match.hand.trump == -1 and match.hand.trump_hidden
    report = hand_report(match)
    assert report["trump"] == "D" and report["trump_maker"] == 2  # R6: reported from the choice


def test_r2_4c_closed_trump_is_seen_only_by_its_maker_until_revealed() -> None:
    """R2.4c / R0.6: the closed trump is hidden "to everybody but its maker until it is
    revealed"; that a choice was made, and by whom, is public."""
    match = direct(3, VOID_DEAL, trump="closed")
    play(match, "AC KC trump:D 2D AD")
    for seat in range(4):
        view = view_of(match, seat)
        assert view.trump_maker == 2 and not view.trump_in_force
        if seat == 2:
            assert view.trump == D and not view.trump_hidden
        else:
            assert view.trump == -1 and view.trump_hidden
            assert (2, TRUMP_OFFSET + D) not in public_events(match, seat)
            assert "trump: D" not in render_match(match, seat)
            assert "hidden" in render_match(match, seat)


def test_r2_4c_closed_revealed_when_the_maker_is_void_again_for_the_whole_trick() -> None:
    """R2.4c: "The next time that same player cannot follow suit, the trump is revealed
    to all before that player plays, and from then on it is in force, Decision: for the
    whole current trick, cards already played to it included, and every later trick."
    Seat 1's 3D, played before the reveal, wins trick 2 as a trump."""
    match = direct(3, VOID_DEAL, trump="closed")
    play(match, "AC KC trump:D 2D AD")
    play(match, "QC")
    assert match.hand.trump_hidden  # seat 1 is to play; the maker has not been reached
    play(match, "3D")  # seat 1, void, plays a diamond (not knowing it is the trump)
    hand = match.hand
    assert not hand.trump_hidden and hand.trump == D  # revealed before seat 2 plays
    assert match.current_player() == 2 and match.hand.phase == Phase.PLAY
    assert hand.current_winner() == 1  # the 3D already counts
    for seat in range(4):
        assert view_of(match, seat).trump == D and view_of(match, seat).trump_in_force
    assert hand.events[-1] == (2, TRUMP_OFFSET + D)  # the automatic reveal, not a move
    play(match, "2H 2S")
    assert hand.trick_winners == [0, 1]
    assert hand_report(match)["trump"] == "D"


def test_r2_4c_closed_never_revealed_means_no_trump() -> None:
    """R2.4c: "If it is never revealed, the hand is played with no trump." Seat 2 chose
    diamonds; seat 1's AD, played when void in spades, does not win."""
    match = direct(3, MAKER_NEVER_VOID_AGAIN, trump="closed")
    play(match, "AC KC trump:D 9H 2C")
    play(match, "2S AD AS 2D")
    hand = match.hand
    assert hand.trick_winners == [0, 2]
    play_lowest(match)
    assert hand.complete and hand.trump == -1 and hand.trump_hidden
    assert hand.trick_winners == [0] + [2] * 12
    assert [e for e in hand.events if e[1] >= TRUMP_OFFSET] == [(2, TRUMP_OFFSET + D)]  # never revealed
    assert hand_report(match)["trump"] == "D"  # still reported (R6)


# --------------------------------------------------------------------- R2.4d named


def test_r2_4d_named_trump_is_in_force_at_once() -> None:
    """R2.4d: "the first player unable to follow names a trump suit aloud, then plays
    any card. ... the trump is in force at once". Seat 2 names diamonds and ruffs with
    the 2D; seat 3 overtrumps with the AD."""
    match = direct(3, VOID_DEAL, trump="named")
    play(match, "AC KC")
    assert match.hand.phase == Phase.TRUMP and match.legal_actions() == [TRUMP_OFFSET + s for s in range(4)]
    play(match, "trump:D")
    assert match.hand.trump == D and not match.hand.trump_hidden
    assert all(view_of(match, s).trump == D for s in range(4))
    play(match, "2D")
    assert match.hand.current_winner() == 2
    play(match, "AD")
    assert match.hand.trick_winners == [3]


def test_r2_4d_named_trump_may_be_the_led_suit() -> None:
    """R2.4d: "any of the four suits may be named, the led suit included; the trump is
    in force at once, for the whole current trick, cards already played to it included."
    R6: "then every card of that suit in the trick is a trump". Seat 2 names clubs on a
    club lead: the AC (played before) is the top trump; in trick 2 seat 1's club ruffs."""
    match = direct(3, MAKER_NEVER_VOID_AGAIN, trump="named")
    play(match, "AC KC trump:C 9H 2C")
    assert match.hand.trick_winners == [0] and match.hand.trump == C
    play(match, "2S 8C AS 2D")
    assert match.hand.trick_winners == [0, 1]  # the 8C is a trump, the AS is not


# --------------------------------------------------------------------- R2.5 scoring


@pytest.mark.parametrize(
    ("early", "dealers_tens", "winner_is_dealers_side"),
    [("", 0, False), ("H", 1, False), ("HD", 2, None), ("HDC", 3, True)],
)
def test_r2_5_tens_scoring(early: str, dealers_tens: int, winner_is_dealers_side) -> None:
    """R2.5 tens: "a side with 3 or 4 tens wins the round. 2-2: no winner." """
    dealer = 1
    match = split_match(dealer, early, max_hands=5)
    side = dealer % 2
    assert match.hand.tens[side] == dealers_tens
    expected = None if winner_is_dealers_side is None else (side if winner_is_dealers_side else 1 - side)
    assert match.summaries[-1].hand_winner == expected


def test_r2_5_tricks_scoring_more_tricks_wins_and_tens_count_for_nothing() -> None:
    """R2.5 tricks: "the side with more tricks wins the round (7 or more of 13) ...;
    tens count for nothing, so the all-tens instant win of R2.6 does not apply."
    Side 1 takes all four tens in two tricks; side 0 wins 11 tricks, the round, and
    the match goes on."""
    match = direct(3, ALL_TENS_IN_TWO_TRICKS, trump="open", scoring="tricks")
    play(match, ALL_TENS_IN_TWO_TRICKS_MOVES)
    play_highest(match)
    assert match.hand.tens == [0, 4] and match.hand.tricks == [11, 2]
    summary = match.summaries[-1]
    assert summary.hand_winner == 0 and summary.kot is None
    assert match.winner is None and match.kots == [0, 0] and match.streak == (0, 1)


def test_r2_5_same_deal_under_tens_scoring_is_an_instant_win() -> None:
    """R2.6 (contrast to the test above): with tens scoring all four tens win at once."""
    match = direct(3, ALL_TENS_IN_TWO_TRICKS, trump="open")
    play(match, ALL_TENS_IN_TWO_TRICKS_MOVES)
    play_highest(match)
    assert match.summaries[-1].hand_winner == 1 and match.summaries[-1].kot == 1
    assert match.winner == 1 and match.kots == [0, 1]


def test_r2_5_double_sar_tens_are_two_points_other_cards_one() -> None:
    """R2.5 double-sar: "each captured ten is worth 2 points and every other captured
    card 1 (56 in all); the side with more points wins the round". With a 1-3 tens
    split the side with one ten wins on cards (44+1 against 8+3); tens scoring would
    give the round to the other side."""
    match = split_match(1, "HDC", scoring="double-sar")
    hand = match.hand
    assert hand.tens == [1, 3] and hand.cards_won == [44, 8]
    assert hand.card_points() == (45, 11) and sum(hand.card_points()) == 56
    assert match.summaries[-1].hand_winner == 0


def test_r2_5_double_sar_all_four_tens_still_win_the_match_for_the_points_loser() -> None:
    """R2.5 double-sar: "Taking all four tens is still R2.6's instant win." R6: the
    hand_winner is "the side with more points, even when the other side took all four
    tens (that side still wins the match by R2.6); the streak or point goes to the
    points winner"."""
    match = direct(3, ALL_TENS_IN_TWO_TRICKS, trump="open", scoring="double-sar")
    play(match, ALL_TENS_IN_TWO_TRICKS_MOVES)
    play_highest(match)
    assert match.hand.card_points() == (44, 12)
    summary = match.summaries[-1]
    assert summary.hand_winner == 0 and summary.kot == 1
    assert match.winner == 1 and match.streak == (0, 1)
    assert hand_report(match)["streak"] == [0, 1]


def test_r2_5_double_sar_28_all_is_no_winner_but_four_tens_still_win() -> None:
    """R2.5 double-sar: "28-28 is no winner." Side 1: six tricks with all four tens
    (24 + 4), side 0: seven tricks (28). No round winner, but side 1 wins the match."""
    match = direct(3, SIX_TRICKS_FOUR_TENS, trump="open", scoring="double-sar")
    play(match, SIX_TRICKS_FOUR_TENS_MOVES)
    play_highest(match)
    assert match.hand.tricks == [7, 6] and match.hand.card_points() == (28, 28)
    summary = match.summaries[-1]
    assert summary.hand_winner is None and summary.kot == 1 and match.winner == 1


def test_r2_5_tricks_scoring_seven_of_thirteen_wins() -> None:
    """R2.5 tricks: 7-6 in tricks wins, whatever the tens (side 1 has all four)."""
    match = direct(3, SIX_TRICKS_FOUR_TENS, trump="open", scoring="tricks", match="points")
    play(match, SIX_TRICKS_FOUR_TENS_MOVES)
    play_highest(match)
    assert match.summaries[-1].hand_winner == 0 and match.points == [1, 0] and match.winner is None


# --------------------------------------------------------------------- R2.6 match


def test_r2_6_streak_all_four_tens_wins_the_match_at_once() -> None:
    """R2.6 streak: "a side that takes all four tens in one round wins the match at once
    (a kot, sirr)." """
    match = split_match(2, "")
    assert match.hand.tens == [0, 4]
    assert match.winner == 1 and match.kots == [0, 1] and match.summaries[-1].kot == 1
    assert match.current_player() == TERMINAL
    assert hand_report(match)["streak"] == [1, 1]  # R6: a four-tens round first adds to it


def test_r2_6_streak_rounds_in_a_row_win_and_no_winner_rounds_change_nothing() -> None:
    """R2.6: "a side that wins streak rounds in a row ... wins the match (a kot).
    Streaks: a round won by a side adds one to its streak and resets the other side's
    to zero; a no-winner round changes neither." """
    match = split_match(0, "H", streak=3)  # side 1 wins 3-1
    next_split(match, "HD")  # 2-2: no winner
    next_split(match, "H")  # side 1 again
    next_split(match, "HDC")  # dealer 0's side 0 wins: side 1's streak is reset
    next_split(match, "H")  # dealer 1 now: side 0 wins
    next_split(match, "H")  # side 0: third in a row
    assert [s.hand_winner for s in match.summaries] == [1, None, 1, 0, 0, 0]
    assert [s.streak for s in match.summaries] == [(1, 1), (1, 1), (1, 2), (0, 1), (0, 2), (0, 3)]
    assert [s.kot for s in match.summaries] == [None] * 5 + [0]
    assert match.winner == 0 and match.kots == [1, 0]
    assert hand_report(match)["streak"] == [0, 3]  # R6: not cleared when a kot ends the match


def test_r2_6_points_first_side_to_points_wins() -> None:
    """R2.6 points: "each round won scores its side 1 point; the first side to points
    points (default 7) wins." Kots are not scored for reaching it."""
    match = split_match(0, "H", match="points", points=2)
    assert match.points == [0, 1] and match.winner is None
    next_split(match, "HD")  # no winner: no point
    assert match.points == [0, 1]
    next_split(match, "H")
    assert match.points == [0, 2] and match.winner == 1
    assert match.kots == [0, 0] and match.summaries[-1].kot is None
    assert hand_report(match)["streak"] is None and hand_report(match)["points"] == [0, 2]


def test_r2_6_points_four_tens_still_wins_at_once() -> None:
    """R2.6 points: "Four tens in one round still wins at once." """
    match = split_match(0, "", match="points")
    assert match.winner == 1 and match.points == [0, 1] and match.summaries[-1].kot == 1


@pytest.mark.parametrize("mode", ["streak", "points"])
def test_r2_6_max_hands_undecided_is_a_draw(mode: str) -> None:
    """R2.6: "Option max_hands (default 40): Decision: if the match is not decided after
    that many rounds, it is a draw." (even with one side ahead)"""
    match = split_match(0, "H", match=mode, max_hands=2)
    next_split(match, "H")
    assert match.hands_completed == 2 and match.winner == "draw"
    assert match.summaries[-1].next_dealer is None


# --------------------------------------------------------------------- R2.7 next dealer


@pytest.mark.parametrize("dealer", range(4))
def test_r2_7_dealers_side_won_next_dealer_plus_one_else_same_dealer(dealer: int) -> None:
    """R2.7: "If the dealer's side won the round: dealer+1. If the other side won it:
    the same dealer again." """
    won = split_match(dealer, "HDC", match="points", points=9)
    assert won.summaries[-1].hand_winner == dealer % 2 and won.summaries[-1].next_dealer == (dealer + 1) % 4
    lost = split_match(dealer, "H", match="points", points=9)
    assert lost.summaries[-1].hand_winner != dealer % 2 and lost.summaries[-1].next_dealer == dealer


@pytest.mark.parametrize("dealer", range(4))
def test_r2_7_no_winner_in_the_first_round_passes_the_deal(dealer: int) -> None:
    """R2.7 Decision: no winner: "for the first round of the match, dealer+1"."""
    match = split_match(dealer, "HD", match="points", points=9)
    assert match.summaries[-1].hand_winner is None
    assert match.summaries[-1].next_dealer == (dealer + 1) % 4


def test_r2_7_no_winner_keeps_the_deal_only_if_the_dealers_side_lost_the_previous_round() -> None:
    """R2.7 Decision: no winner: "the same dealer if the dealer's side lost the previous
    round (the other side won it), otherwise dealer+1". R6: "the previous round is the
    round just before, even if it had no winner"."""
    match = split_match(0, "H", match="points", points=9)  # side 1 beats dealer 0's side
    assert match.summaries[-1].next_dealer == 0
    next_split(match, "HD")  # no winner; dealer 0's side lost the previous round
    assert match.summaries[-1].next_dealer == 0
    next_split(match, "HD")  # no winner again; the previous round had no winner
    assert match.summaries[-1].next_dealer == 1
    next_split(match, "HDC")  # dealer 1's side wins
    assert match.summaries[-1].next_dealer == 2
    next_split(match, "HD")  # no winner; dealer 2's side (0) lost the previous round
    assert match.summaries[-1].next_dealer == 2
    assert [s.hand_winner for s in match.summaries] == [1, None, None, 1, None]


# --------------------------------------------------------------------- R2.8 six players


def _six(ranks: str, suit: str) -> str:
    return " ".join(f"{r}{suit}" for r in ranks for _ in range(3))


def split6_hands(dealer: int) -> list[str]:
    """Six-player split deal (three packs), by seat relative to the dealer: L = d+1 holds
    the top 24 spades and two 2H; P = d+2 the top 26 hearts; d+3 three TD and diamonds;
    d+4 the other hearts and the low spades; d+5 two TC and clubs; the dealer one TC,
    low diamonds and clubs. With spades named by P, P wins tricks 1-2 (L leads a 2H,
    d+4 follows low, the others discard) and L every later trick."""
    rel = {
        1: _six("AKQJT987", "S") + " 2H 2H",
        2: _six("AKQJT987", "H") + " 6H 6H",
        3: "TD TD TD " + _six("AKQJ987", "D") + " 6D 6D",
        4: "6H " + _six("543", "H") + " 2H " + _six("65432", "S"),
        5: "TC TC " + _six("AKQJ9876", "C"),
        0: "TC 6D " + _six("5432", "D") + " " + _six("5432", "C"),
    }
    return [rel[(seat - dealer) % 6] for seat in range(6)]


def split6_round(dealer: int, first: str, second: str, **options) -> MatchState:
    match = direct(dealer, split6_hands(dealer), trump="open", players=6, **options)
    play(match, f"trump:S {first} {second}")
    play_highest(match)
    return match


def test_r2_8_six_players_three_packs_twenty_six_each() -> None:
    """R2.8: "Seats 0..5, sides {0,2,4} and {1,3,5}, three packs shuffled together (156
    cards, 26 each, dealt one at a time from dealer+1)." """
    rules = make_rules("dehla-direct", players=6)
    assert (rules.deck_size, rules.hand_size, rules.num_tricks, rules.num_tens) == (156, 26, 26, 12)
    deck = [i % 52 for i in range(156)]
    match = MatchState(rules, 2)
    match.apply_deal(deck)
    for seat in range(6):
        expected = sorted(deck[i] for i in range(156) if (2 + 1 + i) % 6 == seat)
        assert match.hand.hand_cards(seat) == expected
    assert match.current_player() == 3
    one_pack = MatchState(rules, 0)
    assert_rejected(one_pack, lambda: one_pack.apply_deal(list(range(52))), "156", "R5")


def test_r2_8_equal_cards_the_one_played_first_ranks_higher() -> None:
    """R2.8 Decision: "equal cards: the one played first ranks higher". Seats 0, 1 and 2
    each play an AS: seat 0's, played first, wins."""
    match = direct(5, ["AS", "AS", "AS", "2S", "3S", "4S"], players=6)
    assert match.hand.hand_cards(0).count(parse_card("AS")) == 1
    play(match, "AS AS AS 2S 3S 4S")
    assert match.hand.trick_winners == [0]
    # the same for equal trumps, and for equal cards of the suit led
    assert trick_winner(cards("2H 5S 5S 3H 4H 2H"), S) == 1
    assert trick_winner(cards("9D KD KD 2D AS AS"), C) == 1


def test_r2_8_six_players_seven_of_twelve_tens_win() -> None:
    """R2.8 Decision: "a side with 7 or more of the 12 tens wins the round"."""
    match = split6_round(0, "2H TH TD 3H TC TC", "TH TD 3H TC 2D 2H")
    assert match.hand.tens == [7, 5] and match.summaries[-1].hand_winner == 0
    assert match.summaries[-1].next_dealer == 1  # R2.7: the dealer's side won


def test_r2_8_six_players_six_tens_each_is_no_winner() -> None:
    """R2.8 Decision: "6-6 is no winner"."""
    match = split6_round(3, "2H TH TD 3H TC 2D", "TH TD 3H TC 2D 2H")
    assert match.hand.tens == [6, 6] and match.summaries[-1].hand_winner is None
    assert match.summaries[-1].next_dealer == 4  # R2.7: first round without a winner


def test_r2_8_six_players_all_twelve_tens_win_at_once() -> None:
    """R2.8 Decision: "all twelve tens is the instant win"."""
    match = split6_round(0, "2H 6H AD 3H AC 2D", "6H AD 3H AC 2D 2H")
    assert match.hand.tens == [0, 12] and match.winner == 1 and match.summaries[-1].kot == 1
    assert match.hand.tricks == [2, 24]


def test_r2_8_six_players_tricks_thirteen_each_is_no_winner() -> None:
    """R2.5 tricks with six players: "14 or more of 26, and 13-13 is no winner". Checked
    on the trick-count rule itself (a 13-13 hand is hard to force by hand)."""
    rules = make_rules("dehla-direct", players=6, scoring="tricks")
    from dehla_env.engine import HandState

    hand = HandState(rules, 0)
    hand.phase = Phase.DONE
    for tricks, winner in (([13, 13], None), ([14, 12], 0), ([12, 14], 1)):
        hand.tricks = tricks
        assert hand.result().winner == winner


def test_r2_record_closed_trump_replay() -> None:
    """R6: the closed-trump hand above as a record: the secret choice is a move,
    the reveal is not."""
    from dehla_env.cards import card_text
    from dehla_env.records import replay_record

    deck = deck_from_hands(3, VOID_DEAL)
    record = {
        "id": "closed",
        "rules": "dehla-direct",
        "options": {"trump": "closed"},
        "first_dealer": 3,
        "hands": [
            {
                "deck": " ".join(card_text(c) for c in deck),
                "moves": ["AC", "KC", "trump:D", "2D", "AD", "QC", "3D", "2H", "2S"],
            }
        ],
    }
    out = replay_record(record)
    assert out["error"] is None
    h = out["hands"][0]
    assert (h["trump"], h["trump_maker"], h["trick_winners"], h["tens"]) == ("D", 2, [0, 1], [0, 0])
