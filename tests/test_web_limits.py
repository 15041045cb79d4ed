"""The web server as a service others can reach: bounded bots that a leave, a timeout
or a shutdown stops; a catalogue instead of paths; limits on bodies, games and rates;
Host and Origin checks; one-line 4xx answers for every bad request; checked flags."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install dehla[web]")
from starlette.testclient import TestClient  # noqa: E402

from agents.web.server import ServerConfig, create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LOCAL = "http://127.0.0.1"
SLOW = "search:k=512,depth=9"  # minutes a decision from the first trick: only a kill stops it
UNLIMITED: dict[str, Any] = {"requests_per_second": None, "creates_per_minute": None}


def _app(tmp_path: Path, **config: Any) -> Any:
    return create_app(ServerConfig(record_dir=tmp_path / "records", bot_delay=0.0, **{**UNLIMITED, **config}))


def _bot_first(client: Any, **body: Any) -> dict[str, Any]:
    """A new game (seed 3) in which a bot is to act first."""
    for seat in range(4):
        r = client.post("/api/games", json={"seed": 3, "seat": seat, "partner": "easy", **body})
        assert r.status_code == 201, r.text
        if r.json()["status"] == "bot":
            return r.json()
        client.post(f"/api/games/{r.json()['id']}/leave")
    raise AssertionError("no seat where a bot acts first")


def _state(client: Any) -> Any:
    """The app's state (its store and thinker) behind a test client."""
    return client.app.state


def _one_line_error(r: Any, status: int, *words: str) -> str:
    assert r.status_code == status, r.text
    text = r.json()["error"]
    assert "\n" not in text and len(r.content) < 1000
    for w in words:
        assert w in text, (w, text)
    return text


# ---------------------------------------------------------------------- 1: bounded, stoppable bots
def test_unbounded_specs_are_refused_and_a_decision_is_time_limited(tmp_path: Path) -> None:
    with TestClient(_app(tmp_path, think_seconds=1.0), base_url=LOCAL) as client:
        for spec, words in (("search:depth=13", "0..9"), ("search:k=10000", "1..512"), ("search:depth=99999", "0..9")):
            _one_line_error(client.post("/api/games", json={"opponents": spec}), 400, words)
        state = _bot_first(client, opponents=SLOW, partner=SLOW)
        start = time.monotonic()
        r = client.post(f"/api/games/{state['id']}/advance", json={})
        assert r.status_code == 200 and r.json()["advanced"] and r.json()["timed_out"] == state["to_act"]
        assert time.monotonic() - start < 6.0
        assert "ran out of the 1 s" in json.dumps(r.json()["log"])
        assert not _state(client).thinker.children  # the thinking process is gone


def test_leaving_stops_a_thinking_bot_at_once(tmp_path: Path) -> None:
    with TestClient(_app(tmp_path, think_seconds=120.0), base_url=LOCAL) as client:
        state = _bot_first(client, opponents=SLOW, partner=SLOW)
        thread = threading.Thread(target=client.post, args=(f"/api/games/{state['id']}/advance",), kwargs={"json": {}})
        thread.start()
        thinker = _state(client).thinker
        deadline = time.monotonic() + 20
        while not thinker.children and time.monotonic() < deadline:
            time.sleep(0.05)
        assert thinker.children, "the bot never started thinking"
        (proc,) = thinker.children
        start = time.monotonic()
        r = client.post(f"/api/games/{state['id']}/leave")
        assert r.status_code == 200 and r.json()["result"] == "abandoned"
        assert time.monotonic() - start < 3.0
        thread.join(5)
        assert not thread.is_alive() and not proc.is_alive()


# ---------------------------------------------------------------------- 2: stopping while a bot thinks
def test_sigint_while_bots_think_stops_within_seconds_and_saves_every_game(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    command = [sys.executable, "-m", "agents.web", "--port", "0", "--record-dir", str(tmp_path)]
    proc = subprocess.Popen(
        [*command, "--bot-delay", "0", "--think-seconds", "300"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    local = urllib.request.build_opener(urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor())
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = line.split()[line.split().index("browser:") + 1]

        def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
            req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST")
            req.add_header("Content-Type", "application/json")
            return json.loads(local.open(req, timeout=30).read())

        games = []
        for seat in (0, 1, 2, 3):
            game = post("api/games", {"seat": seat, "seed": 3, "partner": SLOW, "opponents": SLOW})
            if game["status"] == "bot":
                games.append(game)
        assert games
        for game in games:  # every bot starts thinking; none of these answers comes
            path = f"api/games/{game['id']}/advance"
            threading.Thread(target=_quietly, args=(post, path, {}), daemon=True).start()
        time.sleep(2.5)
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)
        assert time.monotonic() - start < 10
    finally:
        if proc.poll() is None:
            proc.kill()
    saved = {p.stem for p in tmp_path.glob("*.jsonl")}
    assert {g["id"] for g in games} <= saved


def _quietly(post: Any, path: str, body: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        post(path, body)


# ---------------------------------------------------------------------- 4: a catalogue, not paths
def test_clients_name_bots_from_the_catalogue_never_a_path(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.pt"
    os.mkfifo(fifo)
    (tmp_path / "text.pt").write_text("hello")
    names = [
        "/nonexistent/x.pt",
        str(tmp_path),
        str(tmp_path / "text.pt"),
        "/proc/self/environ",
        "../../etc/passwd",
        str(fifo),
        "dehla.pt",
    ]
    with TestClient(_app(tmp_path), base_url=LOCAL) as client:
        answers = set()
        for name in names:
            for body in ({"partner": f"policy:{name}"}, {"opponents": f"search:prior=policy:{name}"}):
                text = _one_line_error(client.post("/api/games", json=body), 400, "not offered by this server")
                answers.add(text.replace(name[:40] + ("..." if len(name) > 40 else ""), "NAME"))
        assert len(answers) == 2  # one answer per role, whatever exists on the disk
        assert str(os.getpid()) not in "".join(answers)


def test_the_operator_offers_policies_by_name(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    offered = tmp_path / "offered"
    offered.mkdir()
    (offered / "mine.pt").write_bytes((ROOT / "agents" / "checkpoints" / "dehla.pt").read_bytes())
    with TestClient(_app(tmp_path, policy_dir=offered), base_url=LOCAL) as client:
        assert "policy:mine" in client.get("/api/meta").json()["agents"]
        r = client.post("/api/games", json={"partner": "policy:mine", "opponents": "easy"})
        assert r.status_code == 201, r.text
        refused = client.post("/api/games", json={"rules": "court-piece", "partner": "policy:mine"})
        assert refused.status_code == 400 and str(offered) not in refused.text


# ---------------------------------------------------------------------- 5: games per client, rates
def test_one_client_cannot_evict_another_clients_games(tmp_path: Path) -> None:
    app = _app(tmp_path, games_per_client=2, max_games=3)
    with TestClient(app, base_url=LOCAL, client=("10.0.0.2", 1)) as other, TestClient(app, base_url=LOCAL) as client:
        theirs = other.post("/api/games", json={"partner": "easy"}).json()["id"]
        for _ in range(5):
            client.post("/api/games", json={"partner": "easy"})
        held = set(app.state.store.games)
        assert theirs in held and len(held) == 3
        other.post("/api/games", json={"partner": "easy"})
        _one_line_error(other.post("/api/games", json={"partner": "easy"}), 503, "most games")


def test_creates_and_requests_are_rate_limited(tmp_path: Path) -> None:
    app = _app(tmp_path, creates_per_minute=6.0, create_burst=3, requests_per_second=5.0, request_burst=20)
    with TestClient(app, base_url=LOCAL) as client:
        codes = [client.post("/api/games", json={"partner": "easy"}).status_code for _ in range(4)]
        assert codes == [201, 201, 201, 429]
        r = client.post("/api/games", json={"partner": "easy"})
        assert int(r.headers["Retry-After"]) >= 1
        codes = [client.get("/api/games").status_code for _ in range(30)]
        assert 429 in codes
    assert len(list((tmp_path / "records").glob("*.jsonl"))) == 3


# ---------------------------------------------------------------------- 6: cross-site requests
def test_foreign_origins_and_hosts_are_refused(tmp_path: Path) -> None:
    with TestClient(_app(tmp_path, allowed_hosts=("dehla.lan",)), base_url=LOCAL) as client:
        body = json.dumps({"partner": "easy"})
        for headers in (
            {"Origin": "http://evil.example", "Content-Type": "text/plain"},
            {"Origin": "http://evil.example", "Content-Type": "application/json"},
            {"Origin": "null", "Content-Type": "application/json"},
            {"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"},
            {"Origin": LOCAL + ":8001", "Content-Type": "application/json"},  # another port: another site
        ):
            _one_line_error(client.post("/api/games", content=body, headers=headers), 403, "cross-site")
        _one_line_error(
            client.post("/api/games", content=body, headers={"Origin": LOCAL, "Content-Type": "text/plain"}), 415
        )
        _one_line_error(client.get("/api/meta", headers={"Host": "rebound.example:8000"}), 421, "--allow-host")
        assert client.get("/api/meta", headers={"Host": "dehla.lan:8000"}).status_code == 200
        own_page = {"Origin": LOCAL + ":8000", "Host": "127.0.0.1:8000", "Content-Type": "application/json"}
        assert client.post("/api/games", content=body, headers=own_page).status_code == 201
        assert len(client.app.state.store.games) == 1  # only the own page's request made a game


# ---------------------------------------------------------------------- 7: 4xx, never 500
def test_a_lone_surrogate_in_any_text_is_a_400_never_a_500(tmp_path: Path) -> None:
    bad = "\\ud800"  # JSON's escape of half a surrogate pair: valid JSON, not Unicode
    json_type = {"Content-Type": "application/json"}
    with TestClient(_app(tmp_path), base_url=LOCAL) as client:
        for path, body in (
            ("/api/games", f'{{"partner": "{bad}"}}'),
            ("/api/games", f'{{"options": {{"{bad}": 1}}}}'),
            ("/api/tables", f'{{"seats": ["person", "{bad}", "easy", "easy"]}}'),
            ("/api/tables", f'{{"seats": ["person", "easy", "easy", "easy"], "options": {{"{bad}": 1}}}}'),
        ):
            _one_line_error(client.post(path, content=body, headers=json_type), 400, "surrogate")


def test_bad_requests_are_one_line_4xx_never_500(tmp_path: Path) -> None:
    with TestClient(_app(tmp_path), base_url=LOCAL) as client:
        _one_line_error(client.post("/api/games", json={"seed": -1}), 400, "seed")
        _one_line_error(client.post("/api/games", json={"seed": 2**70}), 400, "seed")
        deep = b"[" * 8000 + b"]" * 8000
        json_type = {"Content-Type": "application/json"}
        _one_line_error(client.post("/api/games", content=deep, headers=json_type), 400, "nested")
        nested = "search:" + "opp=search:" * 1200
        _one_line_error(client.post("/api/games", json={"opponents": nested}), 400, "at most")
        big = b'{"x": "' + b"a" * (1 << 20) + b'"}'
        _one_line_error(client.post("/api/games", content=big, headers={"Content-Type": "application/json"}), 413)
        state = client.post("/api/games", json={"partner": "easy", "seed": 1}).json()
        r = client.post(f"/api/games/{state['id']}/move", json={"move": "x" * 10_000})
        _one_line_error(r, 400, "at most 32 characters")
        _one_line_error(client.get("/api/nowhere"), 404)
        _one_line_error(client.put("/api/games"), 405)
        _one_line_error(client.post("/api/games", content=b"NaN", headers={"Content-Type": "application/json"}), 400)


def test_an_eviction_while_a_bot_thinks_loses_no_move(tmp_path: Path) -> None:
    with TestClient(_app(tmp_path, games_per_client=1, think_seconds=120.0), base_url=LOCAL) as client:
        state = _bot_first(client, opponents=SLOW, partner=SLOW)
        game = _state(client).store.games[state["id"]]
        result: dict[str, Any] = {}
        thread = threading.Thread(
            target=lambda: result.update(r=client.post(f"/api/games/{state['id']}/advance", json={}))
        )
        thread.start()
        deadline = time.monotonic() + 20
        while not _state(client).thinker.children and time.monotonic() < deadline:
            time.sleep(0.05)
        assert client.post("/api/games", json={"partner": "easy"}).status_code == 201  # evicts the thinking game
        thread.join(10)
        assert result["r"].status_code == 200 and not result["r"].json()["advanced"]
    record = json.loads((tmp_path / "records" / f"{state['id']}.jsonl").read_text(encoding="utf-8"))
    assert [h["moves"] for h in record["hands"]] == [h.moves for h in game.hands]


@pytest.mark.parametrize(
    "argv",
    [
        ["--bot-delay", "nan"],
        ["--bot-delay", "20"],
        ["--bot-delay", "inf"],
        ["--idle-minutes", "-5"],
        ["--idle-minutes", "0"],
        ["--think-seconds", "inf"],
        ["--max-games", "0"],
        ["--allow-host", "a/b"],
    ],
)
def test_bad_flags_are_one_line_and_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from agents.web.cli import main

    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("python -m agents.web: error:")


def test_listening_beyond_the_loopback_warns(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.web", "--host", "0.0.0.0", "--port", "0", "--record-dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    try:
        assert proc.stderr is not None
        warning = proc.stderr.readline()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
    assert warning.startswith("WARNING: listening on 0.0.0.0") and "--allow-host" in warning
