"""The player of a ``bot:NAME`` seat at a peer (``druids peer``, ``host``, ``join``): a bot from
the loaded plugins under its move budget. Apart from ``peer_run`` so that registering the peer
commands (``druids --help``) does not load the network layer its :class:`Player` base lives in."""

from __future__ import annotations

import logging
import random

from druids_p2p.bots.host import Bot, BotRunner, BotSpec
from druids_p2p.lan.peer_config import PeerConfig, PeerError, Player, TableView
from druids_p2p.plugins import load_bots

log = logging.getLogger("druids_p2p.peer.runner")
"""The seated table's logger: a bot's faults read as the peer's warnings."""


class BotPlayer(Player):
    """Plays a bot under its move budget (:class:`BotRunner`); a fault plays a safe move."""

    def __init__(
        self, bot: Bot, name: str, budget_ms: float, seed: bytes, spec: BotSpec | None = None
    ) -> None:
        """``spec``: where the bot came from, so that once the table names its game the bot
        for that game is made (a joiner learns the game only from the seat message)."""
        self.bot = bot
        self.spec = spec
        self.name = name
        self.runner = BotRunner(bot, budget_ms)
        self.seed = seed
        self.faults: list[str] = []
        self.started = False

    def start(self, table: TableView) -> None:
        seat = table.seat
        if self.started or seat is None:
            return
        self.started = True
        rules = table.ruleset
        seat_options = table.options  # the game's own options from the seat message's
        options = rules.make_options(
            seat_options.players, seat_options.variant, seat_options.rounds
        )
        if self.spec is not None:
            try:
                self.bot = self.spec.factory_for(rules.name)()
            except ValueError as exc:
                raise PeerError(str(exc)) from None
            self.runner = BotRunner(self.bot, self.runner.budget_ms, game=rules.name)
        rng = random.Random(self.seed)
        fault = self.runner.hook(self.bot.start_game, seat, options, rng, self.runner.budget_ms)
        if fault:
            self.faults.append(f"start_game: {fault}")

    def choose(self, table: TableView) -> int:
        self.start(table)
        view = table.player_view()
        assert view is not None
        outcome = self.runner.choose(view)
        if outcome.fault:
            self.faults.append(outcome.fault)
            log.warning("bot %s: %s (played a safe move instead)", self.name, outcome.fault)
        return outcome.move


def bot_player(name: str, config: PeerConfig, seed: bytes) -> Player:
    """The player of a ``bot:NAME`` seat: the bot from the loaded plugins (``--plugins-dir``)."""
    registry = load_bots(config.plugins_dirs)
    try:
        bot = registry.make(name)
    except KeyError:
        raise PeerError(f"no bot named {name!r} (known: {', '.join(registry.names())})") from None
    return BotPlayer(bot, name, config.budget_ms, seed, registry.get(name))
