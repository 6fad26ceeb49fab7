"""A cheating ``druids peer`` process for the end-to-end attack tests.

Usage: ``python tests/evil_peer.py MODE peer [the usual peer options]``. It is the real peer
(same CLI, same runner, same bot) with a few functions patched before it starts:

* ``equivocate``: after its first card shown it signs a second, different ``table_show`` with
  the same sequence number (the same card, opened with a fresh proof) and sends it, after the
  real one, to one other peer only (which can then prove it).
* ``forge-shuffle``: each shuffle pass of its is fresh encryptions of cards and randomness of
  its own choosing (issue 12's attack: a last shuffler doing this would know every hand), sent
  with the proof of its honest pass.
* ``false-share``: in each ``table_shares`` of its, one share of a card of the first seat it
  deals to is false (``x·A + A``), under a proof of that seat's shares made for it (its challenge
  holds, its equation does not): a seat checks only its own cards' proofs during the deal.
* ``junk``: besides its real traffic, every few messages it sends every peer garbage bytes,
  truncated and bit-flipped messages, a message signed by a key with no seat, one of its own
  messages re-signed for another table, and an exact replay of an earlier message.
* ``substitute`` (a host): its seat message lists, for the first joiner, a CURVE key and inbox of
  its own (a second mesh it keeps open), quoting the joins it received unchanged; it sends the
  seat message to every joiner's real inbox.
* ``ipc-seat`` (a host): its seat message lists an ``ipc://`` endpoint for itself.
* ``ipc-join`` (a joiner): its inbox endpoint, as its join and confirmation name it, is
  ``ipc://`` (a socket file nobody listens on).
* ``ipc-confirm`` (a joiner): it joins with its real ``tcp://`` endpoint, then confirms an
  ``ipc://`` one.
* ``nonce-veto``: the last seat to reveal its seat nonce (issue 27 item 10): it holds its own
  ``seat_nonce`` back until every other seat's is in, computes the play order as its machine
  does, and reveals only if that order is the one it wants (``DRUIDS_EVIL_WISH``: ``first``, to
  move first; ``never``, no order at all); else it withholds it for good, sending everything
  else (keepalives, answers to resend requests with its nonce left out). It says on stderr
  what it predicted.
* ``chat``: besides its real traffic, every few messages it sends every peer a volley of chat:
  a flood of valid signed lines (far above the rate limit), one line oversized (hand-signed past
  the 200-byte bound), one signed by a key with no seat, one claiming an honest seat as sender,
  one with an in-chain sequence number, an exact replay of an earlier line of its own, and an
  "equivocation proof" quoting two of its own chat lines.
* ``coach-persons`` (a host): with the coach on it seats a second person anyway (its lobby's
  refusal of that join patched out), so its seat message declares two persons.
* ``false-accuse``: it plays honestly until the first card is shown, then stops the table
  blaming the next play seat for a bad share proof in that seat's last ``table_shares`` (which
  holds: the claim is false), relaying that message first as an honest accuser does.
* ``flood``: once the deal is under way it replays one of its earlier signed messages to every
  peer :data:`FLOOD_COPIES` times, back to back (one signature check each, before issue 27).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any

from message_surgery import reproved_show, resign, thaw

from druids_p2p.deck import group
from druids_p2p.deck import table_peer as table_peer_module
from druids_p2p.deck.cards import Deck, card_points
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.proofs import prove_shares
from druids_p2p.deck.table_messages import SeatProof, SharePart, TableSharesMsg
from druids_p2p.deck.table_peer import TablePeer
from druids_p2p.games.seam import GameMove
from druids_p2p.lan import lobby as lobby_module
from druids_p2p.lan.mesh import Mesh
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableFault, TableSecret
from druids_p2p.wire import (
    ZERO_HASH,
    Identity,
    Message,
    MsgType,
    WireError,
    decode,
    encode,
)
from druids_p2p.wire.envelope import equivocation_body
from druids_p2p.wire.msgtypes import MSG_DOMAIN, pack

JUNK_EVERY = 7
FLOOD_AFTER = 12
"""Its broadcasts before the flood (seated, the deal under way)."""
FLOOD_COPIES = 12_000
"""Copies of one signed message sent to each peer: past a link's limit (8192 at once)."""
TWINS: dict[bytes, bytes] = {}
STATE: dict[str, Any] = {"identity": None, "count": 0, "history": []}
MODE: dict[str, str] = {"mode": ""}

_original_init = TableMachine.__init__
_original_play = TableMachine.play
_original_broadcast = Mesh.broadcast
_original_shuffle_output = getattr(table_peer_module, "shuffle_output")  # noqa: B009 (not exported)
_original_make_seat_message = lobby_module.make_seat_message  # type: ignore[attr-defined]
_original_mesh_init = Mesh.__init__
_original_seat_entries = lobby_module.seat_entries


def _real_seat_entries(seat_msg: Any) -> Any:
    return STATE.get("real_seats") or _original_seat_entries(seat_msg)


def _ipc_endpoint() -> str:
    return f"ipc:///tmp/druids-evil-{os.getpid()}"  # nothing listens there


def _substituting_seat_message(host: Identity, seats: Any, *args: Any, **kwargs: Any) -> bytes:
    seats = list(seats)
    STATE["real_seats"] = list(seats)  # the seat message still reaches every joiner
    if MODE["mode"] == "substitute":
        decoy = Mesh("127.0.0.1")
        STATE["decoy"] = decoy  # kept open: the honest peers' links for the joiner end here
        key, name, _, _ = seats[1]
        seats[1] = (key, name, decoy.endpoint, decoy.curve_public_raw)
    else:
        key, name, _, curve = seats[0]
        seats[0] = (key, name, _ipc_endpoint(), curve)
    return _original_make_seat_message(host, seats, *args, **kwargs)


def _ipc_mesh_init(self: Mesh, *args: Any, **kwargs: Any) -> None:
    _original_mesh_init(self, *args, **kwargs)
    self.endpoint = _ipc_endpoint()


def _ipc_confirming_init(
    self: TableMachine,
    identity: Identity,
    seat_message: Message,
    secret: TableSecret,
    endpoint: str,
    *args: Any,
    **kwargs: Any,
) -> None:
    _remember_identity(self, identity, seat_message, secret, _ipc_endpoint(), *args, **kwargs)


def _remember_identity(self: TableMachine, identity: Identity, *args: Any, **kwargs: Any) -> None:
    STATE["identity"] = identity
    _original_init(self, identity, *args, **kwargs)


def _equivocating_play(self: TableMachine, move: int | GameMove) -> list[bytes]:
    out = _original_play(self, move)
    if not TWINS and self.card_play is not None:
        for raw in out:
            msg = decode(raw)
            if msg.type is MsgType.TABLE_SHOW:
                body = reproved_show(self.card_play.peer, thaw(msg.body))
                TWINS[raw] = resign(self.identity, raw, body=body)
    return out


def _equivocating_broadcast(self: Mesh, payload: bytes, exclude: Iterable[bytes] = ()) -> None:
    _original_broadcast(self, payload, exclude)
    twin = TWINS.get(payload)
    if twin is not None and self.peers:
        self.send(sorted(self.peers)[0], twin)  # after the real one, on the same link


def _junk(raw: bytes) -> list[bytes]:
    identity = STATE["identity"]
    flipped = bytearray(raw)
    flipped[-5] ^= 0x10  # inside the signature
    msg = decode(raw)
    other_table = bytes(b ^ 0xFF for b in msg.table_id)
    return [
        b"\xc1 not msgpack",
        os.urandom(200),
        raw[: len(raw) // 2],
        bytes(flipped),
        resign(Identity.generate("stranger"), raw),
        resign(identity, raw, table_id=other_table),
    ]


def _junk_broadcast(self: Mesh, payload: bytes, exclude: Iterable[bytes] = ()) -> None:
    _original_broadcast(self, payload, exclude)
    history: list[bytes] = STATE["history"]
    history.append(payload)
    STATE["count"] += 1
    if STATE["count"] % JUNK_EVERY == 0 and STATE["identity"] is not None:
        extra = [*_junk(payload), history[len(history) // 2]]  # the last one is a replay
        for peer_id in list(self.peers):
            for raw in extra:
                self.send(peer_id, raw)


def _flood_broadcast(self: Mesh, payload: bytes, exclude: Iterable[bytes] = ()) -> None:
    _original_broadcast(self, payload, exclude)
    history: list[bytes] = STATE["history"]
    history.append(payload)
    if len(history) != FLOOD_AFTER:
        return
    replayed = history[0]
    for peer_id in list(self.peers):
        for _ in range(FLOOD_COPIES):
            self.send(peer_id, replayed)
    print(f"evil flood: {FLOOD_COPIES} copies to each peer", file=sys.stderr, flush=True)


def _forged_shuffle_output(
    params: DeckParams, seat: int, pass_no: int, seed: bytes, deck: Deck, joint_key: bytes
) -> tuple[Deck, list[int], list[bytes]]:
    """Its pass at the card table (``TablePeer``'s ``shuffle_output``): fresh encryptions of the
    cards 0, 1, ... of its own choosing, proven with its honest pass's witnesses."""
    joint = joint_key
    _, perm, rs = _original_shuffle_output(params, seat, pass_no, seed, deck, joint)
    points = card_points(len(deck.a))
    pairs = []
    for card in range(len(deck.a)):
        r = group.scalar_from_wide(os.urandom(64))
        pairs.append((group.base_mul(r), group.add(points[card], group.mul(r, joint))))
    return Deck(tuple(a for a, _ in pairs), tuple(c for _, c in pairs)), perm, rs


_original_shares = TablePeer._shares


def _false_shares(self: TablePeer, index: int, deck: str) -> TableSharesMsg:
    """Its part of a deals (``TablePeer._shares``) with the first share of the first seat's
    cards it deals to made false, under a proof of that seat's shares made for it."""
    msg = _original_shares(self, index, deck)
    state, victim = self.state, msg.proofs[0].seat
    theirs = [i for i, x in enumerate(msg.shares) if state.positions[x.position].owner == victim]
    shares = list(msg.shares)
    first = shares[theirs[0]]
    shares[theirs[0]] = SharePart(
        first.position, group.add(first.share, state.positions[first.position].a)
    )
    positions = [shares[i].position for i in theirs]
    a_list = [state.positions[p].a for p in positions]
    d_list = [shares[i].share for i in theirs]
    params = state.context(b"share", deck, index)
    secret, key = self._secret, self._key
    e, s, t2 = prove_shares(params, self.seat, secret, key, positions, a_list, d_list)
    proofs = (SeatProof(victim, e, s, t2), *msg.proofs[1:])
    print(f"evil false-share: seat {victim}'s position {first.position}", file=sys.stderr)
    return TableSharesMsg(msg.round_no, msg.op, tuple(shares), proofs)


CHAT_EVERY = 10
CHAT_FLOOD = 12


def _hand_signed(
    identity: Identity, machine: TableMachine, body: dict[str, Any], kind: MsgType = MsgType.CHAT
) -> bytes:
    """An out-of-chain envelope signed without the encoder's checks (of the body's bound, or of
    an equivocation proof's claim), as only a cheat would send it."""
    signed = pack([1, int(kind), machine.table_id, identity.public_key, 0, ZERO_HASH,
                   machine.transcript.head, body])  # fmt: skip
    return pack([signed, identity.sign(MSG_DOMAIN + signed)])


def _chat_volley(machine: TableMachine) -> list[bytes]:
    identity = machine.identity
    n = STATE.setdefault("chat_n", 0)

    def line(text: str, **envelope: Any) -> bytes:
        STATE["chat_n"] += 1
        fields: dict[str, Any] = {"seq": 0, "prev": ZERO_HASH, "head": machine.transcript.head}
        fields.update(envelope)
        body = {"n": STATE["chat_n"], "text": text}
        return encode(identity, MsgType.CHAT, table_id=machine.table_id, body=body, **fields)

    flood = [line(f"evil line {n + i}") for i in range(CHAT_FLOOD)]
    honest = next(k for k in machine.list_keys if k != identity.public_key)
    impostor = bytearray(_hand_signed(identity, machine, {"n": 10**9, "text": "I am honest"}))
    at = impostor.find(identity.public_key)
    impostor[at : at + 32] = honest  # the sender field says an honest seat: the signature fails
    stranger = Identity.generate("stranger")
    twin_a, twin_b = line("one"), line("two")
    proof = _hand_signed(identity, machine, equivocation_body(twin_a, twin_b), MsgType.EQUIVOCATION)
    stranger_line = encode(
        stranger,
        MsgType.CHAT,
        table_id=machine.table_id,
        seq=0,
        prev=ZERO_HASH,
        head=machine.transcript.head,
        body={"n": 1, "text": "a stranger"},
    )
    return [
        *flood,
        _hand_signed(identity, machine, {"n": 10**9 + 1, "text": "x" * 500}),  # oversized
        stranger_line,
        bytes(impostor),
        line("in a chain", seq=3, prev=b"\x01" * 32),
        flood[0],  # a replay
        proof,
    ]


def _chat_broadcast(self: Mesh, payload: bytes, exclude: Iterable[bytes] = ()) -> None:
    _original_broadcast(self, payload, exclude)
    machine = STATE.get("machine")
    STATE["count"] += 1
    if machine is None or STATE["count"] % CHAT_EVERY != 3:
        return
    for raw in _chat_volley(machine):
        for peer_id in list(self.peers):
            self.send(peer_id, raw)
    STATE["flooded"] = STATE.get("flooded", 0) + CHAT_FLOOD
    print(f"evil chat: {STATE['flooded']} lines sent", file=sys.stderr, flush=True)


def _remember_machine(self: TableMachine, identity: Identity, *args: Any, **kwargs: Any) -> None:
    _remember_identity(self, identity, *args, **kwargs)
    STATE["machine"] = self


_original_mesh_send = Mesh.send
_original_receive = TableMachine.receive


def _own_nonce(self: Mesh, payload: bytes) -> bool:
    """A seat_nonce of this peer's, not yet released."""
    if STATE.get("released"):
        return False
    try:
        msg = decode(payload)
    except WireError:  # anything else (a beacon, junk) passes
        return False
    identity = STATE["identity"]
    return (
        msg.type is MsgType.SEAT_NONCE
        and identity is not None
        and msg.sender == identity.public_key
    )


def _veto_send(self: Mesh, peer_id: bytes, payload: bytes, both_links: bool = False) -> bool:
    STATE["mesh"] = self
    if _own_nonce(self, payload):
        STATE.setdefault("held", []).append((peer_id, payload))
        return True
    return _original_mesh_send(self, peer_id, payload, both_links)


def _veto_broadcast(self: Mesh, payload: bytes, exclude: Iterable[bytes] = ()) -> None:
    skip = set(exclude)
    for peer_id in list(self.peers):
        if peer_id not in skip:
            _veto_send(self, peer_id, payload)


def _veto_receive(self: TableMachine, msg: Message) -> list[bytes]:
    out: list[bytes] = _original_receive(self, msg)
    if self.order and "decided" not in STATE:  # every nonce is in here: the order is known
        STATE["decided"] = True
        wish = os.environ.get("DRUIDS_EVIL_WISH", "never")
        wanted = wish == "first" and self.order[0] == self.me
        names = [str(self.names[k]) for k in self.order]
        verdict = "revealing" if wanted else "withholding my nonce"
        print(f"evil_peer: predicted order {names}; {verdict}", file=sys.stderr, flush=True)
        if wanted:
            STATE["released"] = True
            for peer_id, payload in STATE.pop("held", []):
                _original_mesh_send(STATE["mesh"], peer_id, payload)
    return out


def _false_accusing_receive(self: TableMachine, msg: Message) -> list[bytes]:
    out: list[bytes] = _original_receive(self, msg)
    if msg.type is not MsgType.TABLE_SHOW or self.my_seat is None:
        return out
    accused = (self.my_seat + 1) % len(self.order)
    key = self.order[accused]
    shares = [
        m for m in self.transcript.messages if m.sender == key and m.type is MsgType.TABLE_SHARES
    ]
    print(f"evil false-accuse: blaming seat {accused}'s true table_shares", file=sys.stderr)
    raise TableFault(
        f"card table: table_shares: invalid decryption share proof for seat {self.my_seat}",
        accused,
        (shares[-1].raw,),
    )


def install(mode: str) -> None:
    MODE["mode"] = mode
    TableMachine.__init__ = _remember_identity  # type: ignore[method-assign]
    if mode in ("substitute", "ipc-seat"):
        # the lobby calls the name it imported: patch it there, where it is looked up
        lobby_module.make_seat_message = _substituting_seat_message  # type: ignore[attr-defined]
        lobby_module.seat_entries = _real_seat_entries
    elif mode == "ipc-join":
        Mesh.__init__ = _ipc_mesh_init  # type: ignore[method-assign]
    elif mode == "ipc-confirm":
        TableMachine.__init__ = _ipc_confirming_init  # type: ignore[method-assign]
    elif mode == "equivocate":
        TableMachine.play = _equivocating_play  # type: ignore[method-assign]
        Mesh.broadcast = _equivocating_broadcast  # type: ignore[method-assign]
    elif mode == "forge-shuffle":
        setattr(table_peer_module, "shuffle_output", _forged_shuffle_output)  # noqa: B010 (its pass)
    elif mode == "false-share":
        TablePeer._shares = _false_shares  # type: ignore[method-assign]
    elif mode == "junk":
        Mesh.broadcast = _junk_broadcast  # type: ignore[method-assign]
    elif mode == "nonce-veto":
        Mesh.send = _veto_send  # type: ignore[method-assign]
        Mesh.broadcast = _veto_broadcast  # type: ignore[method-assign]
        TableMachine.receive = _veto_receive  # type: ignore[method-assign]
    elif mode == "false-accuse":
        TableMachine.receive = _false_accusing_receive  # type: ignore[method-assign]
    elif mode == "flood":
        Mesh.broadcast = _flood_broadcast  # type: ignore[method-assign]
    elif mode == "coach-persons":
        lobby_module.join_refusal = lambda *args: None  # type: ignore[attr-defined]
    elif mode == "chat":
        TableMachine.__init__ = _remember_machine  # type: ignore[method-assign]
        Mesh.broadcast = _chat_broadcast  # type: ignore[method-assign]
    else:
        raise SystemExit(f"evil_peer: unknown mode {mode!r}")


def main() -> None:
    install(sys.argv[1])
    from druids_p2p.cli.main import main as druids_main

    druids_main(sys.argv[2:])


if __name__ == "__main__":
    main()
