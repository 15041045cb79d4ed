"""The benchmark: one protocol, so that numbers reported by different people compare.

    python -m agents.bench --rules dehla                          # the published reference ladder
    python -m agents.bench --rules dehla --agent policy:my.pt     # place an agent on it
    python -m agents.bench --rules dehla --agent A --vs B --sprt --delta 0.02
    python -m agents.bench --rules dehla --crossplay hard,medium,policy:dehla --opponent hard
    python -m agents.bench --rules dehla --compute-ladder --write # maintainers: refit the ladder

**Deal sets** (:mod:`agents.playing.deal_sets`): per ruleset preset (``dehla``, ``dehla`` with
``trump=chosen``, ``dehla-direct``, ``court-piece``, ``coat-pees``) 5,000 fixed deals
shipped in the package, with the benchmark version (:data:`BENCH_VERSION`) in every
result. ``--deals N`` plays the first ``N``: the same numbers on every run and machine.

**The ladder** (:mod:`.ladder`): references ``random``, ``easy``, ``medium``, ``hard``,
a sampling search and the preset's shipped policy, with published ratings; ``--agent
SPEC`` plays SPEC against every reference (duplicate deals, both seatings) and places
it on the published scale with a 95% interval. ``--mode match`` plays whole matches
(kots, streaks, points and dealer rotation decide them) and shows the hand and match
win rates side by side.

**Sequential testing** (:mod:`.sprt`): ``--sprt`` stops as soon as "A beats B by at
least delta" is accepted or rejected at the stated error rates, on duplicate pairs in
deal order, so it stops at the same deal every time.

**Partnership research** (:mod:`.crossplay`): the cross-play table against a fixed
opposing pair, the self-play vs cross-play gap, the ad-hoc teamwork score and
partner-adjusted ratings (:mod:`.ratings`).

Runs use every core (``--workers``), show progress, and with ``--results FILE`` save
each finished block of deals, so an interrupted run continues where it stopped
(:mod:`.runner`).
"""

from agents.playing.deal_sets import BENCH_VERSION, PRESETS, DealSet, Preset, preset_for

__all__ = ["BENCH_VERSION", "PRESETS", "DealSet", "Preset", "preset_for"]
