"""A throw-away LAN made of Linux network namespaces, for tests that need real broadcast.

Layout for ``Lan(n)``: one "switch" namespace holding a bridge ``br0``, and ``n`` peer namespaces,
each with a veth pair whose inner end ``lan0`` has the address 10.77.0.(i+1)/24 (broadcast
10.77.0.255) and whose outer end ``p<i>`` is a port of the bridge. Every link is created inside
those namespaces, so nothing is added to the root namespace and no packet can reach a real
network. Names are ``druidsT<pid>x<k>sw`` / ``druidsT<pid>x<k>p<i>``; namespaces left behind by
dead test processes are deleted at start.

Use it as a context manager (``with Lan(4) as lan:`` raises :class:`NetnsUnavailable` where
namespaces cannot be made), as ``with open_lan(4) as lan:`` (skips the test instead), or as the
``lan`` fixture (4 peers; ``@pytest.mark.parametrize("lan", [3], indirect=True)`` for another
count). Tests that use it should be marked ``@pytest.mark.netns``.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

PREFIX = "druidsT"
SUBNET = "10.77.0"
BROADCAST = f"{SUBNET}.255"
IFACE = "lan0"
MAX_PEERS = 32
IP_TIMEOUT = 10.0
_UNAVAILABLE = (
    "Operation not permitted",
    "Permission denied",
    "not supported",
    "Not supported",
    "Unknown device type",
    "No such file or directory",
)
_serial = itertools.count()


class NetnsUnavailable(RuntimeError):
    """This machine (or this user) cannot make network namespaces; tests should skip."""


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        ["ip", *args], capture_output=True, text=True, timeout=IP_TIMEOUT, check=False
    )
    if check and proc.returncode != 0:
        err = proc.stderr.strip() or f"exit {proc.returncode}"
        if any(word in err for word in _UNAVAILABLE):
            raise NetnsUnavailable(f"ip {' '.join(args)}: {err}")
        raise RuntimeError(f"ip {' '.join(args)}: {err}")
    return proc


def _list_netns() -> list[str]:
    out = _ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale(prefix: str = PREFIX) -> list[str]:
    """Delete namespaces named ``<prefix><pid>…`` whose test process is gone; return their names."""
    gone = []
    for name in _list_netns():
        m = re.match(re.escape(prefix) + r"(\d+)x", name)
        if m and not _pid_alive(int(m.group(1))):
            _ip("netns", "del", name, check=False)
            gone.append(name)
    return gone


class Lan:
    """A bridge and ``n`` peer namespaces; see the module docstring."""

    def __init__(self, n: int = 4) -> None:
        if not 1 <= n <= MAX_PEERS:
            raise ValueError(f"1..{MAX_PEERS} peers, not {n}")
        self.n = n
        self.prefix = f"{PREFIX}{os.getpid()}x{next(_serial)}"
        self.switch = f"{self.prefix}sw"
        self.names = [f"{self.prefix}p{i}" for i in range(n)]
        self.iface = IFACE
        self.broadcast = BROADCAST
        self._procs: list[subprocess.Popen[Any]] = []
        self._made: list[str] = []

    def address(self, i: int) -> str:
        return f"{SUBNET}.{i + 1}"

    def _check_available(self) -> None:
        if not hasattr(os, "geteuid") or os.geteuid() != 0:
            raise NetnsUnavailable("network namespaces need root")
        if shutil.which("ip") is None:
            raise NetnsUnavailable("the 'ip' command (iproute2) is not installed")

    def start(self) -> Lan:
        self._check_available()
        clean_stale()
        for stale in (n for n in _list_netns() if n.startswith(self.prefix)):
            _ip("netns", "del", stale, check=False)
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def _add_ns(self, name: str) -> None:
        _ip("netns", "add", name)
        self._made.append(name)
        _ip("-n", name, "link", "set", "lo", "up")

    def _build(self) -> None:
        sw = self.switch
        self._add_ns(sw)
        _ip("-n", sw, "link", "add", "br0", "type", "bridge")
        _ip("-n", sw, "link", "set", "br0", "up")
        for i, name in enumerate(self.names):
            self._add_ns(name)
            veth = ["type", "veth", "peer", "name", IFACE, "netns", name]
            _ip("-n", sw, "link", "add", f"p{i}", *veth)
            _ip("-n", sw, "link", "set", f"p{i}", "master", "br0")
            _ip("-n", sw, "link", "set", f"p{i}", "up")
            _ip("-n", name, "addr", "add", f"{self.address(i)}/24", "brd", "+", "dev", IFACE)
            _ip("-n", name, "link", "set", IFACE, "up")

    def run(self, i: int, argv: Sequence[str], **popen_kwargs: Any) -> subprocess.Popen[Any]:
        """Start ``argv`` inside peer ``i``'s namespace; it is killed when the LAN is closed."""
        proc = subprocess.Popen(["ip", "netns", "exec", self.names[i], *argv], **popen_kwargs)
        self._procs.append(proc)
        return proc

    def cut(self, i: int) -> None:
        """Pull peer ``i``'s cable: its switch port goes down, the peer sees no carrier."""
        _ip("-n", self.switch, "link", "set", f"p{i}", "down")

    def restore(self, i: int) -> None:
        _ip("-n", self.switch, "link", "set", f"p{i}", "up")

    def close(self) -> None:
        """Kill the processes started with :meth:`run`, then delete every namespace made."""
        for proc in self._procs:
            if proc.poll() is None:
                proc.kill()
        for proc in self._procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        self._procs.clear()
        for name in reversed(self._made):
            _ip("netns", "del", name, check=False)
        self._made.clear()

    def __enter__(self) -> Lan:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def open_lan(n: int = 4) -> Iterator[Lan]:
    """Like ``Lan(n)``, but skips the calling test where namespaces cannot be made."""
    lan = Lan(n)
    try:
        lan.start()
    except NetnsUnavailable as exc:
        pytest.skip(f"network namespaces unavailable: {exc}")
    try:
        yield lan
    finally:
        lan.close()


@pytest.fixture
def lan(request: pytest.FixtureRequest) -> Iterator[Lan]:
    """A LAN of ``request.param`` peers (4 unless parametrized indirectly)."""
    with open_lan(getattr(request, "param", 4)) as made:
        yield made
