"""Several people at one table (agents.web.tables), through the API and the WebSocket:
each link sees only its own seat's view (R0.6) and moves only for its seat, the
spectator sees no hand, a reconnect finds the same table, the host gives a seat to a
bot and back, limits and expiry answer one-line JSON errors, records replay (R6)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install dehla[web]")
import anyio  # noqa: E402
from starlette.testclient import TestClient, WebSocketDenialResponse  # noqa: E402

from agents.web.server import ServerConfig, create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LOCAL = "http://127.0.0.1"
WS = "ws://127.0.0.1"
UNLIMITED: dict[str, Any] = {"requests_per_second": None, "creates_per_minute": None}
RECEIVE_SECONDS = 30.0  # every receive has a deadline: a stuck server fails the test, never hangs it


@contextlib.contextmanager
def _client(tmp_path: Path, **config: Any) -> Iterator[TestClient]:
    """A test client whose WebSockets (opened by :func:`_open`) are all closed before it stops."""
    app = create_app(ServerConfig(record_dir=tmp_path / "records", bot_delay=0.0, **{**UNLIMITED, **config}))
    with TestClient(app, base_url=LOCAL) as client, contextlib.ExitStack() as sockets:
        client.sockets = sockets
        yield client


def _create(client: TestClient, seats: list[str], rules: str = "dehla", **body: Any) -> dict[str, Any]:
    options = body.pop("options", {"max_hands": 1})
    r = client.post("/api/tables", json={"rules": rules, "options": options, "seats": seats, **body})
    assert r.status_code == 201, r.text
    return r.json()


def _key(link: str) -> str:
    return link.split("#key=")[1]


def _open(client: TestClient, table: dict[str, Any], key: str) -> Any:
    sock = client.sockets.enter_context(client.websocket_connect(f"{WS}/ws/tables/{table['id']}"))
    sock.send_json({"type": "hello", "key": key})
    return sock


def _receive(sock: Any, seconds: float = RECEIVE_SECONDS) -> dict[str, Any]:
    """The socket's next message (JSON), or TimeoutError after ``seconds``: the test
    client's own receive waits for ever."""

    async def within() -> Any:
        with anyio.fail_after(seconds):
            return await sock._send_rx.receive()

    message = sock.portal.call(within)
    sock._raise_on_close(message)
    return json.loads(message["text"])


def _table(client: TestClient, table_id: str) -> Any:
    return client.app.state.tables.tables[table_id]  # type: ignore[attr-defined]


def _settle(client: TestClient, table_id: str, seconds: float = 20.0) -> Any:
    """Wait until no bot is to move (a person is to act, or the hand or match is over).

    The game is read on the server's event loop, where the bots move: read from this
    thread, it could be caught half-way through a bot's move (a trick's last card played,
    its winner not yet to lead) and look like a person's turn."""
    game = _table(client, table_id).game

    async def bot_to_move() -> bool:
        return bool(game.status() == "bot")

    deadline = time.monotonic() + seconds
    while client.portal.call(bot_to_move):
        assert time.monotonic() < deadline, "the bots did not move"
        time.sleep(0.01)
    return game


def _state_at(sock: Any, version: int) -> dict[str, Any]:
    """This connection's state for ``version`` (older states and notes are skipped)."""
    while True:
        message = _receive(sock)
        if message["type"] == "state" and message["state"]["version"] >= version:
            return message["state"]


def _error(sock: Any) -> dict[str, Any]:
    while True:
        message = _receive(sock)
        if message["type"] == "error":
            assert "\n" not in message["error"] and len(json.dumps(message)) < 1000
            return message


def _first_legal(state: dict[str, Any]) -> str:
    if state["phase"] == "play":
        return next(c["text"] for c in state["hand"] if c["legal"])
    return next(a["move"] for a in state["actions"] if a["legal"])


def _cards(state: dict[str, Any]) -> set[str]:
    return {c["text"] for c in state["hand"]}


def _play_hand(client: TestClient, table: dict[str, Any], socks: dict[int, Any], watch: list[Any]) -> list[dict]:
    """Play until the match is over, each person from their own socket; every state each
    socket gets is checked against the engine: its own hand only, nobody else's cards."""
    seen: list[dict[str, Any]] = []
    while True:
        game = _settle(client, table["id"])
        version, to_act = game.version, game.match.current_player()
        hands = {s: {c["text"] for c in _hand_json(game, s)} for s in range(game.rules.players)}
        for seat, sock in socks.items():
            state = _state_at(sock, version)
            assert state["seat"] == seat and _cards(state) == hands[seat]
            _assert_no_other_cards(state, hands, seat)
            seen.append(state)
        for sock in watch:
            state = _state_at(sock, version)
            assert state["hand"] == [] and state["seat"] is None
            _assert_no_other_cards(state, hands, None)
            seen.append(state)
        if game.status() == "match-over":
            return seen
        state = seen[-len(socks) - len(watch) + list(socks).index(to_act)]
        socks[to_act].send_json({"type": "move", "move": _first_legal(state), "version": version})
        _moved(game, version)


def _moved(game: Any, version: int) -> None:
    """Wait until the server has taken a move sent at ``version``."""
    deadline = time.monotonic() + 10
    while game.version == version:
        assert time.monotonic() < deadline, "the move was not taken"
        time.sleep(0.005)


def _hand_json(game: Any, seat: int) -> list[dict[str, Any]]:
    from agents.web.table import card_json
    from dehla_env.view import view_of

    return [card_json(c) for c in view_of(game.match, seat).hand]


def _assert_no_other_cards(state: dict[str, Any], hands: dict[int, set[str]], seat: int | None) -> None:
    """No card of another seat's current hand appears anywhere in the state's JSON."""
    text = json.dumps(state)
    public = {p["card"]["text"] for p in state["trick"]["plays"] + (state["last_trick"] or {"plays": []})["plays"]}
    shared = hands.get(seat, set()) if seat is not None else set()  # six players: two packs, so copies
    for other, cards in hands.items():
        if other == seat:
            continue
        for card in cards - shared - public:
            assert f'"text": "{card}"' not in text, (seat, other, card)


def _replays(path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dehla_env.replay", str(path)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout + done.stderr


# ---------------------------------------------------------------------- several people
def test_two_people_two_bots_and_a_spectator_play_a_whole_match(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        table = _create(client, ["person", "easy", "person", "medium"])
        links = table["links"]
        assert set(links["seats"]) == {"0", "2"} and links["spectator"] != links["host"]
        socks = {0: _open(client, table, _key(links["seats"]["0"])), 2: _open(client, table, _key(links["seats"]["2"]))}
        watcher = _open(client, table, _key(links["spectator"]))
        seen = _play_hand(client, table, socks, [watcher])
        assert any(s["status"] == "your-turn" for s in seen)
        final = seen[-1]
        assert final["status"] == "match-over" and final["record"].endswith(".jsonl")
        assert not any(line.startswith("You ") for line in final["log"])
        record_path = tmp_path / "records" / final["record"]
        record = json.loads(record_path.read_text())
        assert record["result"] == "finished" and record["agents"] == ["person", "easy", "person", "medium"]
        assert record["people"] == [0, 2]
        _replays(record_path)


def test_six_players(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        seats = ["person", "easy", "easy", "person", "easy", "easy"]
        table = _create(client, seats, rules="dehla-direct", options={"players": 6, "max_hands": 1})
        assert table["players"] == 6
        socks = {0: _open(client, table, _key(table["links"]["seats"]["0"]))}
        socks[3] = _open(client, table, _key(table["links"]["seats"]["3"]))
        _play_hand(client, table, socks, [])
        record = next((tmp_path / "records").glob("*.jsonl"))
        _replays(record)


# ---------------------------------------------------------------------- a fair deal
def _check_seed(record: dict[str, Any]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "dehla_env.replay", "--check-seed"],
        input=json.dumps(record) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["seed_check"]


def test_the_deal_comes_from_a_secret_seed_committed_before_the_first_card(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        r = client.post("/api/tables", json={"seats": ["person", "easy", "easy", "easy"], "seed": 11})
        assert r.status_code == 400 and "secret seed" in r.json()["error"]  # nobody at the table may choose it
        table = _create(client, ["person", "easy", "easy", "easy"], bot_delay=10)  # the bots wait: no card yet
        sock = _open(client, table, _key(table["links"]["seats"]["0"]))
        first = _state_at(sock, 0)
        assert first["trick"]["plays"] == [] and first["last_trick"] is None and len(first["hand"]) > 0
        commitment = first["deal"]["commitment"]
        assert len(commitment) == 64 and first["deal"]["seed"] is None
        shared = _table(client, table["id"])
        seed = shared.game.seed

        async def no_delay() -> None:
            shared.game.bot_delay = 0.0
            shared.wake.set()

        client.portal.call(no_delay)
        assert seed.bit_length() > 64 and str(seed) not in json.dumps(first)  # 128 secret bits
        sock.send_json({"type": "state"})  # the state _play_hand starts from, if the person is first to act
        final = _play_hand(client, table, {0: sock}, [])[-1]
        assert final["deal"]["commitment"] == commitment and final["deal"]["seed"] == str(seed)  # revealed
    record = json.loads((tmp_path / "records" / final["record"]).read_text())
    assert record["seed"] == seed and record["commitment"] == commitment
    assert hashlib.sha256(str(seed).encode("ascii")).hexdigest() == commitment
    assert _check_seed(record) == "ok"  # dehla-replay: the deals and draws follow from the seed
    assert "does not hash" in _check_seed({**record, "seed": seed + 1})
    other = {**record, "seed": seed + 1, "commitment": hashlib.sha256(str(seed + 1).encode()).hexdigest()}
    assert "does not follow" in _check_seed(other)


# ---------------------------------------------------------------------- a link is one seat only
def test_a_link_cannot_read_or_move_another_seat(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        table = _create(client, ["person", "person", "easy", "easy"])
        links = table["links"]
        game = _settle(client, table["id"])
        to_act = game.match.current_player()
        other = 1 - to_act
        version = game.version
        # a wrong secret, another table's id, a missing hello: refused, one line
        for key in ("", "x" * 32, _key(links["seats"]["0"])[:-1] + "A", None, 7, "y" * 5000):
            bad = _open(client, table, key)  # type: ignore[arg-type]
            text = _error(bad)["error"]
            assert "no such table or link" in text or "message over" in text
        stranger = client.sockets.enter_context(client.websocket_connect(f"{WS}/ws/tables/table-nope"))
        stranger.send_json({"type": "hello", "key": _key(links["seats"]["0"])})
        assert "no such table" in _error(stranger)["error"]
        # the seat not to act may not move, nor move for the seat that is, nor name a seat
        mine = _open(client, table, _key(links["seats"][str(other)]))
        state = _state_at(mine, version)
        assert state["seat"] == other and state["status"] == "waiting"
        for message in (
            {"type": "move", "move": "AS"},
            {"type": "move", "move": "AS", "seat": to_act},
            {"type": "bot", "seat": to_act, "bot": "easy"},
            {"type": "invite", "seat": 2},
            {"type": "close"},
            {"type": "hello", "key": _key(links["seats"][str(to_act)])},
            {"type": "nonsense"},
        ):
            mine.send_json(message)
            assert _error(mine)["error"]
        spectator = _open(client, table, _key(links["spectator"]))
        assert _state_at(spectator, version)["hand"] == []
        for message in ({"type": "move", "move": "AS"}, {"type": "deal"}, {"type": "bot", "seat": 0}):
            spectator.send_json(message)
            assert _error(spectator)["error"]
        # malformed and oversized messages: one-line errors, nothing changed
        mine.send_text("not json")
        assert "not JSON" in _error(mine)["error"]
        mine.send_text("[" * 20 + "]" * 20)
        assert "deeper" in _error(mine)["error"] or "object" in _error(mine)["error"]
        mine.send_json({"type": "move", "move": "x" * 100})
        assert "at most" in _error(mine)["error"]
        assert game.version == version and game.match.current_player() == to_act
        mine.send_text(json.dumps({"type": "state", "pad": "z" * 5000}))
        assert "over 4096 bytes" in _error(mine)["error"]


def test_websocket_host_and_origin_checks(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        table = _create(client, ["person", "easy", "easy", "easy"])
        url = f"/ws/tables/{table['id']}"
        for headers, status in (({"origin": "http://evil.example"}, 403), ({"origin": "null"}, 403)):
            with pytest.raises(WebSocketDenialResponse) as denied:
                client.websocket_connect(WS + url, headers=headers).__enter__()
            assert denied.value.status_code == status and "error" in denied.value.json()
        with pytest.raises(WebSocketDenialResponse) as denied:
            client.websocket_connect("ws://evil.example" + url).__enter__()
        assert denied.value.status_code == 421
        sock = client.sockets.enter_context(client.websocket_connect(WS + url, headers={"origin": LOCAL}))
        sock.send_json({"type": "hello", "key": _key(table["links"]["seats"]["0"])})
        assert _state_at(sock, 0)["seat"] == 0


# ---------------------------------------------------------------------- reconnect, seats, host
def test_reconnect_mid_hand_finds_the_same_table(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        table = _create(client, ["person", "easy", "easy", "easy"])
        key = _key(table["links"]["seats"]["0"])
        sock = _open(client, table, key)
        for _ in range(3):
            game = _settle(client, table["id"])
            state = _state_at(sock, game.version)
            sock.send_json({"type": "move", "move": _first_legal(state), "version": state["version"]})
            _moved(game, state["version"])
        game = _settle(client, table["id"])
        before = _state_at(sock, game.version)
        sock.close()
        again = _open(client, table, key)
        after = _state_at(again, game.version)
        assert {k: after[k] for k in ("version", "hand", "trick", "score", "log")} == {
            k: before[k] for k in ("version", "hand", "trick", "score", "log")
        }


def test_host_gives_a_leavers_seat_to_a_bot_and_back(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        table = _create(client, ["person", "person", "easy", "easy"])
        links = table["links"]
        host = _open(client, table, _key(links["host"]))
        first = _state_at(host, 0)
        assert first["hand"] == [] and set(first["table"]["links"]["seats"]) == {"0", "1"}
        leaver = _open(client, table, _key(links["seats"]["1"]))
        _state_at(leaver, 0)
        host.send_json({"type": "bot", "seat": 1, "bot": "search:k=100000"})
        assert "1..512" in _error(host)["error"]
        host.send_json({"type": "bot", "seat": 1, "bot": "easy"})
        assert "bot" in _error(leaver)["error"]
        gone = _open(client, table, _key(links["seats"]["1"]))  # the old link holds nothing now
        assert "no such table or link" in _error(gone)["error"]
        game = _table(client, table["id"]).game
        assert game.specs[1] == "easy" and 1 not in game.people
        host.send_json({"type": "invite", "seat": 1})
        deadline = time.monotonic() + 5
        seats: dict[str, str] = {}
        while "1" not in seats:
            assert time.monotonic() < deadline
            seats = _state_at(host, 0)["table"]["links"]["seats"]
        new_link = seats["1"]
        assert _key(new_link) != _key(links["seats"]["1"])
        back = _open(client, table, _key(new_link))
        assert _state_at(back, 0)["seat"] == 1
        host.send_json({"type": "close"})
        assert _error(back)["closed"]
        record = json.loads(next((tmp_path / "records").glob("*.jsonl")).read_text())
        assert record["result"] == "abandoned" and [c["kind"] for c in record["changes"]] == ["easy", "person"]


# ---------------------------------------------------------------------- limits and expiry
def test_limits_and_bad_bodies(tmp_path: Path) -> None:
    with _client(tmp_path, tables_per_client=2, max_tables=3, connections_per_client=2) as client:
        for body, words in (
            ({"seats": ["easy"] * 4}, "at least one person"),
            ({"seats": ["person"] * 3}, "4 entries"),
            ({"seats": ["person", "policy:/etc/passwd", "easy", "easy"]}, "not offered"),
            ({"rules": "poker", "seats": ["person"] * 4}, "unknown ruleset"),
            ({"seats": ["person"] * 4, "bot_delay": 99}, "bot_delay"),
        ):
            r = client.post("/api/tables", json=body)
            assert r.status_code == 400 and words in r.json()["error"], r.text
        a = _create(client, ["person", "easy", "easy", "easy"])
        _create(client, ["person", "easy", "easy", "easy"])
        r = client.post("/api/tables", json={"seats": ["person", "easy", "easy", "easy"]})
        assert r.status_code == 429 and "close one" in r.json()["error"]
        key = _key(a["links"]["seats"]["0"])
        one, two = _open(client, a, key), _open(client, a, key)
        _state_at(one, 0), _state_at(two, 0)
        three = _open(client, a, key)
        assert "too many connections" in _error(three)["error"]


def test_idle_tables_expire_as_abandoned_records(tmp_path: Path) -> None:
    with _client(tmp_path, idle_minutes=0.002) as client:  # 0.12 s
        table = _create(client, ["person", "easy", "easy", "easy"])
        sock = _open(client, table, _key(table["links"]["seats"]["0"]))
        _state_at(sock, 0)
        message = _error(sock)
        assert message["closed"] and "idle" in message["error"]
        assert table["id"] not in client.app.state.tables.tables  # type: ignore[attr-defined]
        record = json.loads(next((tmp_path / "records").glob("*.jsonl")).read_text())
        assert record["result"] == "abandoned"
        late = _open(client, table, _key(table["links"]["seats"]["0"]))
        assert "no such table" in _error(late)["error"]


# ---------------------------------------------------------------------- the socket's edges
def test_binary_frames_and_lone_surrogates_get_one_line_errors(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        table = _create(client, ["person", "easy", "easy", "easy"])
        key = _key(table["links"]["seats"]["0"])
        for hello, words in ((b"\x00\x01", "binary"), ('{"type": "hello", "key": "\\ud800"}', "surrogate")):
            sock = client.sockets.enter_context(client.websocket_connect(f"{WS}/ws/tables/{table['id']}"))
            sock.send_bytes(hello) if isinstance(hello, bytes) else sock.send_text(hello)
            assert words in _error(sock)["error"]
        sock = _open(client, table, key)
        _state_at(sock, 0)
        sock.send_bytes(b'{"type": "state"}')
        assert "binary" in _error(sock)["error"]
        sock.send_json({"type": "state"})  # the connection goes on
        assert _state_at(sock, 0)["seat"] == 0


def test_connection_caps_count_sockets_from_their_opening(tmp_path: Path) -> None:
    for caps, admitted in (({"connections_per_client": 3}, 3), ({"max_connections": 2}, 2)):
        with _client(tmp_path, **caps) as client:
            table = _create(client, ["person", "easy", "easy", "easy"])
            url = f"{WS}/ws/tables/{table['id']}"
            socks = [client.sockets.enter_context(client.websocket_connect(url)) for _ in range(5)]
            for sock in socks:  # every hello after every opening
                sock.send_json({"type": "hello", "key": _key(table["links"]["spectator"])})
            joined = [_receive(sock)["type"] == "state" for sock in socks]
            assert sum(joined) == admitted, joined


def test_a_receive_has_a_deadline_and_every_test_a_timeout(tmp_path: Path) -> None:
    import tomllib

    with _client(tmp_path) as client:
        table = _create(client, ["person", "easy", "easy", "easy"])
        silent = client.sockets.enter_context(client.websocket_connect(f"{WS}/ws/tables/{table['id']}"))
        start = time.monotonic()
        with pytest.raises(TimeoutError):
            _receive(silent, 0.3)  # no hello, so no message: fails in time instead of waiting for ever
        assert time.monotonic() - start < 5
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(d.startswith("pytest-timeout") for d in project["project"]["optional-dependencies"]["dev"])
    assert 0 < int(project["tool"]["pytest"]["ini_options"]["timeout"]) <= 600


def test_a_stopping_server_tells_open_pages_and_a_closed_page_holds_nothing(tmp_path: Path) -> None:
    pytest.importorskip("websockets", reason="websockets absent: pip install websockets")
    from websockets.sync.client import connect

    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.web", "--port", "0", "--record-dir", str(tmp_path), "--bot-delay", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    try:
        assert proc.stdout is not None
        url = next(w for w in proc.stdout.readline().split() if w.startswith("http://")).rstrip("/")
        local = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        body = json.dumps({"seats": ["person", "easy", "easy", "easy"]}).encode()
        request = urllib.request.Request(url + "/api/tables", data=body, method="POST")
        table = json.loads(local.open(request, timeout=10).read())
        ws_url = url.replace("http", "ws") + f"/ws/tables/{table['id']}"
        hello = json.dumps({"type": "hello", "key": _key(table["links"]["seats"]["0"])})
        with connect(ws_url, open_timeout=10) as closed:  # a page opened and closed at once
            closed.send(hello)
            assert json.loads(closed.recv(timeout=10))["type"] == "state"
        with connect(ws_url, open_timeout=10) as page:
            page.send(hello)
            assert json.loads(page.recv(timeout=10))["type"] == "state"
            start = time.monotonic()
            proc.send_signal(signal.SIGINT)
            notes = []
            with contextlib.suppress(Exception):
                while True:
                    notes.append(json.loads(page.recv(timeout=10)))
            assert any(n.get("error") == "the server is stopping" for n in notes), notes
            assert page.close_code == 4404
        _out, err = proc.communicate(timeout=15)
        assert time.monotonic() - start < 8 and "ERROR" not in err and "Cancel" not in err, err
    finally:
        if proc.poll() is None:
            proc.kill()
