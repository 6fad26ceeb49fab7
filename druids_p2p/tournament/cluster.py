"""Playing a tournament's batches on a Dask distributed cluster (being written)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from druids_p2p.plugins import BotRegistry
    from druids_p2p.tournament.runner import Feed, TournamentConfig


def cluster_unavailable(address: str) -> str | None:
    """None if ``--cluster ADDRESS`` can run, else the one-line reason."""
    return f"--cluster {address}: the Dask backend is not available yet"


def play_on_cluster(
    address: str,
    feed: Feed,
    config: TournamentConfig,
    registry: BotRegistry,
    plugins_dirs: Sequence[str | os.PathLike[str]],
    out: Any,
) -> None:
    raise NotImplementedError(cluster_unavailable(address))
