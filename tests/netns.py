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

``TapLan(n)`` (``open_lan(n, TapLan)``) is the same LAN with a userspace switch instead of the
bridge (``netns_switch.py``, over TAP devices): ``lan.impair(delay_ms, jitter_ms, loss, reorder)``
makes the links slow and lossy, and ``cut``/``restore`` drop every frame of one port.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
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


SWITCH = Path(__file__).with_name("netns_switch.py")
SWITCH_MAX_S = 900.0
"""The switch process stops by itself after this long, even if the test never closes it."""


class TapLan(Lan):
    """Like :class:`Lan`, but the switch is a userspace process (``netns_switch.py``) that can
    delay, drop and reorder frames (this kernel has no ``sch_netem``).

    The switch runs inside the switch namespace and creates one TAP per peer there; each TAP is
    then moved into its peer namespace and renamed ``lan0``. Nothing but those TAPs is touched,
    and the switch exits when its control pipe closes (this object closed, or the test died)."""

    def __init__(self, n: int = 4) -> None:
        super().__init__(n)
        self.switch_proc: subprocess.Popen[str] | None = None

    def _check_available(self) -> None:
        super()._check_available()
        if not os.path.exists("/dev/net/tun"):
            raise NetnsUnavailable("/dev/net/tun is missing (no TUN/TAP support)")

    def _build(self) -> None:
        sw = self.switch
        self._add_ns(sw)
        argv = [sys.executable, str(SWITCH), "--ports", str(self.n)]
        argv += ["--max-seconds", str(SWITCH_MAX_S)]
        self.switch_proc = subprocess.Popen(
            ["ip", "netns", "exec", sw, *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.switch_proc.stdout is not None
        ready = self.switch_proc.stdout.readline()
        if not ready.startswith('{"ready"'):
            err = self.switch_proc.stderr.read() if self.switch_proc.stderr else ""
            self.switch_proc.kill()
            raise NetnsUnavailable(f"the TAP switch did not start: {err.strip()[-300:]}")
        for i, name in enumerate(self.names):
            self._add_ns(name)
            _ip("-n", sw, "link", "set", f"tap{i}", "netns", name)
            _ip("-n", name, "link", "set", f"tap{i}", "name", IFACE)
            _ip("-n", name, "addr", "add", f"{self.address(i)}/24", "brd", "+", "dev", IFACE)
            _ip("-n", name, "link", "set", IFACE, "up")

    def control(self, **cmd: Any) -> dict[str, Any]:
        """Send one command to the switch and return its answer (see ``netns_switch.py``)."""
        proc = self.switch_proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(cmd) + "\n")
        proc.stdin.flush()
        reply: dict[str, Any] = json.loads(proc.stdout.readline() or "{}")
        if not reply.get("ok"):
            raise RuntimeError(f"switch refused {cmd}: {reply}")
        return reply

    def impair(
        self, delay_ms: float = 0, jitter_ms: float = 0, loss: float = 0, reorder: float = 0
    ) -> None:
        """Delay every frame ``delay_ms ± jitter_ms``, drop ``loss`` of them, reorder some."""
        self.control(cmd="set", delay_ms=delay_ms, jitter_ms=jitter_ms, loss=loss, reorder=reorder)

    def cut(self, i: int) -> None:
        self.control(cmd="cut", port=i)

    def restore(self, i: int) -> None:
        self.control(cmd="restore", port=i)

    def close(self) -> None:
        proc, self.switch_proc = self.switch_proc, None
        if proc is not None:
            with contextlib.suppress(OSError, ValueError):
                assert proc.stdin is not None
                proc.stdin.close()  # the switch stops when its control pipe closes
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        super().close()


@contextlib.contextmanager
def open_lan(n: int = 4, kind: type[Lan] = Lan) -> Iterator[Lan]:
    """Like ``Lan(n)`` (or ``kind(n)``), but skips the calling test where namespaces cannot be
    made."""
    lan = kind(n)
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
