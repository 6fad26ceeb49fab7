"""Playing a tournament's batches on a Dask cluster, and how the scheduler is reached: plain TCP
on one machine, TLS across machines."""

from __future__ import annotations

import hashlib
import importlib
import ipaddress
import logging
import os
import socket
import tempfile
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from druids_p2p import __version__
from druids_p2p.games.registry import game_spec
from druids_p2p.tournament.play import STATUS_CRASHED, failed_line, play_game

if TYPE_CHECKING:
    from druids_p2p.plugins import BotRegistry
    from druids_p2p.tournament.config import TournamentConfig
    from druids_p2p.tournament.worker import Batch, Feed


INSTALL_HINT = "pip install 'druids-p2p[cluster]'"
CONNECT_TIMEOUT_S = 20.0
"""How long the client tries to reach the scheduler."""
WORKER_WAIT_S = 60.0
"""How long a run waits for the cluster's first worker."""
WORKER_ERROR = "druids worker: "
"""Prefix of the one-line errors a worker raises (a missing bot, another version)."""
FILE_PREFIX = "file "

log = logging.getLogger(__name__)


class ShippedFile(NamedTuple):
    """One plugin file sent to the workers: its name, its text and the SHA-256 (hex) of the
    text's UTF-8 bytes, computed where the file was read (the client)."""

    name: str
    text: str
    sha256: str


def cluster_unavailable(address: str) -> str | None:
    """None if ``--cluster ADDRESS`` can run here, else the one-line reason."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return f"--cluster needs Dask distributed, which is not installed: {INSTALL_HINT}"
    scheme, _, rest = address.partition("://")
    host, _, port = rest.rpartition(":")
    if scheme not in ("tcp", "tls") or not host or not port.isdigit():
        return (
            f"--cluster {address}: give the scheduler as tcp://HOST:PORT (e.g. tcp://10.0.0.2:8786)"
        )
    return None


def plugin_files(registry: BotRegistry, bots: Sequence[str]) -> tuple[ShippedFile, ...]:
    """Every plugin file that defines one of ``bots``, to ship, each with its hash."""
    files: dict[str, str] = {}
    for name in bots:
        source = registry.get(name).source
        if source.startswith(FILE_PREFIX):
            path = Path(source[len(FILE_PREFIX) :])
            files[path.name] = path.read_text()
    return tuple(
        ShippedFile(name, text, hashlib.sha256(text.encode()).hexdigest())
        for name, text in sorted(files.items())
    )


# ------------------------------------------------------------------ on the worker
_REGISTRIES: dict[str, BotRegistry] = {}
_LOCK = threading.Lock()


def _refused(file: ShippedFile, why: str) -> RuntimeError:
    return RuntimeError(
        f"{WORKER_ERROR}{socket.gethostname()} refuses shipped file {file.name!r}: {why}; "
        f"nothing of it was imported"
    )


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_shipped(files: Sequence[ShippedFile]) -> list[Path]:
    """Write ``files`` into a private folder made fresh, each checked against its hash before
    it is written and again as read back from disk: the paths, ready to import."""
    for file in files:
        name = file.name
        if Path(name).name != name or not name.endswith(".py") or name.startswith((".", "_")):
            raise _refused(file, "not a plugin file name (NAME.py, no folder)")
        if _digest(file.text.encode()) != file.sha256:
            raise _refused(file, f"it does not match its SHA-256 {file.sha256[:16]}…")
    folder = Path(tempfile.mkdtemp(prefix="druids-shipped-"))  # mode 0700, a name never used
    paths = []
    for file in files:
        path = folder / file.name
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(file.text.encode())
        paths.append(path)
    for file, path in zip(files, paths, strict=True):
        if _digest(path.read_bytes()) != file.sha256:
            raise _refused(file, f"written to {path}, it no longer matches its SHA-256")
    return paths


def worker_registry(files: tuple[ShippedFile, ...]) -> BotRegistry:
    """The bots of this worker plus the shipped plugin files (loaded once per set of files):
    those files only, by path, never a folder's other contents."""
    from druids_p2p.plugins import load_bots

    key = _digest(repr([(f.name, f.sha256) for f in files]).encode())
    with _LOCK:
        registry = _REGISTRIES.get(key)
        if registry is None:
            paths = write_shipped(files) if files else []
            registry = load_bots([], default_dirs=False, files=paths)
            _REGISTRIES[key] = registry
        return registry


def play_cluster_batch(
    batch: Batch,
    files: tuple[ShippedFile, ...],
    want: tuple[tuple[str, str], ...],
    client_version: str,
) -> list[dict[str, Any]]:
    """The Dask task: play ``batch`` here; its lines, as :func:`.worker.play_batch` gives them."""
    where = socket.gethostname()
    if client_version != __version__:
        raise RuntimeError(
            f"{WORKER_ERROR}{where} runs druids-p2p {__version__}, the client {client_version}"
        )
    registry = worker_registry(files)
    for name, version in want:
        if name not in registry:
            raise RuntimeError(
                f"{WORKER_ERROR}{where} lacks bot {name!r}: install its package on the workers "
                f"(files given with --plugins-dir are shipped)"
            )
        if registry.get(name).version != version:
            raise RuntimeError(
                f"{WORKER_ERROR}{where} has bot {name!r} version "
                f"{registry.get(name).version}, the client {version}"
            )
    options = game_spec(batch.game).rules.make_options(batch.players, batch.variant, batch.rounds)
    lines = []
    for spec in batch.games:
        line = play_game(
            spec.seating, options, spec.seed, batch.budget_ms, registry, game=batch.game
        )
        lines.append({"index": spec.index, "deal": spec.deal, **line})
    return lines


# ------------------------------------------------------------------ on the client
LOST_TEXT = "its worker died every time it played this game (nobody blamed: no trace remotely)"


def lost_game(spec: Any, versions: dict[str, str]) -> dict[str, Any]:
    """The line of a game that killed every worker it was given: ``crashed``, nobody blamed."""
    line = failed_line(
        STATUS_CRASHED, None, spec.seating, spec.seed,
        [versions.get(n, "?") for n in spec.seating], LOST_TEXT, 0.0,
    )  # fmt: skip
    line["faults"] = [
        {"seat": None, "bot": None, "round": None, "move": None, "stage": "process",
         "text": LOST_TEXT}
    ]  # fmt: skip
    return {"index": spec.index, "deal": spec.deal, **line}


def play_on_cluster(
    address: str,
    feed: Feed,
    config: TournamentConfig,
    registry: BotRegistry,
    plugins_dirs: Sequence[str | os.PathLike[str]],
    out: Any,
    tls: ClusterTLS | None = None,
) -> None:
    """The cluster backend: submit ``feed``'s games as keyed batches, record what comes back.
    ``tls``: the user's files for a ``tls://`` scheduler (None: Dask's configuration)."""
    import importlib

    from druids_p2p.tournament.config import TournamentError
    from druids_p2p.tournament.worker import batch_size

    del plugins_dirs  # the files are found from the registry: exactly the bots that play
    # Imported as untyped modules: Dask's annotations are partial, and it is an optional extra.
    dask: Any = importlib.import_module("distributed")
    killed_worker: Any = importlib.import_module("distributed.scheduler").KilledWorker
    as_completed = dask.as_completed
    warning = plain_tcp_warning(address)
    if warning is not None:
        log.warning("%s", warning)
    try:
        client = connect(address, tls, CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as exc:
        raise TournamentError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    try:
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT_S)
        except TimeoutError:
            raise TournamentError(
                f"the Dask scheduler at {address} has no workers (start some: dask worker "
                f"{address})"
            ) from None
        threads = max(1, sum(client.nthreads().values()))
        specs = [spec for batch in feed.batches for spec in batch.games]
        size = feed.batch_games or batch_size(specs, registry, threads, config.p2p)
        template = feed.batches[0]
        files = plugin_files(registry, config.bots)
        want = tuple(zip(config.bots, config.versions, strict=True))
        token = uuid.uuid4().hex[:8]
        versions = dict(want)

        batches: dict[Any, tuple[Any, ...]] = {}
        submitted: list[Any] = []

        def submit(games: tuple[Any, ...]) -> Any:
            key = f"druids-{token}-games-{games[0].index}-{games[-1].index}"
            batch = replace(template, games=games)
            future = client.submit(
                play_cluster_batch, batch, files, want, __version__, key=key, pure=False
            )
            batches[future.key] = games
            submitted.append(future)
            return future

        queue = as_completed(
            [submit(tuple(specs[i : i + size])) for i in range(0, len(specs), size)]
        )
        try:
            for future in queue:
                games = batches[future.key]
                try:
                    lines = future.result()
                except killed_worker:
                    if len(games) > 1:
                        for spec in games:  # replay one per task: only the culprit is lost
                            queue.add(submit((spec,)))
                        continue
                    lines = [lost_game(games[0], versions)]
                except Exception as exc:
                    text = str(exc)
                    if WORKER_ERROR in text:
                        raise TournamentError(text[text.index(WORKER_ERROR) :]) from None
                    raise TournamentError(
                        f"a cluster worker failed: {type(exc).__name__}: {exc}"
                    ) from None
                for line in lines:
                    feed.record(line)
                out.flush()
                feed.tick()
                if feed.should_stop():
                    break
        finally:
            left = [f for f in submitted if not f.done()]
            if left:  # an early stop, Ctrl-C, an error: the cluster drops the rest
                client.cancel(left, force=True)
    finally:
        client.close()


TLS_OPTIONS = "--tls-ca, --tls-cert and --tls-key"


@dataclass(frozen=True)
class ClusterTLS:
    """The user's TLS files for the scheduler link (each None: Dask's configuration's)."""

    ca_file: Path | None = None
    """The CA that signed the scheduler's certificate (and the workers')."""
    cert: Path | None = None
    """This client's certificate: Dask's TLS authenticates both ends."""
    key: Path | None = None
    """Its private key (None: the certificate's file holds it too)."""

    def given(self) -> list[tuple[str, Path]]:
        named = (("--tls-ca", self.ca_file), ("--tls-cert", self.cert), ("--tls-key", self.key))
        return [(option, path) for option, path in named if path is not None]

    def security(self) -> Any:
        """The ``distributed.security.Security`` for a ``Client``: encryption required."""
        security_type: Any = importlib.import_module("distributed.security").Security
        files = {"tls_ca_file": self.ca_file, "tls_client_cert": self.cert}
        files["tls_client_key"] = self.key
        given = {name: str(path) for name, path in files.items() if path is not None}
        return security_type(require_encryption=True, **given)


def _split(address: str) -> tuple[str, str]:
    """``(scheme, host)`` of ``scheme://HOST:PORT`` (an IPv6 host without its brackets)."""
    scheme, _, rest = address.partition("://")
    host = rest.rpartition(":")[0]
    return scheme, host[1:-1] if host.startswith("[") and host.endswith("]") else host


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP literal (127.0.0.0/8, ::1); a host name is not resolved."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def plain_tcp_warning(address: str) -> str | None:
    """The one-line warning for ``--cluster tcp://`` to anything but loopback, else None."""
    scheme, host = _split(address)
    if scheme != "tcp" or is_loopback(host):
        return None
    return (
        f"--cluster {address} is plain TCP to another machine: anyone on the network path can "
        f"read and change the tasks and their results, and anyone who reaches the scheduler runs "
        f"code on its workers; use tls://HOST:PORT with {TLS_OPTIONS} (README: tournaments on a "
        f"cluster)"
    )


def dask_tls_configured() -> bool:
    """Dask's own configuration names a CA and a client certificate (a YAML file under
    ``~/.config/dask``, or ``DASK_DISTRIBUTED__COMM__TLS__…`` variables)."""
    config: Any = importlib.import_module("dask").config
    ca = config.get("distributed.comm.tls.ca-file", None)
    return bool(ca and config.get("distributed.comm.tls.client.cert", None))


def tls_problem(address: str, tls: ClusterTLS | None) -> str | None:
    """None if the TLS options fit ``address``, else the one-line reason."""
    if tls is None or not tls.given():
        if _split(address)[0] == "tls" and not dask_tls_configured():
            return (
                f"--cluster {address} needs {TLS_OPTIONS} (or Dask's distributed.comm.tls "
                f"configuration): Dask's TLS authenticates both ends"
            )
        return None
    if _split(address)[0] != "tls":
        return f"{TLS_OPTIONS} go with --cluster tls://HOST:PORT, not {address}"
    if tls.ca_file is None or tls.cert is None:
        return (
            "--cluster tls:// takes --tls-ca and --tls-cert together (and --tls-key unless the "
            "certificate's file holds the key): Dask's TLS authenticates both ends"
        )
    for option, path in tls.given():
        if not path.is_file():
            return f"{option} {path}: no such file"
    return None


def connect(address: str, tls: ClusterTLS | None, timeout: float) -> Any:
    """A ``distributed.Client`` of the scheduler at ``address`` (with ``tls``'s security)."""
    dask: Any = importlib.import_module("distributed")
    if tls is not None and tls.given():
        return dask.Client(address, timeout=timeout, security=tls.security())
    return dask.Client(address, timeout=timeout)
