"""The game registry (issue 30): every game is a ``GameSpec`` an installed distribution names under
the ``druids_p2p.games`` entry points, the built-in games exactly as a third party's, and nothing
outside a game's folders names one. A game that is unknown, or whose plugin is broken, is one
line naming it; a broken one takes no other game down."""

from __future__ import annotations

import importlib.metadata
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest
from cli_harness import run_cli
from dist_info import installed_games, project_entry_points

from druids_p2p.bots import BuiltinBots
from druids_p2p.games.registry import (
    GROUP,
    RULESETS,
    check_game,
    check_players,
    default_game,
    game_help,
    game_spec,
    games,
    players_help,
    registry,
    ruleset_of,
    table_options,
)
from druids_p2p.games.seam import CommonRuleset
from druids_p2p.games.spec import Bot, GameSpec

ROOT = Path(__file__).resolve().parent.parent


def test_the_built_in_games_are_registered_as_a_third_partys_would_be() -> None:
    """pyproject.toml names each built-in game's spec in the entry-point group, the installed
    metadata says the same (a stale install is named here, not in a hundred other tests), and
    the registry holds exactly those, the default first."""
    declared = project_entry_points()[GROUP]
    installed = {ep.name: ep.value for ep in importlib.metadata.entry_points(group=GROUP)}
    assert set(declared.items()) <= set(installed.items()), (
        f"the installed metadata is stale ({installed}): run pip install -e ."
    )
    assert set(declared) <= set(games()) and not registry().broken
    assert games()[default_game()].default and next(iter(games())) == default_game()
    for name, target in declared.items():
        spec = game_spec(name)
        assert spec.name == name and spec.problem() is None
        module, _, attr = target.partition(":")
        assert getattr(sys.modules[module], attr) is spec


def test_every_part_a_built_in_spec_names_loads_and_agrees() -> None:
    """A built-in spec names its parts as ``module:attr`` (imported when first read): each one
    is there, its rules agree with the spec (seats, flags, name) and each bot is a Bot."""
    for name in project_entry_points()[GROUP]:
        spec = game_spec(name)
        assert spec.problem(load=True) is None, name
        assert isinstance(spec.view, type) and isinstance(spec.options, type)
        assert callable(spec.fallback) and spec.coach is not None and spec.playout is not None
        for bot, factory in spec.bots.items():
            assert isinstance(factory(), Bot), (name, bot)


def test_no_module_outside_a_games_folders_names_a_game() -> None:
    """The issue's grep: every name of a built-in game is in its own folders (``games/<name>``,
    ``tui/<name>``) and pyproject's entry points, nowhere else in the package."""
    names = "|".join(re.escape(n) for n in project_entry_points()[GROUP])
    pattern = re.compile(names)
    package = ROOT / "druids_p2p"
    for path in package.rglob("*.py"):
        parts = path.relative_to(package).parts
        if parts[0] in ("games", "tui") and len(parts) > 2 and pattern.fullmatch(parts[1]):
            continue
        hits = [
            n for n, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)
        ]
        assert not hits, f"{path.relative_to(ROOT)} names a game on lines {hits}"


def test_an_unknown_game_is_one_line_naming_it() -> None:
    with pytest.raises(ValueError, match=r"^--game 'chess': unknown game \(known: druids"):
        check_game("chess")
    with pytest.raises(ValueError, match=r"^'chess': unknown game"):
        game_spec("chess")
    assert check_game(None) == default_game()
    with pytest.raises(ValueError, match=r"is not known here"):
        table_options({"ruleset": "chess", "players": 3, "variant": False, "rounds": 5})


class _Rules:
    """Just enough of a rule set for the registry's own checks."""

    def __init__(self, name: str, low: int = 2, high: int = 3) -> None:
        self.name = name
        self.min_players, self.max_players = low, high
        self.table_flags: frozenset[str] = frozenset()


class _FirstBot(Bot):
    """Always the first legal move (a game's own bot)."""

    def choose(self, view: Any) -> int:
        return int(view.legal[0])


def _spec(name: str, **fields: Any) -> GameSpec:
    rules = cast(CommonRuleset, _Rules(name))
    return GameSpec(name=name, title=name, rules=rules, view=object, options=object, **fields)


GOOD = _spec("toy", bots={"first": _FirstBot})
NOT_A_SPEC = object()
MISNAMED = _spec("other")
DISAGREES = _spec("torn", rounds=3)  # says --rounds, its rules read no rounds
DEFAULT_TOO = _spec("usurper", default=True)
TORN_RULES = _Rules("lazytorn")
LAZY_TORN = GameSpec(  # names its parts; says --rounds, its rules read no rounds
    name="lazytorn", title="t", rules=f"{__name__}:TORN_RULES", view="builtins:object",
    options="builtins:object", players=(2, 3), rounds=3,
)  # fmt: skip
SEATS_RULES = _Rules("lazyseats")
LAZY_SEATS = GameSpec(  # says it seats 2 to 4, its rules 2 to 3
    name="lazyseats", title="s", rules=f"{__name__}:SEATS_RULES", view="builtins:object",
    options="builtins:object", players=(2, 4),
)  # fmt: skip
LAZY_GONE = GameSpec(
    name="lazygone", title="g", rules="no_such_module_anywhere:RULES", view="builtins:object",
    options="builtins:object", players=(2, 2),
)  # fmt: skip


def test_a_game_that_names_its_parts_is_listed_by_its_spec_and_checked_when_played(
    tmp_path: Path,
) -> None:
    """A spec naming its rules as ``module:attr`` is listed (help, seats) without them; the
    first time it is played its rules are imported and checked against it, and one that does
    not load or disagrees is then broken, one line naming it, no other game taken down."""
    plugins = {
        "lazytorn": f"{__name__}:LAZY_TORN",
        "lazyseats": f"{__name__}:LAZY_SEATS",
        "lazygone": f"{__name__}:LAZY_GONE",
    }
    with installed_games(tmp_path, plugins):
        assert set(plugins) <= set(games()) and not registry().broken
        assert "lazyseats: 2, 3 or 4" in players_help() and "lazygone: 2" in players_help()
        whys = {
            "lazytorn": "offers ['rounds']",
            "lazyseats": "it says it seats 2 to 4, its rules (2, 3)",
            "lazygone": "ModuleNotFoundError",
        }
        for name, why in whys.items():
            with pytest.raises(ValueError) as info:
                check_game(name)
            text = str(info.value)
            assert text.startswith(f"--game {name!r}: the game is broken") and why in text
            assert "\n" not in text
            assert name in registry().broken and name not in games() and name not in RULESETS
        assert check_game("druids2017") == "druids2017" and "druids2017" in RULESETS


def test_a_broken_game_plugin_is_reported_alone_by_name(tmp_path: Path) -> None:
    plugins = {
        "toy": f"{__name__}:GOOD",
        "missing": "no_such_module_anywhere:SPEC",
        "notaspec": f"{__name__}:NOT_A_SPEC",
        "misnamed": f"{__name__}:MISNAMED",
        "torn": f"{__name__}:DISAGREES",
    }
    with installed_games(tmp_path, plugins):
        broken = registry().broken
        assert set(broken) == {"missing", "notaspec", "misnamed", "torn"}
        assert "ModuleNotFoundError" in broken["missing"]
        assert "not a GameSpec" in broken["notaspec"] and "named 'other'" in broken["misnamed"]
        assert "offers ['rounds']" in broken["torn"]
        for name, why in broken.items():
            with pytest.raises(ValueError) as info:
                check_game(name)
            text = str(info.value)
            assert text.startswith(f"--game {name!r}: the game is broken") and why in text
            assert "\n" not in text
        assert games()["toy"] is GOOD and {"druids2017", "druids2004"} <= set(games())
        assert "toy" not in RULESETS  # no seat at a card table: listed, never dealt
        with pytest.raises(ValueError, match="'toy', which is not known here"):
            table_options({"ruleset": "toy", "players": 2, "variant": False, "rounds": 5})
    assert "toy" not in games() and not registry().broken  # uninstalled: read again


def test_a_plugin_that_claims_the_default_game_is_refused_and_the_default_stays(
    tmp_path: Path,
) -> None:
    """What a seat message that names no game plays is the protocol's word: a plugin's game
    claiming it is broken, and the program's default is untouched."""
    default = default_game()
    with installed_games(tmp_path, {"usurper": f"{__name__}:DEFAULT_TOO"}):
        assert "claims to be the default game" in registry().broken["usurper"]
        assert "usurper" not in games() and default_game() == default
        with pytest.raises(ValueError, match="claims to be the default"):
            check_game("usurper")
        assert ruleset_of({"players": 4, "variant": False, "rounds": 5}) == default


def test_a_third_game_is_in_the_help_the_checks_and_the_bots(tmp_path: Path) -> None:
    with installed_games(tmp_path, {"toy": f"{__name__}:GOOD"}):
        assert "toy" in game_help() and "toy: 2 or 3" in players_help()
        check_players("toy", 3)
        with pytest.raises(ValueError, match=r"^--players must be 2 or 3 for toy, not 4$"):
            check_players("toy", 4)
        bots = BuiltinBots()
        assert bots.get("first").games == ("toy",) and "toy" in bots.get("random").games
        first = bots.get("first").factory_for("toy")()
        assert first.choose(type("V", (), {"legal": [7, 8]})()) == 7
        assert bots.get("first").about() == "Always the first legal move (a game's own bot)."


def test_the_plugin_api_finds_each_games_names_through_its_spec() -> None:
    """A bot plugin written to the API before games were specs imports the same names."""
    import druids_p2p.api as api
    from druids_p2p.games.druids2004.cards import Move as Move2004
    from druids_p2p.games.druids2017.view import PlayerView

    assert api.PlayerView is PlayerView and api.Move2004 is Move2004
    assert {"PlayerView", "GameOptions", "rule_move", "GAIA", "SeatView2004"} <= set(dir(api))
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        _ = api.Nothing


def test_the_games_are_those_the_entry_points_name() -> None:
    """One path: a game package on the path but not named by any distribution's entry point is
    not a game here (a real process, so nothing of this one's registry is reused)."""
    code = (
        "from druids_p2p.games.registry import games, reload\n"
        "import druids_p2p.games.druids2004\n"  # imported, never registered by that alone
        "print(sorted(games()))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == repr(sorted(project_entry_points()[GROUP]))


def test_the_commands_refuse_an_unknown_game_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (
        ["demo", "--game", "chess"],
        ["bench", "engine", "--game", "chess"],
        ["tournament", "--game", "chess", "--bots", "random"],
    ):
        code, _, err = run_cli(argv, capsys)
        assert code == 2 and "--game 'chess': unknown game" in err, (argv, err)
        assert len(err.strip().splitlines()) == 1


def test_every_game_deals_at_its_table_from_a_new_seat_copy() -> None:
    """``druids bench deal`` and the deck's tests deal any game: the operations a new seat copy
    schedules before anyone moves."""
    from druids_p2p.bench.costs import deal_ops

    for name, rules in RULESETS.items():
        seat = rules.table_seat(rules.make_options(rules.min_players), 0, random.Random(0))
        ops = deal_ops(rules.min_players, name)
        assert [op.kind for op in ops] == [op.kind for op in seat.ops()] and ops
