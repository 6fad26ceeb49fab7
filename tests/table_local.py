"""In-process card tables for the tests: real TablePeer objects, every message signed by the
deck tests' Ed25519 codec and relayed to every other seat in FIFO order (as deck_local does for
the deal), with a hook to rewrite or drop a message in flight (a cheating seat re-signs its own)."""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Sequence

from deck_local import Ed25519Codec, make_codecs, seeded_entropy

from druids_p2p.deck.params import MAX_CARDS, DeckParams
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_peer import TablePeer

TABLE_ID = hashlib.sha256(b"druids-p2p card table test").digest()
GAME = 1
Intercept = Callable[[int, bytes], bytes | None]


class TableBus:
    """Delivers every message to every other seat, FIFO; ``intercept`` may replace or drop."""

    def __init__(self, peers: Sequence[TablePeer], codecs: Sequence[Ed25519Codec]) -> None:
        self.peers = list(peers)
        self.codecs = list(codecs)
        self.queue: deque[tuple[int, bytes]] = deque()
        self.sent: list[tuple[int, bytes]] = []
        self.intercept: Intercept | None = None

    def post(self, sender: int, raws: Sequence[bytes]) -> None:
        for raw in raws:
            self.queue.append((sender, raw))

    def start(self) -> None:
        for peer in self.peers:
            self.post(peer.seat, peer.start())
        self.run()

    def push(self, op: TableOp, position: int | None = None) -> None:
        """Give every seat the operation (the player also its choice), then deliver."""
        for peer in self.peers:
            mine = position if op.seat == peer.seat and op.kind == "play" else None
            self.post(peer.seat, peer.push(op, mine))
        self.run()

    def run(self) -> None:
        for _ in range(1 << 20):
            if not self.queue:
                return
            sender, raw = self.queue.popleft()
            if self.intercept is not None:
                changed = self.intercept(sender, raw)
                if changed is None:
                    continue
                raw = changed
            self.sent.append((sender, raw))
            for peer in self.peers:
                if peer.seat != sender:
                    self.post(peer.seat, peer.receive(raw))
        raise RuntimeError("the bus did not go quiet")

    def kind(self, raw: bytes) -> str:
        return self.codecs[0].open(raw).kind


def make_table(seats: int, num_cards: int, seed: bytes = b"table") -> TableBus:
    """``seats`` table peers with reproducible entropy and fresh Ed25519 identities."""
    codecs = make_codecs(DeckParams(TABLE_ID, GAME, MAX_CARDS, seats, 1))
    peers = [
        TablePeer(
            TABLE_ID,
            GAME,
            seats,
            num_cards,
            codecs[s],
            entropy=seeded_entropy(seed + b"/%d" % s),
        )
        for s in range(seats)
    ]
    bus = TableBus(peers, codecs)
    bus.start()
    return bus
