"""Fixed test vectors, the same bytes as in docs/protocol/wire.md: a peer written in another
language from that document must produce exactly these, and this implementation must not drift."""

from __future__ import annotations

import hashlib

import msgpack

from druids_p2p.wire import ZERO_HASH, Identity, decode, derive_table_id, encode, head0, next_head
from druids_p2p.wire.keys import fingerprint

ALICE = Identity.from_seed(bytes(range(32)), "alice")
BOB = Identity.from_seed(bytes(range(32, 64)), "bob")
CAROL = Identity.from_seed(bytes(range(64, 96)), "carol")
SEATS = [ALICE.public_key, BOB.public_key, CAROL.public_key]
OPTIONS = {"players": 3, "rounds": 5, "variant": False}
NONCE = b"\xaa" * 32

TABLE_ID = "d83d29581ebb35dbc2614b738dd7276fc60875c11410939952773a70caaf31f1"
HEAD0 = "5f68305c8ce6a71ff47551b5e0bebd9165ea3f9d5382851c5f9d930bfd923b0c"
SEAT_HASH = "5789d5f26b736c36942887c8e2a3c91a6980223c10bc8d6ae7473668ebcc9f73"
HEAD1 = "6b6e32db03ff36d76044738f6e24cb2df5435320c663aac8dd8e575f6cfda39b"
MOVE_RAW = (
    "92c4a0980114c420d83d29581ebb35dbc2614b738dd7276fc60875c11410939952773a70caaf31f1c420"
    "29acbae141bccaf0b22e1a94d34d0bc7361e526d0bfe12c89794bc9322966dd700c42000000000000000"
    "00000000000000000000000000000000000000000000000000c4206b6e32db03ff36d76044738f6e24cb"
    "2df5435320c663aac8dd8e575f6cfda39b82a46d6f7665a6476169613a52a5726f756e6400c44081a521"
    "70d7a0f0ab1f662de3d35e892ea8cb4fab917b48652ac67bd916fd5d0da995bb855732bbf3342e2cbbc9"
    "1c17841c9dccea499616b3dbbbf8bef19adb09"
)
MOVE_HASH = "9ecba165577811fbc4c6fc785d4d5fee90ceda84d33e9b4ad1d42a8c94fbd48e"
HEAD2 = "bf0770c83c262177eda4500f1c39789ee8511bc8a7cd62e9d935759e1a0fdf34"


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
    msg = decode(move)
    assert msg.hash.hex() == MOVE_HASH == hashlib.sha256(move).hexdigest()
    assert next_head(head1, msg.hash).hex() == HEAD2
