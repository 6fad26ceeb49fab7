"""The discrete log of each ``A`` once every secret is out, so that the final audit multiplies by
the base point, a third of a generic multiplication's cost (deck.md §10.3); a log is used only
once checked, so every product, and every verdict, is the same."""

from __future__ import annotations

from druids_p2p.deck import group
from druids_p2p.deck.elgamal import Deck
from druids_p2p.deck.shuffle import derive_permutation, derive_rerandomizers, statement_seed
from druids_p2p.deck.table_messages import SHUFFLE, TableShuffleMsg
from druids_p2p.deck.table_state import TableState

ORDER = group.ORDER


class KnownLogs:
    """``k·A`` for the audit of ``state`` (its final reveal complete): by the base point where
    ``A``'s log is known and checked, else by ``A``."""

    def __init__(self, state: TableState) -> None:
        self._derived = _derive(state)
        self._checked: dict[bytes, int | None] = {}

    def times(self, k: int, a: bytes) -> bytes:
        """``k·A`` for an integer ``0 < k < 2^256`` and a valid point ``A`` (a position's)."""
        log = self._log(a)
        if log is not None:
            scalar = k * log % ORDER
            if scalar:
                return group.base_mul(scalar.to_bytes(32, "little"))
        return group.mul(k.to_bytes(32, "little"), a)

    def _log(self, a: bytes) -> int | None:
        if a in self._checked:
            return self._checked[a]
        log = self._derived.get(a)
        if log is not None and (not log or group.base_mul(log.to_bytes(32, "little")) != a):
            log = None
        self._checked[a] = log
        return log


def _derive(state: TableState) -> dict[bytes, int]:
    """point -> its log, followed through every shuffle's passes in the order they were made
    (each from the seat's revealed secret and the input it shuffled: ``state.starts``)."""
    joint = state.joint_key
    logs: dict[bytes, int] = {group.BASE: 1}
    if joint is None or len(state.secrets) != state.seats:
        return logs
    for index, (source, pass_no) in sorted(state.starts.items()):
        op = state.ops[index]
        if op.kind != SHUFFLE:
            continue
        params = state.context(b"shuffle", op.deck, index)
        for seat in range(state.seats):
            sent = state.slots.get((index, seat))
            if sent is None or not isinstance(sent.msg, TableShuffleMsg):
                break
            secret = state.secrets[seat].to_bytes(32, "little")
            seed = statement_seed(secret, params, seat, pass_no, source, joint)
            size = len(source)
            perm = derive_permutation(params, seat, pass_no, seed, size)
            rs = derive_rerandomizers(params, seat, pass_no, seed, size)
            out = Deck(sent.msg.a, sent.msg.c)
            for t, (j, r) in enumerate(zip(perm, rs, strict=True)):
                before = logs.get(source.a[j])
                if before is not None and t < len(out):
                    logs.setdefault(out.a[t], (before + int.from_bytes(r, "little")) % ORDER)
            source = out
    return logs
