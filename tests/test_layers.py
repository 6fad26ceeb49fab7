"""The layer arrows at run time: the network layer gets its bot players from its caller."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from druids_p2p.cli.bot_player import BotPlayer, bot_player
from druids_p2p.lan.peer_config import PeerConfig, PeerError, make_player
from druids_p2p.wire import Identity


def _config(tmp_path: Path, player: str, **kwargs: Any) -> PeerConfig:
    return PeerConfig(home=tmp_path, identity=Identity.generate("me"), player=player, **kwargs)


def test_a_peer_given_no_bot_players_refuses_a_bot_seat(tmp_path: Path) -> None:
    with pytest.raises(PeerError, match="'bot:random': this peer was given no bot players"):
        make_player(_config(tmp_path, "bot:random"), b"seed")


def test_the_cli_bot_players_build_the_named_bot(tmp_path: Path) -> None:
    player = make_player(_config(tmp_path, "bot:random", bot_players=bot_player), b"seed")
    assert isinstance(player, BotPlayer) and player.name == "random"
    with pytest.raises(PeerError, match=r"no bot named .nobody. \(known: .*random"):
        make_player(_config(tmp_path, "bot:nobody", bot_players=bot_player), b"seed")


ROOT = Path(__file__).resolve().parent.parent


def _project_imports(source: str) -> set[str]:
    tree = ast.parse(source)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return {n for n in names if n == "druids_p2p" or n.startswith("druids_p2p.")}


def test_plugins_and_examples_import_only_the_plugin_api() -> None:
    files = [*(ROOT / "plugins").glob("*.py"), *(ROOT / "examples").rglob("*.py")]
    files = [f for f in files if "build" not in f.relative_to(ROOT).parts]
    assert len(files) >= 4, files  # plugins/cautious.py and the example package's three
    for path in files:
        imported = _project_imports(path.read_text())
        assert imported <= {"druids_p2p.api"}, f"{path.relative_to(ROOT)} imports {imported}"


def test_the_plugin_docs_import_only_the_plugin_api() -> None:
    text = (ROOT / "docs" / "plugins.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    imported = set().union(*(_project_imports(b) for b in blocks))
    assert imported == {"druids_p2p.api"}, imported
    mentioned = set(re.findall(r"druids_p2p(?:\.\w+)+", text)) - {"druids_p2p.bots"}
    assert {m for m in mentioned if not m.startswith("druids_p2p.api")} == set(), mentioned


def test_the_plugin_api_is_versioned_and_complete() -> None:
    import druids_p2p.api as api

    major, minor = api.API_VERSION.split(".")
    assert major.isdigit() and minor.isdigit()
    assert set(api.__all__) == {n for n in vars(api) if not n.startswith("_")} - {"annotations"}
    for name in ("Bot", "BotSpec", "hookimpl", "RegisterBot"):
        assert name in api.__all__
    for name in ("PlayerView", "format_move"):  # a game's, found through its spec
        assert name in dir(api) and getattr(api, name) is not None
