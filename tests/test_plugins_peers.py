"""``--plugins-dir`` reaches every peer process a command starts (issue 28): a plugin bot plays at
a ``druids play --headless`` table and in a ``druids tournament --p2p`` run, each seat its own
real ``druids peer`` process on loopback; a bot name is checked, with the plugins loaded,
before any process starts, and an unknown one is refused in one line naming it (exit 2).
A plugin bot that raises at a p2p table forfeits its games as in-process (the peers report it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from cli_harness import run_cli
from tournament_harness import lines_of

PLUGIN = """
from druids_p2p.bots.host import Bot, BotSpec
from druids_p2p.hookspecs import hookimpl

class Shedder(Bot):
    '''Sheds its last legal move: a plugin bot that plays by the rules.'''
    def choose(self, view):
        return view.legal[-1]

class Raiser(Bot):
    def choose(self, view):
        raise RuntimeError("boom")

@hookimpl
def druids_register_bots(register):
    register(BotSpec(name="shedder", factory=Shedder, games=("druids2017", "druids2004")))
    register(BotSpec(name="raiser", factory=Raiser, games=("druids2017", "druids2004")))
"""


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("peer-plugins")
    (folder / "shedder.py").write_text(textwrap.dedent(PLUGIN))
    return folder


@pytest.mark.e2e
@pytest.mark.slow
def test_play_headless_seats_a_plugin_bot_in_its_own_peer_process(
    plugins: Path, tmp_path: Path
) -> None:
    argv = [sys.executable, "-m", "druids_p2p", "play", "--headless", "--rounds", "1"]
    argv += ["--seats", "bot:shedder,bot:rule,bot:random", "--plugins-dir", str(plugins)]
    argv += ["--workdir", str(tmp_path / "table"), "--json"]
    proc = subprocess.run(
        argv, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["finished"] and not result["aborted"]
    assert len(result["totals"]) == 3
    log = (tmp_path / "table" / "shedder-1" / "peer.log").read_text()  # named by its player
    assert "no bot named" not in log


@pytest.mark.e2e
@pytest.mark.slow
def test_tournament_p2p_plays_plugin_bots_and_counts_their_faults(
    plugins: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three games (one deal's rotations), each three peer processes: ``shedder`` plays every
    game to its end; ``raiser`` raises at every move, which its peer reports, so it forfeits
    every game (last, counted as crashed) and the run exits 3."""
    out = tmp_path / "run"
    args = ["tournament", "--p2p", "--bots", "shedder,raiser,rule", "--games", "3"]
    args += ["--players", "3", "--workers", "2", "--plugins-dir", str(plugins), "--rounds", "1"]
    code, stdout, err = run_cli([*args, "--out", str(out), "--json"], capsys)
    lines = lines_of(out)
    assert len(lines) == 3
    for line in lines:
        assert line["totals"] is not None, line["faults"]  # every table played to its end
        assert line["status"] == "crashed" and line["blame"] == "raiser", line["faults"]
        assert all(f["bot"] == "raiser" for f in line["faults"])
        assert "RuntimeError: boom" in line["faults"][0]["text"]
    bots = json.loads(stdout)["bots"]
    assert bots["shedder"]["finished"] == 3 and bots["shedder"]["forfeits"] == 0
    assert bots["raiser"]["crashes"] == bots["raiser"]["forfeits"] == 3
    assert code == 3, err
    assert "warning: bot 'raiser'" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--headless", "--seats", "bot:shedder,bot:nosuchbot,bot:rule"],
        ["tournament", "--p2p", "--bots", "shedder,nosuchbot,rule", "--games", "3"],
    ],
)
def test_an_unknown_bot_is_refused_before_any_process_starts(
    argv: list[str], plugins: Path, tmp_path: Path
) -> None:
    """A plugin bot is known with its folder given; the unknown name is refused in one line,
    exit 2, at once: no table folder, no run folder, no peer process."""
    work = tmp_path / "work"
    where = ["--workdir", str(work)] if argv[0] == "play" else ["--out", str(work)]
    cmd = [sys.executable, "-m", "druids_p2p", *argv, "--plugins-dir", str(plugins), *where]
    start = time.monotonic()
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        env=dict(os.environ), check=False,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1 and "'nosuchbot'" in err and "shedder" in err, err
    assert "Traceback" not in err and proc.stdout == ""
    assert not work.exists()
    assert time.monotonic() - start < 30
