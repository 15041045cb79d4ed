"""The study's routes, added to the browser game's app (``python -m agents.web --study FILE``).

=======================================  ==========================================
``GET  /study/{token}``                  the participant's page (``static/study.html``)
``GET  /study/join``                     open enrolment (when the file allows it)
``POST /api/study/enrol``                a new anonymous participant -> ``{token, link}``
``GET  /api/study/{token}``              consent text, progress, the person's table
``POST /api/study/{token}/consent``      ``{agree: true|false, label?}``
``POST /api/study/{token}/move``         ``{move: "TS", seat?, version?}``
``POST /api/study/{token}/advance``      one bot move or R1.4 draw, after the delay
``POST /api/study/{token}/next``         the next hand once this one is recorded
=======================================  ==========================================

The link's token is the only key: a route acts on the hand of the participant whose
token it names, at that participant's seat, and on nothing else (a move for another
seat is refused as the game refuses it). Study hands are not in the server's game list
and no ``/api/games`` route reaches them. Without a "yes" to the consent text there is
no table at all. The table is the same JSON the game's page gets (:mod:`.table`, from
the person's ``PlayerView`` only), with the bots' specs left out so that the person
does not know which partner they were given, and no path of the server's disk.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from agents.web.bots import BotCancelled, BotFailed, decision_seed
from agents.web.guard import ApiError, int_field, json_body, play_refusing
from agents.web.server import STATIC_DIR, move_fields
from agents.web.study import Participant, Study, StudyFull, StudyHand, StudyRefusal
from agents.web.table import table_state


def study_state(study: Study, p: Participant, **extra: Any) -> dict[str, Any]:
    """What the participant's page is sent (see the module docstring)."""
    exp = study.experiment
    hand = study.current(p)
    table = None
    if hand is not None:
        table = table_state(hand.game)
        table["record"] = None  # a path on the server's disk
        for seat in table["seats"]:
            seat["agent"] = None  # the person is not told which partner they were given
    return {
        "experiment": {"id": exp.id, "title": exp.title},
        "participant": p.participant,
        "consent_text": exp.consent,
        "consent": p.consent,
        "identifying": exp.identifying,
        "progress": {"done": p.hands_done, "total": exp.hands},
        "finished": study.finished(p) and table is None,
        "table": table,
        **extra,
    }


def attach_study(app: Starlette, study: Study, base: str = "") -> list[str]:
    """Add the study's routes to ``app`` (made by :func:`.server.create_app`) and return
    the lines to print for the operator: the participant links."""
    thinker = app.state.thinker
    config = app.state.config
    catalogue = app.state.catalogue
    locks: dict[str, asyncio.Lock] = {}
    cancel = asyncio.Event()  # set when the server stops: thinking bots give up

    def participant(request: Request) -> tuple[Participant, asyncio.Lock]:
        token = request.path_params["token"]
        p = study.get(token)
        if p is None:
            raise ApiError(404, "no such participant link here (check the link you were given)")
        return p, locks.setdefault(token, asyncio.Lock())

    def playing(p: Participant) -> StudyHand:
        if p.consent != "yes":
            raise ApiError(403, "the study's consent was not given: nothing can be played")
        hand = study.current(p)
        if hand is None:
            raise ApiError(409, "every hand of the study is played; thank you")
        return hand

    def answer(p: Participant, **extra: Any) -> JSONResponse:
        return JSONResponse(study_state(study, p, **extra), headers={"Cache-Control": "no-store"})

    async def page(request: Request) -> Response:
        token = request.path_params.get("token")
        if token is None and not study.experiment.open_enrolment:
            raise ApiError(404, "this study enrols by personal links only")
        if token is not None and study.get(token) is None:
            raise ApiError(404, "no such participant link here (check the link you were given)")
        return FileResponse(STATIC_DIR / "study.html", headers={"Cache-Control": "no-cache"})

    async def enrol(request: Request) -> Response:
        if not study.experiment.open_enrolment:
            raise ApiError(404, "this study enrols by personal links only")
        try:
            p = study.enrol()
        except StudyFull as e:
            raise ApiError(503, str(e)) from None
        return JSONResponse({"participant": p.participant, "token": p.token, "link": f"/study/{p.token}"}, 201)

    async def get_state(request: Request) -> Response:
        p, lock = participant(request)
        async with lock:
            await anyio.to_thread.run_sync(study.current, p)  # dealing builds the bots: off the event loop
            return answer(p)

    async def consent(request: Request) -> Response:
        p, lock = participant(request)
        body = await json_body(request)
        agree = body.get("agree")
        if not isinstance(agree, bool):
            raise ApiError(400, 'malformed body: {"agree": true} or {"agree": false} expected')
        label = body.get("label")
        if label is not None and (not isinstance(label, str) or len(label) > 200):
            raise ApiError(400, "malformed body: 'label' must be a text of at most 200 characters")
        async with lock:
            try:
                study.consent(p, agree, label if study.experiment.identifying else None)
            except StudyRefusal as e:
                raise ApiError(409, str(e)) from None
            await anyio.to_thread.run_sync(study.current, p)
            return answer(p)

    async def move(request: Request) -> Response:
        p, lock = participant(request)
        body = await json_body(request)
        seat, version = move_fields(body)
        async with lock:
            hand = playing(p)
            game = hand.game
            play_refusing(game, body["move"], seat, version)
            study.after_change(p, hand)
            return answer(p)

    async def advance(request: Request) -> Response:
        p, lock = participant(request)
        body = await json_body(request)
        version = int_field(body, "version")
        hand = playing(p)
        game = hand.game
        if (version is not None and version != game.version) or game.status() != "bot" or hand.recorded:
            return answer(p, advanced=False)
        view = game.view()
        delay = config.bot_delay * (2 if view.history and not view.trick and view.to_act >= 0 else 1)
        if delay:
            await asyncio.sleep(delay)
        async with lock:
            if study.playing.get(p.token) is not hand or game.status() != "bot" or hand.recorded:
                return answer(p, advanced=False)
            if version is not None and version != game.version:
                return answer(p, advanced=False)
            if not game.draw():
                turn = game.bot_turn()
                assert turn is not None
                seat, agent, bot_view = turn
                spec = game.specs[seat]
                seed = decision_seed(game.seed, seat, game.version)
                try:  # a bot that does not think keeps the arena's seeding, so the baseline's bot plays the same
                    action, _late = await thinker.decide(
                        agent, spec, game.rules, seed, bot_view, cancel=cancel, reseed=False
                    )
                except BotCancelled:
                    return answer(p, advanced=False)
                except BotFailed as e:  # a bot's failure is not the person's
                    raise ApiError(500, catalogue.scrub(f"the bot at seat {seat} failed: {e}")) from None
                game.apply_bot(seat, action)
            study.after_change(p, hand)
            return answer(p, advanced=True)

    async def next_hand(request: Request) -> Response:
        p, lock = participant(request)
        async with lock:
            playing(p)
            try:
                await anyio.to_thread.run_sync(study.next_hand, p)
            except StudyRefusal as e:
                raise ApiError(409, str(e)) from None
            return answer(p)

    routes = [
        Route("/study/join", page, methods=["GET"]),
        Route("/study/{token}", page, methods=["GET"]),
        Route("/api/study/enrol", enrol, methods=["POST"]),
        Route("/api/study/{token}", get_state, methods=["GET"]),
        Route("/api/study/{token}/consent", consent, methods=["POST"]),
        Route("/api/study/{token}/move", move, methods=["POST"]),
        Route("/api/study/{token}/advance", advance, methods=["POST"]),
        Route("/api/study/{token}/next", next_hand, methods=["POST"]),
    ]
    app.router.routes[0:0] = routes
    app.state.study = study
    app.state.study_cancel = cancel
    exp = study.experiment
    lines = [f"Study {exp.id}: {exp.title} (records in {study.folder})"]
    lines += ["  " + line for line in study.links(base or "")]
    return lines


__all__ = ["attach_study", "study_state"]
