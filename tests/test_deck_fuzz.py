"""Malformed input of every kind ends in a clean validation error, never another exception."""

from __future__ import annotations

import contextlib
import os
from typing import Any

from deck_local import deal, make_codecs, make_table, thaw
from druids_p2p.deck.peer import random_scalar
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from druids_p2p.deck import (
    KINDS,
    DeckError,
    DeckFault,
    DeckParams,
    MalformedMessage,
    group,
    parse_body,
)

PARAMS = DeckParams(b"F" * 32, 0, 65, 3, 15, frozenset({60}))
CODECS = make_codecs(PARAMS)


def _valid_bodies() -> dict[str, list[dict[str, Any]]]:
    """One real body of every kind, taken from an honest round."""
    peers = make_table(PARAMS, codecs=CODECS)
    bus = deal(peers)
    peers[0].open_card(peers[0].hand()[0])
    peers[1].reveal()
    out: dict[str, list[dict[str, Any]]] = {}
    for raw in [*peers[0].transcript(), *peers[1].transcript()]:
        env = CODECS[0].open(raw)
        out.setdefault(env.kind, []).append(thaw(env.body))
    assert set(out) == set(KINDS), bus
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
@given(kind=st.sampled_from([*KINDS, "deck_other", ""]), body=scalars)
def test_random_bodies_fail_cleanly(kind: str, body: Any) -> None:
    with contextlib.suppress(MalformedMessage):
        parse_body(kind, body)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), data=st.data())
def test_mutated_bodies_fail_cleanly(kind: str, data: st.DataObject) -> None:
    body = _mutate(data.draw(st.sampled_from(VALID[kind])), data)
    try:
        msg = parse_body(kind, body)
    except MalformedMessage:
        return
    assert msg.to_body().keys() == body.keys()  # what parses round-trips


def test_valid_bodies_round_trip() -> None:
    for kind, bodies in VALID.items():
        for body in bodies:
            assert thaw(parse_body(kind, body).to_body()) == body


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
    peers = make_table(PARAMS, codecs=CODECS)
    peer = peers[0]
    peer.start()
    body = _mutate(data.draw(st.sampled_from(VALID[kind])), data)
    try:
        peer.receive(CODECS[sender].seal(kind, body))
    except DeckFault as exc:
        assert exc.seat == sender and exc.evidence
    except DeckError:
        pass


def test_a_key_share_that_is_the_identity_is_refused() -> None:
    body = dict(VALID["deck_key"][0])
    body["key"] = bytes(32)
    try:
        parse_body("deck_key", body)
    except MalformedMessage as exc:
        assert "group element" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("identity accepted")
    body["key"] = group.base_mul(random_scalar(os.urandom))
    parse_body("deck_key", body)
