"""Independent re-verification of a saved game record: signatures, links, then the rules.

Anyone holding a record file can run this without trusting the peer that wrote it: the chain
checks show that every seated player signed its messages in this order, and replaying the moves
against the revealed hands shows that the game was played by the rules and scored correctly. The
result names the first problem precisely (message index, seat, why) rather than a bare "invalid".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from druids_p2p.engine import (
    GAIA,
    Game,
    InvalidDeal,
    format_card,
    parse_hand,
    parse_move_token,
)
from druids_p2p.engine.cards import MISTLETOES, SICKLES
from druids_p2p.rulesets import seat_options
from druids_p2p.wire.envelope import Message, parse_unverified
from druids_p2p.wire.errors import RecordError, WireError
from druids_p2p.wire.keys import fingerprint
from druids_p2p.wire.msgtypes import MsgType
from druids_p2p.wire.record import read_record
from druids_p2p.wire.transcript import Transcript


@dataclass(frozen=True)
class AuditProblem(Exception):
    """The first thing wrong with a record; ``message_index``/``seat`` are None when the problem
    belongs to no single message (an unreadable file) or no seat (an unsigned blob).
    ``unreadable``: the file is no record at all (no header, no complete entry, an I/O error)."""

    error: str
    message_index: int | None = None
    seat: int | None = None
    unreadable: bool = False

    def __str__(self) -> str:
        where = []
        if self.message_index is not None:
            where.append(f"message {self.message_index}")
        if self.seat is not None:
            where.append(f"seat {self.seat}")
        return f"{', '.join(where)}: {self.error}" if where else self.error


@dataclass(frozen=True)
class AuditStop:
    """Why a valid record stops before the end of its game: its recorder's abort, read.

    ``summary`` is the verdict's short form (``seat 2 unreachable``, ``seat 1 left``,
    ``lost contact with the table``, ``seat 3 withheld deck_reveal``...); ``reason`` the recorded
    words. ``seat`` is the blamed play seat (None when nobody is blamed), ``message_index`` the
    entry that shows it (the evidence when ``checked``, else the recorder's abort).
    ``checked``: the audit found the blamed fault in the record itself, not only the claim.
    ``claimed_by``: the seat whose abort the recorder stopped on, when it stopped on another
    peer's word (the blame is then that peer's claim, not the recorder's)."""

    summary: str
    reason: str
    seat: int | None
    message_index: int
    checked: bool = False
    stopped_by: int | None = None
    """The recorder's own seat (the signer of the record's last entry, its abort)."""
    claimed_by: int | None = None

    def __str__(self) -> str:
        text = f"valid, stopped: {self.summary}"
        if self.checked:
            text += " (evidence checked)"
        elif self.claimed_by is not None:
            text += f" (on seat {self.claimed_by}'s word)"
        return text


VERDICT_EXIT = {"complete": 0, "invalid": 1, "unreadable": 2, "incomplete": 3, "stopped": 4}
"""``druids audit``'s exit code for each verdict (protocol.md §9, "Audit verdicts")."""


@dataclass
class AuditReport:
    messages: int = 0
    table_id: bytes = b""
    players: list[dict[str, Any]] = field(default_factory=list)
    round_scores: list[list[int]] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    complete: bool = False
    winners: list[int] | None = None
    aborted: str | None = None
    problem: AuditProblem | None = None
    stop: AuditStop | None = None
    """Set when the record is valid and ends in its recorder's abort."""

    @property
    def ok(self) -> bool:
        """The record is valid (complete, a prefix, or stopped with a recorded reason)."""
        return self.problem is None

    @property
    def verdict(self) -> str:
        """``complete``, ``incomplete``, ``stopped``, ``invalid`` or ``unreadable``: exactly one."""
        if self.problem is not None:
            return "unreadable" if self.problem.unreadable else "invalid"
        if self.stop is not None:
            return "stopped"
        return "complete" if self.complete else "incomplete"

    @property
    def exit_code(self) -> int:
        return VERDICT_EXIT[self.verdict]

    def to_json(self) -> dict[str, Any]:
        if self.problem is not None:
            return {
                "ok": False,
                "verdict": self.verdict,
                "error": self.problem.error,
                "message_index": self.problem.message_index,
                "seat": self.problem.seat,
            }
        out: dict[str, Any] = {
            "ok": True,
            "verdict": self.verdict,
            "table_id": self.table_id.hex(),
            "messages": self.messages,
            "players": self.players,
            "rounds": len(self.round_scores),
            "round_scores": self.round_scores,
            "totals": self.totals,
            "complete": self.complete,
            "winners": self.winners,
            "aborted": self.aborted,
        }
        if self.stop is not None:
            out |= {
                "reason": self.stop.summary,
                "recorded_reason": self.stop.reason,
                "seat": self.stop.seat,
                "message_index": self.stop.message_index,
                "evidence_checked": self.stop.checked,
                "stopped_by": self.stop.stopped_by,
                "claimed_by": self.stop.claimed_by,
            }
        return out


def audit_file(path: Path) -> AuditReport:
    """Audit a record file; never raises for any content of the file."""
    try:
        read = read_record(path)
    except RecordError as exc:
        return AuditReport(problem=AuditProblem(str(exc), unreadable=True))
    if not read.messages:
        why = f"record {read.tail}" if read.tail else "empty record: no seat message"
        return AuditReport(problem=AuditProblem(why, 0, unreadable=True))
    return audit_messages(read.messages, tail=read.tail)


def audit_messages(raws: Sequence[bytes], tail: str | None = None) -> AuditReport:
    """Audit raw messages in record order; ``tail`` describes a damaged end of the file.

    A damaged tail is reported after the chain checks but before the replay: a record cut in the
    middle of a round would otherwise be blamed on the seat whose reveal happens to be missing.
    """
    report = AuditReport(messages=len(raws))
    try:
        if not raws and tail is not None:
            raise AuditProblem(f"record {tail}", 0)
        transcript = verify_chain(raws)
        report.table_id = transcript.table_id
        report.players = [
            {"seat": i, "name": name, "public_key": key.hex(), "fingerprint": fingerprint(key)}
            for i, (key, name) in enumerate(zip(transcript.seats, transcript.names, strict=True))
        ]
        if tail is not None:
            raise AuditProblem(f"record {tail}", len(raws))
        _replay(transcript, report)
    except AuditProblem as problem:
        report.problem = problem
    return report


def _claimed_seat(raw: bytes, transcript: Transcript | None) -> int | None:
    if transcript is None:
        return None
    try:
        return transcript.seat_of(parse_unverified(raw).sender)
    except WireError:
        return None


def verify_chain(raws: Sequence[bytes]) -> Transcript:
    """The record's messages as a transcript, every signature and link checked; the first
    problem as :class:`AuditProblem` (index, claimed seat). Public: ``net.audit`` starts here."""
    if not raws:
        raise AuditProblem("empty record: no seat message")
    transcript: Transcript | None = None
    for index, raw in enumerate(raws):
        try:
            if transcript is None:
                transcript = Transcript.start(raw)
            elif transcript.append(raw) == "duplicate":
                raise AuditProblem(
                    "duplicate of an earlier message", index, _claimed_seat(raw, transcript)
                )
        except WireError as exc:
            raise AuditProblem(str(exc), index, _claimed_seat(raw, transcript)) from None
    assert transcript is not None
    return transcript


@dataclass
class _Round:
    moves: list[tuple[int, Message]] = field(default_factory=list)
    reveals: dict[int, tuple[int, Message]] = field(default_factory=dict)


def _collect(transcript: Transcript, rounds: int) -> list[_Round]:
    per_round = [_Round() for _ in range(rounds)]
    for index, msg in enumerate(transcript.messages):
        seat = transcript.seat_of(msg.sender)
        assert seat is not None
        if msg.type not in (MsgType.MOVE, MsgType.ROUND_REVEAL):
            continue
        r = msg.body["round"]
        if r >= rounds:
            raise AuditProblem(f"round {r} does not exist in a {rounds}-round game", index, seat)
        if msg.type is MsgType.MOVE:
            per_round[r].moves.append((index, msg))
        elif seat in per_round[r].reveals:
            raise AuditProblem(f"second hand reveal for round {r}", index, seat)
        else:
            per_round[r].reveals[seat] = (index, msg)
    return per_round


def _hands(transcript: Transcript, r: int, rnd: _Round, size: int) -> list[list[int]]:
    """The revealed hands of round ``r`` as card ids, checked: complete, right size, disjoint."""
    hands: list[list[int]] = []
    seen: set[int] = set()
    for seat in range(len(transcript.seats)):
        if seat not in rnd.reveals:
            hands.append([])
            continue
        index, msg = rnd.reveals[seat]
        tokens = list(msg.body["hand"])
        if len(tokens) != size:
            raise AuditProblem(
                f"round {r}: revealed hand has {len(tokens)} cards, a deal is {size}", index, seat
            )
        try:
            hand = parse_hand(tokens)
        except ValueError as exc:
            raise AuditProblem(f"round {r}: revealed hand: {exc}", index, seat) from None
        # parse_hand numbers the copies of Mistletoe/Sickle per call; continue across seats.
        hand = _distinct_copies(hand, seen)
        for card in hand:
            if card in seen:
                raise AuditProblem(
                    f"round {r}: card {format_card(card)} is also in another revealed hand",
                    index,
                    seat,
                )
            seen.add(card)
        hands.append(hand)
    missing = [seat for seat in range(len(transcript.seats)) if seat not in rnd.reveals]
    if missing:
        # Blame the silent seat, at the first message of the round it leaves unverifiable.
        indexes = [i for i, _ in rnd.moves] + [i for i, _ in rnd.reveals.values()]
        raise AuditProblem(
            f"round {r}: seat {missing[0]} did not reveal its hand, so the round cannot be checked",
            min(indexes) if indexes else None,
            missing[0],
        )
    if GAIA not in seen:
        last = max(index for index, _ in rnd.reveals.values())
        raise AuditProblem(f"round {r}: no revealed hand holds Gaia", last, None)
    return hands


def _distinct_copies(hand: list[int], taken: set[int]) -> list[int]:
    out: list[int] = []
    for card in hand:
        copies = MISTLETOES if card in MISTLETOES else SICKLES if card in SICKLES else (card,)
        free = [c for c in copies if c not in taken and c not in out]
        out.append(free[0] if free else card)
    return out


def _replay(transcript: Transcript, report: AuditReport) -> None:
    opts = transcript.options
    seat_sender = transcript.seat_of(transcript.seat_message.sender)
    try:
        _, options = seat_options(opts)
    except ValueError as exc:
        raise AuditProblem(f"table options are not playable: {exc}", 0, seat_sender) from None
    game = Game(options)
    per_round = _collect(transcript, options.rounds)
    played = [r for r, rnd in enumerate(per_round) if rnd.moves or rnd.reveals]
    last = played[-1] if played else -1
    for r in range(last + 1):
        rnd = per_round[r]
        hands = _hands(transcript, r, rnd, options.hand_size)
        try:
            game.start_round(hands)
        except InvalidDeal as exc:
            index = max(i for i, _ in rnd.reveals.values())
            raise AuditProblem(f"round {r}: revealed hands are not a deal: {exc}", index) from None
        for index, msg in rnd.moves:
            _play(game, transcript, r, index, msg)
        if not game.round_over and r < last:
            index = max(i for i, _ in rnd.reveals.values())
            raise AuditProblem(f"round {r}: moves stop before the round ends", index)
    report.round_scores = game.round_scores
    report.totals = game.totals
    report.complete = game.game_over
    report.winners = game.winners
    for index, msg in enumerate(transcript.messages):
        if msg.type is MsgType.ABORT:
            who = transcript.seat_of(msg.sender)
            report.aborted = f"seat {who}: {msg.body['reason']}"
            blamed = msg.body.get("seat")
            summary = f"seat {blamed} blamed" if blamed is not None else f"seat {who} stopped"
            report.stop = AuditStop(
                f"{summary}: {msg.body['reason']}",
                msg.body["reason"],
                blamed,
                index,
                stopped_by=who,
            )


def _play(game: Game, transcript: Transcript, r: int, index: int, msg: Message) -> None:
    seat = transcript.seat_of(msg.sender)
    token = msg.body["move"]
    if game.round_over:
        raise AuditProblem(f"round {r}: move {token} after the round ended", index, seat)
    if game.to_move != seat:
        raise AuditProblem(
            f"round {r}: move {token} out of turn (seat {game.to_move} is to move)", index, seat
        )
    try:
        move = parse_move_token(token)
    except ValueError as exc:
        raise AuditProblem(f"round {r}: {exc}", index, seat) from None
    reason = game.check(move)
    if reason is not None:
        raise AuditProblem(f"round {r}: illegal move {token}: {reason}", index, seat)
    game.play(move)
