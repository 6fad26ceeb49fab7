"""``druids bots``: every bot the plugins provide, where it comes from, and which plugins failed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from druids_p2p.cli.app import app, fail

if TYPE_CHECKING:
    from druids_p2p.plugins import BotRegistry

PLUGINS_DIR_HELP = "Also load the *.py plugin files of DIR (repeatable)."
STRICT_HELP = "Exit 2 if any plugin fails to load instead of skipping it."


def load_registry(plugins_dirs: list[Path] | None, strict: bool) -> BotRegistry:
    """Load the bots for a command; bad options and strict-mode failures are one-line errors.

    Shared by every command that seats bots (``--plugins-dir``/``--strict-plugins``). The
    plugin machinery is imported here, not at module level, to keep ``druids --help`` fast.
    """
    from druids_p2p.plugins import PluginLoadError, load_bots

    dirs = list(plugins_dirs or [])
    for folder in dirs:
        if not folder.is_dir():
            fail(f"--plugins-dir {folder}: no such directory")
    try:
        return load_bots(dirs, strict=strict)
    except PluginLoadError as exc:
        fail(str(exc))


@app.command("bots")
def bots_command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    plugins_dir: list[Path] = typer.Option(
        [], "--plugins-dir", metavar="DIR", help=PLUGINS_DIR_HELP
    ),
    strict_plugins: bool = typer.Option(False, "--strict-plugins", help=STRICT_HELP),
) -> None:
    """List the bots: built-in, from installed packages and from plugin files.

    Plugins that failed to load are listed with the reason (set DRUIDS_PLUGINS=a,b to load only
    the named plugins, DRUIDS_PLUGINS=none for built-ins only).
    """
    registry = load_registry(plugins_dir, strict_plugins)
    if as_json:
        print(json.dumps(registry.as_dict()))
        return
    rows = [
        (s.name, s.version, s.source, ",".join(s.games), s.description)
        for s in registry.bots.values()
    ]
    head = ("NAME", "VERSION", "SOURCE", "GAMES", "")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in (0, 1, 2, 3)]
    print(
        f"{'NAME':{widths[0]}}  {'VERSION':{widths[1]}}  {'SOURCE':{widths[2]}}  "
        f"{'GAMES':{widths[3]}}  DESCRIPTION"
    )
    for name, version, source, games, description in rows:
        print(
            f"{name:{widths[0]}}  {version:{widths[1]}}  {source:{widths[2]}}  "
            f"{games:{widths[3]}}  {description}"
        )
    if registry.failed:
        print(f"\n{len(registry.failed)} plugin(s) failed to load and were skipped:")
        for failure in registry.failed:
            where = f" ({failure.source})" if failure.source else ""
            print(f"  {failure.plugin}{where}: {failure.error}")
