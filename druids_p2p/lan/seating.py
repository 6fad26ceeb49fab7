"""Forming a table: whom the host seats (its door is closed unless the table is open, the joiner's
key is pinned or an approver seats it; colliding names get a suffix), the signed seat message
that founds every transcript, where each seat is reached in its own word, never the host's, and
the account a table carries when it goes on without a departed seat (protocol.md §4).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from druids_p2p.games.registry import RULESETS, default_game, ruleset_of, table_options
from druids_p2p.games.seam import TableOptions
from druids_p2p.lan.listener import pin_matches
from druids_p2p.lan.persons import bot_seats, coach_fault
from druids_p2p.wire import (
    ZERO_HASH,
    Identity,
    Message,
    MsgType,
    WireError,
    decode,
    derive_table_id,
    encode,
    head0,
)
from druids_p2p.wire.identity import fingerprint

__all__ = [
    "Account",
    "account_fault",
    "carried_in_play_order",
    "carried_rounds",
    "joins_fault",
    "make_account",
    "plain",
    "same_account",
    "winners_of",
    "with_carried",
]


# The account a table carries when it goes on without a departed seat (``protocol.md`` §4, "Going
# on without a departed seat").
Account = dict[str, Any]
"""The ``continues`` map: ``{for, scores: [{key, rounds}], table}`` (wire.md §5)."""


def make_account(
    table_id: bytes, departed: bytes, rounds: Mapping[bytes, Sequence[int]]
) -> Account:
    """The account of a table left by ``departed``: every key's completed rounds, by key."""
    return {
        "for": departed,
        "scores": [{"key": k, "rounds": list(rounds[k])} for k in sorted(rounds)],
        "table": table_id,
    }


def plain(value: Any) -> Any:
    """A decoded value (read-only maps, tuples) as plain dicts and lists, to compare."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def same_account(a: object, b: object) -> bool:
    """Two accounts are one (as decoded or as built)."""
    return a is not None and b is not None and plain(a) == plain(b)


def account_fault(seat_message: Message) -> str | None:
    """Why a seat message's account (``continues``, ``stand_in``) cannot be, or None (also
    when it carries none). Every such fault is the host's: it signs the seat message."""
    body = seat_message.body
    account, stand_in = body.get("continues"), body.get("stand_in")
    if account is None and stand_in is None:
        return None
    if account is None or stand_in is None:
        return "the seat message carries an account of a previous table without its stand-in"
    seats = list(body["seats"])
    options = dict(body["options"])
    rules = RULESETS.get(ruleset_of(options))
    if rules is None or "rounds" not in rules.table_flags:
        return "a game not played by rounds cannot go on from a previous table's account"
    if not 0 <= stand_in < len(seats) or seats[stand_in] == seat_message.sender:
        return "the seat message names as the stand-in a seat it does not have, or its host"
    scores = list(account["scores"])
    keys = [bytes(s["key"]) for s in scores]
    departed = bytes(account["for"])
    if keys != sorted(set(keys)):
        return "the account's scores are not one per key in increasing key order"
    expected = {k for k in seats if k != seats[stand_in]} | {departed}
    if departed in seats or set(keys) != expected:
        return (
            "the account's scores are not those of the seats that remain and the departed seat "
            "(which is not seated again)"
        )
    done = {len(s["rounds"]) for s in scores}
    if len(done) != 1:
        return "the account's seats completed different numbers of rounds"
    try:
        table_options(options | {"rounds": int(options["rounds"]) + done.pop()})
    except ValueError as exc:
        return f"the account's rounds and the rounds left make no game: {exc}"
    return None


def joins_fault(seat_message: Message, joins: Mapping[bytes, Message]) -> str | None:
    """Every quoted join of a seat that sat at the previous table (all but the stand-in's)
    carries exactly the seat message's account; the stand-in's carries none."""
    body = seat_message.body
    account = body.get("continues")
    if account is None:
        if any("continues" in j.body for j in joins.values()):
            return "a quoted join carries an account of a previous table the seat message does not"
        return None
    stand_in = list(body["seats"])[body["stand_in"]]
    for key, join in joins.items():
        if key == stand_in:
            if "continues" in join.body:
                return "the stand-in's quoted join carries an account of a table it did not sit at"
        elif not same_account(join.body.get("continues"), account):
            name = body["names"][list(body["seats"]).index(key)]
            return (
                f"the seat message's account of the previous table is not the one {name}'s own "
                "signed join carries"
            )
    return None


def carried_rounds(seat_message: Message) -> dict[bytes, list[int]]:
    """Each seated key's rounds carried from the previous tables (the stand-in takes the
    departed seat's); empty without an account. The seat message must have passed the checks
    above (``seating.seat_list_fault``)."""
    body = seat_message.body
    account = body.get("continues")
    if account is None:
        return {}
    by_key = {bytes(s["key"]): [int(r) for r in s["rounds"]] for s in account["scores"]}
    seats = [bytes(k) for k in body["seats"]]
    stand_in = seats[body["stand_in"]]
    departed = bytes(account["for"])
    return {k: by_key[departed if k == stand_in else k] for k in seats}


def with_carried(
    totals: Sequence[int], order: Sequence[bytes], carried: Mapping[bytes, Sequence[int]]
) -> list[int]:
    """The game's totals (play order) with every seat's carried rounds added."""
    if not carried:
        return list(totals)
    return [t + sum(carried[k]) for t, k in zip(totals, order, strict=True)]


def winners_of(totals: Sequence[int]) -> list[int]:
    """The play seats with the highest total (a tie shares the win)."""
    best = max(totals)
    return [seat for seat, total in enumerate(totals) if total == best]


def carried_in_play_order(
    order: Sequence[bytes], carried: Mapping[bytes, Sequence[int]]
) -> list[list[int]]:
    """The carried rounds as round scores in play order (round by round)."""
    if not carried:
        return []
    rounds = len(next(iter(carried.values())))
    return [[carried[k][r] for k in order] for r in range(rounds)]


# Forming a table: the signed seat message that founds every transcript of the table.
def options_body(options: TableOptions, ruleset: str | None = None) -> dict[str, object]:
    """The seat message's ``options``: the game by name (None: the default) and its options
    (wire.md §6)."""
    body: dict[str, object] = {
        "players": options.players,
        "rounds": options.rounds,
        "ruleset": ruleset if ruleset is not None else default_game(),
        "variant": options.variant,
    }
    if getattr(options, "coach", False):
        body["coach"] = True  # sent only when on: a table without it has the id it always had
    return body


def make_join(
    identity: Identity,
    offer_id: bytes,
    endpoint: str,
    curve: bytes,
    continues: Account | None = None,
    bot: bool = False,
) -> bytes:
    """A joiner's signed request for a seat at table offer ``offer_id``, saying where its inbox
    listens and with which CURVE key: its own word, which the seat message will quote.
    ``continues``: the account of the previous table this seat sat at, as its own record gives
    it, when the new table goes on from there (``seating.py``). ``bot``: a program plays this
    seat, not a person (its own word, which a table with the coach on counts persons by)."""
    body: dict[str, object] = {"name": identity.name, "endpoint": endpoint, "curve": curve}
    if continues is not None:
        body["continues"] = continues
    if bot:
        body["bot"] = True
    return encode(
        identity, MsgType.JOIN, table_id=offer_id, seq=0, prev=ZERO_HASH, head=ZERO_HASH, body=body
    )


def make_seat_message(
    host: Identity,
    seats: Sequence[tuple[bytes, str, str, bytes]],
    options: TableOptions,
    nonce: bytes | None = None,
    joins: Sequence[bytes] | None = None,
    ruleset: str | None = None,
    continues: Account | None = None,
    stand_in: int | None = None,
    bots: Sequence[int] = (),
) -> bytes:
    """The host's seat message (protocol.md §3): per seat (key, name, endpoint, curve) in join
    order, every other seat's raw signed ``join`` (``joins``), for a table going on
    (``continues``) the index of a bot standing in for the departed seat (``stand_in``), and the
    seats a program plays (``bots``).
    """
    nonce = nonce or secrets.token_bytes(32)
    keys = [s[0] for s in seats]
    body: dict[str, object] = {
        "seats": keys,
        "names": [s[1] for s in seats],
        "options": options_body(options, ruleset),
        "nonce": nonce,
        "endpoints": [s[2] for s in seats],
        "curves": [s[3] for s in seats],
    }
    if joins:
        body["joins"] = list(joins)
    if continues is not None and stand_in is not None:
        body["continues"] = continues
        body["stand_in"] = stand_in
    if bots:
        body["bots"] = sorted(set(bots))
    table_id = derive_table_id(keys, body["options"], nonce)  # type: ignore[arg-type]
    return encode(
        host,
        MsgType.SEAT,
        table_id=table_id,
        seq=0,
        prev=bytes(32),
        head=head0(table_id),
        body=body,
    )


def seat_list_fault(seat_message: Message) -> str | None:
    """Why the seat message's endpoints and CURVE keys are not every seat's own word, or None.

    Each seat but the host's must be backed by its quoted ``join``, and the message must carry
    ``head_0`` (protocol.md §3); a failure is the host's fault, proven by the seat message alone.
    """
    if seat_message.head != head0(seat_message.table_id):
        return "the seat message is not built on head_0 (the head of the empty transcript)"
    account = account_fault(seat_message)
    if account is not None:
        return account
    return _addresses_fault(seat_message) or coach_fault(seat_message)


def _addresses_fault(seat_message: Message) -> str | None:
    """The seat list's addresses and declarations against the joins it quotes."""
    body = seat_message.body
    if "endpoints" not in body and "curves" not in body:
        return None  # no addresses at all: a table that is not on a network (no links)
    seats = list(body["seats"])
    endpoints, curves = body.get("endpoints", ()), body.get("curves", ())
    if len(endpoints) != len(seats) or len(curves) != len(seats):
        return "the seat message does not list one endpoint and one CURVE key per seat"
    if len(set(curves)) != len(curves):
        # A link is known by its CURVE key alone (protocol.md §1): one key for two seats would
        # book one seat's frames, and its liveness, to the other. The host refuses such a join.
        return "the seat message lists one CURVE key for two seats"
    joiners = [k for k in seats if k != seat_message.sender]
    joins = body.get("joins", ())
    if len(joins) != len(joiners):
        return (
            f"the seat message quotes {len(joins)} signed joins for {len(joiners)} joined seats: "
            "the addresses it lists are not the joiners' own word"
        )
    offer: bytes | None = None
    decoded: dict[bytes, Message] = {}
    for key, raw in zip(joiners, joins, strict=True):
        index = seats.index(key)
        name = body["names"][index]
        try:
            join = decode(raw)
        except WireError as exc:
            return f"the join the seat message quotes for {name} is invalid: {exc}"
        if join.type is not MsgType.JOIN or join.sender != key:
            return f"the seat message quotes, for {name}, a message that is not {name}'s join"
        if offer is None:
            offer = join.table_id
        elif join.table_id != offer:
            return "the seat message quotes joins made for different table offers"
        if join.body.get("endpoint") != endpoints[index] or join.body.get("curve") != curves[index]:
            return (
                f"the seat message lists for {name} an endpoint or CURVE key that {name}'s own "
                "signed join does not say"
            )
        if bool(join.body.get("bot", False)) != (index in bot_seats(seat_message)):
            said = "a bot" if index in bot_seats(seat_message) else "a person"
            return (
                f"the seat message lists {name} as {said}, which {name}'s own signed join does "
                "not say"
            )
        decoded[key] = join
    return joins_fault(seat_message, decoded)


def quoted_join(seat_message: Message, key: bytes) -> bytes | None:
    """The raw join the seat message quotes for seat ``key`` (None for the host, or none)."""
    joiners = [k for k in seat_message.body["seats"] if k != seat_message.sender]
    joins = seat_message.body.get("joins", ())
    if key not in joiners or len(joins) != len(joiners):
        return None
    return bytes(joins[joiners.index(key)])


def confirm_contradiction(seat_message: Message, confirm: Message) -> str | None:
    """What the seat message lists for ``confirm``'s signer that its own confirmation contradicts
    (endpoint or CURVE key), or None. After :func:`seat_list_fault`, every listing is its seat's own
    signed word, so a contradiction convicts the signer (protocol.md §4).
    """
    body = seat_message.body
    if "endpoints" not in body or "curves" not in body:
        return None
    index = list(body["seats"]).index(confirm.sender)
    wrong = []
    if body["endpoints"][index] != confirm.body["endpoint"]:
        wrong.append(f"endpoint {confirm.body['endpoint']}")
    if body["curves"][index] != confirm.body["curve"]:
        wrong.append(f"CURVE key {bytes(confirm.body['curve']).hex()[:16]}…")
    return " and ".join(wrong) or None


def seat_order(
    table_id: bytes, keys: Sequence[bytes], nonces: dict[bytes, bytes]
) -> tuple[bytes, ...]:
    """Play order from the coin flip: nobody can steer it unless all others collude."""
    joint = hashlib.sha256(
        b"druids-p2p/v1 seat-order\x00" + table_id + b"".join(nonces[k] for k in keys)
    ).digest()
    return tuple(sorted(keys, key=lambda k: hashlib.sha256(joint + k).digest()))


# Who the host seats: its approval of each joiner, and unique names at the table.
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
