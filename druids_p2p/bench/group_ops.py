"""Counting the deck's ristretto255 operations per seat, for ``druids bench deal --ops``.

Why counts and not only CPU: the machine this project runs on varies about 1.5x in speed with
the load of its host, so two CPU figures from different sittings say little. Nearly all of a
deal's CPU is libsodium's group arithmetic (a generic multiplication ≈ 3 additions ≈ 3 base
multiplications ≈ 8 point checks), and how many of each a seat makes is the same on every
machine: a change that saves work shows up here exactly.

The counter wraps libsodium's entry points where the deck reaches them: ``deck.group``'s module
attributes (everything but the proof of a shuffle goes through them), the name
``deck.shuffle_proof`` binds for its additions, and ``rbcl``'s own attributes for the calls made
through the module (``deck.lincomb``'s sums among them). It restores them all on exit. Counting
costs a Python call per operation, so time a deal without it.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import rbcl

from druids_p2p.deck import group, shuffle_proof

OPS = ("mul", "base", "add", "sub", "valid", "hash")
"""What is counted: generic and base-point multiplications, additions, subtractions, point
checks (``is_valid_point``) and hash-to-group calls."""

_RBCL = {
    "crypto_scalarmult_ristretto255": "mul",
    "crypto_scalarmult_ristretto255_base": "base",
    "crypto_core_ristretto255_add": "add",
    "crypto_core_ristretto255_from_hash": "hash",
}
_GROUP = {"_mul": "mul", "_base": "base", "add": "add", "sub": "sub", "_is_valid": "valid"}
_SHUFFLE_PROOF = {"_add": "add"}


class OpCounter:
    """Operations counted per label; :attr:`current` is the label charged (a seat, or None)."""

    def __init__(self) -> None:
        self.current: object = None
        self.counts: dict[object, Counter[str]] = {}
        self._lock = threading.Lock()

    def charge(self, op: str) -> None:
        """Count one ``op`` for :attr:`current` (from any thread: the deck multiplies on two,
        ``deck/lincomb.py``, for the caller who set the label)."""
        with self._lock:
            self.counts.setdefault(self.current, Counter())[op] += 1

    def of(self, label: object) -> dict[str, int]:
        """Every counted operation of ``label``, zero for those it never made."""
        got = self.counts.get(label, Counter())
        return {op: got[op] for op in OPS}

    def wrap(self, fn: Callable[..., Any], op: str) -> Callable[..., Any]:
        charge = self.charge

        def counted(*args: Any) -> Any:
            charge(op)
            return fn(*args)

        return counted


@contextlib.contextmanager
def counting() -> Iterator[OpCounter]:
    """Count every deck group operation made inside the block."""
    counter = OpCounter()
    saved: list[tuple[object, str, object]] = []
    try:
        for module, names in ((rbcl, _RBCL), (group, _GROUP), (shuffle_proof, _SHUFFLE_PROOF)):
            for name, op in names.items():
                original = getattr(module, name)
                saved.append((module, name, original))
                setattr(module, name, counter.wrap(original, op))
        yield counter
    finally:
        for module, name, original in reversed(saved):
            setattr(module, name, original)
