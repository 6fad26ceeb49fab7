"""Start the UI from the command line: a local table (``druids play``) or the lobby (``--lan``).
Everything on the command line is checked before the screen is taken over, so bad input is one line
on stderr; the game's folder is kept after the UI closes and its record path printed.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from druids_p2p.tui.bots import BotSeat
from druids_p2p.tui.game_ui import NO_PREFS, UI_PACING, Pacing, TablePrefs

log = logging.getLogger(__name__)


def game_folder(workdir: Path | None) -> Path:
    """``--workdir`` or a new folder under the data directory: ``games/<date-time>-<pid>``."""
    from druids_p2p.peer.homes import game_folder as new_game_folder
    from druids_p2p.wire import data_dir

    return new_game_folder(data_dir(), workdir)


def _log_to_file(folder: Path) -> None:
    """The net layer's log goes to a file, never over the screen."""
    handler = logging.FileHandler(folder / "druids.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)


def run_local(
    identity: Any,
    bots: list[BotSeat],
    *,
    rounds: int,
    variant: bool,
    budget_ms: float,
    folder: Path,
    plugins_dirs: tuple[Path, ...] = (),
    saved: Any = None,
    pacing: Pacing = UI_PACING,
    game: str | None = None,
    prefs: TablePrefs = NO_PREFS,
    coach: bool = True,
) -> dict[str, Any] | None:
    from druids_p2p.tui.app import DruidsApp
    from druids_p2p.tui.game_ui import table_ui
    from druids_p2p.tui.player import NetSession, local_table

    table = table_ui(game)
    _log_to_file(folder)
    spec = local_table(
        bots, rounds=rounds, variant=variant, budget_ms=budget_ms, game=game, coach=coach
    )
    spec.plugins_dirs = plugins_dirs
    sessions: list[NetSession] = []

    def make(post: Any) -> NetSession:
        session = NetSession(post, identity, folder, spec, table.snapshots)
        sessions.append(session)
        return session

    app = DruidsApp(
        table_ui=table,
        make_session=make,
        expected=tuple(b.name for b in bots),
        identity=identity,
        folder=folder,
        saved=saved,
        pacing=pacing,
        plugins_dirs=plugins_dirs,  # the saved table's bots, rejoining, find plugin bots too
        prefs=prefs,
    )
    try:
        return app.run()
    finally:
        if isinstance(app.session, NetSession) and app.session not in sessions:
            sessions.append(app.session)  # the saved table, rejoined
        for session in sessions:
            session.close()
            session.wait(3.0)


def run_lan(
    identity: Any,
    setup: Any,
    folder: Path,
    saved: Any = None,
    pacing: Pacing = UI_PACING,
    game: str | None = None,
    prefs: TablePrefs = NO_PREFS,
) -> dict[str, Any] | None:
    from druids_p2p.tui.app import DruidsApp
    from druids_p2p.tui.game_ui import table_ui

    table = table_ui(game)
    _log_to_file(folder)
    app = DruidsApp(
        table_ui=table,
        lan=setup,
        identity=identity,
        folder=folder,
        saved=saved,
        pacing=pacing,
        prefs=prefs,
    )
    try:
        return app.run()
    finally:
        session = app.session
        if session is not None:
            session.close()
            wait = getattr(session, "wait", None)
            if callable(wait):
                wait(3.0)
