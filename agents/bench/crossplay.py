"""Partnership research: how well does an agent play with partners it has never met?

:func:`crossplay` seats every agent of a list as a side's lead with every agent of the
list (itself included) as its partner, against one fixed opposing pair, on the same
deals of the preset's set (the arena's ``--partner-a``: a side's lowest seat plays the
lead, its other seats the partner). From that table:

- the **self-play vs cross-play gap** per agent: its result with itself as partner
  minus its mean result with the others (both seatings), i.e. how much it relies on
  playing with itself (Hanabi's self-play/cross-play table);
- the **ad-hoc teamwork score**: its mean result with partners it was not trained with;
- **partner-adjusted ratings**: individual ratings fitted from team results (the logit
  of a side's hand-win probability is the sum of its members' ratings minus the
  opponents'), so what an agent adds to a side is separated from who it sat with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents.bench.ratings import CrossPlayGap, TeamGame, TeamRatings, adhoc_score, crossplay_gaps, fit_team_ratings
from agents.bench.runner import Bench
from agents.playing.results import DuelResult


@dataclass(frozen=True)
class CrossPlay:
    agents: tuple[str, ...]
    opponents: tuple[str, str]
    duels: dict[tuple[str, str], DuelResult]  # (lead, partner) -> its duel against the opponents
    team: TeamRatings

    @property
    def deals(self) -> int:
        return next(iter(self.duels.values())).deals

    def win_rates(self) -> dict[tuple[str, str], float]:
        return {k: d.win_rate.value for k, d in self.duels.items()}

    def gaps(self) -> dict[str, CrossPlayGap]:
        return crossplay_gaps(self.win_rates())

    def adhoc(self) -> dict[str, float]:
        table = self.win_rates()
        return {a: adhoc_score(table, a, [p for p in self.agents if p != a]) for a in self.agents}

    def as_dict(self) -> dict[str, Any]:
        gaps = self.gaps()
        adhoc = self.adhoc()
        return {
            "agents": list(self.agents),
            "opponents": list(self.opponents),
            "deals": self.deals,
            "win_rate": {f"{lead}+{partner}": d.win_rate.value for (lead, partner), d in self.duels.items()},
            "ci": {f"{lead}+{partner}": [d.win_rate.low, d.win_rate.high] for (lead, partner), d in self.duels.items()},
            "self_play": {a: gaps[a].self_play for a in self.agents},
            "cross_play": {a: gaps[a].cross_play for a in self.agents},
            "gap": {a: gaps[a].gap for a in self.agents},
            "adhoc": adhoc,
            "team_ratings": {
                a: {"rating": e.value, "low": e.low, "high": e.high} for a, e in self.team.ratings.items()
            },
        }

    def table(self) -> str:
        table = self.win_rates()
        head = "| lead \\ partner | " + " | ".join(f"`{p}`" for p in self.agents) + " |"
        lines = [head, "|:--|" + "--:|" * len(self.agents)]
        for lead in self.agents:
            lines.append(f"| `{lead}` | " + " | ".join(f"{table[(lead, p)]:.3f}" for p in self.agents) + " |")
        gaps, adhoc = self.gaps(), self.adhoc()
        summary = ["| agent | self-play | cross-play | gap | ad-hoc teamwork | partner-adjusted rating |"]
        summary.append("|:--|--:|--:|--:|--:|--:|")
        for a in self.agents:
            g, e = gaps[a], self.team.ratings[a]
            summary.append(
                f"| `{a}` | {g.self_play:.3f} | {g.cross_play:.3f} | {g.gap:+.3f} | {adhoc[a]:.3f} "
                f"| {e.value:+.0f} [{e.low:+.0f}, {e.high:+.0f}] |"
            )
        opp = "+".join(self.opponents)
        return (
            f"cross-play: share of hands won by the side (row lead, column partner) against {opp}, "
            f"{self.deals} deals x 2 each\n" + "\n".join(lines) + "\n\n" + "\n".join(summary)
        )


def check_crossplay_agents(agents: Sequence[str]) -> list[str]:
    """``agents`` if they make a cross-play table: at least two, none repeated, since
    each agent's cross-play and ad-hoc scores are its results with the *other* agents
    (one agent named twice has none, and its two rows would be one); ``ValueError``
    naming the repeats otherwise."""
    agents = list(agents)
    repeated = sorted({a for a in agents if agents.count(a) > 1})
    if repeated:
        raise ValueError(f"cross-play agents must differ: {', '.join(repeated)} named more than once")
    if len(agents) < 2:
        raise ValueError(f"cross-play needs at least two agents, not {agents}")
    return agents


def crossplay(
    bench: Bench, agents: Sequence[str], deals: int, opponent: str = "hard", opponent_partner: str | None = None
) -> CrossPlay:
    """Every (lead, partner) pairing of ``agents`` (two or more, distinct:
    :func:`check_crossplay_agents`) against ``opponent`` (with ``opponent_partner``,
    default the same) on the first ``deals`` deals."""
    agents = tuple(check_crossplay_agents(agents))
    opp_partner = opponent if opponent_partner is None else opponent_partner
    duels = {
        (lead, partner): bench.duel(lead, opponent, deals, partner_a=partner, partner_b=opp_partner)
        for lead in agents
        for partner in agents
    }
    others = bench.rules.players // 2 - 1  # partner seats per side
    games = [
        TeamGame((lead,) + (partner,) * others, (opponent,) + (opp_partner,) * others, r.a_hands / r.hands, r.hands)
        for (lead, partner), d in duels.items()
        for r in d.records
    ]
    names = list(dict.fromkeys([*agents, opponent, opp_partner]))
    team = fit_team_ratings(names, games, seed=bench.deals.seed)
    return CrossPlay(agents, (opponent, opp_partner), duels, team)
