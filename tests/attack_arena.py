"""The attack arena: one malicious peer against honest ones, in one process, shared by every
attack test module (``test_attacks_*.py``, and the shuffle, stop, split, deadline and Gaia tests).

The honest peers are real :class:`TableRunner` objects around the table machines (their mesh is a
fake that posts into the harness queue), so what is tested is the process's own message handling:
decoding, the table and seat checks, ABORT and EQUIVOCATION handling, the machine, and the abort
broadcast that tells the other peers. The cheater is a bare machine that never aborts on its own
account (a cheater would not help the others), driven by a tamper hook or a cheating ``play``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from message_surgery import reproved_show, resign, thaw
from table_harness import LocalTable, game_of

from druids_p2p.deck import group
from druids_p2p.deck.cards import card_points
from druids_p2p.deck.table_messages import TableShowMsg
from druids_p2p.deck.table_peer import TablePeer
from druids_p2p.games.druids2017.game import TRICK
from druids_p2p.games.druids2017.rules import Round
from druids_p2p.lan.mesh import Inbound
from druids_p2p.lan.peer_config import PeerConfig, Player
from druids_p2p.peer import ending as runner_module
from druids_p2p.peer.homes import HomeTable
from druids_p2p.peer.runner import TableRunner
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import Identity, MsgType, WireError, decode

CheatPlay = Callable[[TableMachine, int], list[bytes]]


@pytest.fixture(autouse=True)
def no_linger(monkeypatch: pytest.MonkeyPatch) -> None:
    """An aborting runner lingers to answer resend requests; nobody asks here."""
    monkeypatch.setattr(runner_module, "LINGER_AFTER_GAME_S", 0.0)


def twin_of(identity: Identity, raw: bytes, peer: TablePeer | None = None) -> bytes:
    """A second, different message for the same slot: exactly what an equivocating sender signs.
    A card shown face up (``table_show``) gets a fresh proof of the same opening (``peer`` is
    the sender's deck seat), so the twin is as valid as the original; anything else gets
    another head."""
    msg = decode(raw)
    if msg.type is MsgType.TABLE_SHOW and peer is not None:
        return resign(identity, raw, body=reproved_show(peer, thaw(msg.body)))
    return resign(identity, raw, head=bytes(31) + b"\x01")


def random_scalar() -> bytes:
    return group.scalar_from_wide(os.urandom(64))


def random_point() -> bytes:
    return group.base_mul(random_scalar())


# ==================================================================== the arena
class FakeMesh:
    """What a TableRunner uses of its Mesh, posting into the arena's delivery queue."""

    def __init__(self, arena: Arena, index: int) -> None:
        self.arena = arena
        self.index = index

    def broadcast(self, payload: bytes, exclude: Iterable[bytes] = ()) -> None:
        skip = set(exclude)
        if not skip:
            self.arena.broadcast(self.index, [payload])
            return
        self.arena.sent.append((self.index, payload))  # (sent first to the seats skipped here)
        for j, ident in enumerate(self.arena.ids):
            if j != self.index and ident.public_key not in skip:
                self.arena.queue.append((self.index, j, payload))

    def send(self, peer_id: bytes, payload: bytes, both_links: bool = False) -> bool:
        """One delivery even over "both links": the arena's one queue never stalls."""
        self.arena.queue.append((self.index, self.arena.index_of(peer_id), payload))
        return True

    def poll(self, timeout_ms: int, limit: int = 256) -> list[Inbound]:
        return []

    def connect(self, peer_id: bytes, endpoint: str, curve_public_raw: bytes) -> None:
        """The arena delivers by seat-list index: links need no sockets."""

    def close_gate(self, raw_keys: Iterable[bytes]) -> None:
        """No inbox to shut: the arena's deliveries name their link themselves."""


class Arena(LocalTable):
    """A LocalTable whose honest peers are TableRunners and whose cheater is a bare machine.
    Messages are delivered in random order, except that each link keeps its own order.

    A TableFault stops only the peer that raised it; an honest peer then aborts as the process
    does (ABORT to all, with an EQUIVOCATION proof when it has one), so the others hear of it.
    """

    def __init__(
        self,
        tmp_path: Path,
        players: int = 3,
        rounds: int = 1,
        seed: int = 0,
        cheater: int = 1,
        keys_seed: int | None = None,
        ruleset: str | None = None,
    ) -> None:
        """``keys_seed``: where the keys, deal and game come from (``LocalTable``; default:
        ``seed``); ``ruleset``:
        the game (None: the default)."""
        super().__init__(
            players=players,
            rounds=rounds,
            seed=seed,
            keys_seed=keys_seed,
            ruleset=ruleset or "druids2017",
        )
        self.cheater: int | None = cheater
        self.faults: dict[int, TableFault] = {}
        """What each peer found itself (not what it was told by an ABORT)."""
        self.events: dict[int, list[dict[str, Any]]] = {k: [] for k in range(players)}
        self.sent: list[tuple[int, bytes]] = []
        self.cheat_play: CheatPlay | None = None
        self.before_move: Callable[[int], None] | None = None
        self.started = False
        self.runners: dict[int, TableRunner] = {}
        for k in range(players):
            config = PeerConfig(
                home=tmp_path / f"p{k}", identity=self.ids[k], emit=self.events[k].append
            )
            self.runners[k] = TableRunner(
                config,
                FakeMesh(self, k),
                self.machines[k],
                HomeTable(tmp_path / f"p{k}"),
                Player(),
            )

    # ---------------------------------------------------------------- who is who
    def index_of(self, key: bytes) -> int:
        return [i.public_key for i in self.ids].index(key)

    def seat(self, k: int) -> int:
        """Play seat of the peer at seat-list index ``k`` (once the coin flip is done)."""
        order = next(m.order for m in self.machines if m.order)
        return order.index(self.ids[k].public_key)

    @property
    def honest(self) -> list[int]:
        return [k for k in range(len(self.machines)) if k != self.cheater]

    def stopped(self, k: int) -> bool:
        m = self.machines[k]
        return m.aborted is not None or m.finished

    # ---------------------------------------------------------------- driving
    def broadcast(self, k: int, raws: list[bytes]) -> None:
        for raw in raws:
            self.sent.append((k, raw))
        super().broadcast(k, raws)

    def deliver(self, j: int, raw: bytes, frm: int | None = None) -> None:
        """Hand ``raw`` to peer j as if it came over ``frm``'s authenticated link."""
        if self.stopped(j):
            return
        link = None if frm is None else self.ids[frm].public_key
        try:
            if j == self.cheater:
                with contextlib.suppress(ValueError, WireError):  # control messages, junk
                    self.broadcast(j, self.machines[j].receive(decode(raw)))
            else:
                self.runners[j]._on_message(raw, link)
        except TableFault as fault:
            self._fault(j, fault)

    def _fault(self, k: int, fault: TableFault) -> None:
        self.faults[k] = fault
        if k == self.cheater:
            self.machines[k].abort(fault)
        else:
            self.runners[k]._abort(fault)

    def move(self, k: int) -> None:
        m = self.machines[k]
        view = m.view()
        assert view is not None
        choice = self.rng.choice(view.legal)
        if self.before_move is not None:
            self.before_move(k)
            if self.stopped(k) or not m.my_turn:
                return
        try:
            if k == self.cheater and self.cheat_play is not None:
                self.broadcast(k, self.cheat_play(m, choice))
            else:
                self.broadcast(k, m.play(choice))
        except TableFault as fault:
            self._fault(k, fault)

    def start_all(self) -> None:
        if not self.started:
            self.started = True
            super().start_all()

    def settle(self) -> None:
        self.expire_abort_claims()

    def expire_abort_claims(self) -> None:
        """Let the grace period for unverified abort claims run out (the runners' clock)."""
        for runner in self.runners.values():
            if runner.machine.aborted is None and (
                runner.grace.abort_claim or runner.grace.divergence
            ):
                runner.grace.abort_claim_deadline = runner.grace.divergence_deadline = 0.0
                try:
                    runner._in_grace()
                except TableFault as fault:
                    runner._abort(fault)  # stops on the claim: not a detection of its own

    def _pick(self) -> int:
        """A random link, and the oldest message on it: links are FIFO, as a ZeroMQ connection
        is (so a peer's EQUIVOCATION proof arrives before its ABORT), but links interleave."""
        frm, to, _ = self.queue[self.rng.randrange(len(self.queue))]
        return next(i for i, (a, b, _) in enumerate(self.queue) if a == frm and b == to)

    def cheat_once(self, attempt: Callable[[TableMachine, int], list[bytes] | None]) -> None:
        """Run the table with the cheater playing by ``attempt`` (see :class:`Cheat`); the attempt
        must have been made."""
        cheat = Cheat(attempt)
        self.cheat_play = cheat
        self.run()
        assert cheat.done

    def at_move(self) -> bool:
        """Every machine waits for a move of the game (the round is dealt, its words given)."""
        return all(m.step is not None and m.step.name == "card_move" for m in self.machines)

    def run_to_play(self) -> None:
        """Run until the round's first move is due (its deal and the owners' words done)."""
        self.run(stop=self.at_move)
        assert self.at_move()

    # ---------------------------------------------------------------- verdicts
    def assert_blamed(self, culprit: int, reason: str, seat: int | None = None) -> None:
        """Every honest peer stopped blaming ``culprit`` and at least one found it itself."""
        expected = self.seat(culprit) if seat is None else seat
        for k in self.honest:
            aborted = self.machines[k].aborted
            assert aborted is not None, f"peer {k} did not stop the table"
            assert aborted.seat == expected, (k, aborted.reason)
            assert not self.machines[k].finished
        found = [self.faults[k] for k in self.honest if k in self.faults]
        assert found, "no honest peer detected the cheat itself"
        for fault in found:
            assert fault.seat == expected
            assert fault.evidence, "a blame must come with signed evidence"
        assert any(reason in f.reason for f in found), [f.reason for f in found]
        for k in self.honest:
            kinds = [e["event"] for e in self.events[k]]
            assert "aborted" in kinds or k not in self.faults


def first_of(arena: Arena, k: int, msg_type: MsgType) -> Callable[[bytes], bool]:
    """A predicate for the first message of ``msg_type`` that seat-list index ``k`` sends."""
    chosen: list[bytes] = []

    def pred(raw: bytes) -> bool:
        if chosen:
            return raw == chosen[0]
        msg = decode(raw)
        if msg.type is msg_type and msg.sender == arena.ids[k].public_key:
            chosen.append(raw)
            return True
        return False

    return pred


def split_first_shuffle(arena: Arena, twin: Callable[[bytes], bytes]) -> None:
    """The cheater (index 1) shows peer 0 ``twin`` of its first shuffle pass and the others the
    real one; run the table: every honest peer must stop, blaming the shuffler."""
    is_shuffle = first_of(arena, 1, MsgType.TABLE_SHUFFLE)
    twins: dict[bytes, bytes] = {}

    def tamper(frm: int, to: int, raw: bytes) -> bytes:
        if frm == 1 and to == 0 and is_shuffle(raw):
            return twins.setdefault(raw, twin(raw))
        return raw

    arena.tamper = tamper
    arena.run()
    assert twins
    for k in arena.honest:
        aborted = arena.machines[k].aborted
        assert aborted is not None and aborted.seat == arena.seat(1), aborted


def rewrite(
    arena: Arena, k: int, msg_type: MsgType, mutate: Callable[[dict[str, Any]], None]
) -> Callable[[int, int, bytes], bytes]:
    """A tamper hook replacing k's first ``msg_type`` message by a re-signed, mutated one, the
    same for every recipient (so it is a forgery by k, not an equivocation)."""
    forged: dict[bytes, bytes] = {}
    is_target = first_of(arena, k, msg_type)

    def tamper(frm: int, to: int, raw: bytes) -> bytes:
        if frm != k or not is_target(raw):
            return raw
        if raw not in forged:
            body = thaw(decode(raw).body)
            mutate(body)
            forged[raw] = resign(arena.ids[k], raw, body=body)
        return forged[raw]

    return tamper


# ==================================================================== the cheater's hand
def peer_of(m: TableMachine) -> TablePeer:
    """The machine's deck seat at its round's card table."""
    assert m.card_play is not None
    peer: TablePeer = m.card_play.peer
    return peer


def hand_cards(m: TableMachine) -> dict[int, int]:
    """position -> card of every card still in this seat's hand (what only it knows)."""
    peer = peer_of(m)
    known = peer.known()
    return {p: known[p] for p in peer.hand()}


def domain_cards(m: TableMachine) -> list[int]:
    """The domain cards (not Gaia, Mistletoe or Sickle) still in this seat's hand."""
    return sorted(c for c in hand_cards(m).values() if c < 60)


def position_of(m: TableMachine, card: int) -> int:
    """Where ``card`` lies in this seat's hand."""
    return next(p for p, c in hand_cards(m).items() if c == card)


def not_leading(m: TableMachine) -> bool:
    """A trick is under way (a card is led) and no Sickle pile choice is pending."""
    rnd = game_of(m).round
    return rnd is not None and bool(rnd.plays) and not rnd.pending_sickles


def move_body(m: TableMachine, token: str) -> dict[str, object]:
    assert m.card_play is not None
    return {"round": m.card_play.round_no, "move": token}


def send_move(m: TableMachine, token: str) -> list[bytes]:
    """Queue a MOVE without any check and without pumping (the cheater's own machine would
    refuse it): what a modified client sends."""
    m._send_own(MsgType.MOVE, move_body(m, token))
    return m._drain()


def show_body(
    m: TableMachine, position: int, card: int, zone: str = TRICK, *, share: bytes | None = None
) -> dict[str, object]:
    """The body of this seat's ``table_show`` of ``position`` into ``zone`` claiming ``card``,
    for the operation the show takes at every seat (the next one pushed), with this seat's
    real decryption share of that position and a valid proof of it, unless ``share`` is given
    (then the proof is made up: it cannot hold)."""
    peer = peer_of(m)
    state = peer.state
    index = len(state.ops)
    d, e, s = peer._share(b"open", zone, index, position)
    if share is not None:
        one = (1).to_bytes(32, "little")
        d, e, s = share, one, one
    return TableShowMsg(state.round_no, index, position, card, d, e, s, zone).to_body()


def send_show(
    m: TableMachine, position: int, card: int, zone: str = TRICK, *, share: bytes | None = None
) -> list[bytes]:
    """Seal :func:`show_body` as this seat's next message, unchecked and unpumped (its own
    machine would refuse it): what a modified client sends."""
    m._send_own(MsgType.TABLE_SHOW, show_body(m, position, card, zone, share=share))
    return m._drain()


class Cheat:
    """A cheating ``play``: behaves until ``attempt`` returns messages, then plays no more."""

    def __init__(self, attempt: Callable[[TableMachine, int], list[bytes] | None]) -> None:
        self.attempt = attempt
        self.done = False

    def __call__(self, m: TableMachine, move: int) -> list[bytes]:
        if not self.done:
            out = self.attempt(m, move)
            if out is not None:
                self.done = True
                return out
        return m.play(move)


class LaxRound(Round):
    """The cheater's own rules check, which lets it revoke (not follow while it could)."""

    __slots__ = ()

    def check(self, move: int) -> str | None:
        reason = super().check(move)
        return None if reason is not None and "does not follow" in reason else reason


def planted_encryptions(cheater: TableMachine, count: int) -> list[tuple[bytes, bytes]]:
    """Fresh encryptions ``(r·B, M_i + r·H)`` of cards 0..count-1 of the cheater's choosing: what
    a shuffler that wants to read every hand publishes instead of a re-encrypted permutation."""
    state = peer_of(cheater).state
    joint = state.joint_key
    assert joint is not None
    points = card_points(state.num_cards)
    out = []
    for card in range(count):
        r = random_scalar()
        out.append((group.base_mul(r), group.add(points[card], group.mul(r, joint))))
    return out


def plant_encryptions(cheater: TableMachine) -> Callable[[dict[str, Any]], None]:
    """A ``rewrite`` mutation replacing a shuffle's output by :func:`planted_encryptions`."""

    def forge(body: dict[str, Any]) -> None:
        fresh = planted_encryptions(cheater, len(body["a"]))
        body["a"] = [a for a, _ in fresh]
        body["c"] = [c for _, c in fresh]

    return forge


def renege(m: TableMachine, move: int) -> list[bytes] | None:
    """A :class:`Cheat` attempt: once a domain is led and this seat holds it and another,
    show the other (its own check relaxed by :class:`LaxRound`): a revoke, which no seat can
    see while the hands are hidden."""
    rnd = game_of(m).round
    if not not_leading(m) or rnd is None or rnd.lead_domain < 0:
        return None
    cards = domain_cards(m)
    led = [c for c in cards if c // 12 == rnd.lead_domain]
    off = [c for c in cards if c // 12 != rnd.lead_domain]
    if not led or not off:
        return None
    rnd.__class__ = LaxRound
    return m.play(off[0])
