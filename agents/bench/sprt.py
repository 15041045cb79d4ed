"""A sequential probability ratio test on duplicate pairs: "A beats B by at least delta"
for only as many deals as the claim needs.

**The unit is the duplicate pair.** Every deal is played twice with the sides swapped,
and the pair's score (A's share of the hands won over both games, a hand without a winner
counting half) is one observation in ``[0, 1]``. Pairs are independent; games are not
(both games of a deal share the cards), so the test runs on pairs, as every interval in
:mod:`agents.playing.stats` does.

**The test.** On the mean pair score ``mu``: H0 ``mu = mu0`` (0.5: no edge) against
H1 ``mu = mu0 + delta``. Pair scores take a handful of values (0, .25, .5, .75, 1) with
an unknown distribution, so, as chess-engine testing does (Fishtest, cutechess-cli's
GSPRT), the log-likelihood ratio is the normal one with the variance estimated from the
pairs seen so far::

    LLR = (mu1 - mu0) * (sum(x) - n * (mu0 + mu1) / 2) / var

It is the exact LLR of two normal means with known variance; by the central limit theorem
it is a good approximation once a few dozen pairs are in, which is why no decision is taken
before ``min_pairs`` pairs, and why ``var`` has a floor (twenty pairs that all split 0.5
would otherwise give a zero variance and an infinite LLR).

**Decisions.** Wald's bounds ``lower = log(beta / (1 - alpha))`` and
``upper = log((1 - beta) / alpha)``: the run stops at the first pair where the LLR leaves
``(lower, upper)``. ``alpha`` is the chance of accepting H1 (claiming an edge of
``delta``) when there is no edge; ``beta`` the chance of accepting H0 when the true edge
is ``delta``. Between 0 and ``delta`` either answer may come: the test says which of the
two hypotheses the data favour, not the size of the edge (report that with
:func:`agents.playing.stats.mean_ci`). The crossing overshoots the bound, so the real error rates
are usually a little below the nominal ones.

**Determinism.** :meth:`SPRT.first_decision` scans the pairs in the order given (deal
order in the arena) and stops at the first crossing, so a run on fixed deals stops at the
same deal every time, whatever the number of workers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = ["SPRT", "Decision", "SPRTState"]

#: "H1": A beats B by at least ``delta``; "H0": no edge (mean ``mu0``); None: play on
Decision = Literal["H0", "H1"] | None


@dataclass(frozen=True)
class SPRTState:
    """Where the test stands after ``n`` pairs: the LLR, the bounds and the decision.

    ``decision`` is ``"H1"`` (A beats B by at least ``delta``: ``mu1 = mu0 + delta``
    accepted), ``"H0"`` (``mu0`` accepted) or ``None`` (no decision yet: play more deals).
    ``mean`` is the mean pair score over the ``n`` pairs (NaN when ``n == 0``).
    """

    n: int
    llr: float
    lower: float
    upper: float
    decision: Decision
    mean: float
    mu0: float
    mu1: float

    def summary(self) -> str:
        """One line: the decision, the pairs it took, the LLR against its bounds."""
        hyp = f"H0 mu={self.mu0:.3f} vs H1 mu={self.mu1:.3f}"
        if self.decision == "H1":
            verdict = f"H1 accepted (edge >= {self.mu1 - self.mu0:.3f})"
        elif self.decision == "H0":
            verdict = "H0 accepted (no edge of that size)"
        else:
            verdict = "no decision yet"
        return (
            f"SPRT {hyp}: {verdict} after {self.n} pairs, mean {self.mean:.4f}, "
            f"LLR {self.llr:+.3f} in [{self.lower:+.3f}, {self.upper:+.3f}]"
        )


@dataclass(frozen=True)
class SPRT:
    """The generalized SPRT (normal approximation) of ``mu = mu0`` against
    ``mu = mu0 + delta`` on duplicate pair scores in ``[0, 1]``.

    ``alpha``: the false-claim rate (H1 accepted when ``mu = mu0``); ``beta``: the
    missed-edge rate (H0 accepted when ``mu = mu0 + delta``). ``min_pairs``: no decision
    before this many pairs (the normal approximation and the variance estimate need a
    few dozen). ``var_floor``: the least variance the LLR divides by (pair scores with
    no spread would give an infinite LLR).
    """

    delta: float
    alpha: float = 0.05
    beta: float = 0.05
    mu0: float = 0.5
    min_pairs: int = 20
    var_floor: float = 1e-3

    def __post_init__(self) -> None:
        _check_open("alpha", self.alpha, 0.0, 1.0)
        _check_open("beta", self.beta, 0.0, 1.0)
        if self.alpha + self.beta >= 1.0:
            raise ValueError(f"alpha + beta must be below 1 (the bounds would cross), not {self.alpha + self.beta}")
        _check_open("delta", self.delta, 0.0, 0.5)
        _check_open("mu0", self.mu0, 0.0, 1.0)
        if not self.mu0 + self.delta < 1.0:
            raise ValueError(f"mu0 + delta must be below 1 (pair scores lie in [0, 1]), not {self.mu0 + self.delta}")
        if isinstance(self.min_pairs, bool) or not isinstance(self.min_pairs, (int, np.integer)):
            raise ValueError(f"min_pairs must be an integer, not {self.min_pairs!r}")
        if self.min_pairs < 2:
            raise ValueError(f"min_pairs must be at least 2 (a variance needs two pairs), not {self.min_pairs}")
        if not (math.isfinite(self.var_floor) and self.var_floor > 0.0):
            raise ValueError(f"var_floor must be a positive number, not {self.var_floor}")

    @property
    def mu1(self) -> float:
        """The mean pair score under H1: ``mu0 + delta``."""
        return self.mu0 + self.delta

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    def evaluate(self, scores: Sequence[float] | np.ndarray) -> SPRTState:
        """The state after all of ``scores`` (pair scores in deal order).

        This looks at the final LLR only; a run that stops as soon as it can should use
        :meth:`first_decision`, which also sees a crossing that a later pair undid.
        """
        x = _as_scores(scores)
        if x.size == 0:
            return self._state(0, 0.0, float("nan"))
        llr, mean = self._llr_path(x)
        return self._state(int(x.size), float(llr[-1]), float(mean[-1]))

    def first_decision(self, scores: Sequence[float] | np.ndarray) -> SPRTState:
        """The state at the first pair (in the order given) where the test decides, or
        after the last pair when it never does. Deterministic: the same pairs in the same
        order stop at the same pair, and ``evaluate(scores[:state.n])`` is that state."""
        x = _as_scores(scores)
        if x.size == 0:
            return self._state(0, 0.0, float("nan"))
        llr, mean = self._llr_path(x)
        n = np.arange(1, x.size + 1)
        crossed = (n >= self.min_pairs) & ((llr >= self.upper) | (llr <= self.lower))
        hits = np.flatnonzero(crossed)
        k = int(hits[0]) if hits.size else int(x.size) - 1
        return self._state(k + 1, float(llr[k]), float(mean[k]))

    # ------------------------------------------------------------------ internals
    def _llr_path(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """LLR and mean after each prefix of ``x``, from running sums (the same
        arithmetic for a prefix and for the whole, so the two entry points agree)."""
        n = np.arange(1, x.size + 1, dtype=float)
        s = np.cumsum(x)
        q = np.cumsum(x * x)
        mean = s / n
        with np.errstate(invalid="ignore", divide="ignore"):
            var = np.where(n > 1, (q - s * mean) / np.maximum(n - 1.0, 1.0), 0.0)
        var = np.maximum(var, self.var_floor)
        llr = (self.mu1 - self.mu0) * (s - n * (self.mu0 + self.mu1) / 2.0) / var
        return llr, mean

    def _state(self, n: int, llr: float, mean: float) -> SPRTState:
        decision: Decision = None
        if n >= self.min_pairs:
            if llr >= self.upper:
                decision = "H1"
            elif llr <= self.lower:
                decision = "H0"
        return SPRTState(
            n=n, llr=llr, lower=self.lower, upper=self.upper, decision=decision, mean=mean, mu0=self.mu0, mu1=self.mu1
        )


def _check_open(name: str, value: float, low: float, high: float) -> None:
    if not (isinstance(value, (int, float, np.floating)) and low < float(value) < high):
        raise ValueError(f"{name} must lie strictly between {low} and {high}, not {value!r}")


def _as_scores(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """Pair scores as a 1-D float array, refusing what cannot be a pair score."""
    x = np.asarray(scores, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"pair scores must be a 1-D sequence, not shape {x.shape}")
    if x.size and not (np.all(np.isfinite(x)) and x.min() >= 0.0 and x.max() <= 1.0):
        raise ValueError("pair scores must be finite and lie in [0, 1] (A's share of the hands of a deal's two games)")
    return x
