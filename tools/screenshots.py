"""Make the README's screenshots: ``PYTHONPATH=. python3 tools/screenshots.py docs/screenshots``.

Every registered game's that has a ``tools/screenshots_<game>.py`` (its ``make(out)``; each on a
fixed deal or seed, so the picture is the same every time), and the lobbies: the real lobby
screen fed signed beacons of made-up tables through its listener (the default game's, and each
game's that names a ``LOBBY_SVG``). A developer's tool, so none of it is in the package.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path

from druids_p2p.games.registry import default_game
from druids_p2p.lan.discovery import SeatedPlayer, TableInfo, encode_beacon
from druids_p2p.lan.listener import BeaconListener
from druids_p2p.lan.network import NetChoice
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.game_ui import game_uis, table_ui
from druids_p2p.tui.lobby import LanSetup, LobbyScreen
from druids_p2p.tui.widgets import FIXED_TIME
from druids_p2p.wire import Identity

HERE = Path(__file__).resolve().parent
for _path in (HERE, HERE.parent / "tests" / "support"):  # the games' makers; the offline 2017 UI
    if str(_path) not in sys.path:
        sys.path.append(str(_path))

LobbyTable = tuple[str, str, str, int, list[str], bool]
"""A made-up table a lobby screenshot hears: (name, host, address, seats, seated, variant)."""


def _identity(name: str) -> Identity:
    return Identity.from_seed(hashlib.sha256(name.encode()).digest(), name)


LOBBY_TABLES: tuple[LobbyTable, ...] = (
    ("friday night", "bob", "192.168.1.23", 4, ["carol"], False),
    ("druids club", "dana", "192.168.1.41", 5, ["erin", "frank", "rule-1"], True),
    ("quick 3", "gus", "192.168.1.57", 3, [], False),
)
"""Made-up tables of the default game that every lobby screenshot hears (another game's lobby
hears its own besides, each with its game)."""


async def _lobby(out: Path, game: str, file: str, tables: list[tuple[LobbyTable, str]]) -> None:
    net = NetChoice("192.168.1.10", "192.168.1.255", "eth0")
    listener = BeaconListener(net, 0)
    setup = LanSetup(net=net, table_name="alice's table", listener=listener, game=game)
    app = DruidsApp(
        table_ui=table_ui(game), lan=setup, identity=_identity("alice"), folder=Path(".")
    )
    async with app.run_test(size=(112, 34)) as pilot:
        await pilot.pause()
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        for i, ((name, host, ip, players, seated, variant), ruleset) in enumerate(tables):
            ident = _identity(host)
            info = TableInfo(
                name=name,
                endpoint=f"tcp://{ip}:{45100 + i}",
                curve_key=hashlib.sha256(name.encode()).digest(),
                players=players,
                variant=variant,
                rounds=5,
                ruleset=ruleset,
                seats=(
                    SeatedPlayer(host, ident.public_key),
                    *(SeatedPlayer(s, _identity(s).public_key) for s in seated),
                ),
            )
            raw = encode_beacon(ident, info, hashlib.sha256(ip.encode()).digest()[:16], 1)
            listener.handle(raw, (ip, 47650))
        lobby.poll()
        await pilot.pause()
        app.save_screenshot(file, str(out))
    listener.close()


def make_screenshots(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    FIXED_TIME[:] = [20 * 3600 + 15 * 60]  # the log's times: 20:15:00, on every run
    try:
        default = default_game()
        tables = [(t, default) for t in LOBBY_TABLES]
        for ui in game_uis():
            if importlib.util.find_spec(f"screenshots_{ui.name}") is None:
                continue
            maker = importlib.import_module(f"screenshots_{ui.name}")
            maker.make(out)
            lobby_svg: str = getattr(maker, "LOBBY_SVG", "")
            if lobby_svg:
                own = [(t, ui.name) for t in getattr(maker, "LOBBY_TABLES", ())]
                asyncio.run(_lobby(out, ui.name, lobby_svg, tables + own))
    finally:
        FIXED_TIME.clear()
    return sorted(out.glob("*.svg"))


if __name__ == "__main__":
    for path in make_screenshots(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots")):
        print(path)
