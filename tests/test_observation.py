"""Observations: the incremental encoder (live and from a view) and the PettingZoo env
equal the definition, :func:`dehla_env.encoding.encode_view` (written from scratch from a
view), slices decode to
their documented shapes, observations lie in the observation space, and nothing hidden leaks
into an observation (R0.6): re-dealing the cards a seat cannot see, or choosing another
closed trump (R2.4c), leaves that seat's observation unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dehla_env import IllegalMoveError, MatchState, encoding, make_rules, raw_env
from dehla_env.actions import TRUMP_OFFSET
from dehla_env.cards import NUM_CARDS
from dehla_env.encoding import (
    ObservationEncoder,
    _Board,
    board_layout,
    decode,
    encode_view,
    gather_indices,
    history_from_view,
    layout_for,
    structured_from_flat,
)
from dehla_env.engine import Phase, TrumpContext
from dehla_env.engine.hand import FIRST_STAGE_CARDS
from dehla_env.rules import Rules
from dehla_env.view import (
    PUBLIC_FIELDS,
    cards_undealt,
    own_hand_layers,
    own_hand_mask,
    public_events,
    view_of,
    visible_contract,
    visible_trump,
)
from tests.rulesets import rules_of, ruleset_id, with_options

# the shared list, and the combinations whose slices interact (six seats with a closed
# trump, named trump with double sar, tricks scoring in a points match, a small gap)
RULESETS = with_options(
    {
        "dehla-direct-trump=named": [{}, {"scoring": "double-sar"}],
        "dehla-direct-scoring=tricks": [{}, {"match": "points", "points": 2}],
        "dehla-direct-players=6": [{}, {"trump": "closed"}],
        "coat-pees": [{}, {"gap": 10}],
    }
)


# ---------------------------------------------------------------------- fast == reference
def _check_all_seats(encoder: ObservationEncoder, match: MatchState) -> None:
    for seat in range(match.rules.players):
        view = view_of(match, seat)
        fast = encoder.encode(match, seat)
        reference = encode_view(view)
        assert fast.dtype == np.float32 and fast.shape == reference.shape
        if not np.array_equal(fast, reference):
            bad = {
                name: np.flatnonzero(part != decode(reference, match.rules.players)[name].reshape(-1)).tolist()
                for name, part in ((k, v.reshape(-1)) for k, v in decode(fast, match.rules.players).items())
            }
            raise AssertionError(
                f"seat {seat}, phase {match.hand.phase!r}: slices differ: { {k: v for k, v in bad.items() if v} }"
            )


@pytest.mark.parametrize("config", RULESETS, ids=ruleset_id)
def test_fast_encoder_equals_reference_at_every_decision(config: tuple[str, dict[str, Any]]) -> None:
    rules = rules_of(config)
    encoder = ObservationEncoder(rules)  # one encoder over many matches, as an environment uses it
    rng = np.random.default_rng(123)
    decisions = 0
    for _game in range(6 if rules.players == 4 else 2):  # a six-player hand is three times as long
        match = MatchState.new(rules, rng)
        while match.winner is None and match.hands_completed < 3:
            if match.is_chance():
                if match.hand.phase != Phase.DEAL:
                    _check_all_seats(encoder, match)  # the R1.4 draw, or a finished hand
                match.sample_chance(rng)
                continue
            _check_all_seats(encoder, match)
            legal = match.legal_actions()
            match.apply_action(legal[int(rng.integers(len(legal)))])
            decisions += 1
        _check_all_seats(encoder, match)  # the end of the hand or match
    assert decisions > 200


# ---------------------------------------------------------------------- decode and spaces
@pytest.mark.parametrize("episode", ["hand", "match"])
@pytest.mark.parametrize("config", RULESETS, ids=ruleset_id)
def test_the_pettingzoo_env_observes_the_definition_at_every_decision(
    config: tuple[str, dict[str, Any]], episode: str
) -> None:
    """The PettingZoo env writes its observations from the batched engine at one game,
    kept in step with its match (deals, R1.4 draws, moves, the match's tallies): every
    seat's, at every decision and at the end of each episode, is the definition's."""
    name, options = config
    env = raw_env(rules=name, episode=episode, **options)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    n = env.num_players
    decisions = ends = 0
    while decisions < (400 if n == 4 else 250):
        obs, _r, terminated, truncated, _info = env.last()
        assert env.match is not None
        for seat in range(n):
            observed = env.observe(f"player_{seat}")["observation"]
            definition = encode_view(view_of(env.match, seat))
            assert np.array_equal(observed, definition), (
                f"seat {seat}, {episode} episode, decision {decisions}: slices differ: "
                f"{[k for k, v in decode(observed, n).items() if not np.array_equal(v, decode(definition, n)[k])]}"
            )
        if terminated or truncated:
            ends += 1
            env.reset()
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        decisions += 1
    assert ends >= 1 or episode == "match"


@pytest.mark.parametrize("n", [4, 6])
def test_decode_round_trips_slice_shapes(n: int) -> None:
    lay = layout_for(n)
    # pinned: a change of layout is a new env version. (env.py's docstring says 829 and
    # 1,001; the layout in encoding.py gives these.)
    assert lay.size == {4: 826, 6: 1116}[n]
    rng = np.random.default_rng(n)
    vector = rng.random(lay.size).astype(np.float32)
    parts = decode(vector, n)
    assert list(parts) == list(lay.slices)
    offset = 0
    for name, part in parts.items():
        s = lay[name]
        assert part.shape == s.shape and s.offset == offset
        offset = s.stop
    assert offset == lay.size
    assert np.array_equal(np.concatenate([p.reshape(-1) for p in parts.values()]), vector)
    batch = rng.random((5, lay.size)).astype(np.float32)
    for name, part in decode(batch, n).items():
        assert part.shape == (5, *lay[name].shape)
        assert np.array_equal(part[2], decode(batch[2], n)[name])
    with pytest.raises(ValueError, match="expected a vector"):
        decode(vector[:-1], n)


def test_decoded_observation_reads_back_the_state() -> None:
    rules = make_rules("dehla")
    rng = np.random.default_rng(9)
    match = MatchState.new(rules, rng)
    match.sample_chance(rng)
    for _ in range(6):
        legal = match.legal_actions()
        match.apply_action(legal[int(rng.integers(len(legal)))])
    encoder = ObservationEncoder(rules)
    for seat in range(4):
        parts = decode(encoder.encode(match, seat))
        assert np.flatnonzero(parts["hand"]).tolist() == match.hand.hand_cards(seat)
        assert parts["dealer"].argmax() == (match.dealer - seat) % 4
        assert parts["phase"].tolist() == [0, 0, 1, 0]
        played_by_me = [c for s, c in zip(match.hand.trick_seats, match.hand.trick_cards) if s == seat]
        played_by_me += [cards[(seat - leader) % 4] for leader, cards, _ in match.hand.history]
        assert sorted(np.flatnonzero(parts["played"][0]).tolist()) == sorted(played_by_me)
        for one_hot in ("pair_threat", "trump_state", "trump_maker", "contract_seat", "dealer", "phase"):
            assert parts[one_hot].sum() == 1, one_hot
        assert (parts["bids"].sum(axis=1) == 1).all()


@pytest.mark.parametrize("observation", ["flat", "structured"])
@pytest.mark.parametrize("config", RULESETS, ids=ruleset_id)
def test_observations_lie_in_the_observation_space(config: tuple[str, dict[str, Any]], observation: str) -> None:
    e = raw_env(rules=config[0], observation=observation, **config[1])
    rng = np.random.default_rng(4)
    for episode in range(2):
        e.reset(seed=episode)
        while True:
            for agent in e.possible_agents:
                obs = e.observe(agent)
                assert obs in e.observation_space(agent), agent
            if any(e.terminations.values()):
                break
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))


def test_structured_observation_is_the_flat_one_split() -> None:
    flat = raw_env(rules="coat-pees")
    structured = raw_env(rules="coat-pees", observation="structured")
    rng = np.random.default_rng(2)
    for e in (flat, structured):
        e.reset(seed=8)
    while not any(flat.terminations.values()):
        agent = flat.agent_selection
        f = flat.observe(agent)
        s = structured.observe(agent)
        assert flat.match is not None
        expected = structured_from_flat(
            f["observation"], history_from_view(view_of(flat.match, flat.agent_name_mapping[agent])), 4
        )
        assert s["observation"].keys() == expected.keys()
        for k in expected:
            assert np.array_equal(s["observation"][k], expected[k]), k
        assert np.array_equal(s["action_mask"], f["action_mask"])
        action = int(rng.choice(np.flatnonzero(f["action_mask"])))
        flat.step(action)
        structured.step(action)


# ---------------------------------------------------------------------- no leaks (R0.6)
Log = list[tuple[str, Any]]  # ("deal", deck), ("draw", card), ("act", action): the hand's inputs


def _random_prefix(rules: Rules, rng: np.random.Generator, steps: int) -> tuple[int, list[int], Log, MatchState]:
    """A first hand played at random for up to ``steps`` decisions, with its input log."""
    dealer = int(rng.integers(rules.players))
    match = MatchState(rules, dealer)
    deck = match.random_deck(rng)
    match.apply_deal(deck)
    log: Log = [("deal", deck)]
    taken = 0
    while taken < steps and not match.hand.complete:
        if match.hand.phase == Phase.DRAW:
            candidates = match.hand.draw_candidates()
            card = candidates[int(rng.integers(len(candidates)))]
            match.apply_draw(card)
            log.append(("draw", card))
            continue
        legal = match.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        match.apply_action(action)
        log.append(("act", action))
        taken += 1
    return dealer, deck, log, match


def _replay(rules: Rules, dealer: int, log: Log, deck: list[int]) -> MatchState:
    match = MatchState(rules, dealer)
    for kind, x in log:
        if kind == "deal":
            match.apply_deal(deck)
        elif kind == "draw":
            match.apply_draw(x)
        else:
            match.apply_action(x)
    return match


def _hidden_positions(match: MatchState, deck: list[int], observer: int) -> list[int]:
    """Deck positions whose card ``observer`` cannot know: not played yet and not in its
    hand (other hands and the undealt cards, R0.6)."""
    hand = match.hand
    n = hand.n
    dealt = FIRST_STAGE_CARDS if hand.stage == 1 else len(deck)
    played: list[list[int]] = [[] for _ in range(n)]
    for leader, cards, _w in hand.history:
        for j, c in enumerate(cards):
            played[(leader + j) % n].append(c)
    for s, c in zip(hand.trick_seats, hand.trick_cards):
        played[s].append(c)
    fixed: set[int] = set()
    for seat in range(n):
        positions = [i for i in range(dealt) if (hand.dealer + 1 + i) % n == seat]
        for c in played[seat]:
            i = next(p for p in positions if deck[p] == c)  # any copy of a card id will do (R2.8)
            positions.remove(i)
            fixed.add(i)
        if seat == observer:
            fixed.update(positions)  # the observer's own hand
    return [i for i in range(len(deck)) if i not in fixed]


def _redeal(deck: list[int], free: list[int], rng: np.random.Generator, keep_suits: bool) -> list[int]:
    """``deck`` with the cards at ``free`` positions shuffled among those positions;
    ``keep_suits`` shuffles only within each suit (every seat then holds as many cards of
    each suit at every moment, so the same play stays legal)."""
    new = list(deck)
    groups = [[i for i in free if deck[i] // 13 == s] for s in range(4)] if keep_suits else [free]
    for group in groups:
        cards = [deck[i] for i in group]
        for i, j in zip(group, rng.permutation(len(group))):
            new[i] = cards[int(j)]
    return new


def _assert_same_observation(a: MatchState, b: MatchState, seat: int) -> None:
    rules = a.rules
    ea, eb = ObservationEncoder(rules), ObservationEncoder(rules)
    flat_a, flat_b = ea.encode(a, seat), eb.encode(b, seat)
    assert np.array_equal(flat_a, flat_b), "the flat observation depends on hidden cards"
    sa = structured_from_flat(flat_a, history_from_view(view_of(a, seat)), rules.players)
    sb = structured_from_flat(flat_b, history_from_view(view_of(b, seat)), rules.players)
    for k in sa:
        assert np.array_equal(sa[k], sb[k]), f"structured slice {k} depends on hidden cards"
    assert view_of(a, seat) == view_of(b, seat)
    assert public_events(a, seat) == public_events(b, seat)


@pytest.mark.parametrize("config", RULESETS, ids=ruleset_id)
def test_observation_does_not_change_when_hidden_cards_are_redealt(config: tuple[str, dict[str, Any]]) -> None:
    rules = rules_of(config)
    rng = np.random.default_rng(77)
    compared = changed = accepted = tried = 0
    for _ in range(25):
        dealer, deck, log, match = _random_prefix(rules, rng, int(rng.integers(0, 2 * rules.num_tricks * 2)))
        for observer in range(rules.players):
            free = _hidden_positions(match, deck, observer)
            for attempt in range(4):
                keep_suits = attempt == 0  # always legal; then full shuffles, kept when legal
                other = _redeal(deck, free, rng, keep_suits)
                try:
                    alt = _replay(rules, dealer, log, other)
                    # The decision due is public: with R2.4c/d a seat that cannot follow is
                    # seen choosing a trump before its card, so a re-deal that moves the
                    # next seat's last card of the led suit is not consistent with what
                    # the observer saw.
                    if (alt.hand.phase, alt.hand.to_act) != (match.hand.phase, match.hand.to_act):
                        raise IllegalMoveError("", None, "inconsistent with the public decision due")
                except IllegalMoveError:
                    assert not keep_suits, "a suit-keeping re-deal must replay legally"
                    tried += 1
                    continue
                if not keep_suits:
                    tried += 1
                    accepted += 1
                assert alt.hand.hand_cards(observer) == match.hand.hand_cards(observer)
                _assert_same_observation(match, alt, observer)
                compared += 1
                changed += any(
                    alt.hand.hand_cards(s) != match.hand.hand_cards(s) for s in range(rules.players) if s != observer
                ) or (alt.hand.deck != match.hand.deck)
    assert compared > 100 and changed > compared // 2, (compared, changed)
    assert accepted > tried // 10, "too few full re-deals replayed legally for the test to mean much"


def _play_until_closed_choice(rules: Rules, rng: np.random.Generator) -> tuple[int, list[int], Log, MatchState]:
    dealer = int(rng.integers(rules.players))
    match = MatchState(rules, dealer)
    deck = match.random_deck(rng)
    match.apply_deal(deck)
    log: Log = [("deal", deck)]
    hand = match.hand
    while not (hand.phase == Phase.TRUMP and hand.trump_context == TrumpContext.VOID):
        legal = match.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        match.apply_action(action)
        log.append(("act", action))
    return dealer, deck, log, match


@pytest.mark.parametrize("players", [4, 6])
def test_closed_trump_is_hidden_from_everyone_but_its_maker(players: int) -> None:
    """R2.4c: until revealed, a non-maker's observation is the same whichever suit the
    maker chose in secret; the maker's own observation does show it."""
    rules = make_rules("dehla-direct", trump="closed", players=players)
    rng = np.random.default_rng(players)
    compared = 0
    for _ in range(12 if players == 4 else 5):
        dealer, deck, log, _match = _play_until_closed_choice(rules, rng)
        branches = [_replay(rules, dealer, log, deck) for _ in range(4)]
        maker = branches[0].hand.to_act
        for suit, m in enumerate(branches):
            m.apply_action(TRUMP_OFFSET + suit)
        while all(m.hand.trump_hidden for m in branches) and not branches[0].hand.complete:
            for seat in range(players):
                if seat == maker:
                    flats = [ObservationEncoder(rules).encode(m, seat) for m in branches]
                    assert all(not np.array_equal(flats[0], f) for f in flats[1:]), "the maker knows its trump"
                    continue
                for m in branches[1:]:
                    _assert_same_observation(branches[0], m, seat)
                    compared += 1
            legal = branches[0].legal_actions()
            assert all(m.legal_actions() == legal for m in branches)
            action = legal[int(rng.integers(len(legal)))]
            for m in branches:
                m.apply_action(action)
        hidden = [m.hand.trump_hidden for m in branches]
        assert len(set(hidden)) == 1, "the reveal does not depend on the suit chosen"
    assert compared > 300


def test_hidden_positions_cover_exactly_the_unknown_cards() -> None:
    rules = make_rules("dehla")
    rng = np.random.default_rng(5)
    for steps in (0, 3, 9, 30):
        _dealer, deck, _log, match = _random_prefix(rules, rng, steps)
        hand = match.hand
        played = len(hand.history) * 4 + len(hand.trick_cards)
        for observer in range(4):
            free = _hidden_positions(match, deck, observer)
            assert len(free) == NUM_CARDS - played - hand.hand_counts[observer]
            assert not set(deck[i] for i in free) & set(hand.hand_cards(observer))


# ---------------------------------------------------------------------- one definition of visibility
class _PublicOnly:
    """A hand that refuses every field a seat may not read directly (view.PUBLIC_FIELDS)."""

    def __init__(self, hand: Any) -> None:
        object.__setattr__(self, "_hand", hand)

    def __getattr__(self, name: str) -> Any:
        if name not in PUBLIC_FIELDS:
            raise AssertionError(f"the encoder read the private field {name!r}")
        return getattr(self._hand, name)


@pytest.mark.parametrize("config", RULESETS, ids=ruleset_id)
def test_the_encoder_reads_only_public_fields_and_the_views_helpers(
    config: tuple[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Visibility is decided in dehla_env.view alone: the encoder reads public fields of
    the hand and gets the seat's own cards, trump and contract from view's helpers (here
    the only readers of the hand behind the guard)."""
    rules = rules_of(config)
    rng = np.random.default_rng(11)
    encoder = ObservationEncoder(rules)
    match = MatchState.new(rules, rng)
    match.sample_chance(rng)
    for helper in (own_hand_mask, own_hand_layers, visible_trump, visible_contract, cards_undealt):
        monkeypatch.setattr(encoding, helper.__name__, lambda _h, *a, f=helper: f(match.hand, *a))
    while not match.hand.complete:
        if match.is_chance():
            match.sample_chance(rng)
            continue
        hand = match.hand
        for seat in range(rules.players):
            board = encoder._board = encoder._board or _Board(board_layout(rules.players).size)
            guard = _PublicOnly(hand)
            if board.hand_ref is hand:
                board.hand_ref = guard  # the same hand, seen through the guard
            encoder._update(board, guard, seat, match)
            gathered = board.values[gather_indices(rules.players)[seat]]
            assert np.array_equal(gathered, encode_view(view_of(match, seat)))
            board.hand_ref = hand
        legal = match.legal_actions()
        match.apply_action(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("config", RULESETS[:6], ids=ruleset_id)
def test_an_observer_that_looks_only_now_and_then_catches_up_exactly(config: tuple[str, dict[str, Any]]) -> None:
    """The incremental encoder between distant calls: every change since is written."""
    rules = rules_of(config)
    rng = np.random.default_rng(5)
    encoder = ObservationEncoder(rules)
    for _ in range(6):
        match = MatchState.new(rules, rng)
        match.sample_chance(rng)
        while not match.hand.complete:
            if match.is_chance():
                match.sample_chance(rng)
                continue
            if rng.random() < 0.15:
                seat = int(rng.integers(rules.players))
                assert np.array_equal(encoder.encode(match, seat), encode_view(view_of(match, seat)))
            legal = match.legal_actions()
            match.apply_action(legal[int(rng.integers(len(legal)))])
        for seat in range(rules.players):
            assert np.array_equal(encoder.encode(match, seat), encode_view(view_of(match, seat)))


def test_the_public_fields_are_fields_of_the_hand() -> None:
    """A renamed engine field cannot silently drop out of what seats may see."""
    from dehla_env.engine.hand import HandState

    assert set(PUBLIC_FIELDS) <= set(HandState.__slots__)
    private = {"hands", "extra", "deck", "trump_suit", "events", "contract"}
    assert not private & PUBLIC_FIELDS


def test_the_structured_history_lists_the_hands_card_plays_in_order_seats_relative_to_the_observer() -> None:
    """The ``history`` of a structured observation: one row per card played in the hand
    so far, in the order played, as (seat relative to the observer (R0.2), card, trick
    index); the rows after them are -1 (one row per card of the deck)."""
    rules = make_rules("dehla")
    env = raw_env(rules=rules, observation="structured")
    env.reset(seed=5)
    plays: list[tuple[int, int, int]] = []  # (absolute seat, card, trick)
    rng = np.random.default_rng(0)
    while len(plays) < 9:  # two whole tricks and one card of the third
        agent = env.agent_selection
        seat = env.agent_name_mapping[agent]
        obs = env.observe(agent)
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        if action < NUM_CARDS:
            plays.append((seat, action, len(plays) // rules.players))
        env.step(action)
    for agent in env.agents:
        me = env.agent_name_mapping[agent]
        history = env.observe(agent)["observation"]["history"]
        expected = [((s - me) % rules.players, c, t) for s, c, t in plays]
        assert history[: len(plays)].tolist() == [list(row) for row in expected]
        assert (history[len(plays) :] == -1).all() and len(history) == rules.deck_size
