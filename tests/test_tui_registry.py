"""The TUI behind the seam (issues 16, 30): each game's UI found by its spec's ``ui``
(``"module:attr"``, imported when first asked for), and a neutral TUI that imports no game
package (the import-linter contracts say the same for ``lint-imports``; this checks it in
pytest)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from druids_p2p.bots import BuiltinBots
from druids_p2p.bots.local_game import make_bot
from druids_p2p.games.registry import RULESETS, games
from druids_p2p.tui.druids2004.lan_table import TABLE_UI as LAN_2004_UI
from druids_p2p.tui.druids2004.lan_table import LanTable2004Screen
from druids_p2p.tui.druids2004.session import Offline2004
from druids_p2p.tui.druids2004.table import Druids2004App
from druids_p2p.tui.druids2017.replay import ReplayApp
from druids_p2p.tui.druids2017.table import TABLE_UI, TableScreen
from druids_p2p.tui.game_ui import game_ui, game_uis, offline_app, table_ui

TUI = Path(__file__).resolve().parent.parent / "druids_p2p" / "tui"
GAME_PACKAGES = tuple(n for n, s in games().items() if s.ui.startswith(f"druids_p2p.tui.{n}."))
"""The games whose UI is a package of this TUI (``tui/<game>/``)."""
ENTRY_POINTS: set[str] = set()
"""The neutral modules that may import a game's TUI package: none (its spec names it)."""


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def _neutral_modules() -> list[Path]:
    files = [p for p in TUI.rglob("*.py") if p.relative_to(TUI).parts[0] not in GAME_PACKAGES]
    names = {p.stem for p in files}
    assert {"app", "player", "game_ui", "lobby", "widgets"} <= names, files  # the walk found them
    return files


def test_the_neutral_tui_imports_no_game_package() -> None:
    games = tuple(f"druids_p2p.games.{g}" for g in GAME_PACKAGES)
    for path in _neutral_modules():
        bad = {n for n in _imports(path) if n.startswith(games)}
        assert not bad, f"{path.relative_to(TUI)} imports {sorted(bad)}"


def test_only_the_registry_and_entry_points_import_a_game_ui_package() -> None:
    uis = tuple(f"druids_p2p.tui.{g}" for g in GAME_PACKAGES)
    for path in _neutral_modules():
        if path.relative_to(TUI).as_posix() in ENTRY_POINTS:
            continue
        bad = {n for n in _imports(path) if n.startswith(uis)}
        assert not bad, f"{path.relative_to(TUI)} imports {sorted(bad)}"


def test_a_game_ui_package_imports_only_its_own_game() -> None:
    assert len(GAME_PACKAGES) >= 2, GAME_PACKAGES
    for mine in GAME_PACKAGES:
        others = tuple(
            f"druids_p2p.{where}.{other}"
            for other in GAME_PACKAGES
            if other != mine
            for where in ("games", "tui")
        )
        for path in (TUI / mine).rglob("*.py"):
            bad = {n for n in _imports(path) if n.startswith(others)}
            assert not bad, f"{path.relative_to(TUI)} imports {sorted(bad)}"


def test_every_game_at_the_table_has_its_ui_named_by_its_spec() -> None:
    uis = game_uis()
    assert {ui.name for ui in uis} == set(RULESETS)
    for ui in uis:
        assert game_ui(ui.name) is ui


def test_an_unknown_game_is_one_line_naming_it() -> None:
    with pytest.raises(ValueError, match=r"^'chess': unknown game \(known: "):
        game_ui("chess")


def test_the_table_screen_of_peers_is_the_games_own() -> None:
    ui = table_ui("druids2017")
    assert ui is TABLE_UI and ui.screen is TableScreen
    assert game_ui("druids2017").replay is ReplayApp
    lan = table_ui("druids2004")
    assert lan is LAN_2004_UI and lan.screen is LanTable2004Screen


def test_the_registry_opens_the_2004_offline_table_with_the_bots_given(tmp_path: Path) -> None:
    bots = {s: make_bot("rule", BuiltinBots(), "druids2004")[1] for s in (0, 2)}
    app = offline_app("druids2004")(
        ("rule-0", "alice", "rule-2"),
        bots,
        seat=1,
        seed=9,
        budget_ms=10.0,
        folder=tmp_path,
        pause_s=0.0,
    )
    assert isinstance(app, Druids2004App) and isinstance(app.session, Offline2004)
    session = app.session
    assert session.names == ("rule-0", "alice", "rule-2") and session.seat == 1
    assert session.bots == bots and session.seed == 9 and app.folder == tmp_path
    with pytest.raises(ValueError, match="'druids2017' has no offline table"):
        offline_app("druids2017")  # its local table is a table of peers (tui/launch.py)
