"""The browser game's server (agents.web), through its HTTP API: whole matches of every
ruleset, refusals that change nothing (R5), what the page may see (R0.6, R2.4c), R6
records that replay, several games at once, the command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install dehla[web]")
try:  # starlette's TestClient runs on httpx2 (or, deprecated, httpx)
    import httpx2  # noqa: F401
except ImportError:
    pytest.importorskip("httpx", reason="starlette's TestClient needs httpx2: pip install httpx2")

from starlette.testclient import TestClient  # noqa: E402

from agents.registry import default_bot  # noqa: E402
from agents.web.game import WebGame  # noqa: E402
from agents.web.records import save_record  # noqa: E402
from agents.web.server import ServerConfig, create_app  # noqa: E402
from agents.web.table import table_state, trump_making_text  # noqa: E402
from dehla_env.actions import action_text  # noqa: E402
from dehla_env.cards import card_text  # noqa: E402
from dehla_env.rules import PRESETS, MatchScoring, make_rules  # noqa: E402
from tests.deals import deck_from_hands  # noqa: E402
from tests.rulesets import RULESETS, ruleset_id, short_matches  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LOCAL = "http://127.0.0.1"  # the server answers only to its own names (agents.web.guard)
UNLIMITED: dict[str, Any] = {"requests_per_second": None, "creates_per_minute": None, "games_per_client": 1000}

# (ruleset, options that make the match one hand, person's seat): every ruleset
SHORT_MATCHES = short_matches()


@pytest.fixture
def client(tmp_path: Path) -> Any:
    app = create_app(ServerConfig(record_dir=tmp_path / "records", bot_delay=0.0, **UNLIMITED))
    with TestClient(app, base_url=LOCAL) as c:
        yield c


def new_game(client: Any, rules: str = "dehla", options: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    body = {"rules": rules, "options": options or {}, "seat": 0, "partner": "easy", "opponents": "random", "seed": 7}
    body.update(extra)
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def advance_bots(client: Any, state: dict[str, Any]) -> dict[str, Any]:
    """Let the bots (and the R1.4 draw) move until the person is to act or the hand ends."""
    while state["status"] == "bot":
        r = client.post(f"/api/games/{state['id']}/advance", json={"version": state["version"]})
        assert r.status_code == 200, r.text
        state = r.json()
        assert state["advanced"]
    return state


def first_legal(state: dict[str, Any]) -> str:
    cards = [c["text"] for c in state["hand"] if c["legal"]]
    moves = [a["move"] for a in state["actions"] if a["legal"]]
    return (cards or moves)[0]


def play_match(client: Any, state: dict[str, Any], check: Any = None) -> dict[str, Any]:
    """Play the person's first legal move each time, to the end of the match."""
    gid = state["id"]
    while state["status"] != "match-over":
        state = advance_bots(client, state)
        if check:
            check(state)
        if state["status"] == "hand-over":
            r = client.post(f"/api/games/{gid}/deal")
        elif state["status"] == "your-turn":
            r = client.post(f"/api/games/{gid}/move", json={"move": first_legal(state), "version": state["version"]})
        else:
            continue
        assert r.status_code == 200, r.text
        state = r.json()
    return state


def cards_in(value: Any) -> list[str]:
    """Every card object anywhere in a table state."""
    if isinstance(value, dict):
        if set(value) >= {"text", "rank", "suit", "symbol"}:
            return [value["text"]]
        return [c for v in value.values() for c in cards_in(v)]
    if isinstance(value, list):
        return [c for v in value for c in cards_in(v)]
    return []


def replay(paths: list[Path]) -> list[dict[str, Any]]:
    """``python -m dehla_env.replay`` over the records, as a person would run it."""
    joined = paths[0].parent / "all.jsonl"
    joined.write_text("".join(p.read_text(encoding="utf-8") for p in paths), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "dehla_env.replay", str(joined)], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return [json.loads(line) for line in out.stdout.splitlines()]


# ---------------------------------------------------------------------- the page and its choices
def test_page_and_static_files_are_served_locally(client: Any) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "<title>Dehla Pakad</title>" in page.text
    assert "http" not in page.text.replace("http-equiv", "")  # nothing fetched from elsewhere
    for name in ("app.js", "style.css"):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and len(r.text) > 1000
        assert "https://" not in r.text and "http://" not in r.text


def test_meta_offers_every_ruleset_option_and_agent(client: Any) -> None:
    meta = client.get("/api/meta").json()
    assert set(meta["rulesets"]) == set(PRESETS)
    direct = meta["rulesets"]["dehla-direct"]["options"]
    assert direct["trump"]["choices"] == ["first-void", "open", "closed", "named"]  # R2.4
    assert direct["players"]["choices"] == [4, 6]  # R2.8
    assert meta["rulesets"]["coat-pees"]["options"]["max_hands"]["nullable"]  # R4.5
    assert meta["rulesets"]["court-piece"]["options"]["defender_kot"]["kind"] == "bool"  # R3.4
    assert {"easy", "medium", "hard"} <= set(meta["agents"])
    assert any(a.startswith("search:") for a in meta["agents"]) and any(a.startswith("policy:") for a in meta["agents"])
    # each ruleset's bots by measured rating, its default the registry's (its shipped policy, first)
    for entry in meta["bots_by_rules"]:
        ratings = [bot["rating"] for bot in entry["bots"]]
        assert ratings == sorted(ratings)[::-1]
        assert entry["default_bot"] == default_bot(make_rules(entry["rules"], entry["options"]))
    chosen = next(d for d in meta["bots_by_rules"] if d["default_bot"] == "policy:dehla-chosen")
    assert chosen["bots"][0]["spec"] == "policy:dehla-chosen"
    # the set-up form's "rules" link leads to each ruleset's part of the rule book page
    page = client.get("/rules").text
    assert all(f'id="{r["section"]}"' in page for r in meta["rulesets"].values())
    assert meta["rulesets"]["court-piece"]["section"] == "r3"


@pytest.mark.parametrize(
    ("rules", "options", "bot"),
    [
        ("dehla", {}, "policy:dehla"),
        ("dehla", {"trump": "chosen"}, "policy:dehla-chosen"),
        ("dehla", {"kots": 3}, "hard"),
    ],
)
def test_the_bots_a_game_does_not_name_are_the_shipped_policy_of_its_rules(
    client: Any, rules: str, options: dict[str, Any], bot: str
) -> None:
    """Left out, the partner and the opponents are the shipped policy trained for the
    rules and options, or hard where none is (agents.registry.default_bot)."""
    r = client.post("/api/games", json={"rules": rules, "options": options, "seat": 1, "seed": 3})
    assert r.status_code == 201, r.text
    assert {s["agent"] for s in r.json()["seats"] if s["agent"]} == {bot}


# ---------------------------------------------------------------------- whole matches, records
@pytest.mark.parametrize("rules,options,seat", SHORT_MATCHES)
def test_whole_match_every_ruleset_and_its_record_replays(
    client: Any, tmp_path: Path, rules: str, options: dict[str, Any], seat: int
) -> None:
    state = new_game(client, rules, options, seat=seat, seed=seat + 11)
    assert state["seat"] == seat and state["status"] in ("your-turn", "bot")
    first = client.get(f"/api/games/{state['id']}").json()
    hand_size = 26 if options.get("players") == 6 else 13
    assert len(first["hand"]) in (5, hand_size)
    assert [s["agent"] for s in first["seats"]].count(None) == 1
    assert "seed" not in first  # the seed would give away every deal

    def check(s: dict[str, Any]) -> None:
        seen = set(cards_in(s)) - {c["text"] for c in s["hand"]}
        played = {p["card"]["text"] for p in s["trick"]["plays"]}
        if s["last_trick"]:
            played |= {p["card"]["text"] for p in s["last_trick"]["plays"]}
        if s["middle"]:
            played |= {c["text"] for c in s["middle"]["cards"]}
        if s["trump"]["draw_card"]:
            played.add(s["trump"]["draw_card"]["text"])
        assert seen <= played  # R0.6: only cards everybody saw played
        assert sum(seat_["cards"] for seat_ in s["seats"]) >= len(s["hand"])

    final = play_match(client, state, check)
    assert final["winner"] in (0, 1, "draw") and final["ended"] == "finished"
    record_path = Path(final["record"])
    record = json.loads(record_path.read_text(encoding="utf-8"))
    assert record["id"] == state["id"] and record["rules"] == rules
    assert record["human_seat"] == seat and record["agents"][seat] == "human"
    assert record["agents"].count("human") == 1 and record["result"] == "finished"
    assert all(len(h["deck"].split()) == (156 if options.get("players") == 6 else 52) for h in record["hands"])
    (result,) = replay([record_path])
    assert result["error"] is None
    assert result["winner"] == final["winner"]
    assert result["hands_played"] == len(record["hands"]) == final["score"]["hands_completed"]
    last = result["hands"][-1]
    assert last["complete"] and last["tricks"] == final["score"]["tricks"] and last["kots"] == final["score"]["kots"]


def test_dehla_draw_is_recorded_as_draw_move(tmp_path: Path) -> None:
    """R1.4: when nobody is void in five tricks the drawn card is an R6 ``draw:XX`` move
    (the seats hold the same suits, so everybody can always follow)."""
    same_suits = ["AC KC 2D 2H 2S", "QC JC 3D 3H 3S", "TC 9C 4D 4H 4S", "8C 7C 5D 5H 5S"]
    game = WebGame(
        "web-draw",
        make_rules("dehla", max_hands=1),
        0,
        "easy",
        "random",
        seed=1,
        deck_source=lambda dealer, rng: deck_from_hands(dealer, same_suits),
    )
    while game.status() != "match-over":
        if game.status() == "bot":
            if not game.draw():
                seat, agent, view = game.bot_turn()  # type: ignore[misc]
                game.apply_bot(seat, agent.act(view))
        else:
            game.play(action_text(game.view().legal_actions[0]))
    state = table_state(game)
    assert state["trump"]["state"] == "drawn" and state["trump"]["maker"] is None
    draws = [m for m in game.hands[0].moves if m.startswith("draw:")]
    assert draws == ["draw:" + state["trump"]["draw_card"]["text"]]
    assert game.hands[0].moves.index(draws[0]) == 20  # after the five tricks
    assert any("is drawn" in line for _h, line in game.narrator.lines)
    (result,) = replay([save_record(game, tmp_path, "finished")])
    assert result["error"] is None and result["hands"][0]["trump"] == draws[0][-1]
    assert result["winner"] == game.match.winner


def test_closed_trump_hidden_from_the_person_until_revealed(client: Any) -> None:
    """R2.4c: another seat's secret trump is hidden; the person's own secret is shown to them."""
    seen_hidden = seen_secret = 0
    for seed in range(12):
        state = new_game(client, "dehla-direct", {"trump": "closed", "max_hands": 1}, seed=seed)

        def check(s: dict[str, Any]) -> None:
            nonlocal seen_hidden, seen_secret
            t = s["trump"]
            if t["state"] == "hidden":
                seen_hidden += 1
                assert t["suit"] is None and t["symbol"] is None and t["maker"] not in (None, s["seat"])
            if t["state"] == "secret":
                seen_secret += 1
                assert t["maker"] == s["seat"] and t["suit"] in "CDHS"

        play_match(client, state, check)
        if seen_hidden and seen_secret:
            return
    assert seen_hidden, "no hand had another seat's closed trump"


@pytest.mark.parametrize(("rules", "options"), RULESETS, ids=[ruleset_id(c) for c in RULESETS])
def test_the_page_reads_how_trump_is_made_and_whether_a_lead_counts_from_the_rules(
    client: Any, rules: str, options: dict[str, Any]
) -> None:
    """The trump panel's line and the lead line come from the rules' typed facts (R1.4,
    R2.4, R3.1, R4.2; R4.5), not from the page comparing ruleset names or option strings."""
    state = new_game(client, rules, options, seed=1)
    facts = make_rules(rules, **options)
    assert state["trump_making"] == trump_making_text(facts)
    assert state["panels"]["lead"] == (facts.match_scoring is MatchScoring.GAP)


def test_coat_pees_bidding_buttons_and_contract(client: Any) -> None:
    state = advance_bots(client, new_game(client, "coat-pees", {"gap": 1}, seed=3))
    assert state["phase"] == "bid" and state["panels"]["bids"]
    moves = {a["move"]: a["legal"] for a in state["actions"]}
    assert moves["pass"] and len(moves) == 1 + 28  # pass + 7..13 in four suits (R4.2)
    high = max((int(b["move"][4:-1]) for b in state["bids"] if b["move"] != "pass"), default=6)
    assert all(legal == (int(m[4:-1]) > high) for m, legal in moves.items() if m != "pass")
    bid = next(m for m, legal in moves.items() if legal and m != "pass")
    state = advance_bots(client, client.post(f"/api/games/{state['id']}/move", json={"move": bid}).json())
    assert state["contract"] is not None and state["contract"]["tricks"] >= int(bid[4:-1])
    assert state["trump"]["suit"] == state["contract"]["suit"]


# ---------------------------------------------------------------------- refusals change nothing
def _refused(client: Any, state: dict[str, Any], body: Any, status: int, *words: str) -> dict[str, Any]:
    gid = state["id"]
    before = client.get(f"/api/games/{gid}").json()
    if isinstance(body, (bytes, str)):
        r = client.post(f"/api/games/{gid}/move", content=body, headers={"Content-Type": "application/json"})
    else:
        r = client.post(f"/api/games/{gid}/move", json=body)
    assert r.status_code == status, r.text
    err = r.json()
    for w in words:
        assert w in err["error"], (w, err)
    after = client.get(f"/api/games/{gid}").json()
    assert after == before  # R5: nothing changed
    return err


def _state_needing_to_follow(client: Any) -> dict[str, Any]:
    """A table where the person must follow suit and holds another suit too."""
    for seed in range(60):
        state = advance_bots(client, new_game(client, "dehla-direct", {"max_hands": 1}, seed=seed))
        while state["status"] == "your-turn":
            legal = [c for c in state["hand"] if c["legal"]]
            illegal = [c for c in state["hand"] if not c["legal"]]
            if state["trick"]["plays"] and illegal:
                return state
            r = client.post(f"/api/games/{state['id']}/move", json={"move": legal[0]["text"]})
            state = advance_bots(client, r.json())
    raise AssertionError("no position with a card that may not be played")


def test_illegal_card_names_move_seat_and_rule_and_changes_nothing(client: Any) -> None:
    state = _state_needing_to_follow(client)
    bad = next(c["text"] for c in state["hand"] if not c["legal"])
    led = state["trick"]["led"]
    err = _refused(client, state, {"move": bad}, 409, f'"{bad}"', f"seat {state['seat']}", f"must follow suit {led}")
    assert err["move"] == bad and err["seat"] == state["seat"] and err["rule"] == "R0.4"
    # a card the person does not hold
    held = {c["text"] for c in state["hand"]}
    absent = next(card_text(c) for c in range(52) if card_text(c) not in held)
    _refused(client, state, {"move": absent}, 409, absent, "card not in hand", "R5")
    # a decision that is not due
    _refused(client, state, {"move": "bid:8H"}, 409, "bid:8H", "no bid is due")


def test_malformed_requests_are_refused_clearly(client: Any) -> None:
    state = advance_bots(client, new_game(client))
    assert state["status"] == "your-turn"
    _refused(client, state, b"{not json", 400, "not JSON")
    _refused(client, state, b"[1, 2]", 400, "JSON object")
    _refused(client, state, {"card": "TS"}, 400, '{"move": TEXT}')
    _refused(client, state, {"move": "10S"}, 400, '"10S"', "malformed move", "R6")
    _refused(client, state, {"move": "ts"}, 400, "malformed move")
    _refused(client, state, {"move": 47}, 400, "a move is a text")
    _refused(client, state, {"move": first_legal(state), "seat": "0"}, 400, "'seat' must be an integer")
    _refused(client, state, {"move": first_legal(state), "seat": 1}, 409, "seat 1 is played by a bot")
    err = _refused(client, state, {"move": first_legal(state), "version": state["version"] - 1}, 409, "stale table")
    assert err["version"] == state["version"]


def test_out_of_turn_and_between_hands(client: Any) -> None:
    options = {"scoring": "tricks", "match": "points", "points": 2}  # no instant win (R2.5, R2.6)
    state = new_game(client, "dehla-direct", options, seat=0, seed=5)
    while state["status"] != "bot":  # get to a bot's turn
        state = client.post(f"/api/games/{state['id']}/move", json={"move": first_legal(state)}).json()
    card = state["hand"][0]["text"]
    err = _refused(client, state, {"move": card}, 409, "it is not your turn", f"seat {state['to_act']}")
    assert err["seat"] == 0
    r = client.post(f"/api/games/{state['id']}/deal")
    assert r.status_code == 409 and "the hand is not over" in r.json()["error"]
    while state["status"] not in ("hand-over", "match-over"):
        state = advance_bots(client, state)
        if state["status"] == "your-turn":
            state = client.post(f"/api/games/{state['id']}/move", json={"move": first_legal(state)}).json()
    assert state["status"] == "hand-over" and state["result"] is not None
    assert state["prompt"].startswith("The hand is over")
    _refused(client, state, {"move": card}, 409, "the hand is over")
    dealt = client.post(f"/api/games/{state['id']}/deal").json()
    assert dealt["hand_no"] == 2 and len(dealt["hand"]) == 13


def test_stale_game_ids_and_bad_setups(client: Any) -> None:
    for path in ("", "/move", "/advance", "/deal", "/leave"):
        method = client.get if path == "" else client.post
        r = method(f"/api/games/web-nope{path}", **({} if path == "" else {"json": {"move": "AS"}}))
        assert r.status_code == 404 and "no game 'web-nope'" in r.json()["error"]
    bad = [
        ({"rules": "bridge"}, "unknown ruleset"),
        ({"rules": "dehla", "options": {"kots": 0}}, "kots"),
        ({"rules": "dehla", "options": {"colour": "red"}}, "unknown option"),
        ({"rules": "dehla", "options": []}, "'options' must be an object"),
        ({"rules": "dehla", "seat": 4}, "seat must be 0..3"),
        ({"rules": "dehla", "partner": "grandmaster"}, "grandmaster"),
        ({"rules": "dehla", "bot_delay": -1}, "bot_delay"),
        ({"rules": "dehla", "seed": "x"}, "'seed' must be an integer"),
    ]
    for body, words in bad:
        r = client.post("/api/games", json=body)
        assert r.status_code == 400, (body, r.text)
        assert words in r.json()["error"], (body, r.json())
    assert client.get("/api/games").json()["games"] == []


# ---------------------------------------------------------------------- several games, delay, leaving
def test_several_games_at_once_each_in_its_own_state(client: Any) -> None:
    a = advance_bots(client, new_game(client, "dehla", seed=1))
    b = advance_bots(client, new_game(client, "coat-pees", seed=2))
    c = advance_bots(client, new_game(client, "court-piece", seed=3))
    assert len({a["id"], b["id"], c["id"]}) == 3
    listed = {g["id"] for g in client.get("/api/games").json()["games"]}
    assert listed == {a["id"], b["id"], c["id"]}
    moved = client.post(f"/api/games/{a['id']}/move", json={"move": first_legal(a)}).json()
    assert moved["version"] > a["version"]
    assert client.get(f"/api/games/{b['id']}").json() == {k: v for k, v in b.items() if k != "advanced"}
    assert client.get(f"/api/games/{c['id']}").json()["version"] == c["version"]


def test_a_game_belongs_to_the_browser_that_started_it(client: Any, tmp_path: Path) -> None:
    mine = advance_bots(client, new_game(client, seed=None))
    assert len(client.cookies.get("dehla_owner", "")) >= 32  # the creator's secret, HttpOnly
    stranger = TestClient(client.app, base_url=LOCAL)  # another browser (no lifespan of its own: that stops the app)
    for cookies in ({}, {"dehla_owner": "x" * 32}):
        stranger.cookies.clear()
        stranger.cookies.update(cookies)
        assert stranger.get("/api/games").json()["games"] == []
        for method, path in (
            ("get", ""),
            ("post", "/move"),
            ("post", "/advance"),
            ("post", "/deal"),
            ("post", "/leave"),
        ):
            r = getattr(stranger, method)(
                f"/api/games/{mine['id']}{path}", **({"json": {"move": "AS"}} if method == "post" else {})
            )
            assert r.status_code == 404 and "hand" not in r.json(), (path, r.text)
    theirs = new_game(stranger)
    assert [g["id"] for g in stranger.get("/api/games").json()["games"]] == [theirs["id"]]
    assert [g["id"] for g in client.get("/api/games").json()["games"]] == [mine["id"]]
    assert client.get(f"/api/games/{mine['id']}").json()["version"] == mine["version"]


def test_a_dealt_game_commits_to_its_secret_seed_and_a_chosen_seed_says_the_deal_is_known(client: Any) -> None:
    fair = new_game(client, seed=None)
    assert fair["deal"]["seed"] is None and len(fair["deal"]["commitment"]) == 64  # SHA-256, before any card
    game = client.app.state.store.games[fair["id"]]
    assert game.seed.bit_length() > 64 and str(game.seed) not in json.dumps(fair)
    practice = new_game(client, seed=7)
    assert practice["deal"] == {"commitment": None, "seed": None}  # the page says whoever chose it knows it
    left = client.post(f"/api/games/{fair['id']}/leave").json()
    record = json.loads(Path(left["record"]).read_text())
    assert record["seed"] == game.seed and record["commitment"] == fair["deal"]["commitment"]
    done = subprocess.run(
        [sys.executable, "-m", "dehla_env.replay", "--check-seed", left["record"]],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert json.loads(done.stdout)["seed_check"] == "ok", done.stdout + done.stderr


def test_bot_delay_is_waited_before_each_bot_move(tmp_path: Path) -> None:
    app = create_app(ServerConfig(record_dir=tmp_path, bot_delay=0.15, **UNLIMITED))
    with TestClient(app, base_url=LOCAL) as client:
        state = new_game(client, "dehla-direct", seat=0, seed=4)
        assert state["bot_delay"] == 0.15
        while state["status"] != "bot":
            state = client.post(f"/api/games/{state['id']}/move", json={"move": first_legal(state)}).json()
        t = time.monotonic()
        client.post(f"/api/games/{state['id']}/advance")
        assert time.monotonic() - t >= 0.15
        fast = new_game(client, "dehla-direct", seed=4, bot_delay=0)  # per game
        assert fast["bot_delay"] == 0


def test_leaving_and_stopping_save_abandoned_records_that_replay(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    app = create_app(ServerConfig(record_dir=folder, bot_delay=0.0, **UNLIMITED))
    with TestClient(app, base_url=LOCAL) as client:
        left = advance_bots(client, new_game(client, "dehla", seed=9))
        left = client.post(f"/api/games/{left['id']}/move", json={"move": first_legal(left)}).json()
        r = client.post(f"/api/games/{left['id']}/leave").json()
        assert r["result"] == "abandoned" and Path(r["record"]).is_file()
        assert client.get(f"/api/games/{left['id']}").status_code == 404
        open_game = advance_bots(client, new_game(client, "coat-pees", seed=9, seat=2))
    # the server stopped: the open game was saved too
    paths = sorted(folder.glob("*.jsonl"))
    assert {p.stem for p in paths} == {left["id"], open_game["id"]}
    records = [json.loads(p.read_text(encoding="utf-8")) for p in paths]
    assert all(rec["result"] == "abandoned" and rec["winner"] is None for rec in records)
    by_id = {rec["id"]: rec for rec in records}
    assert by_id[open_game["id"]]["human_seat"] == 2
    assert len(by_id[left["id"]]["hands"][0]["moves"]) >= 1
    results = replay(paths)
    assert all(res["error"] is None and res["winner"] is None for res in results)
    assert all(res["hands_played"] == 1 and not res["hands"][0]["complete"] for res in results)


def test_a_record_that_cannot_be_written_does_not_break_the_game(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the record folder should be")
    with TestClient(create_app(ServerConfig(record_dir=blocked, bot_delay=0.0, **UNLIMITED)), base_url=LOCAL) as client:
        final = play_match(client, new_game(client, "court-piece", {"points": 1}))
        assert final["winner"] in (0, 1) and final["record"] is None and final["ended"] == "finished"
        assert client.post(f"/api/games/{final['id']}/leave").json()["record"] is None


# ---------------------------------------------------------------------- the command
def test_command_prints_its_address_serves_and_saves_on_stop(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.web", "--port", "0", "--record-dir", str(tmp_path), "--bot-delay", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line, line + (proc.stderr.read() if proc.stderr else "")
        url = line.split()[line.split().index("browser:") + 1]
        local = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy for 127.0.0.1
        meta = json.loads(local.open(url + "api/meta", timeout=10).read())
        assert meta["bot_delay"] == 0 and str(tmp_path) not in json.dumps(meta)  # no path of the server's
        req = urllib.request.Request(
            url + "api/games", data=json.dumps({"partner": "easy", "opponents": "easy"}).encode(), method="POST"
        )
        game = json.loads(local.open(req, timeout=10).read())
    finally:
        proc.send_signal(signal.SIGINT)  # Ctrl-C: one line, as SIGTERM
        out, err = proc.communicate(timeout=10)
    assert (tmp_path / f"{game['id']}.jsonl").is_file()
    assert proc.returncode == 130 and "Traceback" not in err and not err.strip(), err
    assert out.strip().splitlines()[-1].startswith("Stopped; open games were saved in")


def test_missing_web_extra_is_one_line_naming_it() -> None:
    code = "import sys; sys.modules['starlette'] = None; from agents.web.cli import main; raise SystemExit(main([]))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1
    assert out.stderr.strip() == "agents.web needs the web extra: pip install dehla[web]"


@pytest.mark.parametrize("argv", [["--port", "99999"], ["--port", "-5"], ["--bot-delay", "-1"]])
def test_a_bad_command_line_is_one_line_and_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from agents.web.cli import main

    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("python -m agents.web: error:")
