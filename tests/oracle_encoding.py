"""A deliberately naive encoder: the oracle the one encoder (dehla_env.encoding) is
tested against. It reads a PlayerView only, rebuilds everything from scratch, and
derives the voids from the tricks itself rather than trusting the engine's record."""

from __future__ import annotations

import numpy as np

from dehla_env.actions import BID_OFFSET, PASS_ACTION
from dehla_env.cards import NUM_CARDS
from dehla_env.encoding import NUM_BID_CHOICES, _match_features, layout_for
from dehla_env.engine import Phase
from dehla_env.view import PlayerView

_PHASE_INDEX = {Phase.TRUMP: 0, Phase.BID: 1, Phase.PLAY: 2}


def naive_voids(view: PlayerView) -> list[list[bool]]:
    """R0.4: a seat that did not follow the suit led has shown a void in it."""
    n = view.num_players
    void = [[False] * 4 for _ in range(n)]
    tricks = [(leader, list(cards)) for leader, cards, _w in view.history]
    if view.trick:
        tricks.append((view.trick[0][0], [c for _s, c in view.trick]))
    for leader, cards in tricks:
        led = cards[0] // 13
        for i, c in enumerate(cards):
            if c // 13 != led:
                void[(leader + i) % n][led] = True
    return void


def oracle_encode(view: PlayerView) -> np.ndarray:
    """The flat observation of ``view``, every entry written from scratch."""
    rules = view.rules
    n = view.num_players
    me = view.seat
    lay = layout_for(n)
    obs = np.zeros(lay.size, dtype=np.float32)

    def rel(s: int) -> int:
        return (s - me) % n

    def rside(side: int) -> int:
        return (side - me) % 2

    o = lay.off("hand")
    for c in view.hand:
        obs[o + c] += 1
    o = lay.off("hand_counts")
    for s in range(n):
        obs[o + rel(s)] = view.hand_counts[s] / rules.hand_size
    o = lay.off("trick")
    for s, c in view.trick:
        obs[o + rel(s) * NUM_CARDS + c] += 1
    if view.phase == Phase.PLAY:
        obs[lay.off("trick_leader") + rel(view.leader)] = 1
    if view.led_suit >= 0:
        obs[lay.off("led_suit") + view.led_suit] = 1
    if view.trick_winner >= 0:
        obs[lay.off("trick_winning") + rel(view.trick_winner)] = 1
    o = lay.off("played")
    for s in range(n):
        for c in view.played_by(s):
            obs[o + rel(s) * NUM_CARDS + c] += 1
    o = lay.off("won")
    for side in (0, 1):
        for c in view.won_cards[side]:
            obs[o + rside(side) * NUM_CARDS + c] += 1
    o = lay.off("middle")
    for c in view.middle:
        obs[o + c] += 1
    o = lay.off("middle_info")
    obs[o] = len(view.middle) / rules.deck_size
    obs[o + 1] = view.middle_tens / rules.num_tens
    obs[o + 2] = 1.0 if view.middle else 0.0
    obs[lay.off("pair_threat") + (rel(view.last_winner) if view.last_winner >= 0 else n)] = 1
    o = lay.off("voids")
    voids = naive_voids(view)
    for s in range(n):
        for suit in range(4):
            if voids[s][suit]:
                obs[o + rel(s) * 4 + suit] = 1
    if view.trump >= 0:
        obs[lay.off("trump_suit") + view.trump] = 1
    o = lay.off("trump_state")
    if view.trump_hidden:
        obs[o + 3] = 1
    elif view.trump < 0:
        obs[o] = 1
    elif view.trump_in_force:
        obs[o + 1] = 1
    else:
        obs[o + 2] = 1
    obs[lay.off("trump_maker") + (rel(view.trump_maker) if view.trump_maker >= 0 else n)] = 1
    o = lay.off("bids")
    for s, a in view.bids:
        row = o + rel(s) * NUM_BID_CHOICES
        obs[row : row + NUM_BID_CHOICES] = 0
        obs[row + (1 if a == PASS_ACTION else 2 + a - BID_OFFSET)] = 1
    bid_rows = {rel(s) for s, _ in view.bids}
    for r in range(n):
        if r not in bid_rows:
            obs[o + r * NUM_BID_CHOICES] = 1
    if view.contract is not None:
        bidder, tricks, _suit = view.contract
        obs[lay.off("contract_seat") + rel(bidder)] = 1
        o = lay.off("contract_info")
        obs[o] = tricks / 13
        obs[o + 1] = 1.0 if bidder % 2 == me % 2 else 0.0
    else:
        obs[lay.off("contract_seat") + n] = 1
    obs[lay.off("dealer") + rel(view.dealer)] = 1
    obs[lay.off("phase") + _PHASE_INDEX.get(view.phase, 3)] = 1
    o = lay.off("progress")
    obs[o] = view.num_tricks_done / rules.num_tricks
    obs[o + 1] = view.cards_undealt / rules.deck_size
    o = lay.off("tricks_won")
    obs[o + rside(0)] = view.tricks[0] / rules.num_tricks
    obs[o + rside(1)] = view.tricks[1] / rules.num_tricks
    o = lay.off("tens_won")
    obs[o + rside(0)] = view.tens[0] / rules.num_tens
    obs[o + rside(1)] = view.tens[1] / rules.num_tens
    o = lay.off("match")
    obs[o : o + 8] = _match_features(
        rules, me % 2, view.kots, view.points, view.streak, view.hands_completed, view.match_winner is not None
    )
    return obs
