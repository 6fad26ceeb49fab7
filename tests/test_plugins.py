"""Plugin discovery and isolation: good plugins load, each bad one is reported and skipped."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from cli_harness import run_cli

from druids_p2p.bots import RandomBot
from druids_p2p.bots.host import Bot, BotSpec
from druids_p2p.bots.local_game import play_local_game
from druids_p2p.hookspecs import hookimpl
from druids_p2p.plugins import (
    ENV_VAR,
    BotRegistry,
    PluginLoadError,
    builtin_registry,
    load_bots,
    register_plugin,
    unregister_plugin,
)
from druids_p2p.testing import registered_plugin

REPO = Path(__file__).resolve().parent.parent

GOOD = """
from druids_p2p.bots.host import Bot, BotSpec
from druids_p2p.hookspecs import hookimpl

class FirstBot(Bot):
    def choose(self, view):
        return view.legal[0]

@hookimpl
def druids_register_bots(register):
    register(BotSpec(name="first", factory=FirstBot, version="2.1", description="first legal"))
    register(name="first-too", factory=FirstBot)
"""

BAD_PLUGINS = {
    "boom_import": ("raise RuntimeError('no luck at import')\n", "RuntimeError: no luck at import"),
    "syntax": ("def broken(:\n", "SyntaxError"),
    "not_spec": (
        "from druids_p2p.hookspecs import hookimpl\n"
        "@hookimpl\ndef druids_register_bots(register):\n    register(42)\n",
        "registered 42 (int), not a BotSpec",
    ),
    "bad_name": (
        "from druids_p2p.hookspecs import hookimpl\nfrom druids_p2p.bots import RandomBot\n"
        "@hookimpl\ndef druids_register_bots(register):\n"
        "    register(name='Bad Name', factory=RandomBot)\n",
        "invalid bot name 'Bad Name'",
    ),
    "dup_builtin": (
        "from druids_p2p.hookspecs import hookimpl\nfrom druids_p2p.bots import RandomBot\n"
        "@hookimpl\ndef druids_register_bots(register):\n"
        "    register(name='random', factory=RandomBot)\n",
        "bot name 'random' is already registered by plugin 'builtin'",
    ),
    "zz_dup_file": (  # loads after good.py: 'first' is taken
        "from druids_p2p.hookspecs import hookimpl\nfrom druids_p2p.bots import RandomBot\n"
        "@hookimpl\ndef druids_register_bots(register):\n"
        "    register(name='zz-own', factory=RandomBot)\n"
        "    register(name='first', factory=RandomBot)\n",
        "bot name 'first' is already registered by plugin 'good'",
    ),
    "not_callable": (
        "from druids_p2p.hookspecs import hookimpl\n"
        "@hookimpl\ndef druids_register_bots(register):\n"
        "    register(name='lazy', factory='RandomBot')\n",
        "factory 'RandomBot' is not callable",
    ),
    "hook_raises": (
        "from druids_p2p.hookspecs import hookimpl\nfrom druids_p2p.bots import RandomBot\n"
        "@hookimpl\ndef druids_register_bots(register):\n"
        "    register(name='half', factory=RandomBot)\n"
        "    raise KeyError('oops')\n",
        "KeyError: 'oops' (line 6)",
    ),
    "typo_hook": (
        "from druids_p2p.hookspecs import hookimpl\n"
        "@hookimpl\ndef druids_register_bot(register):\n    pass\n",
        "unknown hook 'druids_register_bot'",
    ),
    "no_hook": ("x = 1\n", "implements no druids hook"),
    "exits": ("import sys\nsys.exit(3)\n", "SystemExit: 3"),
}


def write_plugins(folder: Path, *, bad: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "good.py").write_text(GOOD)
    (folder / "_helper.py").write_text("raise RuntimeError('underscore files are not plugins')\n")
    (folder / "notes.txt").write_text("not python\n")
    if bad:
        for stem, (source, _) in BAD_PLUGINS.items():
            (folder / f"{stem}.py").write_text(source)
    return folder


def load(folder: Path | None = None, **kwargs: object) -> BotRegistry:
    dirs = [folder] if folder is not None else []
    kwargs.setdefault("env", {})
    return load_bots(dirs, default_dirs=False, entry_points=False, **kwargs)  # type: ignore[arg-type]


def test_builtins_are_always_there() -> None:
    registry = builtin_registry()
    assert {"random", "rule"} <= set(registry.names())
    for spec in registry.bots.values():
        assert spec.source == "built-in"
        assert spec.version and spec.about()
    assert isinstance(registry.make("rule"), Bot)
    assert not registry.failed


def test_good_plugins_load_and_bad_ones_are_reported(tmp_path: Path) -> None:
    folder = write_plugins(tmp_path / "plugins")
    registry = load(folder)
    good = registry.get("first")
    assert good.version == "2.1" and good.description == "first legal"
    assert good.source == f"file {(folder / 'good.py').resolve()}"
    assert registry.get("first-too").version == "0"
    assert isinstance(registry.make("first"), Bot)

    failed = {f.plugin: f.error for f in registry.failed}
    assert set(failed) == set(BAD_PLUGINS), failed
    for stem, (_, expected) in BAD_PLUGINS.items():
        assert expected in failed[stem], (stem, failed[stem])
        assert "\n" not in failed[stem]
    # A failing plugin's registrations are not kept, even the valid ones made before it failed.
    assert "half" not in registry and "zz-own" not in registry
    assert "lazy" not in registry
    # The built-ins survive all of it.
    assert {"random", "rule"} <= set(registry.names())


def test_strict_mode_raises_with_one_line(tmp_path: Path) -> None:
    folder = write_plugins(tmp_path / "plugins")
    with pytest.raises(PluginLoadError) as info:
        load(folder, strict=True)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("plugin ") and f"and {len(BAD_PLUGINS) - 1} more" in message
    good_only = write_plugins(tmp_path / "good_only", bad=False)
    assert "first" in load(good_only, strict=True)


def test_druids_plugins_env_restricts(tmp_path: Path) -> None:
    folder = write_plugins(tmp_path / "plugins")
    only_good = load(folder, env={ENV_VAR: "good"})
    assert "first" in only_good and not only_good.failed
    two = load(folder, env={ENV_VAR: " good , boom_import "})
    assert [f.plugin for f in two.failed] == ["boom_import"]
    none = load(folder, env={ENV_VAR: "none"})
    assert "first" not in none and not none.failed
    assert {"random", "rule"} <= set(none.names())  # built-ins always load
    everything = load(folder, env={ENV_VAR: ""})
    assert "first" in everything and len(everything.failed) == len(BAD_PLUGINS)


def test_plugin_registered_for_one_test_only() -> None:
    class Plugin:
        @hookimpl
        def druids_register_bots(self, register):  # type: ignore[no-untyped-def]
            register(name="inproc", factory=RandomBot, description="in-process")

    register_plugin(Plugin(), name="inproc-plugin")
    try:
        registry = load()
        assert registry.get("inproc").source == "registered inproc-plugin"
    finally:
        unregister_plugin("inproc-plugin")
    assert "inproc" not in load()

    module = ModuleType("ns_plugin")  # a plugin is usually a module
    module.druids_register_bots = hookimpl(  # type: ignore[attr-defined]
        lambda register: register(BotSpec(name="ns-bot", factory=RandomBot))
    )
    with registered_plugin(module, "ns-plugin"):
        registry = load()
        assert "ns-bot" in registry
        result = play_local_game([registry.get("ns-bot"), "random", "rule"], seed=3)
        assert not result.faults
    assert "ns-bot" not in load()


def test_the_retired_discovery_backend_hook_is_an_unknown_hook(tmp_path: Path) -> None:
    """The reserved ``druids_discovery_backends`` hook was never used by the network layer and is
    gone: a plugin that still implements it is refused by name, like any unknown hook, and the
    other plugins load."""
    (tmp_path / "mdns.py").write_text(
        textwrap.dedent(
            """
            from druids_p2p.hookspecs import hookimpl

            @hookimpl
            def druids_discovery_backends(register):
                register("mdns", object, "multicast DNS (someday)")
            """
        )
    )
    write_plugins(tmp_path, bad=False)
    registry = load(tmp_path)
    failed = {f.plugin: f.error for f in registry.failed}
    assert failed["mdns"] == (
        "implements unknown hook 'druids_discovery_backends' (known: druids_register_bots)"
    )
    assert "first" in registry


def test_broken_entry_point_is_reported_not_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entry points load one by one: one that fails does not stop the next."""
    site = tmp_path / "site"
    for dist, module, body in [
        ("broken_dist", "no_such_module_xyz", None),
        ("fine_dist", "fine_plugin_mod", GOOD.replace('"first"', '"ep-first"')),
    ]:
        info = site / f"{dist}-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[druids_p2p.bots]\n{dist} = {module}\n")
        if body is not None:
            (site / f"{module}.py").write_text(body.replace('"first-too"', '"ep-first-too"'))
    monkeypatch.syspath_prepend(str(site))
    registry = load_bots([], default_dirs=False, env={})
    failed = {f.plugin: f for f in registry.failed}
    assert "ModuleNotFoundError" in failed["broken_dist"].error
    assert failed["broken_dist"].source == "package broken_dist 1.0"
    assert registry.get("ep-first").source == "package fine_dist 1.0"
    assert "ep-first" not in load_bots([], default_dirs=False, env={ENV_VAR: "none"})
    only = load_bots([], default_dirs=False, env={ENV_VAR: "fine_dist"})
    assert "ep-first" in only and not only.failed
    monkeypatch.delitem(sys.modules, "fine_plugin_mod", raising=False)


# ----------------------------------------------------------------------- the CLI
def bots_cli(
    args: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    cwd: Path,
    env: dict[str, str] | None = None,
) -> tuple[int, str, str]:
    """``druids ARGS`` run from ``cwd``, with ``DRUIDS_PLUGINS`` unset unless ``env`` sets it."""
    monkeypatch.chdir(cwd)
    monkeypatch.delenv(ENV_VAR, raising=False)
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    return run_cli(args, capsys)


def test_cli_bots_json_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_plugins(tmp_path / "more")
    args = ["bots", "--json", "--plugins-dir", str(folder)]
    code, out, err = bots_cli(args, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    doc = json.loads(out)
    assert set(doc) == {"bots", "failed", "levels"}
    for bot in doc["bots"]:
        assert set(bot) == {"name", "version", "source", "description", "games"}
        assert all(isinstance(v, str) for k, v in bot.items() if k != "games")
        assert bot["games"] and all(isinstance(g, str) for g in bot["games"])
    for failure in doc["failed"]:
        assert set(failure) == {"plugin", "error"}
        assert all(isinstance(v, str) for v in failure.values())
    sources = {b["name"]: b["source"] for b in doc["bots"]}
    assert sources["random"] == sources["rule"] == "built-in"
    assert sources["first"] == f"file {(folder / 'good.py').resolve()}"
    # Running from the checkout: the repo's plugins/ folder is found too.
    assert sources["cautious"] == f"file {REPO / 'plugins' / 'cautious.py'}"
    assert {f["plugin"] for f in doc["failed"]} == set(BAD_PLUGINS)


def test_cli_bots_text_lists_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_plugins(tmp_path / "more")
    code, out, err = bots_cli(["bots", "--plugins-dir", str(folder)], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "first" in out and "built-in" in out
    assert "boom_import" in out and "RuntimeError: no luck at import" in out


def test_cli_strict_plugins_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_plugins(tmp_path / "more")
    args = ["bots", "--plugins-dir", str(folder), "--strict-plugins"]
    code, out, err = bots_cli(args, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("druids: error: plugin "), err
    assert "Traceback" not in err
    code, _, err = bots_cli(["bots", "--strict-plugins", "--json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err


def test_cli_env_and_missing_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_plugins(tmp_path / "more")
    args = ["bots", "--json", "--plugins-dir", str(folder)]
    _, out, _ = bots_cli(args, capsys, monkeypatch, tmp_path, env={ENV_VAR: "none"})
    doc = json.loads(out)
    assert {b["source"] for b in doc["bots"]} == {"built-in"} and doc["failed"] == []
    monkeypatch.delenv(ENV_VAR)
    args = ["bots", "--plugins-dir", str(tmp_path / "nope")]
    code, _, err = bots_cli(args, capsys, monkeypatch, tmp_path)
    assert code == 2 and "no such directory" in err
    assert len(err.strip().splitlines()) == 1


def test_the_built_in_bots_are_each_games_own(tmp_path: Path) -> None:
    """The built-in plugin registers ``random`` for every game and each game's bots (its
    spec's), one spec a name over the games that have it; a broken game plugin takes none of
    them down (it is reported by the game registry, tests/test_game_registry.py)."""
    from dist_info import installed_games

    from druids_p2p.games.registry import games

    registry = builtin_registry()
    assert registry.get("random").games == tuple(games())
    for name, spec in games().items():
        for bot, factory in spec.bots.items():
            assert registry.get(bot).factory_for(name) is factory
    with installed_games(tmp_path, {"broken": "no_such_module_anywhere:SPEC"}):
        again = builtin_registry()
        assert set(again.names()) == set(registry.names()) and not again.failed
