"""What a ``druids`` process imports before it runs its command: a peer process (the test suite
starts about a thousand) imports only its own command's modules, and every command is still
found."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from druids_p2p.cli.app import app, bench_app
from druids_p2p.cli.main import COMMAND_MODULES, load_commands

ROOT = Path(__file__).resolve().parent.parent


def _commands(typer_app: typer.Typer) -> dict[str, str]:
    """Each command's name and the module of its function (unwrapped from the Ctrl-C guard)."""
    found: dict[str, str] = {}
    for info in typer_app.registered_commands:
        callback = info.callback
        assert callback is not None
        callback = getattr(callback, "__wrapped__", callback)
        found[info.name or callback.__name__] = callback.__module__
    return found


def test_every_command_is_registered_by_a_module_its_word_imports() -> None:
    load_commands([])
    top = _commands(app)
    assert set(top) | {"bench"} == set(COMMAND_MODULES)
    for name, module in top.items():
        assert module.rsplit(".", 1)[1] in COMMAND_MODULES[name], name
    bench = _commands(bench_app)
    assert {"engine", "deal", "table", "wire", "bots", "tournament"} <= set(bench)
    for name, module in bench.items():
        assert module.rsplit(".", 1)[1] in COMMAND_MODULES["bench"], name


def _modules_after(*args: str) -> set[str]:
    code = (
        "import json, sys\n"
        "from druids_p2p.cli.main import main\n"
        "try:\n"
        f"    main({list(args)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_a_peer_process_imports_no_benchmark_tournament_or_tui() -> None:
    mods = _modules_after("peer", "--help")
    assert "druids_p2p.cli.peer_cmd" in mods
    for name in ("bench", "bench_bots", "tournament_cmd", "play_cmd", "play_ui", "records"):
        assert f"druids_p2p.cli.{name}" not in mods, name
    assert not {m for m in mods if m.split(".")[0] in ("textual", "dask", "matplotlib")}


def test_help_loads_no_network_or_crypto_stack() -> None:
    mods = _modules_after("--help")
    assert "druids_p2p.cli.peer_cmd" in mods and "druids_p2p.cli.bench" in mods
    assert not {m for m in mods if m.split(".")[0] in ("zmq", "cryptography", "nacl", "textual")}
    assert not {m for m in mods if m.startswith(("druids_p2p.wire", "druids_p2p.lan.discovery"))}


def test_parsing_a_peer_command_line_imports_no_pydantic() -> None:
    """Typer 0.29 checks every option through pydantic: ~130 ms of CPU at each process's start
    (pyproject pins Typer below it). A number the user got wrong is parsed and refused (exit 2),
    so every option of the command has been through Typer's checks."""
    mods = _modules_after("peer", "--player", "bot:random", "--host", "--players", "x")
    assert "druids_p2p.cli.peer_cmd" in mods
    assert not {m for m in mods if m.split(".")[0] in ("pydantic", "pydantic_core")}


OTHER_GAMES = ("druids_p2p.games.druids2004", "druids_p2p.games.druids2016")
"""The games a druids2017 peer does not play: their packages hold each one's light spec (what
the registry reads to list it), and nothing of them more is imported (issue 30)."""

RECORD_MODULES = """\
import atexit, json, os, sys

def _write():
    path = os.path.join(os.environ["DRUIDS_TEST_MODULES"], f"{os.getpid()}.json")
    with open(path, "w") as out:
        json.dump({"argv": sys.argv, "modules": sorted(sys.modules)}, out)

atexit.register(_write)
"""
"""A ``sitecustomize`` that writes the modules a process holds when it exits (``-X importtime``
misses what ``importlib.import_module`` imports: an entry point's, a lazy ``module:attr``)."""


def test_a_druids2017_peer_imports_no_other_game_beyond_its_light_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole 3-seat table of real druids2017 peer processes (one round): each imports the
    other games' spec packages (the registry lists them) and none of their modules."""
    from druids_p2p.games.druids2017 import GameOptions
    from druids_p2p.peer.local_table import LocalTable

    site, seen = tmp_path / "site", tmp_path / "modules"
    site.mkdir()
    seen.mkdir()
    (site / "sitecustomize.py").write_text(RECORD_MODULES)
    monkeypatch.setenv("PYTHONPATH", f"{ROOT}{os.pathsep}{site}")
    monkeypatch.setenv("DRUIDS_TEST_MODULES", str(seen))
    table = LocalTable(
        ["bot:rule", "bot:random", "bot:random"],
        tmp_path / "table",
        GameOptions(players=3, rounds=1),
        budget_ms=20.0,
        move_events=False,
        game="druids2017",
    )
    try:
        table.start(timeout=60.0)
        results = table.wait(timeout=120.0)
    finally:
        table.close()
    assert len(results) == 3 and all(r.get("finished") for r in results), results
    dumps = [json.loads(p.read_text()) for p in seen.glob("*.json")]
    peers = [d for d in dumps if "peer" in d["argv"]]
    assert len(peers) == 3, [d["argv"] for d in dumps]
    for peer in peers:
        mods = set(peer["modules"])
        assert "druids_p2p.games.druids2017.table_seat" in mods  # the game it played
        assert set(OTHER_GAMES) <= mods  # their light specs, which the registry lists
        beyond = sorted(m for m in mods if m.startswith(tuple(f"{g}." for g in OTHER_GAMES)))
        assert not beyond, f"{peer['argv']} imported {beyond}"


def test_help_still_lists_every_game_with_its_seats_and_a_bad_game_is_one_line() -> None:
    """The help reads each game's spec alone (its seats are the spec's), and says what it said
    when every game's rules were imported to build it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = [sys.executable, "-m", "druids_p2p"]
    shown = subprocess.run(
        [*run, "play", "--help"], capture_output=True, text=True, env=env, timeout=60, cwd=ROOT
    )
    text = " ".join(shown.stdout.split())
    assert (
        shown.returncode == 0 and "Game: druids2017 (default) or druids2004 or druids2016" in text
    )
    assert "3, 4 or 5 seats (druids2004: 2, 3 or 4; druids2016: 2)" in text
    assert "Rounds in the game (druids2017: 1-5)" in text
    bad = subprocess.run(
        [*run, "play", "--headless", "--game", "chess"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=ROOT,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == [
        "druids: error: --game 'chess': unknown game (known: druids2017, druids2004, druids2016)"
    ]
