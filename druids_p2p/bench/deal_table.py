"""The Ed25519 codec that in-process card tables sign with: ``druids bench deal`` and ``druids
bench table``'s tables (``druids_p2p.bench.table_deck``) and the deck's tests
(``tests/deck_local.py`` adds the test-only helpers).

Real play goes through ``druids_p2p.table`` (the wire envelope is the deck's codec there); this
stands in for it with the same contract (deck.md §4: the signature binds body, kind, seat, table
and round), so that a bench times the deck's own work and a test can re-sign a cheat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from druids_p2p.deck.body_schema import Body
from druids_p2p.deck.errors import MalformedMessage
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.signing import Envelope

ENVELOPE_DOMAIN = b"druids-p2p/v1 deck-envelope\x00"
MAX_ENVELOPE = 64 * 1024
SIGNATURE_BYTES = 64


def _unpack(data: bytes) -> Any:
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            use_list=False,
            strict_map_key=True,
            max_str_len=len(data),
            max_bin_len=len(data),
            max_array_len=len(data),
            max_map_len=len(data),
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack reports problems through many exception types
        raise MalformedMessage(f"not valid msgpack: {type(exc).__name__}") from None


class Ed25519Codec:
    """The in-process stand-in for the wire envelope (``docs/protocol/deck.md`` §4): raw =
    msgpack [payload, signature], Ed25519 over canonical msgpack of {body, kind, round, seat,
    table}. Not a wire format: tables use ``table.codec``."""

    def __init__(
        self,
        params: DeckParams,
        seat: int,
        private_key: Ed25519PrivateKey,
        public_keys: Sequence[Ed25519PublicKey],
    ) -> None:
        self._params = params
        self._seat = seat
        self._private = private_key
        self._public = tuple(public_keys)

    def __repr__(self) -> str:
        return f"Ed25519Codec(seat={self._seat})"

    @property
    def seat(self) -> int:
        return self._seat

    @property
    def public_keys(self) -> tuple[Ed25519PublicKey, ...]:
        return self._public

    def seal(self, kind: str, body: Body) -> bytes:
        payload: bytes = msgpack.packb(
            {
                "body": body,
                "kind": kind,
                "round": self._params.round_no,
                "seat": self._seat,
                "table": self._params.table_id,
            },
            use_bin_type=True,
        )
        signature = self._private.sign(ENVELOPE_DOMAIN + payload)
        out: bytes = msgpack.packb([payload, signature], use_bin_type=True)
        return out

    def open(self, raw: bytes) -> Envelope:
        if not isinstance(raw, bytes) or len(raw) > MAX_ENVELOPE:
            raise MalformedMessage("envelope must be bytes of at most 64 KiB")
        outer = _unpack(raw)
        if (
            not isinstance(outer, tuple)
            or len(outer) != 2
            or not isinstance(outer[0], bytes)
            or not isinstance(outer[1], bytes)
            or len(outer[1]) != SIGNATURE_BYTES
        ):
            raise MalformedMessage("envelope must be [payload bytes, 64-byte signature]")
        payload, signature = outer
        if msgpack.packb([payload, signature], use_bin_type=True) != raw:
            # one spelling per message, or a relay could re-encode it into a false equivocation
            raise MalformedMessage("envelope is not canonically encoded")
        inner = _unpack(payload)
        if not isinstance(inner, dict) or tuple(inner) != (
            "body",
            "kind",
            "round",
            "seat",
            "table",
        ):
            raise MalformedMessage("payload must be a map {body, kind, round, seat, table}")
        seat = inner["seat"]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self._public):
            raise MalformedMessage("unknown sender seat")
        try:
            self._public[seat].verify(signature, ENVELOPE_DOMAIN + payload)
        except InvalidSignature:
            raise MalformedMessage(f"bad signature for seat {seat}") from None
        if inner["table"] != self._params.table_id or inner["round"] != self._params.round_no:
            raise MalformedMessage("message signed for another table or round")
        kind = inner["kind"]
        if not isinstance(kind, str):
            raise MalformedMessage("message kind must be a string")
        body = inner["body"]
        if not isinstance(body, dict):
            raise MalformedMessage("body must be a map")
        return Envelope(seat=seat, kind=kind, body=body, raw=raw)


def make_codecs(params: DeckParams) -> list[Ed25519Codec]:
    """Fresh Ed25519 identities for every seat, each codec knowing everybody's public key."""
    privates = [Ed25519PrivateKey.generate() for _ in range(params.seats)]
    publics = [k.public_key() for k in privates]
    return [Ed25519Codec(params, seat, k, publics) for seat, k in enumerate(privates)]
