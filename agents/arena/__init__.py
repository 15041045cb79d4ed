"""The arena: duplicate-deal duels and round robins between agents.

    python -m agents.arena --rules dehla [--option key=value ...] --a hard --b medium \\
        --deals 2000 --seed 7 [--json] [--partner-a SPEC] [--partner-b SPEC] \\
        [--workers N] [--mode hand|match] [--agents a,b,c] [--plot out.png] [--quiet]

**Duplicate deals.** Deal ``i`` has the deck drawn from ``np.random.default_rng([seed,
i])`` and dealer ``i % players``. Every deal is played twice with the sides swapped: A's
side on seats {0, 2} ({0, 2, 4} with six players) and B's on {1, 3}, then A on {1, 3}
and B on {0, 2}; same dealer, same cards, same chance generator for the R1.4 draw. The
agent at seat ``s`` is made fresh for each game with a seed derived from ``(seed, i,
s)`` only, so results do not depend on the number of worker processes, and an agent
against itself scores exactly 0.5. The pair of games is the statistical unit (see
:mod:`agents.playing.stats`).

**Cross-play.** A side's *lead* seat is its lowest seat: seat 0 when the side sits on
{0, 2} and seat 1 when it sits on {1, 3}. The lead seat plays the side's spec (``--a``
or ``--b``); the other seats of the side (the partner opposite, both teammates with
six players) play ``--partner-a`` / ``--partner-b`` when given (``--partner`` is
``--partner-a``), otherwise the same spec.

**Modes.** ``--mode hand`` (default): each game is one hand. ``--mode match``: each
game is a whole match; hand ``k`` of the match is dealt from ``default_rng([seed, i,
3, k])`` (its R1.4 draw from ``[seed, i, 4, k]``), so both games of a deal see the same
decks in the same order. A match stops at the ruleset's ``max_hands`` or, where it has
none (``coat-pees``), after 1000 hands as a draw.

**Figures**, all from A's side: ``win_rate``, the share of hands (rounds) won by A, a
hand with no winner (``dehla-direct`` 2-2, a tie) counting half, with its 95% interval
(normal approximation over deals; a seeded percentile bootstrap too); ``tens_diff``
and ``points_diff``, A minus B per hand; kots per side; in match mode
``match_win_rate``, a drawn or unfinished match counting half; decisions per second per
spec (time inside ``act``). In hand mode also ``flat_deals``, the share of deals the
cards decided (the same seats won both games, so the play changed nothing), and
``swing_win_rate``, A's share of hands won on the other deals: ``win_rate = 0.5 *
flat_deals + swing_win_rate * (1 - flat_deals)``, so a ruleset where most deals are
flat (``court-piece``) shows a real edge as a small win rate.

**Round robin.** ``--agents hard,medium,easy,random`` plays every pair on the same
deals and prints Bradley-Terry ratings on the Elo scale with 95% bootstrap intervals
(over deals) and the pairwise matrix; ``--plot`` draws the ladder. In ``--agents`` a
``key=value`` piece belongs to the spec before it (``search:k=16,depth=5,hard`` is two
agents).

**Command line.** A bad argument, rule option or agent spec (an unknown name or
parameter, a missing or unreadable checkpoint, a policy trained for another ruleset)
is one line on stderr and exit status 2, before any deal is played. ``--workers``
above the CPU count is capped with a note. Progress goes to stderr (tqdm where
installed, else a plain line; ``--quiet``: none). The results are printed before the
ladder is drawn, so a picture that cannot be written (status 2) never loses a run;
``--plot`` needs matplotlib (``pip install 'dehla[plot]'``). Ctrl-C stops the workers
and exits with status 130, SIGTERM with 143.

**Python:** :func:`run_duel` and :func:`run_round_robin`; :func:`play_hand` plays one
hand of given agents on a given deck. They live in :mod:`agents.playing`, the library
under every application that plays agents (deals, the play loop, duels, statistics);
this package is the command line (:mod:`.cli`) over it.
"""

from __future__ import annotations

from agents.arena.cli import main
from agents.playing.loop import play_hand
from agents.playing.plot import plot_ladder
from agents.playing.run import run_duel, run_round_robin

__all__ = ["main", "play_hand", "plot_ladder", "run_duel", "run_round_robin"]
