"""Fixed test vectors, the same bytes as in docs/protocol/wire.md: a peer written in another
language from that document must produce exactly these, and this implementation must not drift."""

from __future__ import annotations

import hashlib

import msgpack

from druids_p2p.wire import ZERO_HASH, Identity, decode, derive_table_id, encode, head0, next_head
from druids_p2p.wire.identity import fingerprint

ALICE = Identity.from_seed(bytes(range(32)), "alice")
BOB = Identity.from_seed(bytes(range(32, 64)), "bob")
CAROL = Identity.from_seed(bytes(range(64, 96)), "carol")
SEATS = [ALICE.public_key, BOB.public_key, CAROL.public_key]
OPTIONS = {"players": 3, "rounds": 5, "variant": False}
NONCE = b"\xaa" * 32

TABLE_ID = "d83d29581ebb35dbc2614b738dd7276fc60875c11410939952773a70caaf31f1"
HEAD0 = "5f68305c8ce6a71ff47551b5e0bebd9165ea3f9d5382851c5f9d930bfd923b0c"
# Protocol version 2: the version field (the signed part's first byte after its array header,
# "02") changes every message hash from the seat message on; table_id and head_0 do not.
SEAT_HASH = "9c9fefa6988092b6e0afac45c9f75b220f793983bf3f8506983ffc8582739cbc"
HEAD1 = "51954770aa3480c9068d19232ac59dcf7987177ba6ae235698497809c4998753"
MOVE_RAW = (
    "92c4a0980214c420d83d29581ebb35dbc2614b738dd7276fc60875c11410939952773a70caaf31f1c420"
    "29acbae141bccaf0b22e1a94d34d0bc7361e526d0bfe12c89794bc9322966dd700c42000000000000000"
    "00000000000000000000000000000000000000000000000000c42051954770aa3480c9068d19232ac59d"
    "cf7987177ba6ae235698497809c499875382a46d6f7665a6476169613a52a5726f756e6400c4404f551c"
    "7aad913e37c8dcc94079770df213362f203a8a5e7963dbe728720366a4e09eec59304eed695caf25202f"
    "73428664810b881eac573c02ef77c92f240d07"
)
MOVE_HASH = "2e8f99057eaf673a219caf3979e01311a62c03934c6add6a083067f834e33f88"
HEAD2 = "6ed48e11386d01b9fe4f62e1080a32beae259dbe118834294fc7cd7d7d75d04c"


def test_keys_and_fingerprint() -> None:
    assert ALICE.public_key.hex() == (
        "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
    )
    assert fingerprint(ALICE.public_key) == "5282-e6a3-d155-8f01-6430"


def test_table_id_and_heads() -> None:
    preimage = msgpack.packb([SEATS, OPTIONS, NONCE])
    assert preimage.startswith(bytes.fromhex("9393c420"))
    table_id = derive_table_id(SEATS, OPTIONS, NONCE)
    assert table_id == hashlib.sha256(b"druids-p2p/v1 table\x00" + preimage).digest()
    assert table_id.hex() == TABLE_ID
    assert head0(table_id).hex() == HEAD0


def test_seat_and_move_messages() -> None:
    table_id = bytes.fromhex(TABLE_ID)
    body = {"seats": SEATS, "names": ["alice", "bob", "carol"], "options": OPTIONS, "nonce": NONCE}
    seat = encode(
        ALICE,
        "seat",
        table_id=table_id,
        seq=0,
        prev=ZERO_HASH,
        head=bytes.fromhex(HEAD0),
        body=body,
    )
    assert len(seat) == 418 and decode(seat).hash.hex() == SEAT_HASH
    head1 = next_head(bytes.fromhex(HEAD0), decode(seat).hash)
    assert head1.hex() == HEAD1
    move = encode(
        BOB,
        "move",
        table_id=table_id,
        seq=0,
        prev=ZERO_HASH,
        head=head1,
        body={"round": 0, "move": "Gaia:R"},
    )
    assert move.hex() == MOVE_RAW
    assert move[3:5] == bytes.fromhex("9802")  # the signed part: array(8), version 2
    msg = decode(move)
    assert msg.hash.hex() == MOVE_HASH == hashlib.sha256(move).hexdigest()
    assert next_head(head1, msg.hash).hex() == HEAD2


# A table with the coach on (issue 32): ``coach: true`` in the options (sent only when on, so the
# table above keeps its id), Alice its one person, Bob and Carol bots (``bots``), and Bob's signed
# join saying so (``bot: true``), for the offer of lobby id ``aa`` × 16.
COACH_OPTIONS = {
    "coach": True,
    "players": 3,
    "rounds": 5,
    "ruleset": "druids2017",
    "variant": False,
}
COACH_TABLE_ID = "d5947a82585ebf91cb2ccc747198f4774bff09c2012691be82bd0db475c018bf"
COACH_HEAD0 = "e25cd3c1f6558f30439ed473538af7aa8ab903d68b305cf0de8fc050c723e821"
COACH_SEAT_HASH = "2a123efd5e94646bf6a79164e57acf1d91b82b80d91e7c8338201ad6246f8933"
OFFER = "4861236b8753694d9913c8cb185a6e3b1f5e8a0cfec55e781c2486c5c2cac8dd"
BOT_JOIN_HASH = "18ef08f8aa0cdde8a574070c6ce949ab62c3e070eb591eb3b675aa2cbf3e57f1"


def test_a_coach_table_and_a_bot_join() -> None:
    from druids_p2p.lan.lobby import lobby_table_id
    from druids_p2p.lan.persons import coach_fault

    preimage = msgpack.packb([SEATS, COACH_OPTIONS, NONCE])
    assert preimage[2 + 3 * 34 : 2 + 3 * 34 + 8] == bytes.fromhex("85a5636f616368c3")
    table_id = derive_table_id(SEATS, COACH_OPTIONS, NONCE)
    assert table_id.hex() == COACH_TABLE_ID
    assert head0(table_id).hex() == COACH_HEAD0
    body = {
        "bots": [1, 2],
        "names": ["alice", "bob", "carol"],
        "nonce": NONCE,
        "options": COACH_OPTIONS,
        "seats": SEATS,
    }
    seat = encode(
        ALICE, "seat", table_id=table_id, seq=0, prev=ZERO_HASH, head=head0(table_id), body=body
    )
    assert len(seat) == 452 and decode(seat).hash.hex() == COACH_SEAT_HASH
    assert coach_fault(decode(seat)) is None
    offer = lobby_table_id(b"\xaa" * 16)
    assert offer.hex() == OFFER
    join_body = {
        "bot": True,
        "curve": b"\x01" * 32,
        "endpoint": "tcp://127.0.0.1:6001",
        "name": "bob",
    }
    join = encode(
        BOB, "join", table_id=offer, seq=0, prev=ZERO_HASH, head=ZERO_HASH, body=join_body
    )
    assert len(join) == 294 and decode(join).hash.hex() == BOT_JOIN_HASH
