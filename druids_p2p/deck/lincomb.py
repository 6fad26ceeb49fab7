"""Sums of products start + Σ k_i·P_i through libsodium, and a helper thread for the deal's path.

libsodium has no multi-scalar multiplication, so the shuffle proofs and share proofs share this
one sum. ctypes releases the GIL in each call, so the checks the table waits for run on two
cores: half the wall time, the same point bit for bit (deck.md §13).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

from druids_p2p.deck import group
from druids_p2p.deck.group import IDENTITY, ORDER

T = TypeVar("T")
R = TypeVar("R")

_pools: dict[str, ThreadPoolExecutor] = {}
"""The helper thread (``druids-deck``) and the aside thread (``druids-aside``), by name."""
_lock = threading.Lock()
_helper = threading.local()
"""``busy`` is set on the helper thread: work it hands on runs there at once (one helper only:
waiting for itself would never end)."""


def _reset_after_fork() -> None:
    _pools.clear()  # the helper threads do not exist in a forked child


os.register_at_fork(after_in_child=_reset_after_fork)


ONE_THREAD_ENV = "DRUIDS_DECK_ONE_THREAD"
"""Set to 1 to keep the prover's work on the caller's thread: the same work without the helper,
for timing one against the other in the same sitting (peer processes inherit it)."""


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
    if not two_cores() or getattr(_helper, "busy", False):
        done: Future[T] = Future()
        done.set_result(fn(*args))
        return done
    return _thread("druids-deck").submit(fn, *args)


def _thread(name: str) -> ThreadPoolExecutor:
    """The one thread named ``name``, started when first asked for."""
    with _lock:
        pool = _pools.get(name)
        if pool is None:
            pool = _pools[name] = ThreadPoolExecutor(
                1, thread_name_prefix=name, initializer=_mark_helper
            )
        return pool


def _mark_helper() -> None:
    _helper.busy = True  # (the helper's and the aside thread's sums stay on them)


def aside(fn: Callable[..., T], *args: object) -> Future[T]:
    """Run ``fn(*args)`` on the aside thread: work nothing waits for yet (the checks a deal left
    for later, while the game's moves go on); it hands nothing on to the helper. At normal
    priority: a thread holding the GIL at the lowest, preempted on a busy machine, held up every
    thread of its process (a bot's move waited 118-180 ms for it under load, issue 29)."""
    return _thread("druids-aside").submit(fn, *args)


class Aside(Generic[T, R]):
    """``fold`` of ``work(item)`` over ``items``, worked in order on the aside thread
    (:func:`aside`) until :meth:`take` is called: the caller that needs the answer then works
    what the thread has not finished itself, as the thread may wait long for a core on a busy
    machine, and whoever waited on it would wait as long (issue 29)."""

    def __init__(
        self, work: Callable[[T], R | None], items: Sequence[T], fold: Callable[[list[R]], bool]
    ) -> None:
        """``work`` returns None for an item that fails: the answer is then False."""
        self._work, self._items, self._fold = work, list(items), fold
        self._done: list[R] = []
        self._answer: bool | None = None
        self._taken = False
        self._lock = threading.Lock()
        self.future = aside(self._run)
        """Done once the thread has the answer (True or False), or gave up (None: taken)."""

    def _run(self) -> bool | None:
        for item in self._items:
            with self._lock:
                if self._taken:
                    return None
            out = self._work(item)
            with self._lock:
                if self._taken:
                    return None
                if out is None:
                    self._answer = False
                    return False
                self._done.append(out)
        answer = self._fold(list(self._done))
        with self._lock:
            if not self._taken:
                self._answer = answer
        return answer

    def take(self) -> bool:
        """The answer, now: the thread's if it has one, else worked here from where it is (the
        item it is working on, worked again here: a few ms, where waiting could be any time)."""
        with self._lock:
            self._taken = True
            answer, done = self._answer, list(self._done)
        if answer is not None:
            return answer
        for item in self._items[len(done) :]:
            out = self._work(item)
            if out is None:
                return False
            done.append(out)
        return self._fold(done)


SPLIT_AT = 16
"""A split sum of fewer products stays on one thread (handing work over costs tens of µs)."""


def sum_products(
    start: bytes, scalars: Sequence[int], points: Sequence[bytes], *, split: bool = False
) -> bytes:
    """start + Σ k_i·P_i for any integers k_i and valid encodings P_i; ``start`` may be identity.

    A product with k_i ≡ 0 mod l or P_i the identity is skipped (libsodium raises; an adversary can
    arrange either). ``split``: half the products on the helper thread; the same point either way.
    """
    half = len(scalars) // 2
    if split and half >= SPLIT_AT // 2 and two_cores() and not getattr(_helper, "busy", False):
        other = in_background(_sum, IDENTITY, scalars[:half], points[:half])
        mine = _sum(start, scalars[half:], points[half:])
        return _plus(mine, other.result())
    return _sum(start, scalars, points)


def multiply_all(scalar: bytes, points: Sequence[bytes], *, split: bool = False) -> list[bytes]:
    """[scalar·P for P in points] (``scalar`` reduced and non-zero, every point a valid
    element other than the identity: a seat's decryption shares of the positions it owes).
    ``split``: the first half on the helper thread, as :func:`sum_products`."""
    half = len(points) // 2
    if split and half >= SPLIT_AT // 2 and two_cores() and not getattr(_helper, "busy", False):
        other = in_background(_multiply, scalar, points[:half])
        mine = _multiply(scalar, points[half:])
        return other.result() + mine
    return _multiply(scalar, points)


def _multiply(scalar: bytes, points: Sequence[bytes]) -> list[bytes]:
    mul = group.mul
    return [mul(scalar, p) for p in points]


def _plus(p: bytes, q: bytes) -> bytes:
    if p == IDENTITY:
        return q
    if q == IDENTITY:
        return p
    out: bytes = group.add(p, q)
    return out


def _sum(start: bytes, scalars: Sequence[int], points: Sequence[bytes]) -> bytes:
    # libsodium without rbcl's per-call checks (deck/sodium.py): every point here is one the
    # deck computed or a received one ``group.is_element`` accepted, every scalar 32 bytes
    mul, add = group.mul, group.add
    acc = start
    for k, p in zip(scalars, points, strict=True):
        k %= ORDER
        if k and p != IDENTITY:
            product = mul(k.to_bytes(32, "little"), p)
            acc = product if acc == IDENTITY else add(acc, product)
    return acc
