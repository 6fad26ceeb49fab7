"""What `druids bench deal`, `bench wire` and the Dask backend's bench measure, on this machine.

A deal at the mental card table, signing and checking moves, and games per second on a real
loopback cluster: each measured here, never asserted in tests."""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import math
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from druids_p2p.bench.tables import (
    Ed25519Codec,
    OpCounter,
    TableBus,
    counting,
    make_codecs,
    make_table,
)
from druids_p2p.deck.params import MAX_CARDS, DeckParams
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_peer import Entropy
from druids_p2p.games.registry import RULESETS, default_game
from druids_p2p.plugins import BotRegistry
from druids_p2p.tournament.cluster import ClusterTLS, connect
from druids_p2p.tournament.config import TournamentConfig
from druids_p2p.tournament.runner import run_tournament
from druids_p2p.tournament.worker import batch_size
from druids_p2p.wire.envelope import decode, encode
from druids_p2p.wire.identity import Identity
from druids_p2p.wire.msgtypes import MsgType

# What ``druids bench deal`` and ``druids bench wire`` measure: a game's deal at the mental card
# table, and signing and checking move messages.


def deal_ops(players: int, game: str | None = None) -> list[TableOp]:
    """The deck's operations of ``game``'s deal (None: the default game's) for ``players``
    seats, as a new seat copy schedules them (the same fields: ``table.card_table_play.table_op``
    does this at a real table)."""
    rules = RULESETS[game or default_game()]
    seat = rules.table_seat(rules.make_options(players), 0, random.Random(0))
    return [
        TableOp(op.kind, op.deck, op.zone, op.seat, op.cards, op.position, op.source, op.seats)
        for op in seat.ops()
    ]


def round_codecs(table_id: bytes, round_no: int, players: int) -> list[Ed25519Codec]:
    """Fresh signing identities for a round's table (made before a timed deal: they live long)."""
    return make_codecs(DeckParams(table_id, round_no, MAX_CARDS, players, 1))


def deal_round(
    players: int,
    table_id: bytes,
    round_no: int = 0,
    *,
    codecs: Sequence[Ed25519Codec] | None = None,
    ops: OpCounter | None = None,
    entropy: Callable[[int], Entropy] | None = None,
    game: str | None = None,
    scheduled: Sequence[TableOp] | None = None,
) -> TableBus:
    """A deal's table from its keys to its last deal (``scheduled``: its operations, if
    already made); each seat then knows its own hand (``bus.peers[s].known()``), nobody any
    other card."""
    cards = RULESETS[game or default_game()].deck_size
    bus = make_table(table_id, round_no, players, cards, entropy, codecs=codecs, ops=ops)
    for op in scheduled if scheduled is not None else deal_ops(players, game):
        bus.push(op)
    return bus


@dataclass(frozen=True, slots=True)
class DealTiming:
    """One deal's CPU per seat (ns, its key, passes, shares and proof checks), its wall time
    with every seat in this one process, and its messages and their bytes."""

    cpu_ns: tuple[int, ...]
    wall_ns: int
    messages: int
    bytes: int


def time_deal(players: int, round_no: int = 0, game: str | None = None) -> DealTiming:
    """One timed deal at a fresh table."""
    table_id = os.urandom(32)
    codecs = round_codecs(table_id, round_no, players)
    ops = deal_ops(players, game)  # the game's schedule is not the deck's work: not timed
    wall = time.perf_counter_ns()
    bus = deal_round(players, table_id, round_no, codecs=codecs, game=game, scheduled=ops)
    wall = time.perf_counter_ns() - wall
    return DealTiming(tuple(bus.cpu_ns), wall, len(bus.sent), bus.bytes)


def count_deal_ops(players: int, game: str | None = None) -> list[dict[str, int]]:
    """Each seat's group operations (``group_ops.OPS``) in one whole deal, from making its key
    to decrypting its hand: the same on every machine, unlike the CPU."""
    with counting() as ops:
        deal_round(players, os.urandom(32), ops=ops, game=game)
    return [ops.of(seat) for seat in range(players)]


@dataclass(frozen=True)
class WireBench:
    n: int
    message_bytes: int
    encode_per_s: float
    decode_per_s: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "message_bytes": self.message_bytes,
            "encode_per_s": round(self.encode_per_s, 1),
            "decode_per_s": round(self.decode_per_s, 1),
        }


def bench_wire(n: int) -> WireBench:
    identity = Identity.from_seed(hashlib.sha256(b"druids-p2p bench").digest(), "bench")
    table_id = hashlib.sha256(b"table").digest()
    head = hashlib.sha256(b"head").digest()
    prevs = [hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(n)]
    body = {"round": 2, "move": "Gaia:R"}
    start = time.perf_counter()
    raws = [
        encode(identity, MsgType.MOVE, table_id=table_id, seq=i + 1, prev=p, head=head, body=body)
        for i, p in enumerate(prevs)
    ]
    mid = time.perf_counter()
    for raw in raws:
        decode(raw)
    end = time.perf_counter()
    return WireBench(
        n=n,
        message_bytes=len(raws[0]),
        encode_per_s=n / max(mid - start, 1e-9),
        decode_per_s=n / max(end - mid, 1e-9),
    )


# Measuring the Dask backend (games per second, a batch's cost beyond its games) on a real
# cluster on this machine's loopback, which the tests use too.


NOOP_TASKS = 30


def _noop(i: int) -> int:
    return i


@dataclass
class ClusterBench:
    workers: int
    threads: int
    games: int
    batches: int
    batch_games: int
    seconds: float
    games_per_s: float
    game_ms_mean: float
    overhead_ms_per_batch: float
    noop_task_ms: float

    def as_dict(self) -> dict[str, Any]:
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in vars(self).items()}


def noop_roundtrip_ms(address: str) -> float:
    """Median round trip of an empty task on the cluster at ``address``, one task at a time."""
    dask: Any = importlib.import_module("distributed")
    client = dask.Client(address, timeout=20)
    try:
        times = []
        for i in range(NOOP_TASKS):
            start = time.perf_counter()
            client.submit(_noop, i, pure=False).result()
            times.append((time.perf_counter() - start) * 1000.0)
        times.sort()
        return times[len(times) // 2]
    finally:
        client.close()


def cluster_threads(address: str) -> tuple[int, int]:
    """(workers, threads) of the cluster at ``address``."""
    dask: Any = importlib.import_module("distributed")
    client = dask.Client(address, timeout=20)
    try:
        nthreads = client.nthreads()
        return len(nthreads), max(1, sum(nthreads.values()))
    finally:
        client.close()


def bench_cluster(
    address: str, config: TournamentConfig, registry: BotRegistry, batch_games: int | None = None
) -> ClusterBench:
    """One tournament on the cluster at ``address`` into a temporary folder, measured."""
    workers, threads = cluster_threads(address)
    size = batch_games or batch_size(config.plan(), registry, threads, False)
    with tempfile.TemporaryDirectory(prefix="druids-bench-") as tmp:
        start = time.perf_counter()
        result = run_tournament(
            config, registry, Path(tmp) / "run", cluster=address, batch_games=size
        )
        seconds = time.perf_counter() - start
    if result.interrupted:
        raise KeyboardInterrupt
    games = len(result.lines)
    batches = math.ceil(games / size)
    busy_ms = math.fsum(float(line["elapsed_ms"]) for line in result.lines)
    return ClusterBench(
        workers=workers,
        threads=threads,
        games=games,
        batches=batches,
        batch_games=size,
        seconds=seconds,
        games_per_s=games / seconds if seconds > 0 else 0.0,
        game_ms_mean=busy_ms / games if games else 0.0,
        overhead_ms_per_batch=max(0.0, seconds * 1000.0 * threads - busy_ms) / batches,
        noop_task_ms=noop_roundtrip_ms(address),
    )


HOST = "127.0.0.1"
START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 10.0


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class LoopbackCluster:
    """``workers`` worker processes of ``threads`` threads each, on a scheduler at 127.0.0.1."""

    def __init__(
        self,
        workers: int,
        threads: int = 1,
        env: dict[str, str] | None = None,
        tls: ClusterTLS | None = None,
    ) -> None:
        """``tls``: the CA, certificate and key every process (and the client) uses."""
        self.workers = workers
        self.threads = threads
        self.env = dict(os.environ if env is None else env)
        self.port = free_port()
        self.tls = tls
        self.address = f"{'tls' if tls else 'tcp'}://{HOST}:{self.port}"
        self.procs: list[subprocess.Popen[bytes]] = []
        self._tmp = tempfile.TemporaryDirectory(prefix="druids-dask-")
        self.folder = Path(self._tmp.name)

    def _spawn(self, name: str, args: list[str]) -> None:
        log = (self.folder / f"{name}.log").open("wb")
        self.procs.append(
            subprocess.Popen(
                [sys.executable, "-m", *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env,
                cwd=self.folder,
                start_new_session=True,
            )
        )
        log.close()

    def _tls_args(self) -> list[str]:
        tls = self.tls
        if tls is None:
            return []
        files = [("--tls-ca-file", tls.ca_file), ("--tls-cert", tls.cert), ("--tls-key", tls.key)]
        return [arg for option, path in files if path is not None for arg in (option, str(path))]

    def start(self) -> LoopbackCluster:
        """Start the scheduler and the workers; return once every worker has joined."""
        protocol = ["--protocol", "tls"] if self.tls else []
        self._spawn(
            "scheduler",
            ["distributed.cli.dask_scheduler", "--host", HOST, "--port", str(self.port),
             "--no-dashboard", "--dashboard-address", f"{HOST}:0", "--no-show", *protocol,
             *self._tls_args()],
        )  # fmt: skip
        for i in range(self.workers):
            self._spawn(
                f"worker-{i}",
                ["distributed.cli.dask_worker", self.address, "--host", HOST,
                 "--nthreads", str(self.threads), "--no-dashboard",
                 "--dashboard-address", f"{HOST}:0", "--name", f"w{i}",
                 "--local-directory", str(self.folder / f"w{i}"), *protocol, *self._tls_args()],
            )  # fmt: skip
        deadline = time.monotonic() + START_TIMEOUT_S
        try:
            client: Any = connect(self.address, self.tls, START_TIMEOUT_S)
            try:
                client.wait_for_workers(self.workers, timeout=max(1.0, deadline - time.monotonic()))
            finally:
                client.close()
        except BaseException:
            self.stop()
            raise RuntimeError(f"the loopback cluster did not start:\n{self.logs()}") from None
        return self

    def kill_worker(self, i: int) -> None:
        """Kill worker ``i`` (its nanny and process) for good, as a machine going away would."""
        proc = self.procs[1 + i]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(STOP_TIMEOUT_S)

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}"
            for p in sorted(self.folder.glob("*.log"))
        )

    def stop(self) -> None:
        """SIGTERM every process group, SIGKILL what is left after a bounded wait."""
        for proc in reversed(self.procs):
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for proc in self.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(max(0.1, deadline - time.monotonic()))
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)  # the group: a nanny's child included
            proc.wait(STOP_TIMEOUT_S)
        self.procs.clear()
        self._tmp.cleanup()

    def __enter__(self) -> LoopbackCluster:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
