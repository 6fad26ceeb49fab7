"""Deterministic signed game records for the wire tests (test scaffolding, not the package).

Records are built as peers chain their messages (seat message, moves in turn, each seat's
``table_reveal`` at the end of each round), with keys and choices derived from a seed, so the
same arguments always give the same bytes and any record problem can be reproduced by mutation.
The reveals are of the wire's shape only (their secrets are no card table's, and no deal is
played out): these records exercise the envelope, the chain and the transcript, never
``druids audit``'s game checks (those take real table records, ``table_harness``).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import druids_p2p.table  # noqa: F401  (registers the deck's parser of the card table's bodies)
from druids_p2p.games.druids2017 import Game, GameOptions, deal_from_seed, format_move
from druids_p2p.wire.envelope import derive_table_id, encode, head0
from druids_p2p.wire.identity import Identity
from druids_p2p.wire.msgtypes import MSG_DOMAIN, MsgType, pack
from druids_p2p.wire.transcript import Transcript

SAMPLE_NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")


def _seed_bytes(seed: int, label: str) -> bytes:
    return hashlib.sha256(f"druids-p2p sample {seed} {label}".encode()).digest()


class SampleTable:
    """A table whose every seat is played locally: sends are appended to one transcript."""

    def __init__(
        self,
        players: int = 3,
        seed: int = 0,
        *,
        variant: bool = False,
        rounds: int = 5,
        path: Path | None = None,
    ) -> None:
        self.identities = [
            Identity.from_seed(_seed_bytes(seed, f"key {i}"), SAMPLE_NAMES[i])
            for i in range(players)
        ]
        self.players, self.rounds, self.variant = players, rounds, variant
        self.options: dict[str, Any] = {"players": players, "rounds": rounds, "variant": variant}
        seats = [identity.public_key for identity in self.identities]
        nonce = _seed_bytes(seed, "nonce")
        self.table_id = derive_table_id(seats, self.options, nonce)
        body = {
            "seats": seats,
            "names": [i.name for i in self.identities],
            "options": self.options,
            "nonce": nonce,
        }
        seat_raw = encode(
            self.identities[0],
            MsgType.SEAT,
            table_id=self.table_id,
            seq=0,
            prev=bytes(32),
            head=head0(self.table_id),
            body=body,
        )
        self.transcript = Transcript.start(seat_raw, path)
        self.raws = [seat_raw]

    def make(self, seat: int, msg_type: MsgType | str, body: Mapping[str, Any]) -> bytes:
        """Sign the next message of ``seat`` without appending it (for building bad records)."""
        key = self.identities[seat].public_key
        return encode(
            self.identities[seat],
            msg_type,
            table_id=self.table_id,
            seq=self.transcript.next_seq(key),
            prev=self.transcript.last_hash(key),
            head=self.transcript.head,
            body=body,
        )

    def send(self, seat: int, msg_type: MsgType | str, body: Mapping[str, Any]) -> bytes:
        raw = self.make(seat, msg_type, body)
        self.transcript.append(raw)
        self.raws.append(raw)
        return raw


def play_sample_game(table: SampleTable, seed: int = 0, rounds: int | None = None) -> Game:
    """Play ``rounds`` rounds (default: all) with seeded random legal moves, each seat's
    ``table_reveal`` (of the wire's shape) closing each round."""
    opts = table.options
    game = Game(
        GameOptions(players=opts["players"], variant=opts["variant"], rounds=opts["rounds"])
    )
    rng = random.Random(seed)
    for r in range(opts["rounds"] if rounds is None else rounds):
        hands = deal_from_seed(f"{seed}/{r}", opts["players"])
        game.start_round(hands)
        while not game.round_over:
            seat = game.to_move
            assert seat is not None
            move = rng.choice(game.legal_moves())
            table.send(seat, MsgType.MOVE, {"round": r, "move": format_move(move)})
            game.play(move)
        for seat in range(len(hands)):
            x = _seed_bytes(seed, f"secret {r} {seat}")
            table.send(seat, MsgType.TABLE_REVEAL, {"op": 0, "round": r, "x": x})
    return game


def sample_record(path: Path, players: int = 3, seed: int = 0, rounds: int = 5) -> Game:
    """Write a complete, valid game record to ``path`` (which must not exist)."""
    table = SampleTable(players, seed, rounds=rounds, path=path)
    try:
        return play_sample_game(table, seed)
    finally:
        table.transcript.close()


def sign_fields(identity: Identity, fields: list[Any], *, frame: list[Any] | None = None) -> bytes:
    """Sign arbitrary envelope fields with no checks at all: builds the hostile but correctly
    signed inputs that a peer's decoder must refuse. ``frame`` replaces the outer array."""
    signed = pack(fields)
    signature = identity.sign(MSG_DOMAIN + signed)
    return pack(frame if frame is not None else [signed, signature])
