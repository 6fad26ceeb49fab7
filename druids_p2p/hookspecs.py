"""The plugin hooks of druids-p2p and the markers to write one with (docs/plugins.md).

Hooks hand a plugin a ``register`` callback rather than collecting return values, so the host knows
which plugin registered what and can skip an invalid one alone. Imports nothing of the project.
"""

from __future__ import annotations

from collections.abc import Callable

import pluggy

PROJECT_NAME = "druids"
"""The pluggy project name: hook implementations must be marked with *this* project's marker."""

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def druids_register_bots(register: Callable[..., None]) -> None:
    """Register bots: call ``register(BotSpec(...))`` or ``register(name=..., factory=...)``.

    Names match ``[a-z0-9][a-z0-9_-]{0,31}``, unique across plugins; a factory takes no arguments
    and returns a new :class:`~druids_p2p.bots.host.Bot` (one per seat per game).
    """
