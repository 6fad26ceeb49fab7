"""Property: whatever bytes arrive, ``decode`` returns a Message or raises WireError, nothing else.

Three sources of input: raw random bytes, mutations of valid messages (which get past the first
checks and exercise the later ones), and arbitrary msgpack values that are correctly signed (which
get past the signature-independent parsing and exercise every schema branch).
"""

from __future__ import annotations

import string
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from message_surgery import fake_shuffle_body
from sample_table import SampleTable, play_sample_game, sign_fields

from druids_p2p.wire import PROTOCOL_VERSION, Message, MsgType, WireError, decode, equivocation_body

TABLE = SampleTable(3, seed=5)
play_sample_game(TABLE, seed=5, rounds=1)
_A = TABLE.make(1, "move", {"round": 0, "move": "G1"})
_B = TABLE.make(1, "move", {"round": 0, "move": "G2"})
VALID = [
    *TABLE.raws[:40],
    TABLE.make(0, "equivocation", equivocation_body(_A, _B)),
    TABLE.make(2, "resend", {"sender": TABLE.identities[1].public_key, "seq": 3}),
    TABLE.make(2, "abort", {"reason": "x", "seat": 1}),
    TABLE.make(2, "table_shuffle", fake_shuffle_body(5)),
]

FUZZ = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def _decode_only_wire_errors(raw: bytes) -> None:
    try:
        msg = decode(raw)
    except WireError as exc:
        assert str(exc)  # every refusal says why
        return
    assert isinstance(msg, Message) and msg.raw == raw


@FUZZ
@given(st.binary(max_size=2048))
def test_random_bytes(raw: bytes) -> None:
    _decode_only_wire_errors(raw)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    raw = bytearray(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "set", "insert", "delete", "truncate", "splice"]))
        i = draw(st.integers(0, max(len(raw) - 1, 0)))
        if op == "flip" and raw:
            raw[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "set" and raw:
            raw[i] = draw(st.sampled_from([0x00, 0x7F, 0x80, 0xC1, 0xC4, 0xD6, 0xDD, 0xDF, 0xFF]))
        elif op == "insert":
            raw[i:i] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del raw[i : i + draw(st.integers(1, 8))]
        elif op == "truncate":
            del raw[i:]
        else:
            other = draw(st.sampled_from(VALID))
            raw[i:] = other[draw(st.integers(0, len(other))) :]
    return bytes(raw)


@FUZZ
@given(mutated())
def test_mutated_valid_messages(raw: bytes) -> None:
    _decode_only_wire_errors(raw)


_keys = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=6)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.binary(max_size=40)
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=12,
)


@st.composite
def signed_fields(draw: st.DrawFn) -> bytes:
    """Correctly signed envelopes whose fields are partly valid and partly arbitrary."""
    seat = draw(st.integers(0, 2))
    good: list[Any] = [
        PROTOCOL_VERSION,
        int(draw(st.sampled_from(list(MsgType)))),
        TABLE.table_id,
        TABLE.identities[seat].public_key,
        1,
        b"\x01" * 32,
        b"\x02" * 32,
        draw(
            st.dictionaries(
                st.sampled_from(
                    [
                        "round",
                        "move",
                        "op",
                        "pos",
                        "zone",
                        "x",
                        "head",
                        "a",
                        "b",
                        "name",
                        "client",
                        "reason",
                        "seat",
                        "opens",
                    ]
                ),
                _values,
                max_size=4,
            )
        ),
    ]
    for i in draw(st.sets(st.integers(0, 7), max_size=3)):
        good[i] = draw(_values)
    if draw(st.booleans()):
        good = good[: draw(st.integers(0, 9))]
    return sign_fields(TABLE.identities[seat], good)


@pytest.mark.slow
@FUZZ
@given(signed_fields())
def test_signed_arbitrary_fields(raw: bytes) -> None:
    _decode_only_wire_errors(raw)


@FUZZ
@given(_values)
def test_arbitrary_msgpack_values(value: Any) -> None:
    _decode_only_wire_errors(msgpack.packb(value, use_bin_type=True))
