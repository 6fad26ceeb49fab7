"""Whole tables of TableMachines wired together in one process, for protocol tests."""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Callable
from pathlib import Path

from druids_p2p.games.druids2017.game import Game
from druids_p2p.games.druids2017.table_seat import TableSeat2017
from druids_p2p.games.registry import new_table_options
from druids_p2p.lan.seating import make_join, make_seat_message
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableSecret
from druids_p2p.wire import (
    Identity,
    Message,
    MsgType,
    Transcript,
    decode,
    derive_table_id,
    encode,
    head0,
)

Tamper = Callable[[int, int, bytes], bytes | None]
"""(from seat-list index, to index, raw) -> raw to deliver instead, or None to drop."""


def seat_message(ruleset: str, players: int = 3, legacy: bool = False) -> bytes:
    """A host's signed seat message for a table of ``ruleset`` (what a peer's saved table keeps
    in ``seat.msg``); ``legacy``: as protocol version 1 wrote it, its options naming no rule set
    (every such table was Druids 2017's)."""
    ids = [Identity.generate(f"p{k}") for k in range(players)]
    seats = [
        (i.public_key, i.name, f"tcp://127.0.0.1:{6000 + k}", bytes([k + 1]) * 32)
        for k, i in enumerate(ids)
    ]
    options = new_table_options(ruleset, players)
    if not legacy:
        return make_seat_message(ids[0], seats, options, ruleset=ruleset)
    keys, nonce = [s[0] for s in seats], os.urandom(32)
    legacy_options = {"players": players, "rounds": options.rounds, "variant": options.variant}
    body = {
        "seats": keys,
        "names": [s[1] for s in seats],
        "options": legacy_options,
        "nonce": nonce,
        "endpoints": [s[2] for s in seats],
        "curves": [s[3] for s in seats],
    }
    table_id = derive_table_id(keys, legacy_options, nonce)
    head = head0(table_id)
    return encode(
        ids[0], MsgType.SEAT, table_id=table_id, seq=0, prev=bytes(32), head=head, body=body
    )


def _fresh_bytes(seed: int | None) -> Callable[[str], bytes]:
    """32 bytes per label: the OS's fresh randomness, or (``seed`` given) derived from the seed
    and the label, the same every run."""
    if seed is None:
        return lambda _label: os.urandom(32)
    return lambda label: hashlib.sha256(f"local table {seed}/{label}".encode()).digest()


class LocalTable:
    def __init__(
        self,
        players: int = 4,
        rounds: int = 1,
        seed: int = 0,
        variant: bool = False,
        records: Path | None = None,
        ruleset: str = "druids2017",
        keys_seed: int | None = None,
        fresh_keys: bool = False,
    ) -> None:
        """``seed`` orders deliveries and picks moves; the keys, the offer and the table secrets
        come from ``keys_seed`` (default: ``seed``), so the whole game (the deck's shuffles and a
        card table's deal included) is the same every run: a test that fails, fails every time.
        ``fresh_keys``: the OS's randomness instead, a new game each run."""
        self.rng = random.Random(seed)
        fresh = _fresh_bytes(None if fresh_keys else seed if keys_seed is None else keys_seed)
        self.ids = [
            Identity.generate(f"p{i}")
            if fresh_keys
            else Identity.from_seed(fresh(f"key {i}"), f"p{i}")
            for i in range(players)
        ]
        self.seats = [
            (ident.public_key, ident.name, f"tcp://127.0.0.1:{6000 + k}", bytes([k + 1]) * 32)
            for k, ident in enumerate(self.ids)
        ]
        options = new_table_options(ruleset, players, variant, rounds)
        offer = fresh("offer")
        self.joins = [
            make_join(i, offer, endpoint, curve)
            for i, (_, _, endpoint, curve) in zip(self.ids, self.seats, strict=True)
        ]
        """Every seat's signed join (the host's, index 0, is not quoted)."""
        self.seat_raw = make_seat_message(
            self.ids[0],
            self.seats,
            options,
            nonce=fresh("nonce"),
            joins=self.joins[1:],
            ruleset=ruleset,
        )
        self.seat_msg = decode(self.seat_raw)
        self.secrets = [TableSecret(fresh(f"secret {k}")) for k in range(players)]
        self.records = records
        self.machines = [self._machine(k) for k in range(players)]
        self.queue: list[tuple[int, int, bytes]] = []
        self.tamper: Tamper | None = None

    def _machine(self, k: int, transcript: Transcript | None = None) -> TableMachine:
        if transcript is None and self.records is not None:
            transcript = Transcript.start(self.seat_msg, self.records / f"p{k}.druids")
        return TableMachine(
            self.ids[k],
            self.seat_msg,
            self.secrets[k],
            self.seats[k][2],
            self.seats[k][3],
            transcript,
        )

    def broadcast(self, k: int, raws: list[bytes]) -> None:
        for raw in raws:
            for j in range(len(self.machines)):
                if j != k:
                    self.queue.append((k, j, raw))

    def deliver(self, j: int, raw: bytes, frm: int | None = None) -> None:
        """Hand ``raw`` to peer j (``frm``: who sent it, for a subclass that cares)."""
        self.broadcast(j, self.machines[j].receive(decode(raw)))

    def run(self, max_steps: int = 500_000, stop: Callable[[], bool] | None = None) -> None:
        """Deliver in random order and let each peer move randomly when it is its turn."""
        self.start_all()
        for _ in range(max_steps):
            if stop is not None and stop():
                return
            if self.queue:
                self.deliver_next()
                continue
            movers = [k for k, m in enumerate(self.machines) if not self.stopped(k) and m.my_turn]
            if not movers:
                self.settle()
                return
            self.move(movers[0])
        raise AssertionError("the table did not settle")

    # The steps of :meth:`run`, which a subclass (tests/attack_arena.py's Arena) refines.
    def start_all(self) -> None:
        for k, m in enumerate(self.machines):
            self.broadcast(k, m.start())

    def deliver_next(self) -> None:
        """Take the next queued message (:meth:`_pick`); ``tamper`` may change or drop it."""
        k, j, raw = self.queue.pop(self._pick())
        if self.tamper is not None:
            changed = self.tamper(k, j, raw)
            if changed is None:
                return
            raw = changed
        self.deliver(j, raw, k)

    def _pick(self) -> int:
        return self.rng.randrange(len(self.queue))

    def stopped(self, k: int) -> bool:
        return False

    def move(self, k: int) -> None:
        view = self.machines[k].view()
        assert view is not None
        self.broadcast(k, self.machines[k].play(self.rng.choice(view.legal)))

    def settle(self) -> None:
        """Nothing is queued and nobody is to move."""

    def restart(self, k: int) -> list[Message]:
        """Rebuild peer k from its record file, as a restarted process would."""
        assert self.records is not None
        self.machines[k].transcript.close()
        transcript, _ = Transcript.resume(self.records / f"p{k}.druids")
        saved = list(transcript.messages)
        fresh = self._machine(k, Transcript(self.seat_msg))
        fresh.load_record(saved)
        fresh.start()
        fresh.adopt_record(transcript)  # raises unless replay rebuilt the same transcript
        self.machines[k] = fresh
        # What the restarted process asks for: a resend from everybody after its head.
        for j, other in enumerate(self.machines):
            if j != k:
                for raw in other.answer_resend(transcript.head):
                    self.queue.append((j, k, raw))
        return saved


def game_of(machine: TableMachine) -> Game:
    """The machine's game as the Druids (2017) game its seat's copy plays: tests read its
    rounds, which the table itself reaches only through the rule-set seam."""
    play = machine.card_play
    assert play is not None and isinstance(play.copy, TableSeat2017)
    return play.copy.game
