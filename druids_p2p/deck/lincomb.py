"""Sums of products Σ k_i·P_i through libsodium, the work split over two threads.

Why: libsodium has no multi-scalar multiplication, so a sum of N products costs N
multiplications and N additions however it is arranged (deck.md §13); what can still be cut is
the wait for it. rbcl reaches libsodium through ctypes, which releases the GIL for the length of
each call, so two threads multiply at once on two cores. A deal's critical path is sequential:
each seat checks the shuffles before its own and then proves its own while the others wait for it
(deck.md §6.3), so on a machine with a second core that core is otherwise idle there.

Nothing about the result changes: point addition is commutative and associative, so the sum is
the same point bit for bit, and so is every proof and verdict. The CPU is the same too (a
process's CPU time counts both threads, as ``druids bench deal`` does).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import rbcl

from druids_p2p.deck.group import IDENTITY

T = TypeVar("T")

SPLIT_AT = 16
"""Sums of fewer products stay on one thread (handing work over costs tens of µs)."""

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()
_helper = threading.local()
"""``busy`` is set on the helper thread: work it hands on runs there at once (one helper only:
waiting for itself would never end)."""


def _reset_after_fork() -> None:
    global _pool
    _pool = None  # the helper thread does not exist in a forked child


os.register_at_fork(after_in_child=_reset_after_fork)


ONE_THREAD_ENV = "DRUIDS_DECK_ONE_THREAD"
"""Set to 1 to keep every sum on the caller's thread: the same work without the helper, for
timing one against the other in the same sitting (peer processes inherit it)."""


@functools.cache
def two_cores() -> bool:
    """True when a helper thread can run beside the caller (more than one CPU for us, and not
    turned off through :data:`ONE_THREAD_ENV`)."""
    if os.environ.get(ONE_THREAD_ENV) == "1":
        return False
    try:
        return len(os.sched_getaffinity(0)) > 1
    except AttributeError:  # pragma: no cover - not Linux
        return (os.cpu_count() or 1) > 1


def in_background(fn: Callable[..., T], *args: object) -> Future[T]:
    """Run ``fn(*args)`` on the helper thread (or at once, here, on a single CPU)."""
    global _pool
    if not two_cores() or getattr(_helper, "busy", False):
        done: Future[T] = Future()
        done.set_result(fn(*args))
        return done
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                1, thread_name_prefix="druids-deck", initializer=_mark_helper
            )
        pool = _pool
    return pool.submit(fn, *args)


def _mark_helper() -> None:
    _helper.busy = True


def _sum_products(scalars: Sequence[bytes], points: Sequence[bytes]) -> bytes:
    if not scalars:
        return IDENTITY
    mul, add = rbcl.crypto_scalarmult_ristretto255, rbcl.crypto_core_ristretto255_add
    acc: bytes = mul(scalars[0], points[0])
    for k, p in zip(scalars[1:], points[1:], strict=True):
        acc = add(acc, mul(k, p))
    return acc


def sum_products(scalars: Sequence[bytes], points: Sequence[bytes]) -> bytes:
    """Σ k_i·P_i for canonical non-zero scalars and valid points other than the identity (each
    product must be defined: libsodium raises for a zero scalar or an identity result)."""
    half = len(scalars) // 2
    if half < SPLIT_AT // 2 or not two_cores() or getattr(_helper, "busy", False):
        return _sum_products(scalars, points)
    other = in_background(_sum_products, scalars[:half], points[:half])
    mine = _sum_products(scalars[half:], points[half:])
    out: bytes = rbcl.crypto_core_ristretto255_add(other.result(), mine)
    return out
