"""Play in the browser: ``python -m agents.web`` (or ``dehla-web``).

Starts a local server (``--host``, default 127.0.0.1; ``--port``, default 8000, 0 for a
free one), prints its address, and serves one page on which a person plays a whole
match of any ruleset and options of RULES.md, at any seat, with the partner and the
opponents chosen from the server's catalogue (``easy`` ... ``hard``, ``search:k=16``
within the registry's bounds, ``policy:NAME`` for the shipped policies and those of
``--policy-dir``; a client never names a file, see :mod:`.bots`). Needs the ``web``
extra: ``pip install dehla[web]``.

The table shows what a player at a real table sees (R0.6, from the person's
``PlayerView`` only, see :mod:`.table`): the hand sorted with the legal cards raised
and the others not clickable, the trick with who played what and who is winning it,
the middle in ``dehla`` (R1.5), trump and who made it (a closed trump stays hidden
until revealed, R2.4c), bids and the contract in ``coat-pees``, tricks, tens, points and
kots per side, the dealer and whose turn it is, and the hand's log. Keyboard: type a
card (``t`` ``s`` plays the ten of spades, ``10s`` too), a suit letter to name trump,
``8h`` to bid, ``p`` to pass, arrow keys and Enter over the buttons, ``n`` for the next
hand, ``?`` for help.

The server keeps the rules (:mod:`.server`): every move goes through the engine, and
a refused one changes nothing and answers the engine's error (move, seat, rule). Bots
move after a short delay (``--bot-delay``). Every finished or abandoned game is saved
as an R6 record in ``--record-dir`` (:mod:`.records`), which ``python -m
dehla_env.replay FILE`` plays back.

Modules: :mod:`.game` (one match: engine, bots, record; its log is :mod:`agents.playing.narrate`),
:mod:`.table` (the page's JSON), :mod:`.meta` (the setup form's choices),
:mod:`.records` (R6 files), :mod:`.bots` (the bot catalogue, and bots that think in
a child process that can be stopped), :mod:`.guard` (hosts, origins, sizes and rates),
:mod:`.rulebook` (the "How to play" page from ``dehla_env/RULES.md``), :mod:`.server`
(the Starlette app), :mod:`.cli` (the command), ``static/`` (plain HTML, CSS and JS;
nothing is fetched from elsewhere).

Tables where several people play (``/tables``, docs/web.md "Playing with friends"):
:mod:`.tables` (a shared game, one secret link per seat, the spectator's public view,
WebSocket updates, the bots' task, limits and expiry).

Studies of human-bot partnership (``--study FILE``, docs/study.md): :mod:`.experiment`
(the experiment file), :mod:`.study` (participants, records, baseline, dataset, analysis;
``python -m agents.web.study``), :mod:`.study_server` (the participants' routes).

Version history: 0.1, the first release; 0.2, the "How to play" view, a layout for
phones, the limits of a server others can reach, tables for several people, and
studies.
"""
