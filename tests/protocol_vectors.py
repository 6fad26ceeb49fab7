"""The protocol documents' test vectors and generated tables, recomputed from the implementation.

One small game at the card table (3 seats, 8 cards: deck.md §14.1's operations) and one Druids
2017 round at the card table (deck.md §14.2), with every seat's randomness drawn from a fixed
table secret (protocol.md §8), played over signed wire messages (protocol version 2, wire.md
§11), so that every intermediate value a second implementation needs to compare is a line here.
The tests check that the documents hold exactly these lines; `python3 -m tests.protocol_vectors`
writes them into the documents.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from nonce_vector import nonce_lines
from round_vector import round_2017_lines
from vector_keys import ALICE as ALICE
from vector_keys import BOB, CAROL, identity, seat_root

from druids_p2p.deck.table_audit import audit_state
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_peer import TablePeer
from druids_p2p.deck.table_state import context_params
from druids_p2p.games.druids2017.cards import (
    COLOUR_NAMES,
    DOMAINS,
    GAIA_BARE,
    GAIA_DARK,
    GAIA_LIGHT,
    N_CARDS,
    N_DOMAIN_CARDS,
    N_MOVES,
    PILE,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    card_domain,
    card_value,
    cards_for_move,
)
from druids_p2p.games.druids2017.notation import format_card, format_move
from druids_p2p.lan.seating import seat_order
from druids_p2p.table.codec import Chain, WireCodec
from druids_p2p.table.table_state import TableSecret
from druids_p2p.wire import ZERO_HASH, Identity, Message, MsgType
from druids_p2p.wire.envelope import head0, next_head

ROOT = Path(__file__).resolve().parent.parent
TABLE_ID = hashlib.sha256(b"druids-p2p deal vector table").digest()
"""The coin flip's table id (protocol.md §4)."""


def _hex(value: Any) -> str:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, int | str):
        return str(value)
    if isinstance(value, tuple | list):
        return "[" + " ".join(_hex(v) for v in value) + "]"
    raise TypeError(type(value))


def _body_lines(prefix: str, body: dict[str, Any]) -> Iterable[str]:
    for key in sorted(body):
        yield f"{prefix}.{key} = {_hex(body[key])}"


def table_secret_lines() -> list[str]:
    """protocol.md §8: the derivation of labels and streams from a table secret (the stream of
    Druids 2017's round-3 card table)."""
    secret, label = TableSecret(seat_root(0)), "table/druids2017/3"
    stream = secret.entropy(label)
    first, second = stream(64), stream(32)
    return [
        f"root = {seat_root(0).hex()}",
        f"derive('seat-nonce') = {secret.derive('seat-nonce').hex()}",
        f"derive('{label}') = {secret.derive(label).hex()}",
        f"entropy('{label}')(64) = {first.hex()}",
        f"entropy('{label}')(32) = {second.hex()}",
    ]


def coin_flip_lines() -> list[str]:
    """protocol.md §4: the seat-order coin flip of three seated keys."""
    keys = [identity(s).public_key().public_bytes_raw() for s in range(3)]
    nonces = {k: TableSecret(seat_root(s)).seat_nonce() for s, k in enumerate(keys)}
    joint = hashlib.sha256(
        b"druids-p2p/v1 seat-order\x00" + TABLE_ID + b"".join(nonces[k] for k in keys)
    ).digest()
    order = seat_order(TABLE_ID, keys, nonces)
    lines = [f"table_id = {TABLE_ID.hex()}"]
    for s, key in enumerate(keys):
        lines += [
            f"key_{s} = {key.hex()}",
            f"nonce_{s} = {nonces[key].hex()}",
            f"commit_{s} = {hashlib.sha256(nonces[key]).hexdigest()}",
        ]
    lines.append(f"joint = {joint.hex()}")
    for s, key in enumerate(keys):
        lines.append(f"SHA-256(joint || key_{s}) = {hashlib.sha256(joint + key).hexdigest()}")
    lines.append("play order = " + " ".join(f"key_{keys.index(k)}" for k in order))
    return lines


TABLE_VECTOR_ID = hashlib.sha256(b"druids-p2p card table vector").digest()
TABLE_VECTOR_GAME = 1
TABLE_VECTOR_OPS = (
    TableOp("shuffle", deck="d", cards=(0, 1, 2, 3, 4, 5)),
    TableOp("deal", deck="d", seat=0),
    TableOp("deal", deck="d", seat=1),
    TableOp("turn", deck="d", zone="row"),
    TableOp("play", seat=0, zone="slot"),
    TableOp("play", seat=1, zone="slot"),
    TableOp("reveal", zone="slot"),
    TableOp("return", deck="d", position=2),
    TableOp("shuffle", deck="d"),
    TableOp("deal", deck="d", seat=2),
    TableOp("final"),
)


@dataclass
class WireTableGame:
    """deck.md §14.1's game (or another schedule) played over signed wire messages (types
    60–66) by wire.md's keys."""

    table_id: bytes
    num_cards: int
    identities: tuple[Identity, ...]
    codecs: list[WireCodec]
    peers: list[TablePeer]
    sent: list[Message] = field(default_factory=list)
    head: bytes = b""


def wire_table_game(ops: Sequence[TableOp] = TABLE_VECTOR_OPS) -> WireTableGame:
    """Every seat's codec is the LAN table's (``table.codec.WireCodec``): each message is sealed in
    its sender's chain on the current transcript head and opened (verified) by every receiver.
    A seat plays or shows the first position of its hand."""
    idents = (ALICE, BOB, CAROL)
    keys = [i.public_key for i in idents]
    game = WireTableGame(TABLE_VECTOR_ID, 8, idents, [], [], head=head0(TABLE_VECTOR_ID))
    outbox: list[Message] = []

    def seat_of(key: bytes) -> int | None:
        return keys.index(key) if key in keys else None

    for s, ident in enumerate(idents):
        chain = Chain(ident, TABLE_VECTOR_ID, lambda: (0, ZERO_HASH))
        codec = WireCodec(s, chain, lambda: game.head, seat_of, lambda raw: None, outbox.append)
        game.codecs.append(codec)
        entropy = TableSecret(seat_root(s)).entropy(f"table/{TABLE_VECTOR_GAME}")
        peer = TablePeer(TABLE_VECTOR_ID, TABLE_VECTOR_GAME, 3, 8, game.codecs[s], entropy=entropy)
        game.peers.append(peer)

    def deliver(raws: list[bytes]) -> None:
        del raws  # the same bytes as the messages the codecs queued, in order
        while outbox:
            msg = outbox.pop(0)
            game.sent.append(msg)
            game.head = next_head(game.head, msg.hash)
            for peer in game.peers:
                if keys[peer.seat] != msg.sender:
                    peer.receive(msg.raw)

    for peer in game.peers:
        deliver(peer.start())
    for op in ops:
        for peer in game.peers:
            mine = op.kind in ("play", "show") and op.seat == peer.seat
            deliver(peer.push(op, peer.hand()[0] if mine else None))
    return game


def table_lines() -> list[str]:
    """deck.md §14.1: a small game at the card table, message by message, and its audit (each
    message's body; its envelope is wire.md §11's vector, :func:`table_wire_lines`)."""
    game = wire_table_game()
    seats, cards = len(game.peers), game.num_cards
    keys = [i.public_key for i in game.identities]
    state = game.peers[0].state
    lines = [
        f"table_id = {TABLE_VECTOR_ID.hex()}",
        f"game = {TABLE_VECTOR_GAME}, n = {seats}, N = {cards}",
        "context(shuffle, d, 0) = "
        + context_params(
            TABLE_VECTOR_ID, TABLE_VECTOR_GAME, seats, b"shuffle", "d", 0
        ).table_id.hex(),
        "context(share, d, 1) = "
        + context_params(
            TABLE_VECTOR_ID, TABLE_VECTOR_GAME, seats, b"share", "d", 1
        ).table_id.hex(),
    ]
    lines += [f"seat {s} x = {peer._secret.hex()}" for s, peer in enumerate(game.peers)]
    joint = state.joint_key
    assert joint is not None
    lines.append(f"H = {joint.hex()}")
    for msg in game.sent:
        body, kind = dict(msg.body), msg.type.label
        op_text = "" if kind == "table_key" else f" op {body['op']}"
        prefix = f"seat {keys.index(msg.sender)}{op_text} {kind}"
        if kind == "table_shuffle":
            lines.append(f"{prefix} output a = {_hex(body['a'])}")
            lines.append(f"{prefix} output c = {_hex(body['c'])}")
        elif kind == "table_open":
            for i, opening in enumerate(body["opens"]):
                lines.extend(_body_lines(f"{prefix}.opens[{i}]", dict(opening)))
            lines.append(f"{prefix}.round = {body['round']}")
        else:
            lines.extend(_body_lines(prefix, {k: v for k, v in body.items() if k != "op"}))
        packed = msgpack.packb(body, use_bin_type=True)
        lines.append(f"{prefix} body_sha256 = {hashlib.sha256(packed).hexdigest()}")
    for s, peer in enumerate(game.peers):
        known = " ".join(f"{p}:{c}" for p, c in sorted(peer.known().items()))
        lines.append(f"seat {s} knows before the final reveal: {known}")
    audit = audit_state(state)
    lines += [
        f"position {p.index}: card {p.card}, deck {p.deck}, op {p.op}, owner "
        f"{'-' if p.owner is None else p.owner}, zone {p.zone or '(returned)'}"
        for p in audit.positions
    ]
    lines += [f"deck {name} = {_hex(list(deck))}" for name, deck in audit.decks.items()]
    lines.append(f"state digest = {state.digest().hex()}")
    return lines


def table_wire_lines() -> list[str]:
    """wire.md §11: the card table's messages as wire messages, each one's size and hash."""
    game = wire_table_game()
    lines = [f"table_id = {game.table_id.hex()}", f"head_0 = {head0(game.table_id).hex()}"]
    for msg in game.sent:
        seat = [i.public_key for i in game.identities].index(msg.sender)
        op = "" if msg.type is MsgType.TABLE_KEY else f" op {msg.body['op']}"
        lines.append(
            f"{game.identities[seat].name} seq {msg.seq} type {int(msg.type)} {msg.type.label}{op}:"
            f" {len(msg.raw)} bytes, hash {msg.hash.hex()}"
        )
    play = next(m for m in game.sent if m.type is MsgType.TABLE_PLAY)
    raw = play.raw.hex()
    lines.append(f"first table_play in full ({len(play.raw)} bytes):")
    lines += [raw[i : i + 84] for i in range(0, len(raw), 84)]
    lines.append(f"head after the final reveal = {game.head.hex()}")
    return lines


def card_table_lines() -> list[str]:
    """protocol.md appendix A: every card id with its token, domain and value, from the engine."""
    lines = ["| id | token | domain | value |", "|---|---|---|---|"]
    for card in range(N_CARDS):
        domain = card_domain(card)
        where = f"{DOMAINS[domain]} ({COLOUR_NAMES[domain]})" if domain >= 0 else "—"
        value = str(card_value(card)) if domain >= 0 else "—"
        lines.append(f"| {card} | `{format_card(card)}` | {where} | {value} |")
    return lines


def move_table_lines() -> list[str]:
    """protocol.md appendix A: every move token the `move` field may carry, from the engine."""
    lines = ["| token | card ids it opens | what it is |", "|---|---|---|"]
    for move in range(N_MOVES):
        cards = " or ".join(str(c) for c in cards_for_move(move)) or "none"
        if move < N_DOMAIN_CARDS:
            what = "plays that card"
        elif move < GAIA_LIGHT:
            what = f"leads Gaia naming {COLOUR_NAMES[move - GAIA_DARK]} (dark side)"
        elif move < PLAY_MISTLETOE:
            what = f"leads Gaia naming {COLOUR_NAMES[move - GAIA_LIGHT]} (light side; variant only)"
        elif move == PLAY_MISTLETOE:
            what = "plays a Mistletoe (either copy)"
        elif move == PLAY_SICKLE:
            what = "plays a Sickle (either copy)"
        elif move < GAIA_BARE:
            what = f"Sickle choice: removes the {COLOUR_NAMES[move - PILE]} pile"
        else:
            what = "never legal: a lead of Gaia must name a domain"
        lines.append(f"| `{format_move(move)}` | {cards} | {what} |")
    return lines


BLOCKS = {
    "table-secret-vector": table_secret_lines,
    "coin-flip-vector": coin_flip_lines,
    "nonce-vector": nonce_lines,
    "table-vector": table_lines,
    "table-wire-vector": table_wire_lines,
    "round-2017-vector": round_2017_lines,
    "card-table": card_table_lines,
    "move-table": move_table_lines,
}


DOCUMENTS = (
    ROOT / "protocol.md",
    ROOT / "docs" / "protocol" / "deck.md",
    ROOT / "docs" / "protocol" / "wire.md",
)


def _pattern(name: str) -> re.Pattern[str]:
    """A vector is a fenced block after its marker; a table sits between two markers."""
    if name.endswith("-vector"):
        return re.compile(rf"^( *)<!-- {name} -->\n *```\n(.*?)^ *```$", re.S | re.M)
    return re.compile(rf"^( *)<!-- {name} -->\n(.*?)^ *<!-- end {name} -->$", re.S | re.M)


def blocks_in(text: str) -> dict[str, list[str]]:
    """Every generated block a document holds, by name, its lines without their indentation."""
    found: dict[str, list[str]] = {}
    for name in BLOCKS:
        match = _pattern(name).search(text)
        if match is not None:
            indent = len(match.group(1))
            found[name] = [line[indent:] for line in match.group(2).splitlines()]
    return found


def filled(text: str) -> str:
    """``text`` with every generated block it holds recomputed (what ``--write`` saves)."""
    for name, make in BLOCKS.items():
        pattern = _pattern(name)
        match = pattern.search(text)
        if match is None:
            continue
        pad = match.group(1)
        body = "".join(f"{pad}{line}\n" if line else "\n" for line in make())
        if name.endswith("-vector"):
            new = f"{pad}<!-- {name} -->\n{pad}```\n{body}{pad}```"
        else:
            new = f"{pad}<!-- {name} -->\n{body}{pad}<!-- end {name} -->"
        text = text[: match.start()] + new + text[match.end() :]
    return text


if __name__ == "__main__":
    for path in DOCUMENTS:
        path.write_text(filled(path.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"{path}: {', '.join(blocks_in(path.read_text(encoding='utf-8')))}")
