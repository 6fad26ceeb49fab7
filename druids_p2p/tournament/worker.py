"""What runs inside a tournament worker process, and the batches a backend (local processes, a Dask
cluster) hands it."""

from __future__ import annotations

import contextlib
import mmap
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from druids_p2p.games.registry import UNUSED_ROUNDS, default_name, game_spec, new_table_options
from druids_p2p.games.seam import TableOptions
from druids_p2p.plugins import BUILTIN_SOURCE, BotRegistry, load_bots
from druids_p2p.tournament.config import PlannedGame
from druids_p2p.tournament.play import (
    STATUS_CRASHED,
    TRACE_DONE,
    TRACE_ENGINE,
    is_timeout_fault,
    play_game,
    ranks_of,
    status_of,
)

TAINTED_EXIT = 75
"""Exit status of a worker that leaves because a bot thread of an earlier game still runs."""


class TablePlayer(Protocol):
    """Plays one whole game over the real protocol (``--p2p``): ``peer.local_table.play_table``.

    Injected through :class:`Batch` so that tournaments never import the network layer (an
    import-linter contract); a module-level function, so it travels to workers by reference.
    """

    def __call__(
        self,
        seats: list[str],
        options: TableOptions,
        seed: int | None,
        time_per_move_ms: float,
        workdir: Path,
        timeout: float = ...,
        *,
        new: bool = ...,
        game: str | None = ...,
        plugins_dirs: tuple[Path, ...] = ...,
    ) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Batch:
    """Games for one worker task, and how to play them."""

    games: tuple[PlannedGame, ...]
    players: int
    variant: bool
    budget_ms: float
    p2p: bool = False
    workdir: str = ""
    game_timeout: float | None = None
    game: str = field(default_factory=default_name)
    table_player: TablePlayer | None = None
    """How ``p2p`` games are played (required with ``p2p``)."""
    plugins_dirs: tuple[str, ...] = ()
    """The run's plugin folders, handed to every peer process of a ``p2p`` game."""
    rounds: int | None = None
    """The rounds of a game played by rounds (None: the game's most)."""


@dataclass
class _State:
    trace_path: str = ""
    error: str = ""
    registry: BotRegistry | None = None
    trace: Any = None
    tainted: bool = False


_STATE = _State()
_PARENT_REGISTRY: BotRegistry | None = None


def share_registry(registry: BotRegistry | None) -> None:
    """Hand the parent's registry to workers started by ``fork`` (they inherit this global), so they
    seat exactly the bots the parent checked; workers started otherwise load the plugin folders
    again.
    """
    global _PARENT_REGISTRY
    _PARENT_REGISTRY = registry


def init_worker(plugins_dirs: list[str], trace_path: str) -> None:
    """Pool initializer: load the bots once per worker; the parent alone handles Ctrl-C.

    A failure to load is kept and raised by the first task, so that it is reported as an error
    rather than as a worker that dies at start-up over and over.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STATE.trace_path = trace_path
    _STATE.trace = None
    _STATE.tainted = False
    _STATE.error = ""
    if _PARENT_REGISTRY is not None:
        _STATE.registry = _PARENT_REGISTRY
        return
    try:
        _STATE.registry = load_bots(plugins_dirs)
    except Exception as exc:
        _STATE.registry = None
        _STATE.error = f"loading the bots failed: {type(exc).__name__}: {exc}"


def _registry() -> BotRegistry:
    if _STATE.registry is None:
        raise RuntimeError(_STATE.error or "the worker was not initialised")
    return _STATE.registry


def _trace() -> Any:
    if _STATE.trace is None and _STATE.trace_path:
        with open(_STATE.trace_path, "r+b") as f:
            _STATE.trace = mmap.mmap(f.fileno(), 0)
    return _STATE.trace


def play_batch(batch: Batch) -> list[dict[str, Any]]:
    """Play every game of ``batch``; each line with ``index`` and ``deal`` first."""
    if _STATE.tainted:
        os._exit(TAINTED_EXIT)
    # A table's seat-message options over the network; the engine's own options in-process.
    options: Any = (
        new_table_options(batch.game, batch.players, batch.variant, batch.rounds or UNUSED_ROUNDS)
        if batch.p2p
        else game_spec(batch.game).rules.make_options(batch.players, batch.variant, batch.rounds)
    )
    trace = _trace()
    lines: list[dict[str, Any]] = []
    for spec in batch.games:
        head: dict[str, Any] = {"index": spec.index, "deal": spec.deal}
        if batch.p2p:
            assert batch.table_player is not None, "a p2p batch without its table player"
            line = play_p2p_game(
                batch.table_player, spec, options, batch.budget_ms, Path(batch.workdir), trace,
                batch.game_timeout, batch.game, tuple(Path(d) for d in batch.plugins_dirs),
            )  # fmt: skip
        else:
            line = play_game(
                spec.seating, options, spec.seed, batch.budget_ms, _registry(), game=batch.game,
                trace=trace, index=spec.index,
            )  # fmt: skip
        lines.append({**head, **line})
        overran = any(is_timeout_fault(str(f.get("text"))) for f in line["faults"])
        if not batch.p2p and overran:  # a bot thread of this process may still be running
            _STATE.tainted = True
    return lines


# ------------------------------------------------------------------------------ p2p
class _Stopped(BaseException):
    """The pool stops this worker (``SIGTERM``: Ctrl-C in the parent, or the game timeout)."""


def _raise_stopped(signum: int, frame: Any) -> None:
    raise _Stopped


@contextlib.contextmanager
def stopped_cleanly() -> Iterator[None]:
    """While a table plays: a ``SIGTERM`` from the pool unwinds the table player, so its peer
    processes stop before this worker exits instead of playing on, orphaned, into the game's folder.
    Main thread only, where signal handlers live.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_stopped)
    try:
        yield
    except _Stopped:
        os._exit(128 + signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, previous)


def play_p2p_game(
    play_table: TablePlayer,
    spec: PlannedGame,
    options: TableOptions,
    budget_ms: float,
    workdir: Path,
    trace: Any,
    timeout: float | None = None,
    game: str | None = None,
    plugins_dirs: tuple[Path, ...] = (),
) -> dict[str, Any]:
    """One game over the real protocol (a peer process a seat, on loopback) as a game line, from the
    table's summary in play order (``totals``, ``round_scores``, ``winners``, ``play_seats``,
    ``aborted``, ``blame``). Not a duplicate deal (docs/tournaments.md ``--p2p``); ``timeout`` lets
    the table stop its peers before the pool kills this worker.
    """
    n = options.players
    start = time.perf_counter()
    played = game_spec(game)
    game = played.name
    if trace is not None:
        trace[spec.index] = TRACE_ENGINE
    folder = workdir / f"game-{spec.index:06d}"
    again = folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    kwargs: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
    kwargs["game"] = game
    if plugins_dirs:
        kwargs["plugins_dirs"] = plugins_dirs
    if again:
        kwargs["new"] = True
    seats = [f"bot:{name}" for name in spec.seating]
    faults: list[dict[str, Any]] = []
    blame_seat: int | None = None
    with stopped_cleanly():
        try:
            result: dict[str, Any] = play_table(
                seats, options, spec.seed, budget_ms, folder, **kwargs
            )
        except Exception as exc:
            result = {"finished": False, "aborted": f"{type(exc).__name__}: {exc}"}
    seating = seated(spec.seating, result.get("play_seats"))
    registry = _STATE.registry
    versions = [registry.get(b).version if registry and b in registry else "?" for b in seating]
    finished = bool(result.get("finished", True)) and not result.get("aborted")
    if not finished:
        blame = result.get("blame")
        blame_seat = blame if isinstance(blame, int) and 0 <= blame < n else None
        text = str(result.get("aborted") or "the table did not finish")
        faults.append(
            {"seat": blame_seat, "bot": None if blame_seat is None else seating[blame_seat],
             "round": None, "move": None, "stage": "table", "text": text}
        )  # fmt: skip
    elif result.get("heads_agree") is False:
        faults.append(
            {"seat": None, "bot": None, "round": None, "move": None, "stage": "table",
             "text": "the peers' transcript heads disagree"}
        )  # fmt: skip
    faults += bot_faults(result.get("bot_faults"), seating)
    totals = [int(t) for t in result["totals"]] if finished and result.get("totals") else None
    status = STATUS_CRASHED  # a table that did not finish blames the seat it stopped on
    if totals is not None:  # a finished table: the first bot fault, if any, is the blame
        status, blame_seat = status_of(faults)
    rounds = [[int(x) for x in r] for r in result.get("round_scores") or []]
    if totals is not None and not rounds:
        rounds = [totals]
    line: dict[str, Any] = {"seed": spec.seed, "seating": seating, "versions": versions}
    if not played.default:  # as play_game's line: the default game's stay as they were
        line["game"] = game
    line |= {
        "status": status,
        "blame": None if blame_seat is None else seating[blame_seat],
        "blame_seat": blame_seat,
        "round_scores": rounds,
        "totals": totals,
        "winners": [int(w) for w in result.get("winners") or []],
        "ranks": None if totals is None else ranks_of(totals),
        **({} if played.default else {"ended_by": result.get("ended_by")}),
        "moves": [None] * n,
        "move_ms_mean": [None] * n,
        "move_ms_max": [None] * n,
        "move_ms_over": [None] * n,
        "faults": faults,
        "elapsed_ms": round((time.perf_counter() - start) * 1000.0, 3),
    }
    if trace is not None:
        trace[spec.index] = TRACE_DONE
    return line


MAX_FAULTS_PER_SEAT = 20
"""A peer's bot faults kept in a game line (a bot that raises on every move reports each)."""


def bot_faults(reported: Any, seating: list[str]) -> list[dict[str, Any]]:
    """The faults the peers reported of their bots (by play seat: the host's texts, a lifecycle
    hook's prefixed with its name), as a game line's fault entries."""
    out: list[dict[str, Any]] = []
    if not isinstance(reported, list):
        return out
    for seat, texts in enumerate(reported[: len(seating)]):
        for text in (texts if isinstance(texts, list) else [])[:MAX_FAULTS_PER_SEAT]:
            stage, sep, rest = str(text).partition(": ")
            hook = sep and stage in ("start_game", "end_round", "end_game")
            out.append(
                {"seat": seat, "bot": seating[seat], "round": None, "move": None,
                 "stage": stage if hook else "choose", "text": rest if hook else str(text)}
            )  # fmt: skip
    return out


def seated(planned: tuple[str, ...], play_seats: Any) -> list[str]:
    """The bots in play order: ``planned[i]`` sat at ``play_seats[i]`` (the table's coin flip);
    the plan's order where the table did not get as far as seating everyone."""
    n = len(planned)
    seats = play_seats if isinstance(play_seats, list) else []
    if len(seats) != n or sorted(s for s in seats if isinstance(s, int)) != list(range(n)):
        return list(planned)
    order = [""] * n
    for bot, seat in zip(planned, seats, strict=True):
        order[seat] = bot
    return order


def batch_size(specs: Sequence[PlannedGame], registry: BotRegistry, workers: int, p2p: bool) -> int:
    """Games per task: many cheap games per task, one game per task for anything risky or slow.

    Plugin bots and p2p games go one per task, so that a lost task is exactly one lost game.
    """
    if p2p or not specs:
        return 1
    names = {name for spec in specs for name in spec.seating}
    if any(registry.get(n).source != BUILTIN_SOURCE for n in names):
        return 1
    if names <= {"random"}:
        size = 64
    elif "pimc" in names:
        size = 1
    else:
        size = 8
    spread = -(-len(specs) // (4 * max(1, workers)))  # keep every worker busy to the end
    return max(1, min(size, spread))


@dataclass
class Feed:
    """What a backend is handed: the batches to play, and where their lines go. ``record`` ignores a
    game index it already has, so a batch played twice (a lost worker, a rescheduled task) counts
    once.
    """

    batches: list[Batch]
    record: Callable[[dict[str, Any]], None]
    should_stop: Callable[[], bool]
    tick: Callable[[], None]
    per_game: float
    batch_games: int | None = None
    """A batch size fixed by the caller (else each backend picks its own)."""
