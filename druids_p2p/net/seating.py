"""Forming a table: the signed seat message that founds every transcript of the table."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from druids_p2p.engine import GameOptions
from druids_p2p.wire import Identity, MsgType, derive_table_id, encode, head0


def options_body(options: GameOptions) -> dict[str, object]:
    return {"players": options.players, "rounds": options.rounds, "variant": options.variant}


def make_seat_message(
    host: Identity,
    seats: Sequence[tuple[bytes, str, str, bytes]],
    options: GameOptions,
    nonce: bytes | None = None,
) -> bytes:
    """The host's seat message: (key, name, endpoint, curve) per seat in join order.

    The table id is the hash of the seated keys, the options and a nonce, so every later
    signature at the table also signs who sits there and what is played.
    """
    nonce = nonce or secrets.token_bytes(32)
    keys = [s[0] for s in seats]
    body = {
        "seats": keys,
        "names": [s[1] for s in seats],
        "options": options_body(options),
        "nonce": nonce,
        "endpoints": [s[2] for s in seats],
        "curves": [s[3] for s in seats],
    }
    table_id = derive_table_id(keys, body["options"], nonce)  # type: ignore[arg-type]
    return encode(
        host,
        MsgType.SEAT,
        table_id=table_id,
        seq=0,
        prev=bytes(32),
        head=head0(table_id),
        body=body,
    )
