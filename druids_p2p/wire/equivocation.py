"""Proof that a sender equivocated: two different messages it signed for the same slot.

:func:`verify_equivocation` lives in ``envelope`` (decoding a proof verifies the messages it
quotes, and verifying them decodes): one module, so that envelope and this one do not import
each other. It is re-exported here beside :func:`equivocation_body`.
"""

from __future__ import annotations

from typing import Any

from druids_p2p.wire.envelope import verify_equivocation

__all__ = ["equivocation_body", "verify_equivocation"]


def equivocation_body(first: bytes, second: bytes) -> dict[str, Any]:
    """The body of an ``equivocation`` message quoting the pair, in its one canonical order."""
    a, b = sorted((first, second))
    return {"a": a, "b": b}
