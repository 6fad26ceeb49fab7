"""``--plot``: every bot's rating over the games, with its uncertainty as a band.

matplotlib is an optional extra (``pip install 'druids-p2p[plot]'``): a tournament must not need
a plotting stack, so it is imported only here, and only when a plot is asked for.
"""

from __future__ import annotations

from pathlib import Path

from druids_p2p.tournament.summary import Summary

PLOT_EXTRA_HINT = "pip install 'druids-p2p[plot]' (or matplotlib)"


def matplotlib_missing() -> str | None:
    """None if matplotlib can be imported, else the one-line reason."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return f"--plot needs matplotlib: {PLOT_EXTRA_HINT}"
    return None


def plot_ratings(summary: Summary, path: Path, title: str = "") -> None:
    """Draw mu after each rated game, with a mu ± 2 sigma band, one colour per bot."""
    import matplotlib

    matplotlib.use("Agg")  # files only: never open a window, work without a display
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5), dpi=110)
    order = sorted(summary.bots, key=lambda name: -summary.bots[name]["ordinal"])
    for name in order:
        points = summary.history.get(name, [])
        if not points:
            continue
        xs = [p.game + 1 for p in points]
        mu = [p.mu for p in points]
        lo = [p.mu - 2 * p.sigma for p in points]
        hi = [p.mu + 2 * p.sigma for p in points]
        (line,) = ax.plot(xs, mu, label=f"{name} ({mu[-1]:.1f} ± {2 * points[-1].sigma:.1f})")
        ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.18, linewidth=0)
    ax.set_xlabel("games played")
    ax.set_ylabel("openskill rating (mu, band: ± 2 sigma)")
    ax.set_title(title or f"Ratings over {summary.games} games")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
