"""The table, the audits, record replay, seating and the local table reach a game only through the
Ruleset seam (``druids_p2p.games.registry`` and the types of ``druids_p2p.games.seam``): no module
of theirs imports the Druids 2017 engine's internals or another game's package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import druids_p2p

PACKAGE = Path(druids_p2p.__file__).parent
WING = ("lan", "table", "peer", "audit")
"""The packages the network wing (once ``net/``) is split into, by job."""
SEAM_ONLY = [
    "table",
    "table_state",
    "card_table_round",
    "card_table_play",
    "codec",
    "audit",
    "audit_card_table",
    "schedule",
    "replay",
    "seating",
    "local_table",
]
ALLOWED = {"druids_p2p.games.seam", "druids_p2p.games.spec", "druids_p2p.games.registry"}
"""The seam, and the registry that finds a game by name through its spec (issue 30)."""


def _module(name: str) -> Path:
    """The one file of the network wing called ``name``."""
    (path,) = [PACKAGE / p / f"{name}.py" for p in WING if (PACKAGE / p / f"{name}.py").exists()]
    return path


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            out.append(node.module)
    return out


@pytest.mark.parametrize("module", SEAM_ONLY)
def test_only_the_seam_reaches_the_game(module: str) -> None:
    game_side = [
        name
        for name in _imports(_module(module))
        if name.startswith("druids_p2p.games") and name not in ALLOWED
    ]
    assert game_side == [], f"{_module(module)} imports {game_side}, not the Ruleset seam"
