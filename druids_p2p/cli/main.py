"""Entry point of the ``druids`` command: runs the Typer app and turns every failure into one line.

Typer would print usage errors as a framed box and unexpected errors as a traceback; the project
promises a clear one-line error and a non-zero exit for any bad input instead.
"""

from __future__ import annotations

import sys
from typing import Any

import typer

from druids_p2p.cli import commands  # noqa: F401  (registers every command on the app)
from druids_p2p.cli.app import CliError, app

try:  # Typer >= 0.29 vendors its own Click
    from typer._click import exceptions as _click_exc
except ImportError:  # pragma: no cover - older Typer on top of Click
    from click import exceptions as _click_exc  # type: ignore[no-redef]


def _usage_hint(exc: Any) -> str:
    ctx = getattr(exc, "ctx", None)
    path = getattr(ctx, "command_path", "") if ctx is not None else ""
    return f" (see '{path} --help')" if path else ""


def main(argv: list[str] | None = None) -> None:
    """Run the CLI. Exit codes: 0 ok, 1 a checked failure (illegal move, an invalid record), 2 bad
    input; ``druids audit`` adds 3 (a valid but incomplete record) and 4 (valid, stopped)."""
    args = sys.argv[1:] if argv is None else argv
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
    except (typer.Abort, KeyboardInterrupt):
        print("druids: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    if isinstance(rv, int) and rv != 0:
        sys.exit(rv)
