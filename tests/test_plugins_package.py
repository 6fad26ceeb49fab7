"""The example bot package: pip-installed into a target folder, discovered, listed and played."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from druids_p2p.bots.local_game import play_local_game
from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.plugins import ENV_VAR, load_bots
from druids_p2p.testing import check_bot

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "druids-bot-example"
SOURCE = "package druids-bot-example 0.1.0"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip install --no-deps --target`` a copy (building in-tree would litter the checkout)."""
    work = tmp_path_factory.mktemp("example")
    source = work / "src"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    target = work / "target"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target)]
    proc = subprocess.run(
        [*pip, str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (target / "druids_bot_example" / "plugin.py").is_file()
    return target


@pytest.fixture
def on_path(installed: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(installed))
    importlib.invalidate_caches()
    yield installed
    for name in [m for m in sys.modules if m.split(".")[0] == "druids_bot_example"]:
        del sys.modules[name]


def test_installed_package_is_listed_by_the_cli(installed: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != ENV_VAR}
    paths = [str(installed), str(REPO), env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    proc = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "bots", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    bots = {b["name"]: b for b in json.loads(proc.stdout)["bots"]}
    assert bots["example"] == {
        "name": "example",
        "version": "0.1.0",
        "source": SOURCE,
        "description": "Example package bot: leads high, ducks high, feeds low.",
        "games": ["druids2017"],
    }


def test_installed_package_plays_a_game(on_path: Path) -> None:
    registry = load_bots(default_dirs=False, env={})
    spec = registry.get("example")
    assert spec.source == SOURCE
    result = play_local_game([spec, "rule", "random", spec], GameOptions(players=4), seed=11)
    assert not result.faults
    assert len(result.rounds) == 5 and len(result.totals) == 4
    assert check_bot(spec, games=6).ok
    assert "example" not in load_bots(default_dirs=False, env={ENV_VAR: "none"})
