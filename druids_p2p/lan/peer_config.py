"""What one peer is asked to do: host or join which table, as whom, with which player, how patient.

:class:`PeerConfig` is everything the command line (or the terminal UI) decides before a peer
starts; the lobby, the session and the seated table's runner only read it. :func:`make_player`
turns its ``player``/``custom_player``/``bot_players`` fields into this seat's :class:`Player`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from druids_p2p.games.registry import default_name
from druids_p2p.games.seam import TableOptions
from druids_p2p.lan.admission import Approver
from druids_p2p.lan.chat import ChatOutbox
from druids_p2p.lan.discovery import DEFAULT_PORT
from druids_p2p.lan.errors import PeerError
from druids_p2p.lan.players import Player, PromptPlayer
from druids_p2p.wire import Identity


@dataclass
class HostSpec:
    """The table a host opens: its name and the game's options."""

    name: str
    options: TableOptions
    ruleset: str = field(default_factory=default_name)
    """The game the table plays (bound into its seat message and named in its beacon)."""


@dataclass
class PeerConfig:
    """One peer's orders (see the module docstring); ``home`` keeps its tables' folders."""

    home: Path
    identity: Identity
    player: str = "bot:random"
    """``bot:NAME`` or ``human``."""
    bind: str = "127.0.0.1"
    port: int = 0
    host: HostSpec | None = None
    join: str | None = None
    """``HOST:PORT`` of a host's lobby socket."""
    announcement: bytes | None = None
    """A host's signed beacon heard on the LAN (``druids join NAME``): join with it directly,
    without asking a lobby socket (``join`` is then unused)."""
    announce: bool = True
    beacon_port: int = DEFAULT_PORT
    budget_ms: float = 100.0
    away_after_s: float = 3.0
    gone_after_s: float = 300.0
    """The move limit: how long a seat may take over a move (a person thinking) before it is
    blamed as gone; also the longest any owed message is waited for."""
    step_deadline_s: float = 10.0
    """How long an automatic message (seating, a card-table step, an owners' word or its check,
    the result) may be owed before its seat is blamed for withholding it
    (``peer/deadlines.py``): short, since a seat can send every one of them just before it."""
    rejoin_time_s: float = 30.0
    """A seat that falls silent while it owes an automatic message is waited for this much
    longer, once for the whole game (time to restart and rejoin), before it is unreachable."""
    lobby_timeout_s: float = 600.0
    plugins_dirs: tuple[Path, ...] = ()
    emit: Callable[[dict[str, Any]], None] = field(default=lambda event: None)
    human_input: Callable[[str], str] = field(default=input)
    custom_player: Player | None = None
    """Plays this seat instead of ``player`` (the terminal UI plugs itself in here)."""
    bot_players: BotPlayers | None = None
    """Builds the player of a ``bot:NAME`` seat (the CLI passes ``cli.peer_run.bot_player``).
    Injected so that the network layer meets players only as :class:`Player` and never imports
    the bots or the plugin loader; None: only ``human`` and ``custom_player`` seats can play."""
    approve_join: Approver | None = None
    """Asked about every joiner the host does not seat without asking (admission.py)."""
    allow_joins: tuple[str, ...] = ()
    """Fingerprint prefixes of joiners the host seats without asking (``--allow FP``)."""
    open_table: bool = False
    """Seat anyone (``--open``). Without it, ``allow_joins`` or ``approve_join`` a host seats
    nobody: every joiner is refused, told which fingerprint to ask the host to allow."""
    clock: Callable[[], float] = field(default=time.monotonic)
    """The seated table's clock (liveness, deadlines, grace periods): tests pass a fake one."""
    table_name: str | None = None
    """``druids join NAME``: the name (or lobby id prefix) typed, kept to find the table again."""
    resume: bool = False
    """``--resume``: rejoin the table still playing in ``home`` (homes.choose_table)."""
    new: bool = False
    """``--new``: start a new table even if one is still playing here (it is kept)."""
    resume_folder: Path | None = None
    """Rejoin exactly this saved table (``<home>/tables/<id>``)."""
    chat: ChatOutbox | None = None
    """Lines this seat's person types at the table (the terminal UI); None: it says nothing."""
    go_on: bool = True
    """Go on at a new table without a seat that kept the coin flip from finishing
    (``reseat.py``, protocol.md §4). The terminal UI shows one table per session: it stops."""
    go_on_ask: Callable[[dict[str, Any]], bool] | None = None
    """Asked, when a seat of a game dealt by rounds is gone for good, whether to go on without
    it at a new table with a bot in its seat (``go_on.py``); handed the offer (its ``text`` is
    the question), it answers within ``go_on.ASK_S``. None: never (``--go-on``: always yes;
    the terminal UI asks its person)."""
    stand_in_bot: str = "rule"
    """The bot that stands in for a departed seat, if this peer is the one to start it."""
    rematch_ask: Callable[[dict[str, Any]], bool] | None = None
    """Asked once a table has ended whether to play a rematch (``rematch.py``): the same
    players and options at a new table, a bot for any that does not come; it answers within
    ``rematch.ASK_S``. None: never (``--rematch N``: yes N times; the terminal UI: key r)."""


BotPlayers = Callable[[str, PeerConfig, bytes], Player]
"""``(bot name, config, the seat's secret seed) -> Player``, raising :class:`PeerError` for an
unknown bot: how a ``bot:NAME`` seat gets its player (``PeerConfig.bot_players``)."""


def make_player(config: PeerConfig, secret_seed: bytes) -> Player:
    """This seat's player: the UI's own, a person at the terminal, or a ``bot:NAME``."""
    if config.custom_player is not None:
        return config.custom_player
    if config.player == "human":
        return PromptPlayer(config.human_input)
    if not config.player.startswith("bot:"):
        raise PeerError(f"a player is 'human' or 'bot:NAME', not {config.player!r}")
    if config.bot_players is None:
        raise PeerError(f"{config.player!r}: this peer was given no bot players (PeerConfig)")
    return config.bot_players(config.player[4:], config, secret_seed)


__all__ = ["BotPlayers", "HostSpec", "PeerConfig", "make_player"]
