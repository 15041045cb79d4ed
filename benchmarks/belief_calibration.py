"""How well weighted worlds predict where the unseen cards are, per likelihood power.

    python benchmarks/belief_calibration.py [--players medium] [--hands 24] [--worlds 64]

Plays ``--hands`` seeded ``dehla`` hands with four ``--players`` bots. At every card
decision with a choice from the third trick on, it draws ``--worlds`` consistent deals
from the view (:class:`agents.bots.sampler.WorldSampler`), weighs them with
:class:`agents.search.belief.PlayLikelihood` (``--model``, by default ``policy:dehla-playout``) at
each power, and scores the weighted worlds by the mean log-probability they give each
unseen card's true holder (probabilities clipped at 0.001). Power 0 is the uniform
sampler. Higher is better; :data:`agents.search.belief.POWER` was chosen with it.
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.base import Agent
from agents.bots.sampler import WorldSampler
from agents.nets.agent import PolicyAgent
from agents.playing.deals import deal_deck
from agents.playing.loop import play, sampled
from agents.registry import make_agent
from agents.search.belief import PlayLikelihood
from dehla_env.engine import MatchState, Phase
from dehla_env.rules import make_rules
from dehla_env.view import PlayerView


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", default="medium", help="agent spec of all four seats")
    parser.add_argument("--hands", type=int, default=24)
    parser.add_argument("--worlds", type=int, default=64)
    parser.add_argument("--powers", default="0,0.25,0.5,0.75,1")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--model", default="policy:dehla-playout", help="the policy spec that models the play")
    args = parser.parse_args(argv)
    rules = make_rules("dehla")
    model = make_agent(args.model, rules)
    assert isinstance(model, PolicyAgent), "--model is a policy spec"
    likelihood = PlayLikelihood(rules, model.net, power=1.0)
    powers = [float(p) for p in args.powers.split(",")]
    scores: dict[float, list[float]] = {p: [] for p in powers}
    rng = np.random.default_rng(1)
    bits = np.arange(52)
    bots: list[Agent] = []

    def scored(seat: int, view: PlayerView) -> int:
        """Score the beliefs at every play decision past the third trick, then let the bot move."""
        if view.phase == Phase.PLAY and len(view.legal_actions) > 1 and len(view.history) >= 3:
            deals = [WorldSampler(view).sample(rng) for _ in range(args.worlds)]
            log_w = likelihood.log_weights(view, deals)
            if log_w.any():
                held = np.array([[(h >> bits) & 1 for h in d.hands] for d in deals], float)  # (worlds, 4, 52)
                truth = np.array([(h >> bits) & 1 for h in match.hand.hands], bool)
                truth[seat] = False  # its own cards are known
                for p in powers:
                    w = np.exp(p * (log_w - log_w.max()))
                    prob = np.einsum("w,wtc->tc", w / w.sum(), held)
                    scores[p].append(float(np.log(np.clip(prob[truth], 1e-3, 1.0)).mean()))
        return bots[seat].act(view)

    for i in range(args.hands):
        match = MatchState(rules, i % 4)
        match.apply_deal(deal_deck(rules, args.seed, i))
        bots[:] = [make_agent(args.players, rules, 100 + s) for s in range(4)]
        play(match, scored, sampled(np.random.default_rng(i)))
    decisions = len(scores[powers[0]])
    setup = f"{args.hands} hands, {decisions} decisions, {args.worlds} worlds each"
    print(f"model {args.model}, players {args.players}, {setup}")
    print(f"{'power':>6s}  mean log-probability of the true holder")
    for p in powers:
        print(f"{p:6.2f}  {np.mean(scores[p]):.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
