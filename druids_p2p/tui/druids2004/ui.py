"""Druids (2004)'s terminal UI, as its spec names it (``GameSpec.ui``): its table at a table of
peers (``lan_table.py``), its table against in-process bots, the viewer of a table's
record (``replay.py``; the offline table's record, in the notation, is replayed as JSON by
``druids replay``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from druids_p2p.bots.base import Bot
from druids_p2p.games.druids2004.ruleset import Druids2004Ruleset
from druids_p2p.tui.druids2004.lan_table import TABLE_UI
from druids_p2p.tui.druids2004.replay import Replay2004App
from druids_p2p.tui.druids2004.session import Offline2004
from druids_p2p.tui.druids2004.table import Druids2004App
from druids_p2p.tui.game_ui import NO_PREFS, GameUI, TablePrefs


def offline_app(
    names: Sequence[str],
    bots: Mapping[int, Bot],
    *,
    seat: int,
    seed: int,
    budget_ms: float,
    folder: Path | None,
    pause_s: float,
    prefs: TablePrefs = NO_PREFS,
) -> Druids2004App:
    """You at ``seat`` and ``bots`` (by seat) on this machine; the record kept in ``folder``."""

    def new_game(game_seed: int) -> Offline2004:
        return Offline2004(tuple(names), dict(bots), seat=seat, seed=game_seed, budget_ms=budget_ms)

    return Druids2004App(new_game(seed), folder, pause_s=pause_s, rematch=new_game, prefs=prefs)


UI = GameUI(
    name=Druids2004Ruleset.name,
    table=TABLE_UI,
    offline=offline_app,
    replay=Replay2004App,
    legend=True,
)
