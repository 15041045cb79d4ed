"""Playing agents against each other: the library under every application that does
(the arena, the benchmark, the trainer, the web server, the terminal game, the
benchmark scripts). No application imports another's modules; what they share is here.

:mod:`.loop` is the one play loop (chance, else the seat to act decides from its own
view, apply) and :func:`.loop.play_hand`; :mod:`.deals` the duplicate deals and every
seed (decks, dealers, chance, agents); :mod:`.deal_sets` the benchmark's shipped,
versioned deal sets; :mod:`.duel` one duplicate deal played both ways round;
:mod:`.pool` the worker processes; :mod:`.run` duels and round robins
(:func:`.run.run_duel`); :mod:`.results` their records and figures; :mod:`.stats` the
intervals and ratings; :mod:`.ladder` the published reference ladders; :mod:`.plot`
the ladder picture; :mod:`.command_line` the arguments the duel commands share;
:mod:`.narrate` a match told in words, as one seat sees it (the web's log, the terminal game).
"""
