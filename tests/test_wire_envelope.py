"""Envelope round trips for every message type, and each way decode must refuse bytes."""

from __future__ import annotations

import hashlib
from typing import Any

import msgpack
import pytest
from message_surgery import fake_shuffle_body
from sample_table import SampleTable, sign_fields

from druids_p2p.wire import (
    BODIES,
    MAX_MESSAGE_SIZE,
    PROTOCOL_VERSION,
    ZERO_HASH,
    BadShape,
    BadSignature,
    Identity,
    InvalidProof,
    Malformed,
    Message,
    MsgType,
    TooLarge,
    WireError,
    decode,
    derive_table_id,
    encode,
    equivocation_body,
    verify_equivocation,
)
from druids_p2p.wire import envelope as envelope_module
from druids_p2p.wire.envelope import claimed_version
from druids_p2p.wire.msgtypes import MSG_DOMAIN

H1 = hashlib.sha256(b"1").digest()
H2 = hashlib.sha256(b"2").digest()


@pytest.fixture(scope="module")
def table() -> SampleTable:
    return SampleTable(3, seed=11)


def _enc(
    table: SampleTable, seat: int, kind: MsgType | str, body: dict[str, Any], **kw: Any
) -> bytes:
    args: dict[str, Any] = {"table_id": table.table_id, "seq": 1, "prev": H1, "head": H2}
    args.update(kw)
    return encode(table.identities[seat], kind, body=body, **args)


def _fields(table: SampleTable, seat: int = 1, **changes: Any) -> list[Any]:
    """Valid move-message fields, with some replaced."""
    fields: dict[str, Any] = {
        "version": PROTOCOL_VERSION,
        "type": int(MsgType.MOVE),
        "table_id": table.table_id,
        "sender": table.identities[seat].public_key,
        "seq": 1,
        "prev": H1,
        "head": H2,
        "body": {"move": "G7", "round": 0},
    }
    fields.update(changes)
    return list(fields.values())


def _forged(table: SampleTable, seat: int = 1, **changes: Any) -> bytes:
    return sign_fields(table.identities[seat], _fields(table, seat, **changes))


# --- round trips ---------------------------------------------------------------------------------


def _bodies(table: SampleTable) -> list[tuple[MsgType, dict[str, Any]]]:
    key = table.identities[2].public_key
    a = _enc(table, 2, "move", {"round": 0, "move": "G1"}, seq=4)
    b = _enc(table, 2, "move", {"round": 0, "move": "G2"}, seq=4)
    return [
        (MsgType.HELLO, {"name": "alice", "client": "druids-p2p/0.1.0", "n": 1_700_000_000_000}),
        (MsgType.JOIN, {"name": "Zoë"}),
        (MsgType.JOIN, {"name": "Zoë", "endpoint": "tcp://127.0.0.1:4567", "curve": H2}),
        (MsgType.SEAT_CONFIRM, {"commit": H1, "curve": H2, "endpoint": "tcp://10.0.0.2:5000"}),
        (MsgType.SEAT_NONCE, {"nonce": H2}),
        (MsgType.MOVE, {"round": 4, "move": "Gaia:R:light"}),
        (MsgType.MOVE, {"round": 0, "move": "Word:yes"}),
        (MsgType.RESULT, {"totals": [21, -3, 21], "winners": [0, 2]}),
        (MsgType.RESEND, {"sender": key, "seq": 12}),
        (MsgType.RESEND, {"head": H1}),
        (MsgType.EQUIVOCATION, equivocation_body(b, a)),
        (MsgType.ABORT, {"reason": "seat 2 equivocated", "seat": 2, "key": key}),
        (MsgType.ABORT, {"reason": "bye"}),
        (MsgType.CHAT, {"n": 1_700_000_000_000, "text": "gg — well played 🌿"}),
        (MsgType.TABLE_KEY, {"e": H1, "key": H2, "round": 1, "s": H1}),
        (MsgType.TABLE_SHUFFLE, fake_shuffle_body(2, "reserve:1")),
        (MsgType.TABLE_SHARE, {"d": H1, "e": H2, "op": 7, "pos": 3, "round": 1, "s": H1}),
        (MsgType.TABLE_PLAY, {"op": 9, "pos": 3, "round": 1, "zone": "place:2"}),
        (
            MsgType.TABLE_OPEN,
            {"op": 12, "opens": [{"card": 89, "d": H1, "e": H2, "pos": 3, "s": H1}], "round": 1},
        ),
        (MsgType.TABLE_REVEAL, {"op": 225, "round": 1, "x": H2}),
        (
            MsgType.TABLE_SHOW,
            {
                "card": 60,
                "d": H1,
                "e": H2,
                "op": 40,
                "pos": 17,
                "round": 1,
                "s": H1,
                "zone": "gaia:G:light",
            },
        ),
        (
            MsgType.TABLE_SHARES,
            {
                "op": 6,
                "proofs": [{"seat": 1, "e": H2, "s": H1, "t2": H2}],
                "round": 1,
                "shares": [{"d": H1, "pos": p} for p in (3, 5, 4000)],
            },
        ),
    ]


def test_round_trip_every_type(table: SampleTable) -> None:
    cases = _bodies(table)
    assert {kind for kind, _ in cases} | {MsgType.SEAT} == set(MsgType) == set(BODIES)
    for kind, body in cases:
        raw = _enc(table, 1, kind, body)
        msg = decode(raw)
        assert isinstance(msg, Message)
        assert msg.type is kind
        assert msg.table_id == table.table_id
        assert msg.sender == table.identities[1].public_key
        assert (msg.seq, msg.prev, msg.head, msg.version) == (1, H1, H2, 2)
        assert claimed_version(raw) == PROTOCOL_VERSION == 2
        assert msg.raw == raw and msg.hash == hashlib.sha256(raw).digest()
        assert msgpack.packb(msg.body) == msgpack.packb(_sorted(body))
        assert _enc(table, 1, kind, body) == raw  # deterministic: one message, one encoding


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return tuple(_sorted(v) for v in value)
    return value


def test_seat_round_trip(table: SampleTable) -> None:
    msg = decode(table.raws[0])
    assert msg.type is MsgType.SEAT and msg.seq == 0 and msg.prev == ZERO_HASH
    body = msg.body
    assert derive_table_id(body["seats"], body["options"], body["nonce"]) == msg.table_id
    assert list(body["names"]) == ["alice", "bob", "carol"]


def test_type_given_as_label_or_int(table: SampleTable) -> None:
    body = {"round": 0, "move": "R7"}
    assert _enc(table, 0, "move", body) == _enc(table, 0, MsgType.MOVE, body)
    with pytest.raises(BadShape, match="unknown message type"):
        _enc(table, 0, "teleport", body)


def test_message_is_frozen(table: SampleTable) -> None:
    msg = decode(_enc(table, 0, "seat_nonce", {"nonce": H1}))
    with pytest.raises(AttributeError):
        msg.seq = 3  # type: ignore[misc]


# --- refusals: size and msgpack well-formedness --------------------------------------------------


def test_oversize_refused_before_parsing() -> None:
    with pytest.raises(TooLarge, match="65537 bytes"):
        decode(b"\x91" * (MAX_MESSAGE_SIZE + 1))


def test_encode_refuses_oversize(table: SampleTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """No body the schemas allow reaches 64 KiB since version 2 (the largest, an equivocation,
    is about 64,200 bytes): the encoder's own limit is checked at a lower one."""
    body = fake_shuffle_body(16)
    size = len(_enc(table, 0, "table_shuffle", body))
    monkeypatch.setattr(envelope_module, "MAX_MESSAGE_SIZE", size - 1)
    with pytest.raises(TooLarge, match=f"message of {size} bytes exceeds the {size - 1} byte"):
        _enc(table, 0, "table_shuffle", body)


def test_truncated(table: SampleTable) -> None:
    raw = _enc(table, 0, "move", {"round": 0, "move": "R7"})
    for cut in (0, 1, 2, 5, len(raw) // 2, len(raw) - 1):
        with pytest.raises(Malformed):
            decode(raw[:cut])


def test_trailing_bytes(table: SampleTable) -> None:
    raw = _enc(table, 0, "move", {"round": 0, "move": "R7"})
    with pytest.raises(Malformed, match="1 trailing bytes"):
        decode(raw + b"\xc0")
    with pytest.raises(Malformed, match="trailing"):
        decode(raw + raw)


def test_trailing_bytes_inside_signed_part(table: SampleTable) -> None:
    ident = table.identities[1]
    signed = msgpack.packb(_fields(table)) + b"\x00"
    raw = msgpack.packb([signed, ident.sign(MSG_DOMAIN + signed)])
    with pytest.raises(Malformed, match="trailing"):
        decode(raw)


def test_deep_nesting() -> None:
    with pytest.raises(Malformed, match="nesting deeper"):
        decode(b"\x91" * 1000 + b"\xc0")


def test_deep_nesting_in_signed_body(table: SampleTable) -> None:
    body: Any = 1
    for _ in range(10):
        body = [body]
    raw = _forged(table, type=int(MsgType.ABORT), body={"reason": body})
    with pytest.raises(Malformed, match="nesting deeper than 8"):
        decode(raw)


def test_ext_types_refused(table: SampleTable) -> None:
    with pytest.raises(Malformed, match="ext type"):
        decode(b"\xd6\xff\x00\x00\x00\x01")  # a msgpack timestamp
    ts = msgpack.Timestamp(1, 0)
    raw = _forged(table, type=int(MsgType.ABORT), body={"reason": ts})
    with pytest.raises(Malformed, match="ext type"):
        decode(raw)
    raw = _forged(table, type=int(MsgType.ABORT), body={"reason": msgpack.ExtType(5, b"abc")})
    with pytest.raises(Malformed, match="ext type"):
        decode(raw)


def test_huge_declared_lengths() -> None:
    for blob in (
        b"\xdd\xff\xff\xff\xff",  # array 32 of 4 billion items
        b"\xdf\xff\xff\xff\xff",  # map 32
        b"\xc6\xff\xff\xff\xff",  # bin 32
        b"\xdb\x7f\xff\xff\xff",  # str 32
        b"\x92\xc5\xff\xff\x00",  # bin 16 inside an array
    ):
        with pytest.raises(Malformed, match="declares"):
            decode(blob)


def test_reserved_header_byte() -> None:
    with pytest.raises(Malformed, match="0xc1"):
        decode(b"\x92\xc1\xc0")


def test_non_string_map_keys(table: SampleTable) -> None:
    raw = _forged(table, body={1: "x", "move": "G7", "round": 0})
    with pytest.raises(Malformed, match="map key"):
        decode(raw)
    raw = _forged(table, body={b"move": "G7", "round": 0})
    with pytest.raises(BadShape, match="map key must be str"):
        decode(raw)


def test_duplicate_map_keys(table: SampleTable) -> None:
    ident = table.identities[1]
    fields = _fields(table)
    body = b"\x83\xa4move\xa2G7\xa4move\xa2G8\xa5round\x00"
    signed = msgpack.packb(fields[:7])[:1].replace(b"\x97", b"\x98") + msgpack.packb(fields[:7])[1:]
    signed += body
    raw = msgpack.packb([signed, ident.sign(MSG_DOMAIN + signed)])
    with pytest.raises(Malformed, match="duplicate map key 'move'"):
        decode(raw)


def test_invalid_utf8(table: SampleTable) -> None:
    raw = sign_fields(table.identities[1], _fields(table, body={"move": "G7", "round": 0}))
    bad = raw.replace(b"\xa2G7", b"\xa2\xff\xfe")
    with pytest.raises(Malformed, match="UTF-8"):
        decode(bad)


def test_non_canonical_encodings(table: SampleTable) -> None:
    raw = _enc(table, 0, "move", {"round": 0, "move": "R7"})
    outer = msgpack.unpackb(raw)
    signed, sig = outer
    # The same signed bytes in a longer bin header: a relay must not be able to change the hash.
    relayed = b"\x92\xc5" + len(signed).to_bytes(2, "big") + signed + msgpack.packb(sig)
    with pytest.raises(Malformed, match="non-canonical"):
        decode(relayed)
    # A non-minimal integer inside the signed part (seq 1 as uint 8).
    long_int = signed.replace(b"\x01\xc4\x20", b"\xcc\x01\xc4\x20", 1)
    assert long_int != signed
    ident = table.identities[0]
    raw2 = msgpack.packb([long_int, ident.sign(MSG_DOMAIN + long_int)])
    with pytest.raises(Malformed, match="non-canonical"):
        decode(raw2)


def test_unsorted_body_keys(table: SampleTable) -> None:
    raw = _forged(table, body={"round": 0, "move": "G7"})
    with pytest.raises(BadShape, match="sorted"):
        decode(raw)


# --- refusals: shape -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "pattern"),
    [
        ({"version": 1}, r"unsupported protocol version 1 \(this peer speaks 2\)"),
        ({"version": 3}, r"unsupported protocol version 3 \(this peer speaks 2\)"),
        ({"version": "2"}, "version: expected int"),
        ({"type": 99}, "unknown message type 99"),
        ({"type": True}, "type: expected int"),
        ({"table_id": b"x" * 31}, "table_id: expected bin of 32 bytes, got 31"),
        ({"table_id": "x" * 32}, "table_id: expected bin of 32 bytes, got str"),
        ({"sender": None}, "sender: expected bin"),
        ({"seq": "1"}, "seq: expected int"),
        ({"seq": -1}, "seq: -1 out of range"),
        ({"seq": 2**32}, "out of range"),
        ({"seq": 0}, "prev: must be all zero exactly when seq is 0"),
        ({"prev": ZERO_HASH}, "prev: must be all zero exactly when seq is 0"),
        ({"head": b""}, "head: expected bin of 32 bytes"),
        ({"body": [1]}, "body: expected map"),
        ({"body": {"move": "G7"}}, "missing key 'round'"),
        ({"body": {"move": "G7", "round": 0, "zz": 1}}, "unknown key 'zz'"),
        ({"body": {"move": "G7", "round": True}}, "round: expected int"),
        ({"body": {"move": "G7", "round": 64}}, r"round: expected int in \[0, 63\], got 64"),
        ({"body": {"move": "G7", "round": 1.0}}, "round: expected int .*got float"),
        ({"body": {"move": "", "round": 0}}, "move: expected str of 1..16 bytes, got 0 bytes"),
        ({"body": {"move": "G#7", "round": 0}}, "character '#' not allowed"),  # (' ', '>', '@' are)
        ({"body": {"move": b"G7", "round": 0}}, "move: expected str"),
        # Version 2: a move never carries a card opening (a card shown face up is a table_show).
        (
            {"body": {"move": "G7", "open": {"card": 7, "d": H1, "e": H2, "pos": 3, "s": H1}}},
            "unknown key 'open'",
        ),
    ],
)
def test_bad_shapes(table: SampleTable, changes: dict[str, Any], pattern: str) -> None:
    with pytest.raises(BadShape, match=pattern):
        decode(_forged(table, **changes))


@pytest.mark.parametrize("number", [10, 11, 12, 13, 14, 15, 16, 21, 22, 30])
def test_version_1_type_numbers_are_retired(table: SampleTable, number: int) -> None:
    """The dealt deck's types, ``round_reveal``, ``ready`` and the receipts' ``ack``: gone in
    version 2 and never reused, so a message of one is an unknown type (a signed ``ack`` too)."""
    assert number not in set(MsgType)
    with pytest.raises(BadShape, match=f"unknown message type {number}"):
        decode(_forged(table, type=number, body={"head": H1, "msg": H2}))


def test_wrong_arity(table: SampleTable) -> None:
    ident = table.identities[1]
    with pytest.raises(BadShape, match="array of 8 fields, got 7"):
        decode(sign_fields(ident, _fields(table)[:7]))
    with pytest.raises(BadShape, match="frame"):
        decode(msgpack.packb([b"x"]))
    with pytest.raises(BadShape, match="frame"):
        decode(msgpack.packb({"a": 1}))
    with pytest.raises(BadShape, match="signature: expected bin of 64 bytes, got 63"):
        decode(msgpack.packb([msgpack.packb(_fields(table)), b"s" * 63]))


def test_control_characters_in_names(table: SampleTable) -> None:
    raw = _forged(table, type=int(MsgType.JOIN), body={"name": "eve\x1b[2J"})
    with pytest.raises(BadShape, match="control characters"):
        decode(raw)


def test_resend_alternatives(table: SampleTable) -> None:
    raw = _forged(table, type=int(MsgType.RESEND), body={"head": H1, "seq": 1})
    with pytest.raises(BadShape, match="unknown key"):
        decode(raw)


def test_non_bytes_input() -> None:
    with pytest.raises(WireError):
        decode(None)  # type: ignore[arg-type]
    # A bytearray on purpose: the decoder takes any bytes-like buffer, beyond its declared type.
    assert decode(bytearray(_enc_simple())).seq == 1  # type: ignore[arg-type]


def _enc_simple() -> bytes:
    ident = Identity.from_seed(bytes(32), "x")
    return encode(ident, "seat_nonce", table_id=H1, seq=1, prev=H1, head=H1, body={"nonce": H2})


# --- refusals: signature -------------------------------------------------------------------------


def test_signature_by_another_key(table: SampleTable) -> None:
    fields = _fields(table, seat=1)
    raw = sign_fields(table.identities[2], fields)  # signed by seat 2, claims seat 1
    with pytest.raises(BadSignature, match="does not verify"):
        decode(raw)


def test_flipped_signature_bits(table: SampleTable) -> None:
    raw = _enc(table, 0, "move", {"round": 0, "move": "R7"})
    for i in (len(raw) - 64, len(raw) - 1):
        bad = bytearray(raw)
        bad[i] ^= 0x01
        with pytest.raises(BadSignature):
            decode(bytes(bad))


def test_signature_without_domain_prefix(table: SampleTable) -> None:
    ident = table.identities[1]
    signed = msgpack.packb(_fields(table))
    raw = msgpack.packb([signed, ident.sign(signed)])
    with pytest.raises(BadSignature):
        decode(raw)


def test_malleated_signature(table: SampleTable) -> None:
    """S + L verifies under lax checkers; refusing it keeps a message's hash unique."""
    raw = _enc(table, 0, "move", {"round": 0, "move": "R7"})
    signed, sig = msgpack.unpackb(raw)
    order = 2**252 + 27742317777372353535851937790883648493
    s = int.from_bytes(sig[32:], "little") + order
    bad = msgpack.packb([signed, sig[:32] + s.to_bytes(32, "little")])
    with pytest.raises(BadSignature, match="non-canonical S"):
        decode(bad)


def test_small_order_r_refused(table: SampleTable) -> None:
    """R = identity and S = k*a satisfy the cofactorless equation, so OpenSSL accepts this
    signature; the protocol's verifier (libsodium's rule, wire.md section 2) must not."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    order = 2**252 + 27742317777372353535851937790883648493
    ident = table.identities[1]
    signed = msgpack.packb(_fields(table))
    h = bytearray(hashlib.sha512(ident.seed()).digest()[:32])
    h[0] &= 248
    h[31] &= 127
    h[31] |= 64
    a = int.from_bytes(h, "little")
    r_small = bytes.fromhex("01" + "00" * 31)  # the identity point
    k = int.from_bytes(
        hashlib.sha512(r_small + ident.public_key + MSG_DOMAIN + signed).digest(), "little"
    )
    sig = r_small + (k * a % order).to_bytes(32, "little")
    Ed25519PublicKey.from_public_bytes(ident.public_key).verify(sig, MSG_DOMAIN + signed)
    with pytest.raises(BadSignature):
        decode(msgpack.packb([signed, sig]))


def test_signatures_match_rfc8032_reference(table: SampleTable) -> None:
    """Signing goes through libsodium; the bytes must be OpenSSL's, or a restarted peer could not
    regenerate its own messages from a record signed by another build."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    ident = table.identities[2]
    reference = Ed25519PrivateKey.from_private_bytes(ident.seed())
    for data in (b"", b"x", bytes(range(256)) * 3):
        assert ident.sign(data) == reference.sign(data)


def test_small_order_sender_refused(table: SampleTable) -> None:
    weak = bytes.fromhex("01" + "00" * 31)
    raw = msgpack.packb([msgpack.packb(_fields(table, sender=weak)), b"\x00" * 64])
    with pytest.raises(BadShape, match="small-order"):
        decode(raw)


# --- claims: seat and equivocation ---------------------------------------------------------------


def _seat_fields(table: SampleTable, **body_changes: Any) -> list[Any]:
    body = dict(decode(table.raws[0]).body)
    body.update(body_changes)
    body = {k: list(v) if isinstance(v, tuple) else v for k, v in sorted(body.items())}
    return _fields(table, seat=0, type=int(MsgType.SEAT), seq=0, prev=ZERO_HASH, body=body)


def test_seat_table_id_must_bind_seats(table: SampleTable) -> None:
    fields = _seat_fields(table, nonce=H1)
    with pytest.raises(InvalidProof, match="table_id is not the hash"):
        decode(sign_fields(table.identities[0], fields))


def test_seat_sender_must_be_seated(table: SampleTable) -> None:
    outsider = Identity.from_seed(b"\x07" * 32, "eve")
    fields = _seat_fields(table)
    fields[3] = outsider.public_key
    with pytest.raises(InvalidProof, match="not one of the seats"):
        decode(sign_fields(outsider, fields))


def test_seat_names_and_players_must_match_seats(table: SampleTable) -> None:
    with pytest.raises(BadShape, match="2 names for 3 seats"):
        decode(sign_fields(table.identities[0], _seat_fields(table, names=["a", "b"])))
    opts = {"players": 4, "rounds": 5, "variant": False}
    with pytest.raises(BadShape, match=r"options\.players is 4"):
        decode(sign_fields(table.identities[0], _seat_fields(table, options=opts)))


def test_equivocation_proofs(table: SampleTable) -> None:
    a = _enc(table, 2, "move", {"round": 0, "move": "G1"}, seq=4)
    b = _enc(table, 2, "move", {"round": 0, "move": "G2"}, seq=4)
    c = _enc(table, 2, "move", {"round": 0, "move": "G2"}, seq=5)
    d = _enc(table, 1, "move", {"round": 0, "move": "G2"}, seq=4)
    assert verify_equivocation(**equivocation_body(a, b)).seq == 4
    cases: list[tuple[bytes, bytes, str]] = [
        (a, a, "must differ"),
        (max(a, b), min(a, b), "byte order"),
        (min(a, c), max(a, c), "different sequence numbers"),
        (min(a, d), max(a, d), "different senders"),
        (min(a, b"junk"), max(a, b"junk"), "quoted message is invalid"),
    ]
    for x, y, why in cases:
        with pytest.raises(InvalidProof, match=why):
            verify_equivocation(x, y)
        raw = _forged(table, type=int(MsgType.EQUIVOCATION), body={"a": x, "b": y})
        with pytest.raises(InvalidProof, match=why):
            decode(raw)


def test_equivocation_may_not_nest(table: SampleTable) -> None:
    a = _enc(table, 2, "move", {"round": 0, "move": "G1"}, seq=4)
    b = _enc(table, 2, "move", {"round": 0, "move": "G2"}, seq=4)
    p = _enc(table, 0, "equivocation", equivocation_body(a, b), seq=3)
    q = _enc(table, 0, "equivocation", equivocation_body(a, b), seq=3, head=H1)
    with pytest.raises(InvalidProof, match="may not quote another proof"):
        verify_equivocation(*sorted((p, q)))


def test_equivocation_of_another_table(table: SampleTable) -> None:
    a = _enc(table, 2, "move", {"round": 0, "move": "G1"}, seq=4)
    b = _enc(table, 2, "move", {"round": 0, "move": "G2"}, seq=4)
    with pytest.raises(InvalidProof, match="another table"):
        _enc(table, 0, "equivocation", equivocation_body(a, b), table_id=H1)


@pytest.mark.parametrize(
    ("kind", "kw", "pattern"),
    [
        ("abort", {"body": {"reason": {1, 2}}}, "reason: expected str .* got set"),
        ("abort", {"body": {"reason": 2**64}}, "reason: expected str .* got int"),
        ("abort", {"body": {"reason": 0.5}}, "reason: expected str .* got float"),
        ("move", {"body": None}, "body: expected map"),
        ("move", {"table_id": "t" * 32}, "table_id: expected bin"),
        ("move", {"seq": True}, "seq: expected int"),
        ("move", {"seq": 0}, "prev: must be all zero"),
        ("move", {"body": {"round": 0, "move": "G1", "extra": 1}}, "unknown key 'extra'"),
    ],
)
def test_encode_refuses_what_peers_would_refuse(
    table: SampleTable, kind: str, kw: dict[str, Any], pattern: str
) -> None:
    args: dict[str, Any] = {"body": {"round": 0, "move": "G1"}}
    args.update(kw)
    with pytest.raises(WireError, match=pattern):
        _enc(table, 0, kind, **args)


# --- a record's version, read before anything else ----------------------------------------------


def test_the_claimed_version_is_read_without_any_other_check(table: SampleTable) -> None:
    """``druids audit`` refuses a record of another version by the version its first message
    claims: read from the signed part's first field, whatever the rest holds, never verified."""
    assert claimed_version(_forged(table, version=1)) == 1
    unsigned = msgpack.packb([msgpack.packb([7, "junk"]), b"\x00" * 64])
    assert claimed_version(unsigned) == 7
    for raw in (b"", b"junk", msgpack.packb([b"x", b"y"]), msgpack.packb([msgpack.packb([]), b""])):
        assert claimed_version(raw) is None
    assert claimed_version(msgpack.packb([msgpack.packb([True]), b""])) is None
    assert claimed_version(msgpack.packb([msgpack.packb(["2"]), b""])) is None
    for out_of_range in (-1, 2**32 + 1):
        assert claimed_version(msgpack.packb([msgpack.packb([out_of_range]), b""])) is None
