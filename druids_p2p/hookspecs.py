"""The plugin hooks of druids-p2p: what a plugin may implement, and the markers to write one with.

A plugin is any module or object with functions marked ``@hookimpl`` and named after a hook below::

    from druids_p2p.api import hookimpl  # plugins import the public API, not this module

    @hookimpl
    def druids_register_bots(register):
        register(name="mybot", factory=MyBot, version="1.0", description="...")

Hooks hand the plugin a ``register`` callback instead of collecting return values, so that one
plugin can register several things, and the host can tell exactly which plugin registered what
(and skip a plugin whose registrations are invalid without losing anyone else's).

This module stays import-light (pluggy and typing only) and below the bots: it imports nothing of
the project. The ``register`` callback's precise type, ``RegisterBot``, lives with the bot
interface in ``druids_p2p.bots.host``; plugins get both from ``druids_p2p.api``.
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
    """Register bots: call ``register(BotSpec(...))`` or ``register(name=..., factory=...)``
    (``register`` is a :class:`~druids_p2p.bots.host.RegisterBot`).

    Names match ``[a-z0-9][a-z0-9_-]{0,31}`` and must be unique across all loaded plugins; a
    factory is a callable taking no arguments that returns a new
    :class:`~druids_p2p.bots.host.Bot` (one per seat per game).
    """
