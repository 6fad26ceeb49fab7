"""The plugin module named by the ``druids_p2p.bots`` entry point in pyproject.toml."""

from __future__ import annotations

from druids_bot_example import __version__
from druids_bot_example.bot import LowballBot
from druids_p2p.api import BotSpec, RegisterBot, hookimpl


@hookimpl
def druids_register_bots(register: RegisterBot) -> None:
    register(
        BotSpec(
            name="example",
            factory=LowballBot,
            version=__version__,
            description="Example package bot: leads high, ducks high, feeds low.",
        )
    )
