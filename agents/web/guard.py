"""What the web server refuses before any route runs: foreign hosts and origins, floods, oversized bodies.

* **Host** (DNS rebinding): a request is served only if its ``Host`` header names this
  machine's loopback (``127.0.0.1``, ``localhost``, ``::1``) or a name the operator
  allowed (``--allow-host``); a page on another site that rebinds its own name to
  127.0.0.1 sends that name and is refused.
* **Origin** (cross-site requests): a request that changes something (any method but
  GET and HEAD) is refused when its ``Origin`` is not the ``Host`` it asks (another
  host or another port, :func:`foreign`), or when the browser
  says ``Sec-Fetch-Site: cross-site``; and a browser's body must be
  ``application/json``, which a page on another site cannot send without a preflight,
  which this server never answers. A request without ``Origin`` (``curl``, a script)
  is served whatever its body's type.
* **Rates**: per client address, a token bucket for all ``/api/`` requests
  (:attr:`~agents.web.server.ServerConfig.requests_per_second`, with a burst) and one
  for starting games (``creates_per_minute``); over it the answer is 429 with
  ``Retry-After``.
* **Bodies**: at most :data:`MAX_BODY_BYTES` (413), JSON nested at most
  :data:`MAX_JSON_DEPTH` deep, texts valid Unicode (400); see :func:`parse_json`.

The Host and Origin checks and the request rate apply to WebSocket handshakes too
(:meth:`Guard.check_websocket`).

Every refusal is a one-line JSON error ``{"error": text}`` with a 4xx status. The routes
share the checks of a body's fields here too (:func:`json_body`, :func:`int_field`,
:func:`rules_field`, :func:`play_refusing`), raising :class:`ApiError`, so a game, a
table and a study refuse the same request with the same words.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from dehla_env.errors import IllegalMoveError
from dehla_env.rules import PRESETS, Rules, RulesError, make_rules

#: the largest request body read (a move or a setup is a few hundred bytes)
MAX_BODY_BYTES = 16 * 1024
#: the deepest nesting of arrays and objects in a request body (a setup needs 2)
MAX_JSON_DEPTH = 8
#: the names that always mean this machine
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class ApiError(Exception):
    """A refused request or table message: the HTTP status and the JSON fields of the answer."""

    def __init__(self, status: int, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.status = status
        self.fields = {"error": message, **fields}


def shown(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, for an error that echoes what was sent."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def int_field(body: dict[str, Any], key: str, what: str = "body") -> int | None:
    """``body[key]``: None if absent, else a 64-bit integer (:class:`ApiError` 400 otherwise)."""
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"malformed {what}: {key!r} must be an integer, not {shown(value)}")
    if not -(2**63) <= value < 2**63:
        raise ApiError(400, f"malformed {what}: {key!r} is out of range")
    return value


def rules_field(body: dict[str, Any]) -> Rules:
    """The ruleset ``body`` names (``rules``, default dehla, with its ``options``); :class:`ApiError` 400 otherwise."""
    name, options = body.get("rules", "dehla"), body.get("options")
    if not isinstance(name, str) or name.strip() not in PRESETS:
        raise ApiError(400, f"unknown ruleset {shown(name)}; known: {', '.join(PRESETS)}")
    if options is not None and not isinstance(options, dict):
        raise ApiError(400, "malformed body: 'options' must be an object")
    try:
        return make_rules(name.strip(), options or {})
    except RulesError as e:
        raise ApiError(400, str(e)) from None


def seconds_field(body: dict[str, Any], key: str, default: float, top: float) -> float:
    """``body[key]`` (``default`` if absent): a number of seconds, 0..``top`` (:class:`ApiError` 400 otherwise)."""
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= top:
        raise ApiError(400, f"malformed body: {key!r} must be 0..{top:g} seconds, not {shown(value)}")
    return float(value)


def play_refusing(game: Any, text: Any, seat: int | None, version: int | None) -> None:
    """``game.play(text, seat)`` if the sender saw the game's current ``version``: a stale
    version is 409 (``stale``: the page fetches the table again) and the engine's refusal
    400 for malformed text (R6), else 409, each naming move, seat and rule; nothing changes."""
    if version is not None and version != game.version:
        at = game.version
        seen = game.human if seat is None else seat
        message = f"stale table: version {version} was sent, the game is at {at}; nothing was changed"
        raise ApiError(409, message, move=text, seat=seen, version=at, stale=True)
    try:
        game.play(text, seat)
    except IllegalMoveError as e:
        status = 400 if e.rule == "R6" else 409
        raise ApiError(status, str(e), move=e.move, seat=e.seat, rule=e.rule, version=game.version) from None


class RequestError(Exception):
    """A refused request: status and one-line text."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def host_name(value: str) -> str:
    """The host part of a ``Host`` header or an origin's netloc, lower case, no port or brackets."""
    value = value.strip().lower()
    if value.startswith("["):  # [::1]:8000
        return value[1 : value.find("]")] if "]" in value else value
    if value.count(":") == 1:
        return value.partition(":")[0]
    return value


def foreign(origin: str | None, host: str) -> bool:
    """Whether an ``Origin`` names a page other than this server's: another host or
    another port than the request's ``Host`` (a page on another localhost port is
    another site). No ``Origin`` (a script) is not foreign."""
    if origin is None:
        return False
    return origin == "null" or urlsplit(origin).netloc.lower() != host.strip().lower()


def json_depth(raw: bytes, limit: int) -> bool:
    """Whether ``raw`` nests arrays and objects at most ``limit`` deep (strings skipped);
    checked before parsing, since the parser's recursion is what deep nesting attacks."""
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return False
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return True


def parse_json(raw: bytes) -> Any:
    """The JSON value of a body; :class:`RequestError` (400) if it is not JSON or nests too deep."""
    if not json_depth(raw, MAX_JSON_DEPTH):
        raise RequestError(400, f"malformed body: JSON nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        value = json.loads(raw, parse_constant=_no_constant)
        if b"\\u" in raw:  # an escape may be a lone surrogate ("\ud800"), which is not Unicode
            json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise RequestError(400, "malformed body: a text holds a lone surrogate escape, not Unicode") from None
    except (ValueError, RecursionError) as e:
        raise RequestError(400, f"malformed body: not JSON ({str(e)[:120]})") from None
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class TokenBucket:
    """``rate`` tokens a second up to ``burst``, per key (a client address)."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.state: dict[str, tuple[float, float]] = {}

    def take(self, key: str, now: float | None = None) -> float:
        """0 if a token was taken, else the seconds until one is due."""
        now = time.monotonic() if now is None else now
        tokens, last = self.state.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens >= 1.0:
            self.state[key] = (tokens - 1.0, now)
            if len(self.state) > 10_000:  # forget the full buckets of clients long gone
                self.state = {k: v for k, v in self.state.items() if v[0] < self.burst - 1}
            return 0.0
        self.state[key] = (tokens, now)
        return (1.0 - tokens) / self.rate


class Guard:
    """ASGI middleware: the checks of the module docstring, before the app sees a request."""

    def __init__(
        self,
        app: ASGIApp,
        hosts: Iterable[str],
        requests_per_second: float | None,
        request_burst: int,
        creates_per_minute: float | None,
        create_burst: int,
    ) -> None:
        self.app = app
        self.hosts = {host_name(h) for h in (*LOOPBACK_NAMES, *hosts)}
        self.requests = None if not requests_per_second else TokenBucket(requests_per_second, request_burst)
        self.creates = None if not creates_per_minute else TokenBucket(creates_per_minute / 60.0, create_burst)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            if scope["type"] == "websocket":
                self.check_websocket(scope)
            elif scope["type"] == "http":
                self.check(scope)
        except RequestError as e:
            await refuse(scope, send, e)
            return
        await self.app(scope, receive, send)

    def _headers(self, scope: Scope) -> dict[str, str]:
        """The request's headers, once its ``Host`` is one this server answers to (421 otherwise)."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if host_name(headers.get("host", "")) not in self.hosts:
            raise RequestError(
                421, "this server answers only to its own names (start it with --allow-host NAME to add one)"
            )
        return headers

    @staticmethod
    def _take(bucket: TokenBucket | None, scope: Scope) -> None:
        """A token of ``bucket`` for the request's client (429 with ``Retry-After`` if none is left)."""
        wait = 0.0 if bucket is None else bucket.take((scope.get("client") or ("?", 0))[0])
        if wait:
            raise RequestError(
                429, f"too many requests: wait {wait:.1f} s", {"Retry-After": str(max(1, math.ceil(wait)))}
            )

    def check(self, scope: Scope) -> None:
        headers = self._headers(scope)
        method = scope.get("method", "GET")
        if method not in ("GET", "HEAD"):
            if foreign(headers.get("origin"), headers.get("host", "")):
                raise RequestError(403, "cross-site request refused: the page is not this server's")
            if headers.get("sec-fetch-site") == "cross-site":
                raise RequestError(403, "cross-site request refused: the page is not this server's")
            length = headers.get("content-length", "0").strip() or "0"
            body = headers.get("transfer-encoding") is not None or length != "0"
            kind = headers.get("content-type", "").partition(";")[0].strip().lower()
            browser = "origin" in headers or "sec-fetch-site" in headers  # scripts may send any type
            if body and browser and kind != "application/json":
                raise RequestError(415, "a request body must be JSON (Content-Type: application/json)")
            if length.isdigit() and int(length) > MAX_BODY_BYTES:
                raise RequestError(413, f"request body over {MAX_BODY_BYTES} bytes")
        path = scope.get("path", "")
        if path.startswith("/api/"):
            self._take(self.requests, scope)
            if method == "POST" and path in ("/api/games", "/api/tables"):
                self._take(self.creates, scope)

    def check_websocket(self, scope: Scope) -> None:
        """A WebSocket handshake: the same Host check, and its ``Origin`` must be this server's.

        A browser sends ``Origin`` with every WebSocket handshake and applies no
        same-origin rule to them, so a page on another site could otherwise open a
        table's socket with the visitor's network position (cross-site WebSocket
        hijacking); a script without ``Origin`` is served, as for HTTP. The handshake
        counts against the client's request rate."""
        headers = self._headers(scope)
        if foreign(headers.get("origin"), headers.get("host", "")):
            raise RequestError(403, "cross-site connection refused: the page is not this server's")
        self._take(self.requests, scope)


async def refuse(scope: Scope, send: Send, error: RequestError) -> None:
    """Answer a refused request with its one-line JSON error; a WebSocket handshake gets
    it as an HTTP answer where the server can send one (the ASGI
    ``websocket.http.response`` extension), else is closed (policy violation)."""
    kind = "http.response"
    if scope["type"] == "websocket":
        if "websocket.http.response" not in (scope.get("extensions") or {}):
            await send({"type": "websocket.close", "code": 1008, "reason": str(error)[:120]})
            return
        kind = "websocket.http.response"
    body = json.dumps({"error": str(error)}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in error.headers.items()]
    await send({"type": f"{kind}.start", "status": error.status, "headers": headers})
    await send({"type": f"{kind}.body", "body": body})


async def json_body(request: Any, limit: int = MAX_BODY_BYTES) -> dict[str, Any]:
    """A request's body, a JSON object (empty: ``{}``), read at most ``limit`` bytes far
    (413 beyond, whatever the ``Content-Length`` said); :class:`ApiError` otherwise."""
    chunks: list[bytes] = []
    total = 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            raise ApiError(413, f"request body over {limit} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        body = parse_json(raw)
    except RequestError as e:
        raise ApiError(e.status, str(e)) from None
    if not isinstance(body, dict):
        raise ApiError(400, "malformed body: a JSON object is expected")
    return body


__all__ = [
    "LOOPBACK_NAMES",
    "MAX_BODY_BYTES",
    "MAX_JSON_DEPTH",
    "ApiError",
    "Guard",
    "RequestError",
    "TokenBucket",
    "foreign",
    "host_name",
    "int_field",
    "json_body",
    "json_depth",
    "parse_json",
    "play_refusing",
    "refuse",
    "rules_field",
    "seconds_field",
    "shown",
]
