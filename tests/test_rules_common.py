"""R0 (common ground), R5 (illegal and malformed input), rule configuration, the flat
action layout and strict card / move text (R6)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from helpers import assert_rejected, cards, new_match, play, play_lowest, snapshot, split_hands, split_opening

from dehla_env import NUM_ACTIONS, IllegalMoveError, MatchState, RulesError, make_rules, view_of
from dehla_env.actions import (
    BID_OFFSET,
    CARD_OFFSET,
    PASS_ACTION,
    TRUMP_OFFSET,
    action_text,
    bid_action,
    bid_of,
    parse_action,
    parse_draw,
)
from dehla_env.cards import (
    RANK_LETTERS,
    SUIT_LETTERS,
    TEN_IDS,
    card_text,
    parse_card,
    parse_suit,
)
from dehla_env.records import replay_record
from dehla_env.render import render_match
from dehla_env.rules import PRESETS, TrumpMaking, option_specs
from dehla_env.seats import side_of
from dehla_env.tricks import trick_winner
from tests.deals import deck_from_hands
from tests.rulesets import FOUR_PLAYER

S, H, D, C = 3, 2, 1, 0

# --------------------------------------------------------------------- R0.1 cards


def _defaults(name: str) -> dict:
    """The options preset ``name`` accepts and their defaults."""
    return {k: spec.default for k, spec in option_specs(name).items()}


def test_r0_1_canonical_card_ids() -> None:
    """R0.1: "Canonical id = suit_index * 13 + rank_index, with suits C=0 D=1 H=2 S=3 and
    ranks 2=0 ... T=8 J=9 Q=10 K=11 A=12 (so 2C=0, TS=47, AS=51)." """
    assert (parse_card("2C"), parse_card("TS"), parse_card("AS")) == (0, 47, 51)
    assert SUIT_LETTERS == "CDHS" and RANK_LETTERS == "23456789TJQKA"
    for suit, s in enumerate("CDHS"):
        for rank, r in enumerate("23456789TJQKA"):
            cid = suit * 13 + rank
            assert parse_card(r + s) == cid and card_text(cid) == r + s


def test_r0_1_rank_order_high_to_low() -> None:
    """R0.1: "Rank high to low: A K Q J T 9 8 7 6 5 4 3 2" (within a suit, a higher id
    is a higher card)."""
    order = [parse_card(r + "H") for r in "AKQJT98765432"]
    assert order == sorted(order, reverse=True)
    assert trick_winner(cards("TH 9H AH 2H"), -1) == 2


@pytest.mark.parametrize("text", ["10S", "ts", "Ts", "tS", "XS", "AX", "T", "TSS", "", " AS", "AS ", "1S", "A♠"])
def test_r0_1_and_r6_card_text_is_strict(text: str) -> None:
    """R6: "a card is exactly two characters, upper case, T for ten (10S, ts are
    malformed)"."""
    with pytest.raises(ValueError):
        parse_card(text)


def test_r0_1_suit_text_and_card_lists() -> None:
    assert [parse_suit(s) for s in "CDHS"] == [0, 1, 2, 3]
    for bad in ["c", "X", "", "SS"]:
        with pytest.raises(ValueError):
            parse_suit(bad)


def test_r0_5_the_four_tens() -> None:
    """R0.5: "A ten is a dehla"."""
    assert [card_text(c) for c in TEN_IDS] == ["TC", "TD", "TH", "TS"]


# --------------------------------------------------------------------- R0.2 seats


def test_r0_2_seats_go_anticlockwise_and_partners_sit_opposite() -> None:
    """R0.2: "the next seat after s is (s+1) % 4. Partners sit opposite: side 0 = seats
    {0, 2}, side 1 = seats {1, 3}." R2.8: sides {0,2,4} and {1,3,5}."""
    assert [side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [side_of(s) for s in range(6)] == [0, 1, 0, 1, 0, 1]
    assert side_of(np.arange(4)).tolist() == [0, 1, 0, 1]  # a batch of seats alike


# --------------------------------------------------------------------- R0.3 dealing


@pytest.mark.parametrize("rules_name", PRESETS)
@pytest.mark.parametrize("dealer", range(4))
def test_r0_3_deck_position_i_goes_to_seat_dealer_plus_one_plus_i(rules_name: str, dealer: int) -> None:
    """R0.3: "deck position i goes to seat (dealer + 1 + i) % 4. Positions 0..19 are each
    player's first five cards; positions 20..51 are the other eight each. ... Both give
    every seat the same 13 cards." """
    rng = np.random.default_rng(dealer)
    deck = [int(c) for c in rng.permutation(52)]
    match = MatchState(make_rules(rules_name), dealer)
    match.apply_deal(deck)
    first_five = {s: sorted(deck[i] for i in range(20) if (dealer + 1 + i) % 4 == s) for s in range(4)}
    all_13 = {s: sorted(deck[i] for i in range(52) if (dealer + 1 + i) % 4 == s) for s in range(4)}
    expected = first_five if make_rules(rules_name).staged_deal else all_13  # R1.3, R3.1, R4.1 vs R2.1
    assert {s: match.hand.hand_cards(s) for s in range(4)} == expected
    # finish the staged deal (name a trump / bid / first-void trick) and compare
    while match.hand.stage == 1:
        if match.is_chance():
            match.sample_chance(rng)
        else:
            match.apply_action(match.legal_actions()[0])
    played = {s: [] for s in range(4)}
    for leader, trick, _ in match.hand.history:
        for k, c in enumerate(trick):
            played[(leader + k) % 4].append(c)
    for s in range(4):
        played[s].extend(c for seat, c in zip(match.hand.trick_seats, match.hand.trick_cards) if seat == s)
        assert sorted(match.hand.hand_cards(s) + played[s]) == all_13[s]


def test_r0_3_deck_from_hands_writes_the_deck_that_deals_those_hands() -> None:
    """R0.3 through the compact deal form of tests: each seat gets exactly its cards,
    the part before ``|`` in the first stage."""
    hands = ["AS KS QS JS TS | 9S 8S 7S 6S 5S 4S 3S 2S", "AH KH QH JH TH", None, None]
    match = new_match("court-piece", 2, hands)
    assert match.hand.hand_cards(0) == cards("TS JS QS KS AS")
    assert match.hand.hand_cards(1) == cards("TH JH QH KH AH")
    play(match, "trump:C")  # seat 3 names
    assert match.hand.hand_cards(0) == sorted(cards(hands[0].replace("|", "")))


# --------------------------------------------------------------------- R0.4 tricks


def test_r0_4_trick_resolution_table() -> None:
    """R0.4: "The highest trump in the trick wins; with no trump in it, the highest card
    of the led suit wins." A higher card of another suit does not."""
    table = [
        ("2H AS KS QS", -1, 0),  # nobody followed: the 2 of the led suit wins
        ("2H 3H AS 4H", -1, 3),
        ("2H 3H 2S 4H", S, 2),  # a small trump beats the led suit
        ("2H 3S 4S AH", S, 2),  # highest trump
        ("AH KH QH JH", H, 0),  # trump led: highest trump
        ("5D 9C AC KD", C, 2),
        ("5D 9C AC KD", H, 3),
    ]
    for text, trump, winner in table:
        assert trick_winner(cards(text), trump) == winner, (text, trump)


def test_r0_4_must_follow_suit_if_able_else_any_card() -> None:
    """R0.4: "The leader plays any card. Each following player must follow the suit led
    if able; a player void in it may play any card, a trump included. ... The trick's
    winner leads the next trick." """
    hands = [
        "2C AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S",
        "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H",
        "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2S",
        "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
    ]
    match = new_match("dehla-direct", 3, hands, trump="open")
    play(match, "trump:D")  # named by seat 1 (open); seat 0 leads
    assert match.legal_actions() == match.hand.hand_cards(0)  # the leader: any card
    play(match, "2C")
    assert match.legal_actions() == match.hand.hand_cards(1)  # void in clubs: any card
    play(match, "2H")
    assert match.legal_actions() == cards("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC")  # must follow
    assert_rejected(match, lambda: play(match, "2S"), "2S", "seat 2", "R0.4")
    play(match, "AC")
    assert match.legal_actions() == match.hand.hand_cards(3)  # void: any card, a trump included
    play(match, "2D")  # the smallest trump beats the AC
    assert match.hand.trick_winners == [3] and match.current_player() == 3


# --------------------------------------------------------------------- R0.6 information


@pytest.mark.parametrize("rules_name", PRESETS)
def test_r0_6_a_seat_sees_its_own_hand_and_only_counts_of_the_others(rules_name: str) -> None:
    """R0.6: "What a player may observe: its own hand, every card played and by whom,
    who won each trick, ... Hidden: other hands, undealt cards"."""
    match = MatchState(make_rules(rules_name), 0)
    rng = np.random.default_rng(7)
    match.sample_chance(rng)
    for _ in range(10):
        if match.is_chance():
            match.sample_chance(rng)
        else:
            match.apply_action(match.legal_actions()[-1])
    for seat in range(4):
        view = view_of(match, seat)
        assert list(view.hand) == match.hand.hand_cards(seat)
        assert view.hand_counts == tuple(match.hand.hand_counts)
        assert view.history == tuple(match.hand.history)
        assert view.trick == tuple(zip(match.hand.trick_seats, match.hand.trick_cards))
        assert view.legal_actions == (tuple(match.legal_actions()) if match.current_player() == seat else ())
        text = render_match(match, seat)
        for other in range(4):
            line = next(ln for ln in text.splitlines() if f"seat {other}" in ln and "[side" in ln)
            if other != seat:
                assert line.rstrip().endswith(f"{match.hand.hand_counts[other]} cards")


# --------------------------------------------------------------------- rules config


def test_rules_presets_and_defaults() -> None:
    """Options and defaults of RULES.md: R1.4, R1.9; R2.4-R2.8; R3.4, R3.6; R4.5."""
    assert _defaults("dehla") == {"trump": "first-void", "kots": 2, "max_hands": 40}
    assert _defaults("dehla-direct") == {
        "trump": "first-void",
        "scoring": "tens",
        "match": "streak",
        "streak": 7,
        "points": 7,
        "max_hands": 40,
        "players": 4,
    }
    assert _defaults("court-piece") == {"defender_kot": False, "points": 7, "max_hands": 40}
    assert _defaults("coat-pees") == {"gap": 52, "max_hands": None}


def test_rules_derived_facts() -> None:
    dehla = make_rules("dehla")
    assert dehla.staged_deal and dehla.has_middle and dehla.num_tricks == 13 and dehla.deck_size == 52
    direct6 = make_rules("dehla-direct", players=6)
    assert not direct6.staged_deal and not direct6.has_middle
    assert (direct6.packs, direct6.deck_size, direct6.hand_size, direct6.num_tens) == (3, 156, 26, 12)
    assert make_rules("court-piece").staged_deal and make_rules("coat-pees").staged_deal
    assert not make_rules("dehla-direct", scoring="tricks").tens_scoring


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("whist", {}),
        ("dehla", {"players": 6}),  # not a dehla option
        ("dehla", {"colour": "red"}),
        ("dehla", {"trump": "open"}),  # open is a dehla-direct mode
        ("dehla", {"kots": 0}),
        ("dehla", {"kots": "2"}),
        ("dehla", {"kots": True}),
        ("dehla", {"kots": 2.0}),
        ("dehla", {"max_hands": None}),
        ("dehla-direct", {"players": 5}),
        ("dehla-direct", {"scoring": "points"}),
        ("dehla-direct", {"match": "kots"}),
        ("dehla-direct", {"streak": 0}),
        ("court-piece", {"defender_kot": "yes"}),
        ("court-piece", {"defender_kot": 1}),
        ("court-piece", {"trump": "chosen"}),
        ("coat-pees", {"gap": 0}),
        ("coat-pees", {"max_hands": 0}),
    ],
)
def test_rules_unknown_options_and_bad_values_are_rejected(name: str, options: dict) -> None:
    """R6: "an unknown option or a bad value is an error"."""
    with pytest.raises(RulesError):
        make_rules(name, options)
    out = replay_record({"id": "x", "rules": name, "options": options, "first_dealer": 0, "hands": []})
    assert out["error"]["hand"] is None and out["error"]["move"] is None


def test_rules_are_frozen_and_take_options_as_mapping_or_keywords() -> None:
    rules = make_rules("dehla", trump="chosen", kots=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.kots = 1  # type: ignore[misc]
    assert rules == make_rules("dehla", {"trump": "chosen", "kots": 3})
    assert make_rules("dehla-direct", **{"max-hands": 5}).max_hands == 5
    assert make_rules("coat-pees", max_hands=None).max_hands is None
    assert make_rules("court-piece", defender_kot=True).defender_kot is True


def test_match_first_dealer_must_be_a_seat_and_r1_10_is_drawn_uniformly() -> None:
    """R1.10: the first dealer is "chosen uniformly at random unless given"."""
    rules = make_rules("dehla")
    for bad in (-1, 4, True, 1.0, None):
        with pytest.raises(ValueError):
            MatchState(rules, bad)  # type: ignore[arg-type]
    rng = np.random.default_rng(3)
    counts = np.bincount([MatchState.new(rules, rng).first_dealer for _ in range(800)], minlength=4)
    assert counts.min() > 150
    six = make_rules("dehla-direct", players=6)
    assert {MatchState.new(six, rng).first_dealer for _ in range(200)} == set(range(6))


# --------------------------------------------------------------------- action layout


def test_action_layout_offsets() -> None:
    """The flat action layout (actions.py): cards 0..51, trumps 52..55, pass 56, bids
    57..84 (7..13 tricks in C D H S)."""
    assert (CARD_OFFSET, TRUMP_OFFSET, PASS_ACTION, BID_OFFSET, NUM_ACTIONS) == (0, 52, 56, 57, 85)
    assert bid_action(7, C) == 57 and bid_action(13, S) == 84 and bid_of(bid_action(9, H)) == (9, H)
    for bad in ((6, 0), (14, 0), (7, 4)):
        with pytest.raises(ValueError):
            bid_action(*bad)


def test_action_text_round_trip() -> None:
    """R6 move texts: a card (QH), trump:S, pass, bid:8H."""
    texts = [action_text(a) for a in range(NUM_ACTIONS)]
    assert texts[:3] == ["2C", "3C", "4C"] and texts[51] == "AS"
    assert texts[52:57] == ["trump:C", "trump:D", "trump:H", "trump:S", "pass"]
    assert texts[57] == "bid:7C" and texts[84] == "bid:13S"
    assert [parse_action(t) for t in texts] == list(range(NUM_ACTIONS))
    assert parse_draw("draw:KD") == parse_card("KD")


@pytest.mark.parametrize(
    "text",
    ["bid:6H", "bid:14S", "bid:08H", "bid:7", "bid:7X", "bid:h7", "bid:7h", "BID:7H", "trump:", "trump:X", "trump:SS"]
    + ["trump:s", "PASS", "pass ", "draw:KD", "", "10S"],
)
def test_r6_malformed_move_texts(text: str) -> None:
    """R6: "Texts are strict: ... a bid is bid: + 7..13 + one of CDHS; a suit is one of
    CDHS." (a draw is a chance outcome, not an action)"""
    with pytest.raises(ValueError):
        parse_action(text)


def test_legal_mask_matches_legal_actions() -> None:
    match = new_match("coat-pees", 0, split_hands(0))
    mask = match.legal_mask()
    assert mask.shape == (NUM_ACTIONS,) and mask.dtype == bool
    assert list(np.flatnonzero(mask)) == match.legal_actions()


def test_actions_given_as_numpy_integers_are_accepted() -> None:
    """An action id taken from ``legal_mask()`` (a numpy integer) is the same action."""
    match = new_match("court-piece", 0, [None] * 4)
    action = np.flatnonzero(match.legal_mask())[0]  # trump:C, as np.int64
    match.apply_action(action)
    assert match.hand.trump == C
    card = np.flatnonzero(match.legal_mask())[0]
    match.apply_action(card)
    assert type(match.hand.hands[1]) is int and type(match.hand.events[-1][1]) is int


def test_a_deck_of_numpy_integers_is_a_deck() -> None:
    """R0.3: a deck is a permutation of the card ids, whatever integer type holds them."""
    match = MatchState(make_rules("dehla-direct"), 0)
    match.apply_deal(np.random.default_rng(0).permutation(52))
    assert sum(match.hand.hand_counts) == 52


# --------------------------------------------------------------------- R5 illegal input


def _dealt(rules_name: str, **options) -> MatchState:
    """A split-deal hand in card play, dealer 0 (seat 1 to lead the 2H, seat 2 holding
    hearts)."""
    hands = split_hands(0)
    rules = make_rules(rules_name, options)
    if rules.staged_deal and rules.trump_making is TrumpMaking.FIRST_VOID:
        hands[1] = "2H 3H AS KS QS | JS TS 9S 8S 7S 6S 5S 4S"  # the 2H among the first five
        hands[2] = "AH KH QH JH 2C | TH 9H 8H 7H 6H 5H 4H 3C"  # and a club
    match = new_match(rules_name, 0, hands, **options)
    match rules.trump_making:
        case TrumpMaking.BIDDING:
            play(match, "bid:9S pass pass pass")
        case TrumpMaking.CHOSEN | TrumpMaking.OPEN:
            play(match, "trump:S")  # dealer+1 (chosen, R3.1) or dealer+2 (open) names spades
        case TrumpMaking.FIRST_VOID | TrumpMaking.CLOSED | TrumpMaking.NAMED:
            pass  # trump is made in the play (R1.4, R2.4)
    return match


ALL_PLAY_SETUPS = FOUR_PLAYER  # every four-player ruleset (the split deal is of four hands)


@pytest.mark.parametrize(("rules_name", "options"), ALL_PLAY_SETUPS)
def test_r5_card_not_in_hand(rules_name: str, options: dict) -> None:
    """R5: "Playing a card not in hand" (here: a card another seat holds)."""
    match = _dealt(rules_name, **options)
    assert match.current_player() == 1
    assert_rejected(match, lambda: play(match, "AH"), "AH", "seat 1", "R5")  # seat 2 holds it
    assert_rejected(match, lambda: match.apply_action(parse_card("AD")), "AD", "seat 1", "R5")


@pytest.mark.parametrize(("rules_name", "options"), ALL_PLAY_SETUPS)
def test_r5_card_already_played(rules_name: str, options: dict) -> None:
    """R5: a card already played is no longer in hand."""
    match = _dealt(rules_name, **options)
    play_lowest(match, until=lambda m: len(m.hand.trick_winners) == 1)
    leader, trick, winner = match.hand.history[0]
    assert match.current_player() == winner
    played = trick[(winner - leader) % 4]
    assert_rejected(match, lambda: match.apply_action(played), card_text(played), f"seat {winner}", "R5")


@pytest.mark.parametrize(("rules_name", "options"), ALL_PLAY_SETUPS)
def test_r5_not_following_suit(rules_name: str, options: dict) -> None:
    """R5: "not following suit when able" (R0.4): seat 2 holds hearts."""
    match = _dealt(rules_name, **options)
    play(match, "2H")
    err = assert_rejected(match, lambda: play(match, "2C"), "2C", "seat 2", "R0.4")
    assert err.rule.startswith("R0.4")


@pytest.mark.parametrize(("rules_name", "options"), ALL_PLAY_SETUPS)
def test_r5_trump_choice_or_bid_when_none_is_due(rules_name: str, options: dict) -> None:
    """R5: "a trump choice when none is due"; a bid or pass outside the bidding (acting
    out of turn)."""
    match = _dealt(rules_name, **options)
    assert_rejected(match, lambda: play(match, "trump:H"), "trump:H", "seat 1", "R5")
    assert_rejected(match, lambda: match.apply_action(TRUMP_OFFSET + S), "trump:S", "seat 1", "R5")
    assert_rejected(match, lambda: play(match, "bid:8H"), "bid:8H", "seat 1", "R4.2")
    assert_rejected(match, lambda: play(match, "pass"), "pass", "seat 1", "R4.2")


@pytest.mark.parametrize(
    ("rules_name", "options", "seat"),
    [("dehla", {"trump": "chosen"}, 1), ("dehla-direct", {"trump": "open"}, 2), ("court-piece", {}, 1)],
)
def test_r5_card_when_a_trump_choice_is_due(rules_name: str, options: dict, seat: int) -> None:
    """R5: acting out of turn: a card while a seat must name trump."""
    match = new_match(rules_name, 0, split_hands(0), **options)
    card = match.hand.hand_cards(seat)[0]
    assert_rejected(match, lambda: match.apply_action(card), card_text(card), f"seat {seat}", "R5")
    assert_rejected(match, lambda: play(match, "pass"), "pass", f"seat {seat}", "R4.2")


def test_r5_card_during_bidding_and_bids_out_of_range() -> None:
    """R5: acting out of turn (a card during the bidding), "a bid not above the last, a
    bid outside 7..13"."""
    match = new_match("coat-pees", 0, split_hands(0))
    assert_rejected(match, lambda: play(match, "AS"), "AS", "seat 1", "R5")
    assert_rejected(match, lambda: play(match, "trump:S"), "trump:S", "seat 1", "R5")
    for text in ("bid:6S", "bid:14S", "bid:0H", "bid:08H", "bid:7X", "bid:"):
        assert_rejected(match, lambda t=text: play(match, t), text, "seat 1", "R4.2")
    play(match, "bid:10H")
    for text in ("bid:10S", "bid:9C", "bid:7H"):
        assert_rejected(match, lambda t=text: play(match, t), text, "seat 2", "R4.2")


@pytest.mark.parametrize("text", ["10S", "ts", "XS", "A", "AS2", "draw", "trump:X", "trump:s", "AS ", "as"])
def test_r5_unknown_card_or_move_text(text: str) -> None:
    """R5: "an unknown card text" (and any malformed move text, R6)."""
    match = _dealt("dehla")
    assert_rejected(match, lambda: play(match, [text]), "seat 1", "R")
    with pytest.raises(IllegalMoveError) as info:
        play(match, [text])
    assert f'"{text}"' in str(info.value)


def test_r5_move_after_the_hand_or_the_match_is_over() -> None:
    """R5 / R6: a move after the hand is over (before the next deal) or after the match."""
    match = new_match("dehla", 0, split_hands(0), trump="chosen", kots=1)
    play(match, ["trump:S", *split_opening("")])
    play_lowest(match)
    assert match.winner == 1
    assert_rejected(match, lambda: match.apply_action(0), "2C", "match is over")
    assert_rejected(match, lambda: play(match, "2C"), "2C", "match is over")
    ongoing = new_match("dehla", 0, split_hands(0), trump="chosen")
    play(ongoing, ["trump:S", *split_opening("H")])
    play_lowest(ongoing)
    assert ongoing.hand.complete and ongoing.winner is None
    assert_rejected(ongoing, lambda: ongoing.apply_action(0), "2C", "hand is over")
    assert_rejected(ongoing, lambda: play(ongoing, "trump:S"), "trump:S", "hand is over")


def test_r5_empty_move_text_names_the_seat() -> None:
    """R5: the error names the move and the seat, also for an empty move text."""
    match = _dealt("dehla")
    with pytest.raises(IllegalMoveError) as info:
        play(match, [""])
    assert "seat 1" in str(info.value) and '""' in str(info.value)


@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 1000])
def test_r5_action_id_out_of_range(action: int) -> None:
    match = _dealt("coat-pees")
    assert_rejected(match, lambda: match.apply_action(action), str(action), "seat 1", "R5")


@pytest.mark.parametrize(
    "fix",
    [
        lambda d: d[:-1],  # 51 cards
        lambda d: [*d, d[0]],  # 53 cards
        lambda d: [d[1], *d[1:]],  # a duplicate, a card missing
        lambda d: [52, *d[1:]],  # not a card id
        lambda d: [-1, *d[1:]],
        lambda d: d + d + d,  # three packs for four players
    ],
)
@pytest.mark.parametrize("rules_name", PRESETS)
def test_r5_deck_that_is_not_a_permutation_of_the_pack(rules_name: str, fix) -> None:
    """R5: "a deck that is not a permutation of the pack" (R6: the error has "move":
    null)."""
    deck = fix(list(range(52)))
    match = MatchState(make_rules(rules_name), 0)
    err = assert_rejected(match, lambda: match.apply_deal(deck), "R5")
    assert err.seat is None
    # the same after a complete hand, for the next deal
    record = {
        "id": "deck",
        "rules": rules_name,
        "first_dealer": 0,
        "hands": [{"deck": " ".join(card_text(c % 52) if 0 <= c < 52 else "XX" for c in deck), "moves": []}],
    }
    out = replay_record(record)
    assert out["error"]["hand"] == 0 and out["error"]["move"] is None and out["hands"] == []


def test_r5_six_players_need_three_packs() -> None:
    rules = make_rules("dehla-direct", players=6)
    match = MatchState(rules, 0)
    deck = [c % 52 for c in range(156)]
    deck[0] = deck[1]  # 3C four times, 2C twice
    assert_rejected(match, lambda: match.apply_deal(deck), "R5")


def test_r5_draw_not_due_and_deal_not_due() -> None:
    """R5 / R1.4: a chance step is refused when none is due."""
    match = _dealt("dehla")
    assert_rejected(match, lambda: match.apply_draw(0), "draw:2C", "R1.4")
    assert_rejected(match, lambda: play(match, "draw:2C"), "draw:2C", "R1.4")
    assert_rejected(match, lambda: match.apply_deal(list(range(52))), "deal", "R5")


def test_r5_error_names_move_seat_and_rule() -> None:
    """R5: "each is rejected with an error naming the move, the seat and the rule
    broken"; the exception carries them as attributes too."""
    match = _dealt("dehla-direct")
    play(match, "2H")
    with pytest.raises(IllegalMoveError) as info:
        play(match, "3C")
    err = info.value
    assert err.move == "3C" and err.seat == 2 and err.rule == "R0.4"
    assert str(err).startswith('"3C" by seat 2:') and "R0.4" in str(err)


def test_r6_error_reports_the_first_illegal_move_and_the_state_before_it() -> None:
    """R6: error is {"hand": h, "move": m} for the first move that is illegal or
    malformed; "the output describes the state before it"."""
    deck = " ".join(card_text(c) for c in deck_from_hands(0, split_hands(0)))
    moves = ["trump:S", *split_opening("H"), "AS", "XX"]  # seat 2 leads trick 3: the AS is not its
    record = {"id": "e", "rules": "dehla", "options": {"trump": "chosen"}, "first_dealer": 0}
    out = replay_record({**record, "hands": [{"deck": deck, "moves": moves}]})
    assert out["error"]["hand"] == 0 and out["error"]["move"] == 9
    assert "AS" in out["error"]["reason"] and "seat 2" in out["error"]["reason"]
    before = replay_record({**record, "hands": [{"deck": deck, "moves": moves[:9]}]})
    assert {k: v for k, v in out.items() if k != "error"} == {k: v for k, v in before.items() if k != "error"}
    json.dumps(out)  # plain JSON


def test_r5_rejected_moves_leave_the_match_snapshot_identical() -> None:
    """R5: "leaves the state exactly as it was before the move", checked on a whole
    random mid-hand state with every illegal action id."""
    rng = np.random.default_rng(5)
    for rules_name in PRESETS:
        match = MatchState(make_rules(rules_name), 1)
        match.sample_chance(rng)
        for _ in range(7):
            if match.is_chance():
                match.sample_chance(rng)
            else:
                match.apply_action(match.legal_actions()[int(rng.integers(len(match.legal_actions())))])
        before = snapshot(match)
        legal = set(match.legal_actions())
        for action in range(NUM_ACTIONS):
            if action not in legal:
                with pytest.raises(IllegalMoveError):
                    match.apply_action(action)
        assert snapshot(match) == before
