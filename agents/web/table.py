"""What the page is sent: the person's table as JSON, built from their PlayerView only.

:func:`table_state` is the one place that decides what the browser sees, and it reads
``view_of(match, person)`` (R0.6) plus the game's own public facts (who sits where
with which agent, the scores the match announced at a hand's end, the log made from
the same views). Other hands are card counts; a closed trump chosen by someone else is
``hidden`` until revealed (R2.4c); the person's own secret trump is shown to them.

The game's seed stays off the page (it would give away every deal): the page shows its
commitment (:attr:`.game.WebGame.commitment`) from the first card, and the seed itself
once the game has ended and its record, which reveals it, is written. The page does no
rules logic: which cards are legal, what the prompt says, which panels a ruleset has
(tens, points, kots, the middle, bids) all come from here.
"""

from __future__ import annotations

from typing import Any, assert_never

from agents.playing.narrate import hand_reason, high_bid
from agents.web.game import WebGame
from dehla_env.actions import BID_OFFSET, NUM_ACTIONS, PASS_ACTION, TRUMP_OFFSET, action_text, bid_of
from dehla_env.cards import SUIT_LETTERS, card_text, suit_of
from dehla_env.engine import Phase
from dehla_env.render import SUIT_NAMES, SUIT_SYMBOLS, plural, suit_label
from dehla_env.rules import MatchScoring, Rules, TrumpMaking
from dehla_env.seats import side_of
from dehla_env.view import PlayerView

HAND_SUIT_ORDER = (3, 2, 0, 1)  # spades, hearts, clubs, diamonds: black and red alternate


def card_json(card: int) -> dict[str, Any]:
    text = card_text(card)
    return {
        "text": text,
        "rank": "10" if text[0] == "T" else text[0],
        "suit": text[1],
        "symbol": SUIT_SYMBOLS[text[1]],
        "red": text[1] in "DH",
        "ten": text[0] == "T",
    }


def sorted_hand(cards: tuple[int, ...]) -> list[int]:
    """By suit (alternating colours), high cards first within a suit."""
    return sorted(cards, key=lambda c: (HAND_SUIT_ORDER.index(suit_of(c)), -c))


def panels(rules: Rules) -> dict[str, bool]:
    """Which score panels and table parts this ruleset has (from the rules' facts)."""
    return {
        "tens": rules.tens_scoring,
        "points": rules.scores_points,
        "kots": rules.has_kots,
        "streak": rules.tracks_streak,
        "middle": rules.has_middle,
        "bids": rules.trump_making is TrumpMaking.BIDDING,
        "lead": rules.match_scoring is MatchScoring.GAP,  # R4.5: who leads, and by how much
    }


def trump_making_text(rules: Rules) -> str:
    """How this ruleset's trump is made, in one line, for the panel before it is (R1.4, R2.4, R3.1, R4.2)."""
    match rules.trump_making:
        case TrumpMaking.FIRST_VOID:
            return "The first card played by someone who cannot follow suit makes its suit trump."
        case TrumpMaking.CLOSED:
            return "The first player who cannot follow chooses it in secret."
        case TrumpMaking.NAMED:
            return "The first player who cannot follow names it."
        case TrumpMaking.CHOSEN | TrumpMaking.OPEN:
            return "It is named before play."
        case TrumpMaking.BIDDING:
            return "The highest bid names it."
        case _:
            assert_never(rules.trump_making)


def target_text(rules: Rules) -> str:
    """How the match is won, in one line (R1.9, R2.6, R3.6, R4.5)."""
    limit = f" ({plural(rules.max_hands, 'hand')} at most)" if rules.max_hands else ""
    match rules.match_scoring:
        case MatchScoring.KOTS:
            return f"First side to {plural(rules.kots_to_win or 1, 'kot')} wins{limit}."
        case MatchScoring.STREAK:
            return f"All the tens in a round, or {rules.kot_streak} rounds in a row, wins{limit}."
        case MatchScoring.ROUND_POINTS:
            return f"All the tens in a round, or {plural(rules.points_to_win or 1, 'round')} won, wins{limit}."
        case MatchScoring.COURT_POINTS:
            return f"First side to {plural(rules.points_to_win or 1, 'point')} wins; a round is 1, a kot 1 more{limit}."
        case MatchScoring.GAP:
            return f"A side {rules.gap} or more points behind loses{limit}."
        case _:
            assert_never(rules.match_scoring)


def _trump_json(view: PlayerView) -> dict[str, Any]:
    if view.trump_hidden:
        state = "hidden"  # R2.4c: chosen by someone else, not revealed
    elif view.trump < 0:
        state = "none"
    elif not view.trump_in_force:
        state = "secret"  # the person's own closed trump, not in force yet
    elif view.draw_card >= 0:
        state = "drawn"  # R1.4
    else:
        state = "open"
    suit = SUIT_LETTERS[view.trump] if view.trump >= 0 else None
    return {
        "state": state,
        "suit": suit,
        "symbol": SUIT_SYMBOLS[suit] if suit else None,
        "name": SUIT_NAMES[suit].capitalize() if suit else None,
        "maker": view.trump_maker if view.trump_maker >= 0 else None,
        "draw_card": card_json(view.draw_card) if view.draw_card >= 0 else None,
    }


def _actions(view: PlayerView) -> list[dict[str, Any]]:
    """The non-card decisions of the phase (all shown, the legal ones enabled)."""
    legal = set(view.legal_actions)
    if view.phase == Phase.TRUMP and legal:
        names = [f"{suit_label(s, True)} {SUIT_NAMES[SUIT_LETTERS[s]].capitalize()}" for s in range(4)]
        return [
            {
                "move": action_text(a),
                "label": names[a - TRUMP_OFFSET],
                "kind": "trump",
                "red": SUIT_LETTERS[a - TRUMP_OFFSET] in "DH",
                "legal": a in legal,
            }
            for a in range(TRUMP_OFFSET, TRUMP_OFFSET + 4)
        ]
    if view.phase == Phase.BID and legal:
        out = [{"move": "pass", "label": "Pass", "kind": "pass", "red": False, "legal": PASS_ACTION in legal}]
        for a in range(BID_OFFSET, NUM_ACTIONS):
            tricks, suit = bid_of(a)
            out.append(
                {
                    "move": action_text(a),
                    "label": f"{tricks}{suit_label(suit, True)}",
                    "kind": "bid",
                    "red": suit in (1, 2),
                    "legal": a in legal,
                    "tricks": tricks,
                }
            )
        return out
    return []


def _prompt(game: WebGame, view: PlayerView) -> str:
    """What the person is asked to do, or who is being waited for."""
    status = game.status()
    names = game.narrator.names
    if status == "match-over":
        return "The match is over."
    if status == "hand-over":
        return "The hand is over: deal the next one when you are ready."
    if status == "bot":
        if view.phase == Phase.DRAW:
            return "Nobody was void in five tricks: a card is drawn for trump (R1.4)."
        who = names[view.to_act]
        doing = {Phase.BID: "to bid", Phase.TRUMP: "to make trump"}.get(view.phase, "to play")
        return f"Waiting for {who} {doing}…"
    return game.narrator.your_turn(view)


def _plays(view: PlayerView, leader: int, cards: tuple[int, ...] | list[int]) -> list[dict[str, Any]]:
    n = view.num_players
    return [{"seat": (leader + i) % n, "card": card_json(c)} for i, c in enumerate(cards)]


def _seats(game: WebGame, view: PlayerView) -> list[dict[str, Any]]:
    n = view.num_players
    me = game.human
    last_bid: dict[int, str] = {}
    for s, a in view.bids:
        last_bid[s] = "Pass" if a == PASS_ACTION else f"{bid_of(a)[0]}{suit_label(bid_of(a)[1], True)}"
    out = []
    for s in range(n):
        role = "you" if s == me else ("partner" if side_of(s) == side_of(me) else "opponent")
        out.append(
            {
                "seat": s,
                "place": (s - me) % n,  # 0 = bottom, then to the right (anticlockwise, R0.2)
                "name": game.narrator.names[s],
                "role": role,
                "agent": None if s == me else game.specs[s],
                "side": side_of(s),
                "cards": view.hand_counts[s],
                "dealer": s == view.dealer,
                "to_act": s == view.to_act,
                "trump_maker": s == view.trump_maker,
                "bid": last_bid.get(s),
                "tricks": sum(1 for _l, _c, w in view.history if w == s),
            }
        )
    return out


def _result(game: WebGame, view: PlayerView) -> dict[str, Any] | None:
    """The finished hand's outcome as the match announced it (public scores)."""
    match = game.match
    if match.hand.phase != Phase.DONE or not match.summaries:
        return None
    summary = match.summaries[-1]
    return {
        "hand_winner": summary.hand_winner,
        "why": hand_reason(game.rules, view, summary.hand_winner),  # the rule that decided it
        "kot": summary.kot,
        "tricks": list(view.tricks),
        "tens": list(view.tens),
        "points": list(summary.points),
        "kots": list(summary.kots),
        "next_dealer": summary.next_dealer,
    }


def table_state(game: WebGame) -> dict[str, Any]:
    """The person's table (see the module docstring)."""
    view = game.view()
    rules = game.rules
    legal = set(view.legal_actions)
    trick: dict[str, Any] = {
        "number": len(view.history) + 1,
        "plays": [{"seat": s, "card": card_json(c)} for s, c in view.trick],
        "winning": view.trick_winner if view.trick_winner >= 0 else None,
        "led": SUIT_LETTERS[view.led_suit] if view.led_suit >= 0 else None,
    }
    last_trick = None
    if view.history:
        leader, cards, winner = view.history[-1]
        last_trick = {"number": len(view.history), "plays": _plays(view, leader, cards), "winner": winner}
    middle = None
    if rules.has_middle:
        middle = {
            "count": len(view.middle),
            "tens": view.middle_tens,
            "cards": [card_json(c) for c in view.middle],
            "taker": view.last_winner if view.last_winner >= 0 and view.middle else None,
        }
    high = high_bid(view)
    contract = None
    if view.contract is not None:
        seat, tricks, suit = view.contract
        contract = {"seat": seat, "tricks": tricks, "suit": SUIT_LETTERS[suit], "symbol": suit_label(suit, True)}
    hand_no = view.hands_completed + (0 if view.phase == Phase.DONE else 1)
    return {
        "id": game.id,
        "version": game.version,
        "status": game.status(),
        "bot_delay": game.bot_delay,
        "rules": {"name": rules.name, "options": rules.option_dict(), "text": str(rules)},
        "panels": panels(rules),
        "target": target_text(rules),
        "trump_making": trump_making_text(rules),
        "players": view.num_players,
        "seat": game.human,
        "side": side_of(game.human),
        "hand_no": hand_no,
        "dealer": view.dealer,
        "to_act": view.to_act if view.to_act >= 0 else None,
        "phase": view.phase.name.lower(),
        "seats": _seats(game, view),
        "hand": [dict(card_json(c), legal=c in legal) for c in sorted_hand(view.hand)],
        "actions": _actions(view),
        "prompt": _prompt(game, view),
        "trick": trick,
        "last_trick": last_trick,
        "middle": middle,
        "trump": _trump_json(view),
        "bids": [{"seat": s, "move": action_text(a)} for s, a in view.bids],
        "high_bid": {"seat": high[0], "move": action_text(high[1])} if high else None,
        "contract": contract,
        "score": {
            "tricks": list(view.tricks),
            "tens": list(view.tens),
            "points": list(view.points),
            "kots": list(view.kots),
            "streak": list(view.streak) if view.streak is not None else None,
            "hands_completed": view.hands_completed,
        },
        "result": _result(game, view),
        "winner": view.match_winner,
        "log": [text for h, text in game.narrator.lines if h == game.narrator.hand_no],
        "record": game.saved_to,
        "ended": game.ended,
        "deal": {
            "commitment": game.commitment,  # None: a chosen seed, so the deal is known
            "seed": str(game.seed) if game.ended and game.commitment else None,  # text: a JS number holds 53 bits
        },
    }


__all__ = ["card_json", "panels", "sorted_hand", "table_state", "target_text", "trump_making_text"]
