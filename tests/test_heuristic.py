"""The heuristic levels' shared decisions: trump (R3.1, R1.4 chosen) and bids (R4.2)."""

from __future__ import annotations

import pytest

from agents.registry import make_agent
from dehla_env.actions import bid_of, parse_action, trump_action
from dehla_env.cards import parse_suit
from dehla_env.engine import MatchState, Phase
from dehla_env.view import view_of
from tests.helpers import new_match

DEALER = 0
CALLER = 1  # R3.1 / R4.2: dealer + 1 names trump, or opens the bidding


def deal_with_first_five(rules_name: str, five: str, seat: int = CALLER) -> MatchState:
    """A staged deal (R0.3) in which ``seat`` gets ``five`` as its first five cards."""
    return new_match(rules_name, DEALER, [five if s == seat else None for s in range(4)])


@pytest.mark.parametrize(
    ("level", "suit"),
    [("easy", "C"), ("medium", "S"), ("hard", "S")],
)
def test_easy_names_its_longest_suit_trump_the_others_weigh_the_honours(level: str, suit: str) -> None:
    """Three small clubs against the ace and king of spades: length alone says clubs;
    length and honours (agents.bots.knowledge.trump_strength) say spades."""
    match = deal_with_first_five("court-piece", "2C 3C 4C AS KS")
    assert match.hand.phase == Phase.TRUMP and match.hand.to_act == CALLER
    agent = make_agent(level, match.rules, seed=0)
    assert agent.act(view_of(match, CALLER)) == trump_action(parse_suit(suit))


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_a_counting_bot_opens_at_most_two_above_the_minimum(level: str) -> None:
    """R4.2: with a hand worth all thirteen tricks, medium and hard still open at 8
    (two above the six no bid stands for); easy has no such cap."""
    match = deal_with_first_five("coat-pees", "AS KS QS JS AH")
    assert match.hand.phase == Phase.BID and match.hand.to_act == CALLER
    action = make_agent(level, match.rules, seed=0).act(view_of(match, CALLER))
    assert bid_of(action) == (8, parse_suit("S"))


def test_easy_bids_its_estimate_without_a_cap() -> None:
    match = deal_with_first_five("coat-pees", "AS KS QS JS AH")
    tricks = [bid_of(make_agent("easy", match.rules, seed=s).act(view_of(match, CALLER)))[0] for s in range(8)]
    assert max(tricks) >= 12


@pytest.mark.parametrize(
    ("partner_bid", "level", "call"),
    [
        (True, "hard", "pass"),
        (True, "medium", "bid:8S"),
        (False, "hard", "bid:8S"),
    ],
)
def test_hard_does_not_outbid_its_partner_without_a_clearly_better_hand(
    partner_bid: bool, level: str, call: str
) -> None:
    """R4.2: the dealer bids last. Its five (A 2 3 of spades, two small diamonds) are
    worth about 9.25 tricks: enough to overcall a 7 by one, but hard takes a trick off
    the estimate when the 7 is its partner's (seat 2) and passes; medium does not."""
    match = deal_with_first_five("coat-pees", "AS 2S 3S 4D 5D", seat=DEALER)
    bids = ["pass", "bid:7H", "pass"] if partner_bid else ["bid:7H", "pass", "pass"]
    for text in bids:  # seats 1, 2, 3
        match.apply_action(parse_action(text))
    assert match.hand.to_act == DEALER
    assert make_agent(level, match.rules, seed=0).act(view_of(match, DEALER)) == parse_action(call)


def test_the_chance_of_holding_one_of_some_unseen_cards_is_hypergeometric() -> None:
    """A hand of h cards dealt from u unseen cards misses all k particular ones with
    probability C(u - k, h) / C(u, h); the counting bots' table gives the complement."""
    from math import comb

    from agents.bots.knowledge import p_holds_any

    for unseen in (1, 5, 13, 26, 39):
        for held in range(0, 14):
            for count in range(0, unseen + 1):
                dealt = min(held, unseen)
                want = 0.0 if held == 0 else 1.0 - comb(unseen - count, dealt) / comb(unseen, dealt)
                assert p_holds_any(held, unseen, count) == pytest.approx(want, abs=1e-12), (held, unseen, count)
