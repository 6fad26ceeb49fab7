"""A real Dask cluster on this machine's loopback: a ``dask scheduler`` and ``dask worker``\\ s.

For the tests and ``druids bench tournament --cluster loopback:K``. Every process is a separate
``python -m distributed.cli.dask_...`` process (the programs behind the ``dask scheduler`` and
``dask worker`` commands) bound to 127.0.0.1 only, without a dashboard (``--no-dashboard`` alone
still leaves Dask's HTTP endpoints on all interfaces: ``--dashboard-address 127.0.0.1:0`` binds
them to loopback too; the tests check with ``ss``), each in its own process
group so that :meth:`LoopbackCluster.stop` takes down the worker's nanny and its child too.
Start-up is bounded in time; :meth:`stop` always runs (it is a context manager). With ``tls``
every link is TLS (``tls://``, the scheduler's and the workers' ``--tls-*`` options), as a
cluster across machines should be run (:mod:`.cluster_link`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from druids_p2p.tournament.cluster import ClusterTLS, connect

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
