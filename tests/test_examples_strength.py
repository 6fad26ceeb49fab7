"""The plugin examples play at least as well as random (issue 32): teaching code that loses to
random play teaches the wrong game.

Each is taken from where a reader finds it: the plugin file docs/plugins.md walks through (its
first Python block, as a reader would save it), ``plugins/cautious.py`` and the example
package's bot, and played on duplicate deals against three random players (seeds 2000 on,
not the README's seed 0). README "Levels" has each one's figure from ``druids bench bots``
over 400 games with its 95% CI; the playing strength checked here is the lower end of a 95%
interval over 160 games, above zero."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from druids_p2p.bots import RandomBot
from druids_p2p.testing import duplicate_margin

ROOT = Path(__file__).resolve().parents[1]


def _module(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _docs_bot(tmp: Path) -> Any:
    text = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    block = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    (tmp / "shedder.py").write_text(block, encoding="utf-8")
    return _module("docs_shedder", tmp / "shedder.py").Shedder


def _cautious(tmp: Path) -> Any:
    return _module("plugins_cautious", ROOT / "plugins" / "cautious.py").CautiousBot


def _example(tmp: Path) -> Any:
    src = str(ROOT / "examples" / "druids-bot-example" / "src")
    sys.path.insert(0, src)
    try:
        return _module("example_bot", Path(src) / "druids_bot_example" / "bot.py").LowballBot
    finally:
        sys.path.remove(src)


@pytest.mark.parametrize("made", [_docs_bot, _cautious, _example], ids=lambda f: f.__name__)
def test_each_plugin_example_outscores_random_players(made: Any, tmp_path: Path) -> None:
    report = duplicate_margin(made(tmp_path), RandomBot, games=40, players=4, seed=2000)
    print(f"{made.__name__}: {report.mean:+.1f} ± {report.stderr:.1f} over {report.games} games")
    assert report.games == 160
    assert report.mean - 1.96 * report.stderr > 0, report
