"""Malformed input of every kind ends in a clean validation error, never another exception: the
card table's seven bodies (``table_*``), its envelopes, and a seat receiving signed garbage."""

from __future__ import annotations

import contextlib
from typing import Any

from deck_local import make_codecs, random_scalar, thaw
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from table_local import GAME, TABLE_ID

from druids_p2p.bench.tables import make_table
from druids_p2p.deck import DeckError, DeckFault, DeckParams, MalformedMessage, group
from druids_p2p.deck.params import MAX_CARDS
from druids_p2p.deck.table_messages import TABLE_KINDS, TableOp, parse_table_body

KINDS = TABLE_KINDS
NUM_CARDS = 16
CODECS = make_codecs(DeckParams(TABLE_ID, GAME, MAX_CARDS, 3, 1))


def _valid_bodies() -> dict[str, list[dict[str, Any]]]:
    """One real body of every kind, taken from an honest game at the card table: keys, a
    shuffle, deals (single and batched), a face-down play and its reveal, a face-up show, the
    final reveal."""
    bus = make_table(TABLE_ID, GAME, 3, NUM_CARDS, codecs=CODECS)
    bus.push(TableOp("shuffle", deck="d", cards=tuple(range(8))))
    for seat in (0, 1, 2, 0):
        bus.push(TableOp("deal", deck="d", seat=seat))
    bus.push(TableOp("deals", deck="d", seats=(1, 2)))
    bus.push(TableOp("play", seat=1, zone="slot"), bus.peers[1].hand()[0])
    bus.push(TableOp("reveal", zone="slot"))
    bus.push(TableOp("show", seat=0, zone="trick"), bus.peers[0].hand()[0])
    bus.push(TableOp("final"))
    out: dict[str, list[dict[str, Any]]] = {}
    for raw in bus.peers[0].transcript():
        env = CODECS[0].open(raw)
        out.setdefault(env.kind, []).append(thaw(env.body))
    assert set(out) == set(KINDS)
    return out


VALID = _valid_bodies()

scalars = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)  # what msgpack can carry
    | st.floats(allow_nan=True)
    | st.text(max_size=8)
    | st.binary(max_size=40)
    | st.sampled_from([bytes(32), b"\xff" * 32, group.ORDER.to_bytes(32, "little")]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


def _mutate(value: Any, data: st.DataObject) -> Any:
    """Replace, drop, add or truncate somewhere inside a valid body."""
    if isinstance(value, dict) and value:
        key = data.draw(st.sampled_from(sorted(value)))
        action = data.draw(st.sampled_from(["recurse", "drop", "add", "replace"]))
        out = dict(value)
        if action == "drop":
            del out[key]
        elif action == "add":
            out[data.draw(st.text(max_size=5))] = data.draw(scalars)
        elif action == "replace":
            out[key] = data.draw(scalars)
        else:
            out[key] = _mutate(out[key], data)
        return out
    if isinstance(value, list) and value:
        i = data.draw(st.integers(0, len(value) - 1))
        action = data.draw(st.sampled_from(["recurse", "drop", "dup", "replace"]))
        out_list = list(value)
        if action == "drop":
            del out_list[i]
        elif action == "dup":
            out_list.append(out_list[i])
        elif action == "replace":
            out_list[i] = data.draw(scalars)
        else:
            out_list[i] = _mutate(out_list[i], data)
        return out_list
    if isinstance(value, bytes):
        action = data.draw(st.sampled_from(["flip", "cut", "grow"]))
        if action == "cut":
            return value[:-1]
        if action == "grow":
            return value + b"\x00"
        i = data.draw(st.integers(0, len(value) - 1)) if value else 0
        return value[:i] + bytes([value[i] ^ data.draw(st.integers(1, 255))]) + value[i + 1 :]
    if isinstance(value, int):
        return data.draw(st.sampled_from([-1, value + 1, 2**40, True]))
    return data.draw(scalars)


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from([*KINDS, "table_other", "deck_shuffle", ""]), body=scalars)
def test_random_bodies_fail_cleanly(kind: str, body: Any) -> None:
    with contextlib.suppress(MalformedMessage):
        parse_table_body(kind, body)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), data=st.data())
def test_mutated_bodies_fail_cleanly(kind: str, data: st.DataObject) -> None:
    body = _mutate(data.draw(st.sampled_from(VALID[kind])), data)
    try:
        msg = parse_table_body(kind, body)
    except MalformedMessage:
        return
    assert msg.to_body().keys() == body.keys()  # what parses round-trips


def test_valid_bodies_round_trip() -> None:
    for kind, bodies in VALID.items():
        for body in bodies:
            assert thaw(parse_table_body(kind, body).to_body()) == body


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=300))
def test_random_envelopes_fail_cleanly(raw: bytes) -> None:
    with contextlib.suppress(MalformedMessage):
        CODECS[0].open(raw)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), data=st.data(), sender=st.integers(1, 2))
def test_peers_turn_signed_garbage_into_blame_never_a_crash(
    kind: str, data: st.DataObject, sender: int
) -> None:
    peer = make_table(TABLE_ID, GAME, 3, NUM_CARDS, codecs=CODECS).peers[0]  # every key in
    body = _mutate(data.draw(st.sampled_from(VALID[kind])), data)
    try:
        peer.receive(CODECS[sender].seal(kind, body))
    except DeckFault as exc:
        assert exc.seat == sender and exc.evidence
    except DeckError:
        pass


def test_a_key_share_that_is_the_identity_is_refused() -> None:
    body = dict(VALID["table_key"][0])
    body["key"] = bytes(32)
    try:
        parse_table_body("table_key", body)
    except MalformedMessage as exc:
        assert "group element" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("identity accepted")
    body["key"] = group.base_mul(random_scalar())
    parse_table_body("table_key", body)
