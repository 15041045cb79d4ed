"""Heuristic bots: easy, medium and hard, for every ruleset (R1.11).

The source text's levels for Dehla Pakad: easy bots throw tens anywhere; hard ones
count the cards, feed tens to a partner who is about to take the middle, and fight
hardest for a trick that would give the other side two in a row. Its play advice
(the Dehla Pakad guide's "Playing well", see RULES.md) is what the hard bot does:

* if an opponent won the last trick, beat this one with whatever you can;
* if your partner won the last trick and is winning this one, throw your ten on it;
* keep tens out of tricks the other side may take;
* after winning a trick, lead your surest winner (a top trump or the highest card left).

``easy``: wins a trick as cheaply as it can when it can, else plays its lowest card;
leads at random; tens are ordinary cards to it. ``medium``: also keeps its tens off
tricks the other side is winning, throws them on tricks its partner has won when it
plays last, and leads its masters. ``hard``: counts the unseen cards and the known
voids to estimate, for every legal card, the chance that its side wins the trick, and
plays the card with the best expected value of tens (R1.5: the middle and the pair
threat included), tricks or points for the ruleset.

All levels choose trump from their cards by length and honours (R1.4 chosen, R2.4b-d,
R3.1, R4.2), and in the first-void modes (R1.4, R2.4a) make trump with the suit they
are strongest in. In ``coat-pees`` they bid from an estimate of their side's tricks.
The bots read only the seat's :class:`~dehla_env.view.PlayerView`.
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.base import Agent
from agents.bots.knowledge import Knowledge, tens_in
from agents.bots.objective import trick_stake
from agents.bots.sampler import WorldSampler
from dehla_env.actions import BID_OFFSET, MAX_BID, MIN_BID, PASS_ACTION, TRUMP_OFFSET, bid_action
from dehla_env.cards import TEN_RANK, cards_of_suit, rank_of, suit_of
from dehla_env.engine import Phase
from dehla_env.rules import Rules, TrumpMaking
from dehla_env.seats import side_of
from dehla_env.tricks import beats, trick_winner
from dehla_env.view import PlayerView


class HeuristicAgent(Agent):
    """Shared decisions (trump, bids) and the level-specific card play."""

    level = "medium"
    counting = True  # whether the bot counts played cards and voids (Knowledge)
    # the shared decisions, per level (set by the subclasses below)
    trump_by_length = False  # trump: the longest suit (easy), else suit strength
    bid_margin = 0.6  # tricks of safety below the estimate before bidding (R4.2)
    bid_noise = 0.0  # standard deviation of the noise on the estimate
    bid_jump: int | None = 2  # at most this many tricks above the highest bid; None: any
    defer_to_partner = False  # a partner's bid costs a trick of the estimate

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.name = self.level

    # ------------------------------------------------------------------ dispatch
    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if view.phase == Phase.TRUMP:
            return self.choose_trump(view)
        if view.phase == Phase.BID:
            return self.choose_bid(view)
        return self.choose_card(view, Knowledge(view, counting=self.counting))

    # ------------------------------------------------------------------ trump
    def _tens_matter(self, rules: Rules) -> bool:
        return rules.tens_scoring

    def choose_trump(self, view: PlayerView) -> int:
        """Name the suit the hand is strongest in (length first for easy)."""
        know = Knowledge(view)
        if self.trump_by_length:
            scores = [len(know.hand_by_suit[s]) + 0.01 * max(know.hand_by_suit[s], default=0) for s in range(4)]
        else:
            scores = [know.suit_strength(s, self._tens_matter(view.rules)) for s in range(4)]
        return TRUMP_OFFSET + max(range(4), key=lambda s: scores[s])

    # ------------------------------------------------------------------ bidding
    def estimate_tricks(self, view: PlayerView, suit: int) -> float:
        """R4.2: expected tricks for our side with ``suit`` trump, from five cards.

        Five of thirteen cards are known; an average side makes 6.5 tricks. Each
        honour and trump length above average moves the estimate.
        """
        know = Knowledge(view)
        strength = know.suit_strength(suit, False)
        side_cards = 0.0
        for s in range(4):
            if s == suit:
                continue
            for c in know.hand_by_suit[s]:
                r = rank_of(c)
                side_cards += {12: 1.0, 11: 0.5}.get(r, 0.0)
        # five average cards: 1.25 trumps (1.9 strength) + 1.25 honours (~1.6): ~3.5
        return 6.5 + 0.55 * (strength - 3.5) + 0.6 * side_cards

    def choose_bid(self, view: PlayerView) -> int:
        legal = set(view.legal_actions)
        high = max((a for _s, a in view.bids if a != PASS_ACTION), default=None)
        high_tricks = MIN_BID - 1 if high is None else (high - BID_OFFSET) // 4 + MIN_BID
        partner_bid = any(side_of(s) == side_of(view.seat) and a != PASS_ACTION for s, a in view.bids)
        best_suit = max(range(4), key=lambda s: self.estimate_tricks(view, s))
        est = self.estimate_tricks(view, best_suit)
        if self.bid_noise:
            est += float(self.rng.normal(0.0, self.bid_noise))
        if self.defer_to_partner and partner_bid:
            est -= 1.0  # do not outbid a partner without a clearly better hand
        tricks = int(est - self.bid_margin)
        if tricks < max(MIN_BID, high_tricks + 1):
            return PASS_ACTION
        tricks = min(tricks, MAX_BID, MAX_BID if self.bid_jump is None else high_tricks + self.bid_jump)
        action = bid_action(max(tricks, high_tricks + 1), best_suit)
        return action if action in legal else PASS_ACTION

    # ------------------------------------------------------------------ card play
    def choose_card(self, view: PlayerView, know: Knowledge) -> int:
        raise NotImplementedError  # each level below

    def _void_trump_card(self, view: PlayerView, know: Knowledge, legal: tuple[int, ...]) -> int | None:
        """R1.4 / R2.4a: first void with no trump yet: the card played makes trump, so
        play the lowest card of the suit we are strongest in."""
        if (
            view.rules.trump_making is not TrumpMaking.FIRST_VOID
            or view.trump >= 0
            or know.led < 0
            or know.hand_by_suit[know.led]
        ):
            return None
        tens_matter = self._tens_matter(view.rules)
        best = max((s for s in range(4) if know.hand_by_suit[s]), key=lambda s: know.suit_strength(s, tens_matter))
        cards = sorted(know.hand_by_suit[best], key=lambda c: (rank_of(c) == TEN_RANK and tens_matter, c))
        return cards[0] if cards[0] in legal else None


def _lowest(cards: list[int] | tuple[int, ...], avoid_tens: bool) -> int:
    """The lowest card; with ``avoid_tens``, a ten only if nothing else is left."""
    return min(cards, key=lambda c: (avoid_tens and rank_of(c) == TEN_RANK, rank_of(c), c))


class EasyAgent(HeuristicAgent):
    """Wins cheaply when it can, else plays low; tens are ordinary cards."""

    level = "easy"
    trump_by_length = True
    bid_margin = 0.0
    bid_noise = 0.7
    bid_jump: int | None = None

    def choose_card(self, view: PlayerView, know: Knowledge) -> int:
        legal = view.legal_actions
        if not know.trick_cards:
            return legal[int(self.rng.integers(len(legal)))]
        winners = [c for c in legal if know.beats(c, know.winning_card)]
        if winners and not know.is_partner(know.winner_seat):
            return min(winners, key=lambda c: (suit_of(c) == know.trump_suit_in_force, rank_of(c)))
        return _lowest(legal, avoid_tens=False)


class HardAgent(HeuristicAgent):
    """Card counting and expected value per card; see the module docstring."""

    level = "hard"
    counting = True
    bid_margin = 0.9
    defer_to_partner = True
    # weights of the expected-value model (tuned with the arena, dehla default rules)
    threat_share = 0.5  # share of the pile a new pair threat is worth
    fight = 0.4  # extra loss when the other side's last winner would win again
    cost_scale = 2.0  # weight of the future value of the card spent

    # ------------------------------------------------------------------ values
    def _stake(self, view: PlayerView, know: Knowledge, extra_tens: int, winner: int, us: bool) -> float:
        """What winning this trick is worth to the winner's side (:func:`trick_stake`); a
        new pair threat (R1.5) of ours is worth our chance to win the next lead."""
        rules = view.rules
        takes = view.num_tricks_done + 1 == rules.num_tricks or view.last_winner == winner
        threat = (lambda: self._lead_win_chance(know)) if winner == know.seat else (lambda: self.threat_share)
        return trick_stake(rules, tens_in(know.trick_cards) + extra_tens, view.middle_tens, takes, threat)

    def _lead_win_chance(self, know: Knowledge) -> float:
        """Chance that we win the next trick when we lead it: our surest winner."""
        cached = know.lead_chance
        if cached is not None:
            return cached
        best = 0.0
        opponents = [s for s in range(know.n) if side_of(s) != side_of(know.seat)]
        for c in know.view.hand:
            p = 1.0
            for s in opponents:
                p *= 1.0 - know.p_beats_lead(s, c)
            best = max(best, p)
        know.lead_chance = best
        return best

    def _card_cost(self, view: PlayerView, know: Knowledge, card: int) -> float:
        """The future value spent by playing ``card`` now (high cards and trumps)."""
        r = rank_of(card)
        cost = 0.02 * r
        if suit_of(card) == know.trump:
            cost += 0.12 + 0.02 * r
        if r >= 9 and know.is_master(card):
            cost += 0.15
        return cost

    def _expected(self, view: PlayerView, know: Knowledge, card: int) -> float:
        """Expected value for our side of playing ``card`` to the current trick."""
        ten = 1 if rank_of(card) == TEN_RANK and self._tens_matter(view.rules) else 0
        after = know.after
        partner_after = [s for s in after if know.is_partner(s)]
        if not know.trick_cards or know.beats(card, know.winning_card):
            p_us = know.p_holds(card, after)
            our_winner = know.seat
            their_winner = next((s for s in after if not know.is_partner(s) and s == view.last_winner), -1)
            if their_winner < 0:
                their_winner = next((s for s in after if not know.is_partner(s)), -1)
        else:
            if know.is_partner(know.winner_seat):
                p_us = know.p_holds(know.winning_card, after)
                our_winner = know.winner_seat
                their_winner = next((s for s in after if not know.is_partner(s)), -1)
            else:
                their_winner = know.winner_seat
                our_winner = partner_after[0] if partner_after else know.seat
                if partner_after:
                    p_part = know.p_beats(partner_after[0], know.winning_card)
                    rest = [s for s in after if s != partner_after[0]]
                    p_us = 0.7 * p_part * know.p_holds(know.winning_card, rest)
                else:
                    p_us = 0.0
        gain = self._stake(view, know, ten, our_winner, True)
        loss = self._stake(view, know, ten, their_winner, False) if their_winner >= 0 else gain
        lw = view.last_winner
        if view.rules.has_middle and lw >= 0 and side_of(lw) != side_of(know.seat) and their_winner == lw:
            loss += self.fight  # fight hardest against the other side's second trick in a row
        return p_us * gain - (1.0 - p_us) * loss - self.cost_scale * self._card_cost(view, know, card)

    samples = 8  # > 0: estimate trick outcomes on sampled deals of the unseen cards

    def choose_card(self, view: PlayerView, know: Knowledge) -> int:
        legal = view.legal_actions
        void_card = self._void_trump_card(view, know, legal)
        if void_card is not None:
            return void_card
        # Sampling pays in the capture rulesets; with the middle (R1.5) the pair threat
        # spans tricks and the analytic model does as well; with six players (R2.8)
        # sampling 130 unseen cards costs more than it gains.
        if self.samples > 0 and know.after and not view.rules.has_middle and view.num_players == 4:
            sampler = WorldSampler(view)
            worlds = [_split_world(sampler.sample(self.rng).hands, know.after) for _ in range(self.samples)]
            if worlds:
                stakes: dict[tuple[int, int], float] = {}
                scored = [(self._sampled_value(view, know, c, worlds, stakes), -(rank_of(c)), c) for c in legal]
                return max(scored)[2]
        scored = [(self._expected(view, know, c), -(rank_of(c)), c) for c in legal]
        return max(scored)[2]

    def _sampled_value(
        self,
        view: PlayerView,
        know: Knowledge,
        card: int,
        worlds: list[list[_SeatCards | None]],
        stakes: dict[tuple[int, int], float],
    ) -> float:
        """Average value of ``card`` over sampled deals, the rest of the trick played
        out by the others with the easy rule (win cheaply, else play low). ``stakes``
        memoises :meth:`_stake` by (tens added, winner) over one decision's cards."""
        tens_matter = self._tens_matter(view.rules)
        total = 0.0
        trump = know.trump_suit_in_force
        base_cards = know.trick_cards + [card]
        base_seats = know.trick_seats + [know.seat]
        led = suit_of(base_cards[0])
        # R1.4: with no trump yet, the first seat unable to follow makes it with its card
        void_makes_trump = view.rules.trump_making is TrumpMaking.FIRST_VOID and view.trump < 0
        w0 = trick_winner(base_cards, trump)
        own_ten = 1 if rank_of(card) == TEN_RANK and tens_matter else 0
        side = side_of(know.seat)
        for hands in worlds:
            cards = base_cards[:]
            seats = base_seats[:]
            t = trump
            best, best_seat = base_cards[w0], base_seats[w0]
            extra = own_ten
            for s in know.after:
                seat_cards = hands[s]
                assert seat_cards is not None
                h, by_suit = seat_cards
                follow = by_suit[led]
                options = follow or h
                if not options:
                    continue
                if side_of(best_seat) == side_of(s):  # the partner is winning: play low
                    if follow:  # one suit, ascending, one ten at most (one pack): its lowest non-ten
                        low_ten = tens_matter and rank_of(follow[0]) == TEN_RANK and len(follow) > 1
                        c = follow[1] if low_ten else follow[0]
                    else:
                        c = min(options, key=lambda x: (tens_matter and rank_of(x) == TEN_RANK, rank_of(x)))
                else:
                    bs = suit_of(best)
                    beat: Sequence[int] = [
                        x for x in options if (suit_of(x) == bs and x > best) or (suit_of(x) == t != bs)
                    ]
                    if not beat and t < 0 and not follow and void_makes_trump:
                        beat = options  # a void seat makes trump with any card (R1.4)
                    if follow:  # one suit, ascending: the cheapest is the first
                        c = (beat or follow)[0]
                    else:
                        c = min(beat or options, key=lambda x: (suit_of(x) == t, rank_of(x)))
                cards.append(c)
                seats.append(s)
                if rank_of(c) == TEN_RANK:
                    extra += 1
                if t < 0 and not follow and void_makes_trump:
                    t = suit_of(c)  # the trump changed: the whole trick is judged again
                    wi = trick_winner(cards, t)
                    best, best_seat = cards[wi], seats[wi]
                elif beats(c, best, t):  # R0.4, one card more
                    best, best_seat = c, s
            us = side_of(best_seat) == side
            stake = stakes.get((extra, best_seat))
            if stake is None:
                stake = stakes[(extra, best_seat)] = self._stake(view, know, extra, best_seat, us)
            total += stake if us else -stake
        return total / len(worlds) - self.cost_scale * self._card_cost(view, know, card)


#: one seat's cards in a sampled world: all of them, and split by suit
_SeatCards = tuple[tuple[int, ...], list[tuple[int, ...]]]


def _split_world(hands: Sequence[int], seats: Sequence[int]) -> list[_SeatCards | None]:
    """The cards of ``seats`` in a sampled deal (masks), as a list and by suit, each in
    card order: the trick simulations of one decision read them for every legal card."""
    out: list[_SeatCards | None] = [None] * len(hands)
    for s in seats:
        by_suit = [cards_of_suit(hands[s], suit) for suit in range(4)]
        out[s] = ((*by_suit[0], *by_suit[1], *by_suit[2], *by_suit[3]), by_suit)
    return out


class MediumAgent(HardAgent):
    """Between easy and hard: each card decision is the hard bot's, except that with
    probability ``blunder`` it is the easy bot's (difficulty by blunder rate)."""

    level = "medium"
    bid_margin = 0.6
    defer_to_partner = False
    blunder = 0.4

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._easy = EasyAgent(None)
        self._easy.rng = self.rng  # one generator per agent

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self._easy.rng = self.rng

    def choose_card(self, view: PlayerView, know: Knowledge) -> int:
        if self.rng.random() < self.blunder:
            return self._easy.choose_card(view, know)
        return super().choose_card(view, know)
