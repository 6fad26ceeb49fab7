"""A ``druids peer`` process that attacks the links and liveness (issue 27 items 1 and 2).

Usage: ``python tests/evil_link_peer.py MODE peer [the usual peer options]``. It is the real peer
(same CLI, runner and bot) with a few functions patched before it starts, as in ``evil_peer.py``:

* ``split``: once seated it keeps opening extra DEALERs, with its own (admitted) CURVE key, to
  each other seat's inbox, each claiming the routing id another seat's own link uses there (up to
  this fix: that seat's Ed25519 key), and replaces them every ``SPLIT_EVERY_S``: with routing-id
  handover on, each one took the genuine link between the two others over.
* ``relay-hellos``: it keeps every ``hello`` the other seats send it, and about once a second
  sends each other seat the others' hellos it holds, cycling through them: a seat that has
  crashed still seems to say hello.
* ``slow-crash``: an honest seat on a slow inbound link that then crashes before its shuffle: the
  other seats' ``table_key`` and ``table_shuffle`` messages reach its table machine
  ``SLOW_LINK_S`` late (its hellos go on meanwhile), and when its own shuffle pass is due it
  kills itself (SIGKILL: nothing more is sent or flushed).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import Any

import zmq

from druids_p2p.deck import table_peer as table_peer_module
from druids_p2p.deck.cards import Deck
from druids_p2p.deck.params import DeckParams
from druids_p2p.lan.mesh import raw_to_z85
from druids_p2p.peer.links import Links
from druids_p2p.peer.runner import TableRunner
from druids_p2p.wire import Message, MsgType, WireError, decode

SPLIT_EVERY_S = 0.25
SPLIT_FOR_S = 150.0
"""The split thread's bound: it stops by itself (the test ends the process well before)."""
RELAY_KEEP = 64
SLOW_LINK_S = float(os.environ.get("DRUIDS_EVIL_SLOW_LINK_S", "10"))

_original_start = Links.start
_original_on_message = TableRunner._on_message
_original_keepalive = TableRunner._keepalive
_original_tick = TableRunner._tick


def _say(text: str) -> None:
    print(f"evil link peer {time.time():.1f}: {text}", file=sys.stderr, flush=True)


# ==================================================================== split
def _split(links: Links) -> None:
    """Every ``SPLIT_EVERY_S``: fresh DEALERs to each other seat's inbox claiming the routing id
    of each third seat's link there, with this peer's own CURVE key (the gate admits it)."""
    mesh, machine = links.mesh, links.machine
    body = machine.seat_message.body
    entries = list(zip(body["seats"], body["endpoints"], body["curves"], strict=True))
    others = [e for e in entries if e[0] != machine.me]
    public, secret = mesh.curve_public, mesh.curve_secret  # type: ignore[attr-defined]
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    socks: list[zmq.Socket[bytes]] = []
    opened = 0
    deadline = time.monotonic() + SPLIT_FOR_S
    try:
        while time.monotonic() < deadline:
            for sock in socks:
                sock.close(linger=0)
            socks = []
            for victim_key, endpoint, curve in others:
                for claimed, _, _ in others:
                    if claimed == victim_key:
                        continue
                    sock = ctx.socket(zmq.DEALER)
                    sock.setsockopt(zmq.LINGER, 0)
                    sock.setsockopt(zmq.ROUTING_ID, claimed)
                    sock.curve_publickey, sock.curve_secretkey = public, secret
                    sock.curve_serverkey = raw_to_z85(curve)
                    sock.connect(endpoint)
                    socks.append(sock)
                    opened += 1
            if opened == len(socks) or opened % 8 < len(socks):  # the first, then now and then
                _say(f"split: {opened} connections opened with another seat's routing id")
            time.sleep(SPLIT_EVERY_S)
    finally:
        for sock in socks:
            sock.close(linger=0)
        ctx.term()


def _splitting_start(self: Links) -> None:
    _original_start(self)
    threading.Thread(target=_split, args=(self,), daemon=True).start()


# ==================================================================== relay-hellos
HELLOS: dict[bytes, list[bytes]] = {}
RELAYED = {"count": 0, "turn": 0}


def _keeping_on_message(self: TableRunner, raw: bytes, link: bytes | None = None) -> None:
    try:
        msg: Message | None = decode(raw)
    except WireError:
        msg = None
    if msg is not None and msg.type is MsgType.HELLO and msg.sender != self.machine.me:
        kept = HELLOS.setdefault(msg.sender, [])
        if raw not in kept:
            kept.append(raw)
            del kept[:-RELAY_KEEP]
    _original_on_message(self, raw, link)


def _relaying_keepalive(self: TableRunner) -> None:
    before = self.liveness.last_keepalive
    _original_keepalive(self)
    if self.liveness.last_keepalive == before:
        return
    RELAYED["turn"] += 1
    for sender, kept in HELLOS.items():
        old = kept[RELAYED["turn"] % len(kept)]  # an old one, in turn
        for key in self.machine.list_keys:
            if key not in (sender, self.machine.me):
                self.mesh.send(key, old)
                RELAYED["count"] += 1
    if RELAYED["turn"] % 10 == 0:
        _say(f"relay-hellos: {RELAYED['count']} hellos of other seats relayed")


# ==================================================================== slow-crash
HELD: list[tuple[float, bytes, bytes | None]] = []
SEEN: set[bytes] = set()


def _slow_on_message(self: TableRunner, raw: bytes, link: bytes | None = None) -> None:
    if any(raw == held for _, held, _ in HELD):
        return  # a copy (a resend answer) of a message still on its slow way
    if raw not in SEEN:
        try:
            msg: Message | None = decode(raw)
        except WireError:
            msg = None
        if (
            msg is not None
            and msg.type in (MsgType.TABLE_KEY, MsgType.TABLE_SHUFFLE)
            and msg.sender != self.machine.me
        ):
            SEEN.add(raw)
            HELD.append((time.monotonic() + SLOW_LINK_S, raw, link))
            return
    _original_on_message(self, raw, link)


def _slow_tick(self: TableRunner) -> None:
    now = time.monotonic()
    while HELD and HELD[0][0] <= now:
        _, raw, link = HELD.pop(0)
        _original_on_message(self, raw, link)
    _original_tick(self)


def _crashing_shuffle_output(
    params: DeckParams, seat: int, pass_no: int, seed: bytes, deck: Deck, joint_key: bytes
) -> tuple[Deck, list[int], list[bytes]]:
    _say("slow-crash: killed before its shuffle")
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable")


# ==================================================================== main
def install(mode: str) -> None:
    patches: dict[str, list[tuple[Any, str, Any]]] = {
        "split": [(Links, "start", _splitting_start)],
        "relay-hellos": [
            (TableRunner, "_on_message", _keeping_on_message),
            (TableRunner, "_keepalive", _relaying_keepalive),
        ],
        "slow-crash": [
            (TableRunner, "_on_message", _slow_on_message),
            (TableRunner, "_tick", _slow_tick),
            (table_peer_module, "shuffle_output", _crashing_shuffle_output),
        ],
    }
    if mode not in patches:
        raise SystemExit(f"evil_link_peer: unknown mode {mode!r}")
    for owner, name, replacement in patches[mode]:
        if not hasattr(owner, name):  # a renamed seam would make the attack silently honest
            raise SystemExit(f"evil_link_peer: {owner!r} has no {name!r} to replace")
        setattr(owner, name, replacement)


def main() -> None:
    install(sys.argv[1])
    from druids_p2p.cli.main import main as druids_main

    druids_main(sys.argv[2:])


if __name__ == "__main__":
    main()
