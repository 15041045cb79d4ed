"""R4: `coat-pees`, Coat Pees / Tehri with bidding: staged deal, one round of bidding,
all thirteen tricks, the score table, the gap, max_hands and the next dealer.

Hands use the *split deal* of ``tests/helpers.py`` (spades trump): L = dealer+1 wins
eleven tricks and the dealer's side two. So a spade contract by L of n tricks makes
for n <= 11 and fails above; a spade contract by P = dealer+2 makes only 2 tricks.
With hearts trump P (eleven hearts) makes its side every trick.
"""

from __future__ import annotations

import pytest
from helpers import assert_rejected, deal_next, hand_report, new_match, play, play_highest, split_hands, split_opening

from dehla_env import MatchState, make_rules
from dehla_env.actions import BID_OFFSET, PASS_ACTION, TRUMP_OFFSET, bid_action
from dehla_env.engine import Phase

S, H, D, C = 3, 2, 1, 0


def bidding_moves(bidder: str, bid: int, suit: str = "S") -> list[str]:
    """The bidding round (dealer+1 first) in which only L (dealer+1) or P (dealer+2)
    bids; a 13 ends the bidding at once (R4.2)."""
    if bidder == "L":
        moves = [f"bid:{bid}{suit}"] + ([] if bid == 13 else ["pass", "pass", "pass"])
    else:
        moves = ["pass", f"bid:{bid}{suit}"] + ([] if bid == 13 else ["pass", "pass"])
    return moves


def play_contract(match: MatchState, bidder: str, bid: int) -> None:
    """Bid and play out a split-deal hand already dealt."""
    if bidder == "all-pass":
        play(match, ["pass"] * 4 + ["trump:S", *split_opening()])
    elif bidder == "P" and bid == 8:
        play(match, bidding_moves("P", 8, "H"))  # hearts: P's side wins every trick
    else:
        play(match, bidding_moves(bidder, bid) + split_opening(leader="P" if bidder == "P" else "L"))
    play_highest(match)


def contract_hand(dealer: int, bidder: str, bid: int, **options) -> MatchState:
    match = new_match("coat-pees", dealer, split_hands(dealer), **options)
    play_contract(match, bidder, bid)
    return match


def next_contract(match: MatchState, bidder: str, bid: int) -> None:
    deal_next(match, split_hands(match.summaries[-1].next_dealer))
    play_contract(match, bidder, bid)


# --------------------------------------------------------------------- R4.1, R4.2


@pytest.mark.parametrize("dealer", range(4))
def test_r4_1_staged_deal_bidding_on_five_cards(dealer: int) -> None:
    """R4.1: "Staged (R0.3): five each, bidding on those five, then eight each."
    R6: trump and contract are null during the bidding."""
    match = new_match("coat-pees", dealer, split_hands(dealer))
    assert match.hand.phase == Phase.BID and match.hand.hand_counts == [5] * 4
    assert match.current_player() == (dealer + 1) % 4
    report = hand_report(match)
    assert report["trump"] is None and report["contract"] is None and report["trump_maker"] is None
    play(match, bidding_moves("L", 9))
    assert match.hand.hand_counts == [13] * 4 and match.hand.phase == Phase.PLAY


def test_r4_2_bidding_goes_round_once_from_dealer_plus_one_to_the_dealer() -> None:
    """R4.2: "One round, starting with dealer+1 and ending with the dealer. Each player
    in turn passes or bids a number of tricks from 7 to 13 together with a suit." """
    match = new_match("coat-pees", 2, split_hands(2))
    assert match.legal_actions() == [PASS_ACTION, *range(BID_OFFSET, BID_OFFSET + 28)]
    seen = []
    for move in ["bid:7H", "pass", "bid:8C", "pass"]:
        seen.append(match.current_player())
        play(match, move)
    assert seen == [3, 0, 1, 2]
    assert match.hand.phase == Phase.PLAY  # the dealer closed the round
    assert match.hand.bids == [(3, bid_action(7, H)), (0, PASS_ACTION), (1, bid_action(8, C)), (2, PASS_ACTION)]


def test_r4_2_a_bid_must_name_a_strictly_higher_number() -> None:
    """R4.2: "A bid must name a strictly higher number than the highest bid so far
    (suits have no order, so 8S cannot overcall 8H)"."""
    match = new_match("coat-pees", 0, split_hands(0))
    play(match, "bid:8H")
    assert match.legal_actions() == [PASS_ACTION, *range(bid_action(9, C), bid_action(13, S) + 1)]
    assert_rejected(match, lambda: play(match, "bid:8S"), "bid:8S", "seat 2", "R4.2")
    assert_rejected(match, lambda: play(match, "bid:7C"), "bid:7C", "seat 2", "R4.2")
    assert_rejected(match, lambda: match.apply_action(bid_action(8, H)), "bid:8H", "seat 2", "R4.2")
    play(match, "pass bid:9C")  # a pass does not lower the bar
    assert match.hand.high_bid == 9


def test_r4_2_highest_bidder_names_trump_and_leads() -> None:
    """R4.2: "The highest bidder's suit is trump and that player leads the first
    trick." R6: contract [seat, bid, suit], trump_maker the bidder."""
    match = new_match("coat-pees", 1, split_hands(1))
    play(match, "bid:7H bid:8S pass bid:9D")  # seats 2, 3, 0, 1 (the dealer)
    hand = match.hand
    assert hand.contract == (1, 9, D) and hand.trump == D and hand.trump_maker == 1
    assert match.current_player() == 1 and hand.phase == Phase.PLAY
    report = hand_report(match)
    assert report["contract"] == [1, 9, "D"] and report["trump"] == "D" and report["trump_maker"] == 1


@pytest.mark.parametrize("seats_before", range(4))
def test_r4_2_a_bid_of_thirteen_ends_the_bidding_at_once(seats_before: int) -> None:
    """R4.2: "A bid of 13 ends the bidding at once." """
    dealer = 3
    match = new_match("coat-pees", dealer, split_hands(dealer))
    play(match, ["pass"] * seats_before + ["bid:13C"])
    bidder = (dealer + 1 + seats_before) % 4
    assert match.hand.phase == Phase.PLAY and match.current_player() == bidder
    assert match.hand.contract == (bidder, 13, C) and len(match.hand.bids) == seats_before + 1


def test_r4_2_all_four_pass_dealer_plus_one_takes_seven_and_names_trump() -> None:
    """R4.2: "If all four pass, dealer+1 must take 7 and names the trump suit from its
    five cards; it then leads." R3.1 Decision: any suit. R6: contract [dealer+1, 7,
    suit]; trump_maker null until the trump is named."""
    match = new_match("coat-pees", 0, split_hands(0))
    play(match, "pass pass pass pass")
    hand = match.hand
    assert hand.phase == Phase.TRUMP and match.current_player() == 1
    assert match.legal_actions() == [TRUMP_OFFSET + s for s in range(4)]
    assert hand.hand_counts == [5] * 4
    report = hand_report(match)
    assert report["contract"] is None and report["trump"] is None and report["trump_maker"] is None
    assert_rejected(match, lambda: play(match, "bid:7S"), "bid:7S", "seat 1", "R4.2")
    play(match, "trump:D")  # seat 1 holds no diamond
    assert hand.contract == (1, 7, D) and hand.trump == D and hand.trump_maker == 1
    assert match.current_player() == 1 and hand.hand_counts == [13] * 4
    assert hand_report(match)["contract"] == [1, 7, "D"]


# --------------------------------------------------------------------- R4.3


def test_r4_3_all_thirteen_tricks_are_played() -> None:
    """R4.3: "All 13 tricks are played (no early end)", even once the contract is made."""
    match = new_match("coat-pees", 1, split_hands(1))
    play(match, bidding_moves("L", 7) + split_opening())
    play_highest(match, until=lambda m: m.hand.tricks[0] == 7)
    assert not match.hand.complete and match.hand.phase == Phase.PLAY
    play_highest(match)
    assert len(match.hand.trick_winners) == 13 and match.hand.hand_counts == [0] * 4
    assert match.hand.tricks == [11, 2]


# --------------------------------------------------------------------- R4.4 score


@pytest.mark.parametrize(
    ("bidder", "bid", "score"),
    [
        ("all-pass", 7, 7),  # made: + the bid
        ("L", 8, 8),
        ("L", 11, 11),
        ("L", 12, -24),  # short: twice the bid
        ("L", 13, -26),
        ("P", 7, -7),  # a failed 7 costs 7
        ("P", 8, 8),  # (hearts trump: P's side wins every trick)
        ("P", 9, -18),
        ("P", 13, -26),
    ],
)
@pytest.mark.parametrize("dealer", [0, 1])
def test_r4_4_score_table(dealer: int, bidder: str, bid: int, score: int) -> None:
    """R4.4: "If the bidding side wins at least its bid in tricks, it gains the bid
    (making 8 scores +8). If it falls short it loses: 7 if the bid was 7, twice the bid
    above that (8 -> -16, 9 -> -18, 13 -> -26). The defending side's score never
    changes." """
    match = contract_hand(dealer, bidder, bid)
    side = (dealer + (2 if bidder == "P" else 1)) % 2
    expected = [0, 0]
    expected[side] = score
    assert match.points == expected
    assert hand_report(match)["points"] == expected and hand_report(match)["kot"] is None


def test_r4_4_failed_eight_is_minus_sixteen() -> None:
    """R4.4: "8 -> -16": P bids 8 in spades and wins two tricks."""
    match = new_match("coat-pees", 0, split_hands(0))
    play(match, bidding_moves("P", 8) + split_opening(leader="P"))
    play_highest(match)
    assert match.hand.tricks == [2, 11] and match.points == [-16, 0]


# --------------------------------------------------------------------- R4.5 game


def test_r4_5_a_side_falling_gap_behind_loses() -> None:
    """R4.5: "A side that falls gap (default 52) or more points behind the other loses
    the match." P's side (the dealer's, so the dealer keeps the deal, R4.6) fails 13
    twice: -52."""
    match = contract_hand(0, "P", 13)
    assert match.points == [-26, 0] and match.winner is None
    next_contract(match, "P", 13)
    assert match.points == [-52, 0] and match.winner == 1
    assert match.summaries[-1].next_dealer is None


@pytest.mark.parametrize(("gap", "over"), [(24, True), (25, False)])
def test_r4_5_gap_or_more(gap: int, over: bool) -> None:
    """R4.5: "gap ... or more points behind": exactly the gap loses."""
    match = contract_hand(1, "L", 12, gap=gap)  # seat 2's side 0: -24
    assert match.points == [-24, 0]
    assert match.winner == (1 if over else None)


def test_r4_5_gap_counts_both_scores() -> None:
    """R4.5: "The two scores are shown as one gap": +11 and then -18 the other way is
    a 29 gap."""
    match = contract_hand(0, "L", 11, gap=29)  # side 1: +11; dealer 0 keeps the deal
    next_contract(match, "P", 9)  # side 0: -18
    assert match.points == [-18, 11] and match.winner == 1


def test_r4_5_max_hands_defaults_to_none() -> None:
    """R4.5: "Option max_hands (default none)"."""
    assert make_rules("coat-pees").max_hands is None
    assert make_rules("coat-pees").gap == 52


def test_r4_5_max_hands_side_ahead_wins() -> None:
    """R4.5 Decision: "when given and reached, the side ahead wins"."""
    match = contract_hand(1, "L", 8, max_hands=1)
    assert match.points == [8, 0] and match.winner == 0


def test_r4_5_max_hands_level_is_a_draw() -> None:
    """R4.5 Decision: "level is a draw"."""
    match = contract_hand(1, "L", 8, max_hands=2)  # side 0 +8; dealer 1 keeps the deal
    next_contract(match, "P", 8)  # side 1 +8 in hearts
    assert match.points == [8, 8] and match.winner == "draw"


# --------------------------------------------------------------------- R4.6


@pytest.mark.parametrize(
    ("bidder", "bid", "dealers_side_lost"),
    [("L", 8, True), ("L", 12, False), ("P", 9, True), ("P", 8, False)],
)
@pytest.mark.parametrize("dealer", range(4))
def test_r4_6_next_dealer(dealer: int, bidder: str, bid: int, dealers_side_lost: bool) -> None:
    """R4.6 Decision: "the round's loser is the bidding side if it failed, else the
    defending side. If the dealer's side lost, the same dealer deals again; else
    dealer+1." R6: hand_winner is the side that did not lose."""
    match = contract_hand(dealer, bidder, bid)
    summary = match.summaries[-1]
    loser = dealer % 2 if dealers_side_lost else 1 - dealer % 2
    assert summary.hand_winner == 1 - loser
    assert summary.next_dealer == (dealer if dealers_side_lost else (dealer + 1) % 4)


def test_r4_coat_pees_has_no_kots_or_streak() -> None:
    """R6: "coat-pees has none" (kots); streak null."""
    match = contract_hand(2, "L", 11)
    report = hand_report(match)
    assert report["kot"] is None and report["kots"] == [0, 0] and report["streak"] is None
    assert report["takes"] == [] and report["tens"] == [0, 4]  # L = seat 3 captured them
