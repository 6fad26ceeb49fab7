"""The card table's eight messages as wire types 60–67 (wire.md §5, deck.md §5).

A whole small card-table game (deck.md §14.1's operations) runs over real signed wire messages
through the table's codec (``table.codec.WireCodec``), and every body a hostile peer could sign
outside the deck's bounds is refused by the wire decoder itself, naming the field.
"""

from __future__ import annotations

from typing import Any

import pytest
from message_surgery import reproved_show
from protocol_vectors import (
    ALICE,
    TABLE_VECTOR_GAME,
    TABLE_VECTOR_ID,
    TABLE_VECTOR_OPS,
    wire_table_game,
)
from sample_table import sign_fields

from druids_p2p.deck import DeckFault, MalformedMessage, group
from druids_p2p.deck.proofs import verify_open
from druids_p2p.deck.table_audit import audit_record
from druids_p2p.deck.table_messages import TABLE_KINDS, TableOp, parse_table_body
from druids_p2p.deck.table_state import TableState
from druids_p2p.table.codec import TABLE_KIND_TYPES, TABLE_TYPES
from druids_p2p.wire import PROTOCOL_VERSION, ZERO_HASH, Identity, MsgType, decode, encode
from druids_p2p.wire.msgtypes import BadShape, pack


def test_the_eight_table_kinds_are_wire_types_60_to_67_in_deck_md_order() -> None:
    assert tuple(TABLE_KIND_TYPES) == TABLE_KINDS
    assert [int(t) for t in TABLE_KIND_TYPES.values()] == list(range(60, 68))
    assert {t.label for t in TABLE_TYPES} == set(TABLE_KINDS)


def test_a_card_table_game_runs_over_signed_wire_messages_and_audits() -> None:
    game = wire_table_game()
    kinds = [m.type for m in game.sent]
    v2 = {MsgType.TABLE_SHOW, MsgType.TABLE_SHARES}  # §14.1's game has neither (see the next)
    assert set(kinds) == TABLE_TYPES - v2, "every other one of the eight messages travelled"
    for msg in game.sent:
        again = decode(msg.raw)  # what a receiver does: verify, then check the body's schema
        assert again.type is msg.type and again.body == msg.body
    digests = {peer.state.digest() for peer in game.peers}
    assert len(digests) == 1 and all(peer.state.finished for peer in game.peers)
    audit = audit_record(
        game.table_id,
        TABLE_VECTOR_GAME,
        len(game.peers),
        game.num_cards,
        game.codecs[0],
        TABLE_VECTOR_OPS,
        [m.raw for m in game.sent],
    )
    in_zones = [p.card for p in audit.positions if p.zone]  # a returned one is in its deck again
    in_decks = [c for deck in audit.decks.values() for c in deck]
    assert sorted(in_zones + in_decks) == list(range(6)), "every card is still there, once"


V2_OPS = (
    TableOp("shuffle", deck="deck", cards=(0, 1, 2, 3, 4)),
    TableOp("shuffle", deck="lead", cards=(7,)),
    TableOp("transfer", deck="lead", source="deck"),
    TableOp("transfer", deck="lead", source="deck"),
    TableOp("shuffle", deck="lead"),
    TableOp("deals", deck="lead", seats=(0, 1, 2)),
    TableOp("deals", deck="deck", seats=(0, 1, 2)),
    TableOp("show", seat=1, zone="trick"),
    TableOp("show", seat=0, zone="gaia:R"),
    TableOp("final"),
)
"""A schedule with protocol version 2's operations: transfer, deals and show."""


def test_a_v2_schedule_with_shows_runs_over_signed_wire_messages_and_audits() -> None:
    game = wire_table_game(V2_OPS)
    shows = [m for m in game.sent if m.type is MsgType.TABLE_SHOW]
    assert len(shows) == 2 and {m.type for m in game.sent} <= TABLE_TYPES
    for msg in shows:
        assert tuple(decode(msg.raw).body) == ("card", "d", "e", "op", "pos", "round", "s", "zone")
    shares = [decode(m.raw) for m in game.sent if m.type is MsgType.TABLE_SHARES]
    assert len(shares) == 2 * 3, "one table_shares a seat for each deals"
    for msg in shares:
        assert tuple(msg.body) == ("op", "proofs", "round", "shares")
        assert all(tuple(part) == ("d", "pos") for part in msg.body["shares"])
        assert len(msg.body["shares"]) == 2, "its shares of the two others' positions"
        proofs = msg.body["proofs"]
        assert [tuple(pr) for pr in proofs] == [("e", "s", "seat", "t2")] * 2, "one a recipient"
        assert msg.sender not in [pr["seat"] for pr in proofs]
    assert len({peer.state.digest() for peer in game.peers}) == 1
    audit = audit_record(
        game.table_id,
        TABLE_VECTOR_GAME,
        3,
        game.num_cards,
        game.codecs[0],
        V2_OPS,
        [m.raw for m in game.sent],
    )
    shown = {pos.zone: pos.card for pos in audit.positions if pos.zone in ("trick", "gaia:R")}
    assert len(shown) == 2 and not set(shown.values()) & set(audit.decks["deck"])


def test_a_reproved_show_is_a_second_valid_spelling_of_the_same_show() -> None:
    """What an equivocating mover signs (``message_surgery.reproved_show``): the same card
    shown, another proof that holds in the show's own context, so other bytes."""
    game = wire_table_game(V2_OPS)
    show = next(m for m in game.sent if m.type is MsgType.TABLE_SHOW)
    seat = [i.public_key for i in game.identities].index(show.sender)
    peer, body = game.peers[seat], dict(show.body)
    again = reproved_show(peer, body)
    assert {k: v for k, v in again.items() if k not in "es"} == {
        k: v for k, v in body.items() if k not in "es"
    }
    assert (again["e"], again["s"]) != (body["e"], body["s"])
    params = peer.state.context(b"open", body["zone"], body["op"])
    a, key = peer.state.positions[body["pos"]].a, peer.state.keys[seat].msg.key
    for proof in ((body["e"], body["s"]), (again["e"], again["s"])):
        assert verify_open(params, seat, body["pos"], key, a, body["d"], proof)
    wrong = peer.state.context(b"open", "trick", body["op"] + 1)
    assert not verify_open(wrong, seat, body["pos"], key, a, body["d"], (again["e"], again["s"]))


def test_a_table_message_signed_by_a_key_not_at_the_table_is_no_deck_message() -> None:
    game = wire_table_game()
    key = next(m for m in game.sent if m.type is MsgType.TABLE_KEY)
    dave = Identity.from_seed(bytes(range(96, 128)), "dave")
    raw = encode(
        dave,
        "table_key",
        table_id=game.table_id,
        seq=0,
        prev=ZERO_HASH,
        head=key.head,
        body=dict(key.body),
    )
    with pytest.raises(MalformedMessage, match="not a deck message from a seated peer"):
        game.codecs[1].open(raw)
    assert game.codecs[1].open(key.raw).kind == "table_key"


P, S = b"\x11" * 32, b"\x22" * 32


def _share(**changes: Any) -> dict[str, Any]:
    return {"d": P, "e": S, "op": 1, "pos": 0, "round": 1, "s": S} | changes


def _opening(**changes: Any) -> dict[str, Any]:
    return {"card": 2, "d": P, "e": S, "pos": 0, "s": S} | changes


def _shares(*parts: dict[str, Any], **changes: Any) -> dict[str, Any]:
    body = {"op": 8, "proofs": [_share_proof()], "round": 1, "shares": list(parts) or [_part()]}
    body |= changes
    return dict(sorted(body.items()))


def _share_proof(**changes: Any) -> dict[str, Any]:
    return {"e": S, "s": S, "seat": 1, "t2": P} | changes


def _part(**changes: Any) -> dict[str, Any]:
    return {"d": P, "pos": 0} | changes


def _show(**changes: Any) -> dict[str, Any]:
    body = {"op": 9, "round": 1, "zone": "trick"} | _opening() | changes
    return dict(sorted(body.items()))


def _proof(size: int) -> dict[str, Any]:
    proof: dict[str, Any] = {"b": [S] * size, "c": [P] * size, "sp": [S] * size}
    proof |= {k: S for k in ("s1", "s2", "s3", "s4")} | {k: P for k in ("d1", "d2", "t1", "t3")}
    proof |= {"t41": P, "t42": P}
    return dict(sorted(proof.items()))


def _shuffle(size: int = 2, **changes: Any) -> dict[str, Any]:
    body = {"a": [P] * size, "c": [P] * size, "deck": "gems", "op": 0, "proof": _proof(size)}
    return dict(sorted((body | {"round": 1} | changes).items()))


OP_BOUND, POS_BOUND = r"op: expected an integer in 0\.\.4294967295", r"pos: .* in 0\.\.4095"
NAME_BOUND = "expected a name of 1..32 token characters"
BAD_BODIES = [
    ("table_key", {"e": S, "key": P, "round": 1}, "expected keys e, key, round, s in that order"),
    ("table_key", {"e": S, "key": P[:31], "round": 1, "s": S}, "key: expected bin of 32"),
    ("table_key", {"e": S, "key": P, "op": 0, "round": 1, "s": S}, "got 'e', 'key', 'op'"),
    ("table_share", _share(op=2**32), OP_BOUND),
    ("table_share", _share(op=-1), OP_BOUND),
    ("table_share", _share(pos=4096), POS_BOUND),
    ("table_share", _share(round=2**32), "round: expected an integer"),
    ("table_share", _share(op=True), OP_BOUND),
    ("table_play", {"op": 4, "pos": 0, "round": 1, "zone": "slot 1"}, f"zone: {NAME_BOUND}"),
    ("table_play", {"op": 4, "pos": 0, "round": 1, "zone": ""}, f"zone: {NAME_BOUND}"),
    ("table_play", {"op": 4, "pos": 0, "round": 1, "zone": "z" * 33}, f"zone: {NAME_BOUND}"),
    ("table_play", {"op": 4, "pos": 0, "round": 1}, "expected keys op, pos, round, zone"),
    ("table_open", {"op": 6, "opens": [], "round": 1}, "opens: expected an array of 1..128"),
    ("table_open", {"op": 6, "opens": [_opening()] * 129, "round": 1}, "an array of 1..128"),
    ("table_open", {"op": 6, "opens": [_opening(card=256)], "round": 1}, r"card: .* 0\.\.255"),
    ("table_open", {"op": 6, "opens": [_opening(pos=4096)], "round": 1}, POS_BOUND),
    ("table_open", {"op": 6, "opens": [_opening(x=1)], "round": 1}, r"opens\[0\]: .* 's', 'x'"),
    ("table_reveal", {"op": 10, "round": 1, "x": S[:5]}, "x: expected bin of 32 bytes"),
    ("table_show", _show(card=256), r"card: expected an integer in 0\.\.255"),
    ("table_show", _show(pos=4096), POS_BOUND),
    ("table_show", _show(zone="a b"), f"zone: {NAME_BOUND}"),
    ("table_show", {k: v for k, v in _show().items() if k != "zone"}, "expected keys card, d"),
    ("table_show", _show(d=P[:31]), "d: expected bin of 32"),
    ("table_shares", _shares(shares=[]), "shares: expected an array of 1..128 items"),
    ("table_shares", _shares(*[_part()] * 129), "shares: expected an array of 1..128 items"),
    ("table_shares", _shares(_part(pos=4096)), r"shares\[0\]\.pos: .* 0\.\.4095"),
    ("table_shares", _shares(_part(d=P[:31])), r"shares\[0\]\.d: expected bin of 32"),
    ("table_shares", _shares(_part(x=2)), r"shares\[0\]: .* 'pos', 'x'"),
    (
        "table_shares",
        {"op": 8, "round": 1, "shares": [_part()]},
        "expected keys op, proofs, round, shares",
    ),
    ("table_shares", _shares(proofs=[]), "proofs: expected an array of 1..7 items"),
    ("table_shares", _shares(proofs=[_share_proof()] * 8), "proofs: expected an array of 1..7"),
    ("table_shares", _shares(proofs=[_share_proof(seat=8)]), r"proofs\[0\]\.seat: .* 0\.\.7"),
    ("table_shares", _shares(proofs=[_share_proof(s=S[:31])]), r"proofs\[0\]\.s: expected bin"),
    ("table_shares", _shares(proofs=[_share_proof(t2=P[:31])]), r"\.t2: expected bin of 32"),
    ("table_shuffle", _shuffle(a=[P] * 129), "a: expected an array of 1..128 items"),
    ("table_shuffle", _shuffle(1, deck="reserve:0/1"), f"deck: {NAME_BOUND}"),
    ("table_shuffle", _shuffle(129), "an array of 1..128 items"),
    ("table_shuffle", _shuffle(**{"pass": 1}), "'op', 'pass', 'proof'"),
    ("table_shuffle", _shuffle(2, proof=_proof(129)), r"proof\.c: expected an array of 1\.\.128"),
    ("table_share", _share(s=S[:31]), "s: expected bin of 32 bytes"),
    ("table_share", _share(e=7), "e: expected bin of 32 bytes"),
    ("table_reveal", [("op", 10), ("round", 1), ("x", S)], "body: expected map"),
]


def _raw(kind: str, body: dict[str, Any]) -> bytes:
    fields = [PROTOCOL_VERSION, int(MsgType.parse(kind)), TABLE_VECTOR_ID, ALICE.public_key, 0]
    fields += [bytes(32), b"\x33" * 32, body]
    return sign_fields(ALICE, fields)


@pytest.mark.parametrize(("kind", "body", "pattern"), BAD_BODIES, ids=lambda v: str(v)[:24])
def test_a_body_outside_the_card_tables_bounds_is_refused_on_receipt(
    kind: str, body: dict[str, Any], pattern: str
) -> None:
    with pytest.raises(BadShape, match=pattern):
        decode(_raw(kind, body))


@pytest.mark.parametrize("kind", TABLE_KINDS)
def test_a_well_shaped_body_of_each_kind_decodes(kind: str) -> None:
    body = {
        "table_key": {"e": S, "key": P, "round": 1, "s": S},
        "table_shuffle": _shuffle(128),
        "table_share": _share(pos=4095, op=2**32 - 1),
        "table_play": {"op": 4, "pos": 0, "round": 1, "zone": "place:3"},
        "table_open": {"op": 6, "opens": [_opening(card=255)] * 2, "round": 1},
        "table_reveal": {"op": 10, "round": 1, "x": S},
        "table_show": _show(card=255, pos=4095, op=2**32 - 1),
        "table_shares": _shares(
            *[_part(pos=4095)] * 128, op=2**32 - 1, proofs=[_share_proof(seat=7)] * 7
        ),
    }[kind]
    assert decode(_raw(kind, body)).type is TABLE_KIND_TYPES[kind]


def test_a_decoded_body_is_the_decks_parse_of_it_made_once() -> None:
    """One statement, one parse on receipt: the decoder's parse of a card-table body is the
    deck's message (``Message.parsed``), which the deck then stores as it is."""
    game = wire_table_game(V2_OPS)
    for sent in game.sent:
        msg = decode(sent.raw)
        kind = msg.type.label
        assert msg.parsed is not None and kind == msg.parsed.KIND
        assert msg.parsed == parse_table_body(kind, dict(msg.body))
        assert pack(msg.parsed.to_body()) == pack(dict(msg.body)), "the body it was read from"


POINT_OFF_GROUP = [
    ("d", bytes(32), "d: not a canonical non-identity group element"),  # the identity
    ("d", b"\xff" * 32, "d: not a canonical non-identity group element"),  # top bit set
    ("e", b"\xff" * 32, "e: not a canonical 32-byte scalar"),  # above l
]


@pytest.mark.parametrize(("key", "value", "pattern"), POINT_OFF_GROUP)
def test_a_well_shaped_point_the_group_refuses_is_blamed_on_its_signer_when_stored(
    key: str, value: bytes, pattern: str
) -> None:
    """32 bytes are the shape the decoder checks; whether they are the group's is the deck's
    to judge when it stores the message, and a signed body that fails convicts its signer."""
    raw = _raw("table_share", _share(d=group.BASE, e=group.ONE, s=group.ONE) | {key: value})
    msg = decode(raw)  # its shape is right: received
    with pytest.raises(MalformedMessage, match=pattern):
        msg.parsed.check_members()
    state = TableState(TABLE_VECTOR_ID, 1, 3, 6)
    with pytest.raises(DeckFault, match=f"malformed table_share: {pattern}") as fault:
        state.take(2, msg.parsed, raw)
    assert fault.value.seat == 2 and fault.value.evidence == (raw,)
    assert not state.slots, "nothing of it is stored"


def _in_group_shuffle(size: int, **changes: Any) -> dict[str, Any]:
    """A shuffle body whose every point and scalar the group accepts (the base point, one)."""
    b, one = group.BASE, group.ONE
    proof: dict[str, Any] = {"c": [b] * size}
    proof |= {k: [one] * size for k in ("b", "sp")}
    proof |= {k: one for k in ("s1", "s2", "s3", "s4")}
    proof |= {k: b for k in ("d1", "d2", "t1", "t3", "t41", "t42")}
    body = {"a": [b] * size, "c": [b] * size, "deck": "gems", "op": 0, "round": 1}
    body |= {"proof": dict(sorted(proof.items()))}
    return dict(sorted((body | changes).items()))


SIZES_ACROSS_FIELDS = [
    ({"c": [group.BASE]}, "a and c must have the same length"),
    ({"proof": _in_group_shuffle(3)["proof"]}, r"proof\.b: expected an array of 2\.\.2 items"),
]


@pytest.mark.parametrize(("changes", "pattern"), SIZES_ACROSS_FIELDS)
def test_a_shuffle_whose_lengths_disagree_is_received_then_convicts_its_signer(
    changes: dict[str, Any], pattern: str
) -> None:
    """Each array is within the bounds the decoder checks; that they are one deck's length is
    the table's to judge when it stores the message, with signed evidence, as before."""
    raw = _raw("table_shuffle", _in_group_shuffle(2, **changes))
    msg = decode(raw)
    state = TableState(TABLE_VECTOR_ID, 1, 3, 6)
    with pytest.raises(DeckFault, match=f"malformed table_shuffle: {pattern}") as fault:
        state.take(1, msg.parsed, raw)
    assert fault.value.seat == 1 and fault.value.evidence == (raw,)
    with pytest.raises(MalformedMessage, match=pattern):
        parse_table_body("table_shuffle", dict(msg.body))
