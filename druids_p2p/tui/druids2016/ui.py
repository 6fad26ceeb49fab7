"""Druids (2016)'s terminal UI, as its spec names it (``GameSpec.ui``): its table at a table of
peers, its table against in-process bots, and the viewer of a table's record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from druids_p2p.games.druids2016.board import default_board
from druids_p2p.games.druids2016.game import Options
from druids_p2p.games.spec import Bot
from druids_p2p.tui.druids2016.lan_table import TABLE_UI
from druids_p2p.tui.druids2016.replay import Replay2016App
from druids_p2p.tui.druids2016.session import Offline2016, bot_chooser, bot_placement, start_bot
from druids_p2p.tui.druids2016.table import Druids2016App
from druids_p2p.tui.game_ui import NO_PREFS, GameUI, TablePrefs


def offline_app(
    names: Sequence[str],
    bots: Mapping[int, Bot],
    *,
    seat: int,
    seed: int,
    budget_ms: float,
    folder: Path | None,
    pause_s: float = 0.0,
    prefs: TablePrefs = NO_PREFS,
) -> Druids2016App:
    """You at ``seat`` (0 or 1) and the bot in the other seat on this machine; the game file
    kept in ``folder``. (``pause_s`` and ``prefs`` are the other games': the board shows the
    last move lit until the next, and has no preference yet.)"""
    if len(names) != 2 or seat not in (0, 1) or set(bots) != {1 - seat}:
        raise ValueError("Druids (2016) is played by you and one bot")
    board, rules, other = default_board(), Options(), 1 - seat
    bot = bots[other]
    faults: list[str] = []
    start_bot(bot, other, rules, seed, budget_ms)
    session = Offline2016(
        (names[0], names[1]),
        {other: bot_chooser(bot, other, board, rules)},
        seat=seat,
        seed=seed,
        board=board,
        options=rules,
        bot_places=bot_placement(bot, other, board, rules, faults),
        faults=faults,
    )
    return Druids2016App(session, folder)


UI = GameUI(
    name="druids2016",
    table=TABLE_UI,
    offline=offline_app,
    replay=Replay2016App,
)
