"""A userspace Ethernet switch over TAP devices: delay, jitter, loss, reordering and cut cables.

This kernel has no ``sch_netem``, so the fault suite cannot ask the kernel to delay or drop
frames. Instead this process owns one TAP device per port (``tap0``…), created in the namespace
it runs in; the test moves each TAP into a peer namespace (the open file keeps working across the
move) and this process forwards Ethernet frames between the ports as a learning bridge, applying
the link faults the test asks for.

Control: one JSON object a line on stdin, answered by one line on stdout (``{"ok": true}``):

- ``{"cmd": "set", "delay_ms": 100, "jitter_ms": 20, "loss": 0.05, "reorder": 0.1}`` — every
  frame is held ``delay ± jitter`` ms, dropped with probability ``loss``, and with probability
  ``reorder`` held one extra ``delay + jitter`` (so it overtakes nothing but is overtaken);
- ``{"cmd": "cut", "port": 2}`` / ``{"cmd": "restore", "port": 2}`` — every frame to or from that
  port is dropped (the cable is pulled, though the TAP keeps its carrier: a dead switch port);
- ``{"cmd": "stats"}`` — frames forwarded and dropped so far.

Safety: it touches only the TAP devices it creates (never a real interface), and it stops when
stdin closes (the test ended or died) or after ``--max-seconds``, whichever comes first. Every
loop is bounded: at most ``BATCH`` frames read per port per wake-up, at most ``MAX_HELD`` frames
held, at most ``MAX_MACS`` addresses learnt.

Usage: ``python3 netns_switch.py --ports 4 --max-seconds 600`` (run it inside the test's switch
namespace with ``ip netns exec``); it prints ``{"ready": ["tap0", …]}`` once the TAPs exist.
"""

from __future__ import annotations

import argparse
import fcntl
import heapq
import json
import os
import random
import select
import struct
import sys
import time
from dataclasses import dataclass, field

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
FRAME_MAX = 65536
BATCH = 64
MAX_HELD = 20_000
MAX_MACS = 1024
BROADCAST_MAC = b"\xff" * 6


@dataclass
class Faults:
    """What every frame meets on its way through the switch."""

    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    loss: float = 0.0
    reorder: float = 0.0
    cut: set[int] = field(default_factory=set)


def open_tap(name: str) -> int:
    """Create (or attach to) TAP device ``name`` and return its file descriptor, non-blocking."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    try:
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    except OSError:
        os.close(fd)
        raise
    return fd


class Switch:
    """A learning bridge between TAP file descriptors, with the faults of :class:`Faults`."""

    def __init__(self, fds: list[int], seed: int = 0) -> None:
        self.fds = fds
        self.faults = Faults()
        self.rng = random.Random(seed)
        self.macs: dict[bytes, int] = {}
        self.held: list[tuple[float, int, int, bytes]] = []
        self._serial = 0
        self.forwarded = 0
        self.dropped = 0

    def _delay_s(self) -> float:
        f = self.faults
        delay = f.delay_ms + (self.rng.uniform(-f.jitter_ms, f.jitter_ms) if f.jitter_ms else 0)
        if f.reorder and self.rng.random() < f.reorder:
            delay += f.delay_ms + f.jitter_ms + 1.0
        return max(0.0, delay) / 1000.0

    def on_frame(self, port: int, frame: bytes, now: float) -> None:
        """A frame read from ``port``: learn its source, then hold it for each port it goes to."""
        if len(frame) < 14:
            return
        dst, src = frame[0:6], frame[6:12]
        if not src[0] & 1 and (src in self.macs or len(self.macs) < MAX_MACS):
            self.macs[src] = port
        out = self.macs.get(dst) if not dst[0] & 1 and dst != BROADCAST_MAC else None
        targets = [out] if out is not None else [p for p in range(len(self.fds)) if p != port]
        for target in targets:
            if target == port:
                continue
            f = self.faults
            if port in f.cut or target in f.cut or (f.loss and self.rng.random() < f.loss):
                self.dropped += 1
                continue
            if len(self.held) >= MAX_HELD:
                self.dropped += 1
                continue
            self._serial += 1
            heapq.heappush(self.held, (now + self._delay_s(), self._serial, target, frame))

    def deliver(self, now: float) -> None:
        """Write every held frame that is due (a cut that began meanwhile drops it)."""
        for _ in range(MAX_HELD):
            if not self.held or self.held[0][0] > now:
                return
            _, _, target, frame = heapq.heappop(self.held)
            if target in self.faults.cut:
                self.dropped += 1
                continue
            try:
                os.write(self.fds[target], frame)
                self.forwarded += 1
            except OSError:  # the peer's interface is down or its queue full: a lost frame
                self.dropped += 1

    def next_due(self, now: float) -> float:
        return max(0.0, self.held[0][0] - now) if self.held else 0.2

    def command(self, line: str) -> dict[str, object]:
        try:
            cmd = json.loads(line)
            kind = cmd["cmd"]
            f = self.faults
            if kind == "set":
                f.delay_ms = float(cmd.get("delay_ms", 0.0))
                f.jitter_ms = float(cmd.get("jitter_ms", 0.0))
                f.loss = min(1.0, max(0.0, float(cmd.get("loss", 0.0))))
                f.reorder = min(1.0, max(0.0, float(cmd.get("reorder", 0.0))))
            elif kind == "cut":
                f.cut.add(int(cmd["port"]))
            elif kind == "restore":
                f.cut.discard(int(cmd["port"]))
            elif kind != "stats":
                return {"ok": False, "error": f"unknown command {kind!r}"}
        except (ValueError, KeyError, TypeError) as exc:
            return {"ok": False, "error": str(exc)}
        return {"ok": True, "forwarded": self.forwarded, "dropped": self.dropped}


def serve(switch: Switch, control: int, max_seconds: float) -> None:
    """Forward frames until ``control`` (stdin) closes or ``max_seconds`` have passed."""
    deadline = time.monotonic() + max_seconds
    buffer = b""
    ports = {fd: i for i, fd in enumerate(switch.fds)}
    while time.monotonic() < deadline:
        now = time.monotonic()
        timeout = min(switch.next_due(now), deadline - now, 0.2)
        readable, _, _ = select.select([control, *switch.fds], [], [], max(0.0, timeout))
        now = time.monotonic()
        for fd in readable:
            if fd == control:
                chunk = os.read(control, 4096)
                if not chunk:
                    return  # the test closed the pipe (or died): stop at once
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    reply = switch.command(line.decode(errors="replace"))
                    sys.stdout.write(json.dumps(reply) + "\n")
                    sys.stdout.flush()
                buffer = buffer[-4096:]
                continue
            for _ in range(BATCH):
                try:
                    frame = os.read(fd, FRAME_MAX)
                except BlockingIOError:
                    break
                except OSError:
                    break
                switch.on_frame(ports[fd], frame, now)
        switch.deliver(time.monotonic())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ports", type=int, required=True)
    parser.add_argument("--max-seconds", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not 1 <= args.ports <= 32:
        print(f"--ports: 1..32, not {args.ports}", file=sys.stderr)
        return 2
    names = [f"tap{i}" for i in range(args.ports)]
    fds = [open_tap(name) for name in names]
    sys.stdout.write(json.dumps({"ready": names}) + "\n")
    sys.stdout.flush()
    serve(Switch(fds, args.seed), sys.stdin.fileno(), args.max_seconds)
    for fd in fds:
        os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
