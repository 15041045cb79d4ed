"""R3: `court-piece`, classic Court Piece: trump named on five cards, tricks kept, the
round ends at seven tricks, kots, next dealer and the points match.

Deals: ``ALL_SPADES`` (dealer+1 holds every spade: with spades trump it wins the first
seven tricks) and the *split deal* of ``tests/helpers.py`` (with spades trump the
callers lose tricks 1-2 and win tricks 3-9; with hearts trump the defenders win the
first seven).
"""

from __future__ import annotations

import pytest
from helpers import (
    assert_rejected,
    deal_next,
    hand_report,
    new_match,
    play,
    play_highest,
    split_hands,
    split_opening,
)

from dehla_env import TERMINAL, MatchState, make_rules
from dehla_env.actions import TRUMP_OFFSET
from dehla_env.engine import Phase
from tests.deals import deck_from_hands


def all_spades(dealer: int) -> list[str | None]:
    """dealer+1 holds the thirteen spades (five of them in its first five)."""
    hands: list[str | None] = [None] * 4
    hands[(dealer + 1) % 4] = "AS KS QS JS TS | 9S 8S 7S 6S 5S 4S 3S 2S"
    return hands


def callers_sweep(dealer: int, **options) -> MatchState:
    """dealer+1 names spades and wins the first seven tricks."""
    match = new_match("court-piece", dealer, all_spades(dealer), **options)
    play(match, "trump:S")
    play_highest(match)
    return match


def callers_win_seven_two(dealer: int, **options) -> MatchState:
    """Split deal, spades trump: the defenders win tricks 1-2, the callers 3-9."""
    match = new_match("court-piece", dealer, split_hands(dealer), **options)
    play(match, ["trump:S", *split_opening("HD")])
    play_highest(match)
    return match


def defenders_sweep(dealer: int, **options) -> MatchState:
    """Split deal, dealer+1 names hearts: the defenders (dealer+2 holds eleven hearts)
    win the first seven tricks."""
    match = new_match("court-piece", dealer, split_hands(dealer), **options)
    play(match, "trump:H")
    play_highest(match)
    return match


# --------------------------------------------------------------------- R3.1, R3.2


@pytest.mark.parametrize("dealer", range(4))
def test_r3_1_dealer_plus_one_names_trump_on_five_cards_then_leads(dealer: int) -> None:
    """R3.1: "After the first five each, the seat to the dealer's right (dealer+1) names
    trump having seen only its five cards (Decision: any suit, held or not); then the
    other eight each are dealt; that seat leads the first trick." """
    caller = (dealer + 1) % 4
    hands: list[str | None] = [None] * 4
    hands[caller] = "AS KS QS JS TS | AH"  # no diamond among the first five
    match = new_match("court-piece", dealer, hands)
    assert match.current_player() == caller and match.hand.phase == Phase.TRUMP
    assert match.hand.hand_counts == [5] * 4
    assert match.legal_actions() == [TRUMP_OFFSET + s for s in range(4)]
    assert_rejected(match, lambda: play(match, "AS"), "AS", f"seat {caller}", "R5")
    play(match, "trump:D")  # a suit it does not hold
    assert (match.hand.trump, match.hand.trump_maker) == (1, caller)
    assert match.hand.hand_counts == [13] * 4
    assert match.current_player() == caller and match.hand.phase == Phase.PLAY
    report = hand_report(match)
    assert report["trump"] == "D" and report["trump_maker"] == caller and report["contract"] is None


def test_r3_2_tricks_are_won_and_kept_by_the_winners_side() -> None:
    """R3.2: "Tricks are won and kept by the winner's side; trick count is what
    matters." R6: tens are reported as captured; there are no takes."""
    match = new_match("court-piece", 1, split_hands(1))
    play(match, ["trump:S", *split_opening("HD")[:4]])  # trick 1: the TH and TD fall
    hand = match.hand
    assert hand.trick_winners == [3] and hand.tricks == [0, 1]
    assert hand.cards_won == [0, 4] and hand.tens == [0, 2] and hand.middle == []
    assert hand_report(match)["takes"] == []


# --------------------------------------------------------------------- R3.3


def test_r3_3_round_ends_when_a_side_wins_seven_tricks() -> None:
    """R3.3: "The first side to win 7 tricks wins the round; Decision: the round ends at
    that moment (the remaining cards are not played)." """
    match = callers_win_seven_two(1)
    hand = match.hand
    assert hand.complete and hand.tricks == [7, 2] and len(hand.trick_winners) == 9
    assert hand.hand_counts == [4, 4, 4, 4]  # not played
    assert match.summaries[-1].hand_winner == 0
    assert match.is_chance() and match.legal_actions() == []
    card = hand.hand_cards(2)[0]  # seat 2 led the ninth trick and won it
    assert_rejected(match, lambda: match.apply_action(card), "the hand is over")
    report = hand_report(match)
    assert report["complete"] and report["tricks"] == [7, 2]


def test_r3_3_round_does_not_end_before_seven() -> None:
    """R3.3: with six tricks the round goes on."""
    match = new_match("court-piece", 1, split_hands(1))
    play(match, ["trump:S", *split_opening("HD")])
    play_highest(match, until=lambda m: m.hand.tricks[0] == 6)
    assert not match.hand.complete and match.hand.tricks == [6, 2]
    assert match.current_player() == 2


# --------------------------------------------------------------------- R3.4 kot


@pytest.mark.parametrize("defender_kot", [False, True])
@pytest.mark.parametrize("dealer", range(4))
def test_r3_4_callers_winning_the_first_seven_tricks_win_a_kot(dealer: int, defender_kot: bool) -> None:
    """R3.4: "The trump-calling side wins a kot if it wins the first seven tricks in a
    row." """
    match = callers_sweep(dealer, defender_kot=defender_kot)
    callers = (dealer + 1) % 2
    assert match.hand.tricks[callers] == 7 and match.hand.tricks[1 - callers] == 0
    summary = match.summaries[-1]
    assert summary.hand_winner == callers and summary.kot == callers
    assert match.kots[callers] == 1


@pytest.mark.parametrize("defender_kot", [False, True])
def test_r3_4_callers_seven_two_is_no_kot(defender_kot: bool) -> None:
    """R3.4: only "the first seven tricks in a row" is a callers' kot: 7-2 is not."""
    match = callers_win_seven_two(1, defender_kot=defender_kot)
    assert match.summaries[-1].hand_winner == 0 and match.summaries[-1].kot is None
    assert match.kots == [0, 0]


@pytest.mark.parametrize(("defender_kot", "kot"), [(False, None), (True, 1)])
def test_r3_4_defender_kot_option(defender_kot: bool, kot) -> None:
    """R3.4: "Option defender_kot (Decision: default false ...): the other side also wins
    a kot whenever it reaches 7 tricks first." Dealer 1: seat 2 calls hearts; side 1
    (the defenders) wins seven tricks."""
    match = defenders_sweep(1, defender_kot=defender_kot)
    assert match.hand.trump_maker == 2 and match.hand.tricks == [0, 7]
    summary = match.summaries[-1]
    assert summary.hand_winner == 1 and summary.kot == kot
    assert match.points == [0, 2 if kot is not None else 1]  # R3.6: a kot adds 1 more


def test_r3_4_defender_kot_defaults_to_false() -> None:
    assert make_rules("court-piece").defender_kot is False


# --------------------------------------------------------------------- R3.5


@pytest.mark.parametrize("dealer", range(4))
def test_r3_5_the_deal_goes_to_the_losing_side(dealer: int) -> None:
    """R3.5: "if the dealer's side lost the round, the same dealer deals again; otherwise
    dealer+1." The callers (dealer+1's side) beat the dealer's side; the defenders (the
    dealer's side) win."""
    assert callers_win_seven_two(dealer).summaries[-1].next_dealer == dealer
    assert defenders_sweep(dealer).summaries[-1].next_dealer == (dealer + 1) % 4


# --------------------------------------------------------------------- R3.6 match


def test_r3_6_round_is_one_point_kot_one_more() -> None:
    """R3.6: "each round won is 1 point and a kot adds 1 more"."""
    assert callers_win_seven_two(1).points == [1, 0]
    assert callers_sweep(1).points == [2, 0]


def test_r3_6_first_side_to_points_wins() -> None:
    """R3.6: "the first side to points (default 7) wins"."""
    match = callers_sweep(3, points=3)  # side 0: 2 points; dealer 3 keeps the deal
    assert match.points == [2, 0] and match.winner is None
    deal_next(match, all_spades(3))
    play(match, "trump:S")
    play_highest(match)
    assert match.points == [4, 0] and match.winner == 0
    assert match.current_player() == TERMINAL and match.summaries[-1].next_dealer is None
    assert_rejected(match, lambda: match.apply_deal(deck_from_hands(3, [None] * 4)), "match is over")


def test_r3_6_default_is_seven_points() -> None:
    match = callers_sweep(3)
    for _ in range(2):
        deal_next(match, all_spades(3))
        play(match, "trump:S")
        play_highest(match)
    assert match.points == [6, 0] and match.winner is None
    deal_next(match, all_spades(3))
    play(match, "trump:S")
    play_highest(match)
    assert match.points == [8, 0] and match.winner == 0


def test_r3_6_max_hands_side_ahead_wins() -> None:
    """R3.6: "max_hands (default 40) then a draw on equal points, otherwise the side
    ahead wins." """
    match = callers_win_seven_two(1, max_hands=1)
    assert match.points == [1, 0] and match.winner == 0


def test_r3_6_max_hands_equal_points_is_a_draw() -> None:
    """R3.6: "a draw on equal points". Side 0 wins a round (dealer 1 keeps the deal),
    then dealer 1's side wins one."""
    match = callers_win_seven_two(1, max_hands=2)
    assert match.summaries[-1].next_dealer == 1
    deal_next(match, split_hands(1))
    play(match, "trump:H")
    play_highest(match)
    assert match.points == [1, 1] and match.winner == "draw"


def test_r3_round_report_fields() -> None:
    """R6 for court-piece: points and kots cumulative, streak null, no takes."""
    report = hand_report(callers_sweep(0))
    assert report["points"] == [0, 2] and report["kots"] == [0, 1]
    assert report["kot"] == 1 and report["streak"] is None and report["takes"] == []
    assert report["next_dealer"] == 0 and report["contract"] is None  # R3.5: the dealer's side lost
