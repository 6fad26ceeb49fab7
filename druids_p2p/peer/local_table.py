"""A whole table of real peer processes on loopback: ``druids play --headless`` and the tests.

Each seat is its own ``druids peer`` process with its own data folder, identity and record,
talking only over 127.0.0.1 and reporting progress as JSON lines on stdout, read here.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from druids_p2p.games.seam import TableOptions


class LocalTableError(Exception):
    """The local table could not be started or did not finish."""


class TableLeft(KeyboardInterrupt):
    """Ctrl-C stopped the table: every seat left it (:meth:`LocalTable.leave`). Still a
    ``KeyboardInterrupt``; ``finished`` says whether the game had ended before they could."""

    def __init__(self, finished: bool) -> None:
        super().__init__()
        self.finished = finished


Listener = Callable[[dict[str, Any]], None]
"""Told each event a peer reports, as it arrives (on that peer's reader thread)."""

STOP_WAIT_S = 10.0
"""How long a peer told to stop (SIGTERM, SIGINT) is given to exit before it is killed."""

LEAVE_GRACE_S = 1.0
"""Ctrl-C: how long the peers are given to report that they left (a terminal's Ctrl-C reaches
them too) before each is told to leave (SIGINT) by the table."""


def parse_seats(spec: str, seat_range: tuple[int, int] = (3, 5)) -> list[str]:
    """``bot:random,bot:rule,human`` -> player specs; ``seat_range`` seats (the game's)."""
    seats = [s.strip() for s in spec.split(",") if s.strip()]
    low, high = seat_range
    if not low <= len(seats) <= high:
        raise ValueError(f"a table has {low} to {high} seats, not {len(seats)}")
    for seat in seats:
        if seat != "human" and not (seat.startswith("bot:") and len(seat) > 4):
            raise ValueError(f"a seat is 'human' or 'bot:NAME', not {seat!r}")
    if seats.count("human") > 1:
        raise ValueError("a headless table on one terminal can seat at most one human")
    return seats


def peer_argv(
    player: str,
    name: str,
    budget_ms: float,
    options: list[str],
    plugins_dirs: tuple[Path, ...] = (),
) -> list[str]:
    """The command line of one ``druids peer`` process: the contract every launcher of peers on
    this machine (local tables, the terminal UI's bots) shares."""
    argv = [
        sys.executable,
        "-m",
        "druids_p2p",
        "peer",
        "--player",
        player,
        "--name",
        name,
        "--budget-ms",
        str(budget_ms),
        *options,
    ]
    for folder in plugins_dirs:
        argv += ["--plugins-dir", str(folder)]
    return argv


@dataclass
class PeerProcess:
    """One seat's process and what it has reported."""

    index: int
    home: Path
    argv: list[str]
    human: bool
    proc: subprocess.Popen[str] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    stderr_path: Path | None = None
    listener: Listener | None = None
    _reader: threading.Thread | None = None
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def start(self) -> None:
        env = dict(os.environ)
        env["DRUIDS_HOME"] = str(self.home)
        self.home.mkdir(parents=True, exist_ok=True)
        self.stderr_path = self.home / "peer.log"
        stderr: IO[str] = open(self.stderr_path, "a")  # noqa: SIM115 - the child owns it
        self.proc = subprocess.Popen(
            self.argv,
            stdout=subprocess.PIPE,
            stderr=None if self.human else stderr,
            stdin=None if self.human else subprocess.DEVNULL,
            text=True,
            env=env,
        )
        stderr.close()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(event, dict):
                event["_t"] = time.monotonic()  # arrival time, for the table's timings
                with self._changed:
                    self.events.append(event)
                    self._changed.notify_all()
                if self.listener is not None:
                    self.listener(event)

    def wait_for(self, kind: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        checked = 0  # a game prints thousands of events: look at each one once, not per wake-up
        with self._changed:
            while True:
                if checked > len(self.events):
                    checked = 0  # restart() dropped a result
                for event in self.events[checked:]:
                    if event.get("event") == kind:
                        return event
                checked = len(self.events)
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc is not None and self.proc.poll() is not None):
                    break
                self._changed.wait(min(left, 0.2))
        for event in self.events:
            if event.get("event") == kind:
                return event
        raise LocalTableError(f"seat {self.index} did not report {kind!r}: {self.tail_log()}")

    def result(self) -> dict[str, Any] | None:
        for event in reversed(self.events):
            if event.get("event") == "result":
                return dict(event)
        return None

    def tail_log(self) -> str:
        if self.stderr_path is None or not self.stderr_path.exists():
            return "(no log)"
        lines = self.stderr_path.read_text(errors="replace").strip().splitlines()
        return lines[-1] if lines else "(empty log)"

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def send(self, signum: int) -> None:
        """Send ``signum`` to the peer if it still runs."""
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signum)

    def stop(self, signum: int = signal.SIGTERM, wait_s: float = STOP_WAIT_S) -> None:
        """Tell the peer to stop (``signum``), then kill it if it has not exited in ``wait_s``."""
        self.send(signum)
        if self.proc is not None:
            try:
                self.proc.wait(wait_s)
            except subprocess.TimeoutExpired:
                self.kill()

    def restart(self) -> None:
        """Start the same command again: the peer finds its unfinished table and rejoins (a
        ``--new`` that started it beside an older table becomes ``--resume``: this one)."""
        self.kill()
        self.argv = ["--resume" if a == "--new" else a for a in self.argv]
        with self._changed:
            self.events = [e for e in self.events if e.get("event") != "result"]
        self.start()


class LocalTable:
    """Start, watch and collect a table of peer processes on loopback."""

    def __init__(
        self,
        seats: list[str],
        workdir: Path,
        options: TableOptions | None = None,
        budget_ms: float = 100.0,
        plugins_dirs: tuple[Path, ...] = (),
        extra_args: tuple[str, ...] = (),
        move_events: bool = True,
        resume: bool = False,
        game: str | None = None,
        go_on: bool = False,
        names: list[str] | None = None,
        listener: Listener | None = None,
    ) -> None:
        """``names`` also name the seats' folders (default ``seat<i>``); ``listener`` is told the
        first seat's events as they arrive; ``go_on``: ``--go-on`` for every seat (one that dies
        has no result); ``move_events``: a line per move (a game's summary needs none);
        ``resume``: every seat rejoins the table saved in its folder."""
        self.seats = seats
        self.workdir = workdir
        self.options = options
        """The game's options; its seat count is ``len(seats)`` whatever they say, and without
        options the host plays the CLI's defaults."""
        self.budget_ms = budget_ms
        self.plugins_dirs = plugins_dirs
        self.extra_args = extra_args
        self.move_events = move_events
        self.resume = resume
        self.game = game
        self.go_on = go_on
        if go_on and "--go-on" not in extra_args:
            self.extra_args = (*extra_args, "--go-on")
        self.names = names
        self.listener = listener
        self.peers: list[PeerProcess] = []
        self.lost: list[int] = []
        """Seats whose process ended without a result (killed): the others went on without."""
        self.stopped_agreed = False
        """True once :meth:`wait` stopped the peers on their agreed finished result."""
        self.started_at = 0.0

    def _argv(self, index: int, role: list[str]) -> list[str]:
        seat = self.seats[index]
        options = [
            "--no-announce",
            *([] if self.move_events else ["--no-moves"]),
            *role,
            *self.extra_args,
        ]
        return peer_argv(seat, self.seat_name(index), self.budget_ms, options, self.plugins_dirs)

    def seat_name(self, index: int) -> str:
        if self.names is not None:
            return self.names[index]
        return f"seat{index}-{self.seats[index].replace('bot:', '')}"[:32]

    def home(self, index: int) -> Path:
        """Seat ``index``'s data folder: named by its player (``names``), else ``seat<i>``."""
        return self.workdir / (self.names[index] if self.names is not None else f"seat{index}")

    def host_role(self) -> list[str]:
        """Seat 0's ``druids peer`` role: host this table, seating exactly its other seats, each
        pinned by ``--allow`` (a table of local peers is never opened to the LAN)."""
        role = ["--host", "--players", str(len(self.seats))]
        if self.options is not None:
            role += ["--rounds", str(self.options.rounds)]
            role += ["--variant"] if self.options.variant else []
        role += ["--game", self.game] if self.game is not None else []
        for index in range(1, len(self.seats)):
            role += ["--allow", self.fingerprint(index)]
        return role

    def fingerprint(self, index: int, home: Path | None = None) -> str:
        """Seat ``index``'s identity fingerprint (in ``home``, default its folder), made now."""
        from druids_p2p.wire import rename_identity

        folder = home if home is not None else self.home(index)
        return rename_identity(self.seat_name(index), folder).fingerprint

    def start(self, timeout: float = 30.0) -> None:
        self.started_at = time.monotonic()
        if self.resume:
            for index in range(len(self.seats)):
                argv = self._argv(index, ["--resume"])
                peer = PeerProcess(index, self.home(index), argv, self._human(index))
                peer.listener = self.listener if index == 0 else None
                self.peers.append(peer)
                peer.start()
            return
        host = PeerProcess(0, self.home(0), self._argv(0, self.host_role()), self._human(0))
        host.listener = self.listener
        self.peers = [host]
        host.start()
        lobby = host.wait_for("lobby", timeout)["lobby"]
        for index in range(1, len(self.seats)):
            peer = PeerProcess(
                index,
                self.home(index),
                self._argv(index, ["--join", str(lobby)]),
                self._human(index),
            )
            self.peers.append(peer)
            peer.start()

    def _human(self, index: int) -> bool:
        return self.seats[index] == "human"

    def wait(self, timeout: float) -> list[dict[str, Any]]:
        """Every seat's result (raises if one has none within ``timeout``); with ``go_on``, each
        seat's last table's, a seat whose process died left out (``lost``). Once every seat
        reported the same finished game none needs a resend any more, so each is stopped then
        (``SIGTERM``) rather than left to linger for the others."""
        deadline = time.monotonic() + timeout
        results = []
        for peer in self.peers:
            left = max(0.1, deadline - time.monotonic())
            if not self.go_on:
                results.append(peer.wait_for("result", left))
                continue
            try:
                first = peer.wait_for("result", left)
            except LocalTableError:
                if peer.proc is None or peer.proc.poll() is None:
                    raise
                self.lost.append(peer.index)
                continue
            if not first.get("finished") and peer.proc is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    peer.proc.wait(max(0.1, deadline - time.monotonic()))
            results.append(peer.result() or first)
        if self.go_on and any(r.get("finished") for r in results):
            # The others went on and finished: a seat that stopped (it left) is lost too.
            seated = [p for p in self.peers if p.index not in self.lost]
            gone = zip(seated, results, strict=True)
            self.lost += [p.index for p, r in gone if not r["finished"]]
            results = [r for r in results if r.get("finished")]
        if all(r.get("finished") for r in results) and len({r.get("head") for r in results}) == 1:
            self.stopped_agreed = True
            for peer in self.peers:
                if peer.index not in self.lost:
                    peer.send(signal.SIGTERM)  # a finished peer takes it as a clean exit (0)
        for peer in self.peers:
            if peer.proc is not None:
                left = deadline - time.monotonic()  # a peer told to stop gets its full grace
                try:
                    peer.proc.wait(max(STOP_WAIT_S if self.stopped_agreed else 0.1, left))
                except subprocess.TimeoutExpired:
                    peer.kill()
        return results

    def close(self) -> None:
        for peer in self.peers:
            peer.kill()

    def leave(self) -> bool:
        """Ctrl-C: every seat leaves the table, each recording it (``druids peer`` takes SIGINT
        as leaving). A terminal's Ctrl-C reached the peers too: they are given a moment to say
        so before the table tells the others, so that none is told twice. True if every seat
        had finished the game first."""
        deadline = time.monotonic() + LEAVE_GRACE_S
        for peer in self.peers:
            with contextlib.suppress(LocalTableError):
                peer.wait_for("result", max(0.1, deadline - time.monotonic()))
        for peer in self.peers:
            if peer.result() is None:
                peer.send(signal.SIGINT)
        for peer in self.peers:
            with contextlib.suppress(LocalTableError):
                peer.wait_for("result", STOP_WAIT_S)
        for peer in self.peers:  # each recorded its end before reporting it
            peer.stop(signal.SIGTERM, STOP_WAIT_S)
        results = [peer.result() for peer in self.peers]
        return bool(results) and all(r is not None and r.get("finished") for r in results)

    def _game_seconds(self, results: list[dict[str, Any]]) -> float:
        """From the moment every peer was seated to the last result (process start-up and the
        lobby excluded)."""
        seated = [e["_t"] for p in self.peers for e in p.events if e.get("event") == "seated"]
        ends = [r["_t"] for r in results if "_t" in r]
        if not seated or not ends:
            return 0.0
        return float(max(ends) - max(seated))

    def summary(self, results: list[dict[str, Any]]) -> dict[str, Any]:
        """All peers' results in one: the game's (in play order), ``play_seats`` (the play seat
        of each of :attr:`seats`), records, ``bot_faults`` (by play seat), timings (each move's
        latency also by kind, ``move_latency_by_kind``)."""
        heads = {r.get("head") for r in results}
        first = results[0]
        finished = all(r.get("finished") for r in results)
        deal_ms = [ms for r in results for ms in r.get("deal_ms", [])]
        deal_cpu_ms = [ms for r in results for ms in r.get("deal_cpu_ms", [])]
        cpu_s = [r["cpu_s"] for r in results if "cpu_s" in r]
        latency = [ms for r in results for ms in r.get("move_latency_ms", [])]
        by_kind: dict[str, list[float]] = {}
        for r in results:
            kinds = r.get("move_kinds", [])  # none at a table of dealt rounds
            for ms, kind in zip(r.get("move_latency_ms", []), kinds, strict=False):
                by_kind.setdefault(kind, []).append(ms)
        bot_faults: list[list[str]] = [[] for _ in (first.get("totals") or results)]
        for r in results:  # each peer's bot's faults (host's texts), by its play seat
            seat = r.get("seat")
            if isinstance(seat, int) and 0 <= seat < len(bot_faults):
                bot_faults[seat] = [str(f) for f in r.get("faults") or []]
        went_on = [e for p in self.peers for e in p.events if e.get("event") == "going_on"]
        seats = {r.get("seat"): r.get("name") for r in results}
        play_seats = [r.get("seat") for r in results]
        records = [r.get("record") for r in results]
        names = first.get("names")
        if self.lost and isinstance(names, list):
            # Some seats are gone, a stand-in in one: the final table's seats, by play seat
            # (the stand-in's record is its own, kept by the peer that started it).
            by_seat = {r.get("seat"): r.get("record") for r in results}
            seats = dict(enumerate(names))
            play_seats = list(range(len(names)))
            records = [by_seat.get(s) for s in play_seats]
        return {
            "went_on": sorted({str(e.get("text")) for e in went_on}),
            "lost": [self.seat_name(i) for i in self.lost],
            "finished": finished,
            "aborted": next((r["aborted"] for r in results if r.get("aborted")), None),
            "blame": next((r["blame"] for r in results if r.get("aborted")), None),
            "totals": first.get("totals"),
            "round_scores": first.get("round_scores"),
            "winners": first.get("winners"),
            "ended_by": first.get("ended_by"),
            "seats": seats,
            "play_seats": play_seats,
            "records": records,
            "bot_faults": bot_faults,
            "heads_agree": len(heads) == 1,
            "wall_s": round(time.monotonic() - self.started_at, 3),
            "game_s": round(self._game_seconds(results), 3),
            "deal_ms": deal_ms,
            "deal_cpu_ms": deal_cpu_ms,
            "peer_cpu_s": cpu_s,
            "move_latency_ms": latency,
            "move_latency_by_kind": by_kind,
        }


def saved_seats(workdir: Path, seats: int | list[str]) -> list[int]:
    """The seats whose folder under ``workdir`` holds a table still playing (a crash left it):
    folders ``seat<i>`` for a count, else named by the players (``LocalTable(names=…)``)."""
    from druids_p2p.peer.homes import playing_tables

    homes = [f"seat{i}" for i in range(seats)] if isinstance(seats, int) else seats
    return [i for i, home in enumerate(homes) if playing_tables(workdir / home)]


def play_table(
    seats: list[str],
    options: TableOptions,
    seed: int | None,
    time_per_move_ms: float,
    workdir: Path,
    timeout: float = 600.0,
    resume: bool = False,
    new: bool = False,
    game: str | None = None,
    plugins_dirs: tuple[Path, ...] = (),
    go_on: bool = False,
    names: list[str] | None = None,
    listener: Listener | None = None,
    peer_flags: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Play one whole game over the real protocol on loopback; the summary of all peers.

    ``seed`` only fits the tournament's interface: the mental deal draws from every peer's own
    secret, so a p2p game is never replayable from a seed. Ctrl-C makes every seat leave, then
    goes on up as :class:`TableLeft`.
    """
    del seed
    table = LocalTable(
        seats,
        workdir,
        options,
        time_per_move_ms,
        plugins_dirs=tuple(Path(d).resolve() for d in plugins_dirs),
        extra_args=(*peer_flags, "--new") if new else peer_flags,
        move_events=False,
        resume=resume,
        game=game,
        go_on=go_on,
        names=names,
        listener=listener,
    )
    try:
        table.start()
        return table.summary(table.wait(timeout))
    except KeyboardInterrupt:
        raise TableLeft(table.leave()) from None
    finally:
        table.close()
