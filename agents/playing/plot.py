"""The ladder picture: ratings with their 95% intervals, drawn with matplotlib (an
optional extra, imported only when a picture is asked for)."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from agents.playing.stats import Ratings

PLOT_EXTRA = "pip install 'dehla[plot]'"


def require_matplotlib() -> ModuleType:
    """matplotlib, or a ``ModuleNotFoundError`` whose message names the extra to install
    (the command line checks this before a run, so a long run never ends without its
    picture for want of a package)."""
    try:
        import matplotlib
    except ImportError:
        raise ModuleNotFoundError(f"drawing the ladder needs matplotlib: {PLOT_EXTRA}", name="matplotlib") from None
    return matplotlib


def plot_ladder(ratings: Ratings, path: str, title: str = "") -> None:
    """Ratings with their 95% intervals as a horizontal ladder (matplotlib, Agg)."""
    matplotlib = require_matplotlib()
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = ratings.order()[::-1]  # strongest at the top
    names = [ratings.names[i] for i in order]
    elo = np.array([ratings.elo[i] for i in order])
    low = np.array([ratings.low[i] for i in order])
    high = np.array([ratings.high[i] for i in order])
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(names)))
    y = np.arange(len(names))
    ax.errorbar(
        elo, y, xerr=[np.maximum(elo - low, 0), np.maximum(high - elo, 0)], fmt="o", capsize=4, color="tab:blue"
    )
    ax.set_yticks(y, names)
    ax.set_xlabel("rating (Elo scale, Bradley-Terry; 95% bootstrap interval)")
    ax.axvline(0.0, color="grey", lw=0.5)
    if title:
        ax.set_title(title, fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    finally:
        plt.close(fig)
