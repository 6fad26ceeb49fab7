"""Who the host seats: its approval of each joiner, and unique names at the table.

Anyone who hears a beacon can send a signed ``join``; a signature proves only that the joiner
holds some key, not that it is one of the friends the host expects. So the host's door is closed
unless the host says otherwise: a joiner is seated only if the table is *open* (``druids host
--open``), its key is *pinned* (``--allow FP``, a fingerprint prefix as ``druids id`` prints it;
local tables of bots pin their bots' keys), or an *approver* seats it (``--approve`` asks on the
terminal, the terminal UI shows a prompt). With none of them every joiner is refused, told which
fingerprint to ask the host to allow.

Display names are chosen by each joiner and two may collide ("root" and "root"); the host then
seats the later one under a suffixed name ("root-2"), so that every name at the table (in the
seat message, the beacon's seat list and every screen) names one seat.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from druids_p2p.lan.listener import pin_matches
from druids_p2p.wire.identity import fingerprint

log = logging.getLogger(__name__)

MAX_NAME_BYTES = 32
"""The bound of a display name in wire messages (a suffixed name stays within it)."""
MAX_REFUSED = 256
"""Keys the lobby remembers as refused, so a refused joiner that asks again is not asked about."""
REFUSED_REASON = "the host did not approve your join"
CLOSED_NOTE = "not pinned (--allow) and no approver (--approve)"
"""The host's side of :func:`closed_reason` (its ``refused`` event)."""


def closed_reason(fingerprint: str) -> str:
    """What a joiner refused by a closed door is told: why, and what to ask the host for."""
    return (
        "the host admits only pinned keys or approved joiners; "
        f"ask the host to --allow {fingerprint}"
    )


@dataclass(frozen=True, slots=True)
class JoinRequest:
    """A verified ``join`` the host may seat: what the approver is shown."""

    key: bytes
    """The joiner's Ed25519 key (it signed the join)."""
    name: str
    """The name the joiner asked for."""
    seat_name: str
    """The name it would be seated under (``name``, or with a suffix where it collides)."""
    endpoint: str
    seats_taken: int
    players: int

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)

    def describe(self) -> str:
        """One line for a person deciding: who, which key, where from."""
        also = f" (seated as {self.seat_name!r})" if self.seat_name != self.name else ""
        return (
            f"{self.name!r}{also} fingerprint {self.fingerprint} at {self.endpoint} "
            f"wants seat {self.seats_taken + 1} of {self.players}"
        )


Approver = Callable[[JoinRequest], bool]
"""True to seat the joiner. May block (a person answering); an exception counts as a refusal."""


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name-2``, ``name-3``… (the first not taken), within MAX_NAME_BYTES.

    Names compare case-insensitively ("Root" collides with "root"): they are told apart by
    people reading them."""
    used = {t.casefold() for t in taken}
    if name.casefold() not in used:
        return name
    for n in range(2, len(used) + 3):  # at most len(used) suffixes are taken
        suffix = f"-{n}"
        base = name
        while len((base + suffix).encode()) > MAX_NAME_BYTES:
            base = base[:-1]
        candidate = base + suffix
        if candidate.casefold() not in used:
            return candidate
    raise AssertionError("unreachable: more suffixes tried than names taken")


@dataclass(frozen=True, slots=True)
class Door:
    """Who the host seats without asking, and who it asks (``PeerConfig.door``)."""

    open: bool = False
    """Seat anyone while seats are free (``--open``): a table for whoever hears it."""
    allow: tuple[str, ...] = ()
    """Fingerprint prefixes (``table_choice.parse_pin``) of keys seated without asking."""
    approve: Approver | None = None
    """Asked about everyone else; None: everyone else is refused (a closed door)."""


class Admission:
    """The lobby's door: seats the open table's, the pinned and the approved joiners, asks the
    approver once per joiner key and remembers refusals."""

    def __init__(self, door: Door | None = None) -> None:
        self.door = door or Door()
        self.refused: dict[bytes, tuple[str, str]] = {}
        """Key -> (the joiner's reason, the host's note); insertion-ordered, bounded by
        MAX_REFUSED (the oldest refusal is forgotten first)."""

    def refusal(self, request: JoinRequest) -> tuple[str, str] | None:
        """None to seat the joiner; else (the reason it is told, the host's note)."""
        door = self.door
        if door.open or any(pin_matches(pin, request.key) for pin in door.allow):
            return None
        if request.key in self.refused:
            return self.refused[request.key]
        if door.approve is None:
            verdict: tuple[str, str] | None = (closed_reason(request.fingerprint), CLOSED_NOTE)
        else:
            try:
                ok = door.approve(request) is True
            except Exception as exc:  # a broken prompt must not seat anyone, nor stop the lobby
                log.warning("approving %s failed (%s): refused", request.name, exc)
                ok = False
            verdict = None if ok else (REFUSED_REASON, "not approved")
        if verdict is not None:
            if len(self.refused) >= MAX_REFUSED:
                self.refused.pop(next(iter(self.refused)))
            self.refused[request.key] = verdict
        return verdict


def terminal_approver(ask: Callable[[str], str]) -> Approver:
    """``druids host --approve``: asks on the terminal, y or n, for every joiner.

    Anything but yes (three unclear answers, a closed standard input) refuses."""

    def approve(request: JoinRequest) -> bool:
        for _ in range(3):
            answer = ask(f"join request: {request.describe()}. Seat them? [y/n] ")
            word = answer.strip().lower()
            if word in ("y", "yes"):
                return True
            if word in ("n", "no"):
                return False
        return False

    return approve
