"""Text from another peer is checked on receipt (issue 27, item 8): every name, table name, chat
line and reason from the wire is printable, and no bidi control gets through — not in a signed
message, not in a beacon, not in a chat line handed to the chat directly. Markup characters
(``[``, ``]``, ``@``) are ordinary text: they are shown literally (tests/test_tui_peer_text.py).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import pytest
from sample_table import SampleTable, sign_fields
from table_harness import LocalTable

from druids_p2p.lan import discovery
from druids_p2p.lan.discovery import SeatedPlayer, TableInfo, decode_beacon, encode_beacon
from druids_p2p.lan.listener import BeaconListener
from druids_p2p.lan.network import resolve
from druids_p2p.lan.peer_config import ChatRefused, TableChat, check_text
from druids_p2p.wire import PROTOCOL_VERSION, ZERO_HASH, MsgType, WireError, decode, encode
from druids_p2p.wire.identity import Identity
from druids_p2p.wire.msgtypes import BadShape, IdentityError
from druids_p2p.wire.schema import refused_char, shown, unprintable

H1 = hashlib.sha256(b"1").digest()
H2 = hashlib.sha256(b"2").digest()

BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
        "\u200e", "\u200f", "\u061c"]  # fmt: skip
"""Every bidi control (Unicode UAX #9): each reorders what a terminal shows after it."""
OTHER_BAD = ["\x00", "\x07", "\x1b", "\x7f", "\x85", "\x9b", "\u200b", "\u200d", "\u2028",
             "\u2029", "\ufeff", "\ue000", "\U000f0000", "\U000e0041", "\u00a0", "\u3000",
             "\U000e01f0"]  # fmt: skip
"""Controls (C0, C1), format characters (zero width, BOM, tags), separators, private use, spaces
other than U+0020, an unassigned code point."""
FINE = ["[/x]", "[@click=screen.answer(True)]B", "[b]x[/b]", "Zoë", "李雷", "🙂 ok", "a b"]
"""Markup is text: allowed on the wire, shown literally on screen."""


@pytest.fixture(scope="module")
def sample() -> SampleTable:
    return SampleTable(players=3)


def _signed(sample: SampleTable, kind: MsgType, body: dict[str, Any], chain: bool) -> bytes:
    seq, prev = (1, H1) if chain else (0, ZERO_HASH)
    key = sample.identities[1].public_key
    fields = [PROTOCOL_VERSION, int(kind), sample.table_id, key, seq, prev, H2, body]
    return sign_fields(sample.identities[1], fields)


def _bodies(text: str) -> list[tuple[MsgType, dict[str, Any], bool, str]]:
    """Every wire body carrying text another peer shows: (type, body, in a chain, field)."""
    short = text[:8]
    return [
        (MsgType.HELLO, {"client": "druids-p2p/1", "n": 1, "name": short}, False, "body.name"),
        (MsgType.HELLO, {"client": f"x{short}", "n": 1, "name": "bob"}, False, "body.client"),
        (MsgType.JOIN, {"name": short}, True, "body.name"),
        (MsgType.ABORT, {"reason": f"because {text}"}, True, "body.reason"),
        (MsgType.CHAT, {"n": 1, "text": f"hi {text}"}, False, "body.text"),
    ]


@pytest.mark.parametrize("bad", BIDI + OTHER_BAD, ids=lambda c: f"U+{ord(c):04X}")
def test_a_signed_message_with_a_bidi_or_control_character_is_refused(
    sample: SampleTable, bad: str
) -> None:
    for kind, body, chain, field in _bodies(f"ev{bad}il"):
        raw = _signed(sample, kind, body, chain)
        with pytest.raises(BadShape, match=rf"{field}: control characters not allowed") as caught:
            decode(raw)
        assert f"U+{ord(bad):04X}" in str(caught.value)  # the character named, never echoed
        assert bad not in str(caught.value)


@pytest.mark.parametrize("text", FINE)
def test_markup_and_ordinary_unicode_pass(sample: SampleTable, text: str) -> None:
    for kind, body, chain, _ in _bodies(text):
        assert decode(_signed(sample, kind, body, chain)).body == body


def test_the_shared_check_names_what_it_refuses() -> None:
    assert refused_char("\u202e") == "a bidi control"
    assert refused_char("\x1b") == "a control character"
    assert refused_char("\u200b") == "a format character"
    assert refused_char("\ue000") == "a private-use character"
    assert refused_char("\u2028") == "a line separator"
    assert refused_char("\u00a0") == "a space other than U+0020"
    assert refused_char("a") is None and refused_char(" ") is None
    assert unprintable("ok [b]") is None
    assert unprintable("ok\u2067x") == "U+2067 (a bidi control) at character 3"
    assert shown("a\u202eb\x1bc") == "a\ufffdb\ufffdc"  # same length: a Text's styles stay put
    assert shown("[/x]") == "[/x]"


def _forged_beacon(monkeypatch: pytest.MonkeyPatch, host_name: str, info: TableInfo) -> bytes:
    """A correctly signed beacon the sender's own checks would not let out."""
    host = Identity.from_seed(bytes([7]) * 32, "mallory")
    host.name = host_name  # past the identity's own check
    with monkeypatch.context() as patch:
        patch.setattr(discovery, "_check_fields", lambda fields: None)
        return encode_beacon(host, info, bytes([3]) * 16, 1)


@pytest.mark.parametrize("bad", ["\u202e", "\u2066", "\x1b", "\u200f"], ids=repr)
def test_a_beacon_with_a_bidi_or_control_name_is_refused_and_not_listed(
    monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    good = TableInfo("friday", "tcp://127.0.0.1:45123", bytes(range(32)), players=4)
    seat = SeatedPlayer(f"bob{bad}", bytes([5]) * 32)
    cases = [
        (f"evil{bad}", good, "host_name"),
        ("mallory", replace(good, name=f"fri{bad}day"), "name"),
        ("mallory", replace(good, seats=(seat,)), "seats"),
    ]
    listener = BeaconListener(resolve(), 0)
    try:
        for host_name, info, field in cases:
            raw = _forged_beacon(monkeypatch, host_name, info)
            with pytest.raises(WireError, match=rf"{field}.*control characters not allowed"):
                decode_beacon(raw)
            listener.handle(raw, ("127.0.0.1", 40000))
        assert listener.poll(0) == []
        # the same beacons with markup in every name are listed (and shown literally)
        marked = replace(good, name="[/x]", seats=(SeatedPlayer("[b]x[/b]", bytes([5]) * 32),))
        listener.handle(_forged_beacon(monkeypatch, "[@click=app.quit]B", marked), ("127.0.0.1", 1))
        (table,) = listener.poll(0)
        assert (table.beacon.host_name, table.name) == ("[@click=app.quit]B", "[/x]")
    finally:
        listener.close()


@pytest.fixture(scope="module")
def seated() -> LocalTable:
    table = LocalTable(players=3, rounds=1, seed=5)
    table.run()
    return table


def test_chat_receive_drops_a_bidi_or_control_line_even_past_the_decoder(
    seated: LocalTable,
) -> None:
    """A line that reached ``TableChat.receive`` by any path is checked again there."""
    shown_events: list[dict[str, Any]] = []
    chat = TableChat(seated.machines[1], shown_events.append, lambda: 100.0, wall_ms=lambda: 1)
    sayer = seated.machines[0]
    raw = encode(sayer.identity, MsgType.CHAT, table_id=sayer.table_id, seq=0, prev=ZERO_HASH,
                 head=sayer.transcript.head, body={"n": 5, "text": "fine"})  # fmt: skip
    good = decode(raw)
    for n, text in enumerate(["gg \u202eevil", "bell\x07", "tab\there", "zero\u200bwidth"], 6):
        assert not chat.receive(replace(good, body={"n": n, "text": text}))
    assert shown_events == [] and chat.dropped == 4
    assert chat.receive(replace(good, body={"n": 20, "text": "[b]gg[/b]"}))
    assert [e["text"] for e in shown_events] == ["[b]gg[/b]"]


def test_what_this_peer_says_or_is_called_obeys_the_same_check() -> None:
    for bad in ("a\u202eb", "a\u2066b", "a\x1bb"):
        with pytest.raises(ChatRefused, match="printable"):
            check_text(bad)
        with pytest.raises(IdentityError, match="control characters"):
            Identity.from_seed(bytes([1]) * 32, bad)
    assert check_text(" [/x] ") == "[/x]"
    assert Identity.from_seed(bytes([1]) * 32, "[/x]").name == "[/x]"
