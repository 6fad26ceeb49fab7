"""Entry point of the ``druids`` command: runs the Typer app and turns every failure into one line.
Typer alone would print a framed box, a traceback, or (Ctrl-C) nothing; the project promises one
clear line and a non-zero exit, and for Ctrl-C what the command kept.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import sys
from collections.abc import Callable
from typing import Any

import typer

from druids_p2p.cli.app import CliError, Interrupted, app, forget_kept, kept_line

try:  # Typer >= 0.29 vendors its own Click
    from typer._click import exceptions as _click_exc
except ImportError:  # pragma: no cover - older Typer on top of Click
    from click import exceptions as _click_exc  # type: ignore[no-redef]

HELP_ORDER = (
    "audit",
    "bots",
    "demo",
    "history",
    "id",
    "host",
    "join",
    "play",
    "replay",
    "tables",
    "tournament",
    "engine",
    "deal",
    "table",
    "wire",
)
"""The order ``druids --help`` and ``druids bench --help`` list their commands in (one module
registers several, so the order the modules are imported in is not it)."""

EXIT_INTERRUPTED = 130
"""What a shell reports for a process stopped by Ctrl-C (128 + SIGINT)."""


COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "audit": ("records",),
    "bench": ("bench", "bench_bots"),  # engine, deal, table, wire; bots, tournament
    "bots": ("tournament_options",),
    "demo": ("records",),
    "history": ("tables",),
    "host": ("peer_cmd",),
    "id": ("peer_run",),
    "join": ("peer_cmd",),
    "peer": ("peer_cmd",),
    "play": ("play_cmd",),
    "replay": ("records",),
    "tables": ("tables",),
    "tournament": ("tournament_cmd",),
}
"""The modules of ``druids_p2p.cli`` that register each top-level command on the app. A run
imports only its command's (a peer process, a thousand of them in the test suite, needs neither the
benchmarks nor the tournament nor the TUI launcher); ``--help``, ``--version`` and a word that is no
command import them all, so what they print is what it always was."""


def load_commands(args: list[str]) -> None:
    """Register the commands ``args`` may run: its first word's (:data:`COMMAND_MODULES`), else
    all of them."""
    first = args[0] if args and not args[0].startswith("-") else ""
    names = COMMAND_MODULES.get(first) or tuple(
        sorted({m for mods in COMMAND_MODULES.values() for m in mods})
    )
    for name in names:
        importlib.import_module(f"druids_p2p.cli.{name}")


def _usage_hint(exc: Any) -> str:
    ctx = getattr(exc, "ctx", None)
    path = getattr(ctx, "command_path", "") if ctx is not None else ""
    return f" (see '{path} --help')" if path else ""


def version() -> str:
    """The installed package's version (what ``pip`` installed), else the source tree's."""
    try:
        return importlib.metadata.version("druids-p2p")
    except importlib.metadata.PackageNotFoundError:
        from druids_p2p import __version__

        return __version__


def _show_version(value: bool) -> None:
    if value:
        print(f"druids {version()}")
        raise typer.Exit(0)


@app.callback()
def _root(
    show_version: bool = typer.Option(
        False,
        "--version",
        is_eager=True,
        callback=_show_version,
        help="Print the version and exit.",
    ),
) -> None:
    """Card games (Druids, any registered game) peer to peer on a LAN: play, replay, audit."""


def _guard(callback: Callable[..., Any]) -> Callable[..., Any]:
    """``callback`` with a Ctrl-C that escapes it raised as :class:`Interrupted`, which Typer
    passes through (its own handling would exit 130 without a word)."""

    @functools.wraps(callback)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except KeyboardInterrupt:
            raise Interrupted() from None

    run.__druids_guarded__ = True  # type: ignore[attr-defined]
    return run


def _guard_commands(typer_app: typer.Typer) -> None:
    """Wrap every command of ``typer_app`` and its sub-apps once (:func:`_guard`)."""
    for info in typer_app.registered_commands:
        if info.callback is not None and not hasattr(info.callback, "__druids_guarded__"):
            info.callback = _guard(info.callback)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _guard_commands(group.typer_instance)


def _in_help_order(typer_app: typer.Typer) -> None:
    def rank(info: Any) -> int:
        name = info.name or getattr(info.callback, "__name__", "")
        return HELP_ORDER.index(name) if name in HELP_ORDER else len(HELP_ORDER)

    typer_app.registered_commands.sort(key=rank)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _in_help_order(group.typer_instance)


def _interrupted() -> None:
    kept = kept_line()
    print(f"druids: interrupted: {kept}" if kept else "druids: interrupted", file=sys.stderr)
    sys.exit(EXIT_INTERRUPTED)


def main(argv: list[str] | None = None) -> None:
    """Run the CLI. Exit codes: 0 ok, 1 a checked failure (illegal move, an invalid record), 2 bad
    input, 130 Ctrl-C; ``druids audit`` adds 3 (a valid but incomplete record) and 4 (valid,
    stopped)."""
    args = sys.argv[1:] if argv is None else argv
    forget_kept()
    load_commands(args)
    _guard_commands(app)
    _in_help_order(app)
    try:
        rv = app(args=args, prog_name="druids", standalone_mode=False)
    except CliError as exc:
        print(f"druids: error: {exc}", file=sys.stderr)
        sys.exit(exc.code)
    except _click_exc.NoArgsIsHelpError as exc:
        ctx = getattr(exc, "ctx", None)
        print(ctx.get_help() if ctx is not None else exc.format_message())
        sys.exit(0)
    except _click_exc.UsageError as exc:
        print(f"druids: error: {exc.format_message()}{_usage_hint(exc)}", file=sys.stderr)
        sys.exit(2)
    except _click_exc.ClickException as exc:
        print(f"druids: error: {exc.format_message()}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (Interrupted, typer.Abort, KeyboardInterrupt):
        _interrupted()
    except BrokenPipeError:
        sys.exit(0)
    if isinstance(rv, int) and rv != 0:
        sys.exit(rv)
