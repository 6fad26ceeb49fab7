"""What a ``druids`` process imports before it runs its command: a peer process (the test suite
starts about a thousand) imports only its own command's modules, and every command is still
found."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
