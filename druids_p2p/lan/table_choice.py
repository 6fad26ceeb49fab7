"""Which announced table ``druids join NAME`` (or the lobby screen) means, and whether its host is
the one the player expects.

A table name is not an identity: anyone on the LAN can announce a table under any name, signed by
a key of their own. So a name heard from two host keys is *ambiguous* and is never resolved by
chance (first heard, last heard, sorted order): the joiner is shown every candidate with its host's
fingerprint and must pin one with ``--fingerprint``. A pin is a prefix of the host key's
fingerprint as ``druids id`` and ``druids tables`` print it (``5282-e6a3-d155-8f01-6430``), dashes
optional, any case, and at least :data:`MIN_PIN_DIGITS` hex digits long, so that grinding a key to
match it costs an attacker at least 2^32 tries.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from druids_p2p.lan.discovery import TableAnnouncement
from druids_p2p.wire.identity import fingerprint

MIN_PIN_DIGITS = 8
FINGERPRINT_DIGITS = 20
_PIN = re.compile(r"[0-9a-f]+")


class BadPin(ValueError):
    """The ``--fingerprint`` text is not a fingerprint prefix (one line for the user)."""


def parse_pin(text: str, option: str = "--fingerprint") -> str:
    """The hex digits of a fingerprint prefix, lower case, or :class:`BadPin` naming ``option``
    (``--fingerprint`` pins a host, ``--allow`` a joiner)."""
    digits = text.strip().lower().replace("-", "").replace(":", "")
    if not _PIN.fullmatch(digits) or len(digits) > FINGERPRINT_DIGITS:
        raise BadPin(
            f"{option} {text!r}: expected hex digits of a fingerprint such as "
            "5282-e6a3-d155-8f01-6430 (as 'druids id' and 'druids tables' show it)"
        )
    if len(digits) < MIN_PIN_DIGITS:
        raise BadPin(
            f"{option} {text!r}: give at least {MIN_PIN_DIGITS} hex digits "
            "(two groups), a shorter prefix is too easy to forge"
        )
    return digits


def pin_matches(pin: str, host_key: bytes) -> bool:
    """True if the host key's fingerprint starts with ``pin`` (as :func:`parse_pin` returns it)."""
    return fingerprint(host_key).replace("-", "").startswith(pin)


def matches_target(table: TableAnnouncement, target: str) -> bool:
    """``target`` is the table's exact name or a prefix of its lobby id in hex (any case)."""
    return table.name == target or table.lobby_id.hex().startswith(target.lower())


@dataclass(frozen=True)
class Choice:
    """What was heard for one target: the tables it names, and those a pin (if any) allows."""

    named: tuple[TableAnnouncement, ...]
    """Every open table the target names, whoever hosts it."""
    pinned: tuple[TableAnnouncement, ...]
    """Of those, the ones whose host matches the pin (all of them without a pin)."""
    pin: str | None

    @property
    def hosts(self) -> int:
        """How many distinct host keys announce a table of this name."""
        return len({t.beacon.host_key for t in self.named})

    @property
    def ambiguous(self) -> bool:
        """Two host keys announce the target and no pin chose between them."""
        return self.pin is None and self.hosts > 1


def choose(tables: Iterable[TableAnnouncement], target: str, pin: str | None) -> Choice:
    named = tuple(t for t in tables if matches_target(t, target))
    if pin is None:
        return Choice(named, named, None)
    pinned = tuple(t for t in named if pin_matches(pin, t.beacon.host_key))
    return Choice(named, pinned, pin)


def candidate_line(table: TableAnnouncement) -> str:
    """One line per candidate, enough to tell them apart and to pin one."""
    b, info = table.beacon, table.info
    return (
        f"  {info.name!r} hosted by {b.host_name} fingerprint {b.host_fingerprint} "
        f"lobby {table.lobby_id.hex()[:8]} at {info.endpoint} (from {table.source[0]})"
    )


def candidate_lines(tables: Sequence[TableAnnouncement]) -> list[str]:
    return [candidate_line(t) for t in tables]


def namesakes(tables: Sequence[TableAnnouncement]) -> dict[str, int]:
    """Table name -> number of distinct host keys announcing it, for names heard from several."""
    keys: dict[str, set[bytes]] = {}
    for t in tables:
        keys.setdefault(t.name, set()).add(t.beacon.host_key)
    return {name: len(k) for name, k in keys.items() if len(k) > 1}
