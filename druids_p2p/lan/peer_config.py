"""What one peer is asked to do and who plays its seat, and the table talk it carries.

Chat lines are signed messages every seated peer shows, never part of the game; the config owns
the outbox a person types into."""

from __future__ import annotations

import logging
import queue
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from druids_p2p.games.registry import default_name
from druids_p2p.games.seam import CommonRuleset, GameMove, IllegalMove, TableOptions
from druids_p2p.lan.discovery import DEFAULT_PORT
from druids_p2p.lan.network import TokenBucket
from druids_p2p.lan.seating import Approver
from druids_p2p.wire import ZERO_HASH, Identity, Message, MsgType, encode
from druids_p2p.wire.schema import MAX_CHAT_N, MAX_CHAT_TEXT, unprintable

# Table talk: short signed text lines every seated peer shows, never part of the game.
#
# A chat line is a signed ``chat`` message (docs/protocol/wire.md §5) sent like a keepalive hello:
# out of chain (seq 0, zero prev), so it takes no sequence slot, is never appended to the
# transcript or the record, and can never be quoted in an equivocation proof. Nothing of the game
# waits for one, so a lost, dropped or flooded line cannot stall or stop the table, and only the
# seated peer who signed a line can be shown saying it.
#
# What a receiver checks (protocol.md §11), in order, dropping the line at the first failure:
#
# 1. the envelope (``wire.decode``: size, shape, the ``text`` bound of 200 bytes of printable UTF-8
#    without a bidi control (wire/schema.py), the signature) and that it is for this table from a
#    seated key (the session loop's checks);
# 2. seq 0 and a zero prev (an out-of-chain message), and the text printable again (a line that
#    reached this class by another path than the decoder is never shown unchecked);
# 3. ``n`` above the last ``n`` heard from that sender (a replayed line is shown once);
# 4. the sender's token bucket (``BURST`` lines at once, then one per ``REFILL_S``): a flood is
#    cut down to that rate, its excess dropped silently.
#
# A malformed or forged line is counted as a bad message like any other frame that fails the
# envelope checks; an excess, replayed or out-of-chain line is only dropped. None of them is ever
# blamed as a cheat, and bots never see chat at all.


log = logging.getLogger(__name__)

BURST = 5
"""Lines a peer may say at once."""
REFILL_S = 2.0
"""Then one more line every this many seconds."""
OUTBOX_SIZE = 16
"""Lines typed but not yet sent (the session loop sends them on its next tick)."""


class ChatRefused(ValueError):
    """A line this peer was asked to say cannot be sent: one line for the user."""


def check_text(text: str) -> str:
    """The line as it will be signed (surrounding blanks trimmed), or :class:`ChatRefused`."""
    line = text.strip()
    if not line:
        raise ChatRefused("an empty line is not sent")
    bad = unprintable(line)
    if bad is not None:
        raise ChatRefused(f"a chat line is one line of printable text, without {bad}")
    if len(line.encode("utf-8")) > MAX_CHAT_TEXT:
        raise ChatRefused(f"a chat line is at most {MAX_CHAT_TEXT} bytes of text")
    return line


class ChatOutbox:
    """Lines the user typed, handed from the UI's thread to the session loop's (thread-safe)."""

    def __init__(self) -> None:
        self._lines: queue.Queue[str] = queue.Queue(OUTBOX_SIZE)

    def say(self, text: str) -> None:
        """Queue a line; :class:`ChatRefused` if it is not one to send, or too many wait."""
        line = check_text(text)
        try:
            self._lines.put_nowait(line)
        except queue.Full:
            raise ChatRefused("too many lines are waiting to be sent") from None

    def take(self) -> list[str]:
        out: list[str] = []
        while len(out) < OUTBOX_SIZE:
            try:
                out.append(self._lines.get_nowait())
            except queue.Empty:
                break
        return out


class TableChat:
    """One peer's chat at its seated table: signs its own lines, checks and shows others'.

    ``machine`` is the table machine (its identity, table id, names and seats are read, never
    changed); ``emit`` gets a ``{"event": "chat", "seat", "name", "text"}`` event per line shown,
    ours included, so a UI logs it and a headless peer's event log keeps it."""

    def __init__(
        self,
        machine: Any,
        emit: Callable[[dict[str, Any]], None],
        clock: Callable[[], float] = time.monotonic,
        outbox: ChatOutbox | None = None,
        wall_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        self.machine = machine
        self.emit = emit
        self.clock = clock
        self.outbox = outbox
        self.wall_ms = wall_ms
        self.buckets: dict[bytes, TokenBucket] = {}
        self.last_n: dict[bytes, int] = {}
        self.my_n = 0
        self.dropped = 0
        """Lines refused by checks 2–4 (never counted as bad messages, never blamed)."""

    def _bucket(self, key: bytes) -> TokenBucket:
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = TokenBucket(float(BURST), 1.0 / REFILL_S, self.clock)
        return bucket

    def _show(self, key: bytes, text: str) -> None:
        machine = self.machine
        seat = machine.seat_of(key) if machine.order else None
        name = str(machine.names.get(key, "?"))
        self.emit({"event": "chat", "seat": seat, "name": name, "text": text})

    def outgoing(self) -> list[bytes]:
        """The typed lines to broadcast now, signed (each also shown here, as ours)."""
        if self.outbox is None:
            return []
        return [raw for line in self.outbox.take() if (raw := self.say(line)) is not None]

    def say(self, text: str) -> bytes | None:
        """Sign one line of ours (None if our own bucket is empty: the others would drop it)."""
        line = check_text(text)
        machine = self.machine
        if not self._bucket(machine.me).take():
            self.dropped += 1
            self.emit({"event": "chat_refused", "text": "chat: too fast, that line was not sent"})
            return None
        self.my_n = min(MAX_CHAT_N, max(self.my_n + 1, self.wall_ms()))
        raw = encode(
            machine.identity,
            MsgType.CHAT,
            table_id=machine.table_id,
            seq=0,
            prev=ZERO_HASH,
            head=machine.transcript.head,
            body={"n": self.my_n, "text": line},
        )
        self._show(machine.me, line)
        return raw

    def receive(self, msg: Message) -> bool:
        """A decoded ``chat`` from a seated key of this table: shown (True) or dropped."""
        key = msg.sender
        if msg.seq != 0 or msg.prev != ZERO_HASH or key == self.machine.me:
            return self._drop("a chat line inside a chain", key)
        text = str(msg.body["text"])
        bad = unprintable(text)
        if bad is not None:
            return self._drop(f"a chat line with {bad}", key)
        n = int(msg.body["n"])
        if n <= self.last_n.get(key, 0):
            return self._drop("a chat line heard before (replayed)", key)
        if not self._bucket(key).take():
            return self._drop("a chat line over the rate limit", key)
        self.last_n[key] = n
        self._show(key, text)
        return True

    def _drop(self, why: str, key: bytes) -> bool:
        self.dropped += 1
        log.info("dropped %s from %s", why, self.machine.names.get(key, "?"))
        return False


# What one peer is asked to do and who plays its seat: PeerConfig (everything the command line or
# the terminal UI decides before a peer starts; the lobby, the session and the runner only read
# it), the Player that chooses this seat's moves from a read-only TableView (never the table
# machine: a player cannot send, record or stop anything), and PeerError, the one line a peer
# gives up with.


__all__ = [
    "BotPlayers",
    "CannotRejoin",
    "HostSpec",
    "PeerConfig",
    "PeerError",
    "Player",
    "PromptPlayer",
    "TableChoice",
    "TableView",
    "make_player",
]


# Why a peer cannot go on, as one line for the user (the CLI prints it and exits 2).
class PeerError(Exception):
    """A peer cannot go on (bad target, table full, host gone...): one line for the user."""


class TableChoice(PeerError):
    """A table is still playing in this home and the command neither resumes it nor asks for a
    new one (homes.py): the user must choose, with ``--resume`` or ``--new``."""


class CannotRejoin(PeerError):
    """A saved table could not be replayed: it is marked stopped, so it blocks nothing."""


# Who chooses this seat's moves, and what they may see of the table.
PlayerMove = int | GameMove
"""A player's answer: a move id (what a bot returns, as the plugin API says) or the game's move
value (a person's typed move, parsed once). The table makes an id a value once, where it enters."""


class TableView(Protocol):
    """What a player may read of its table: live (each read is the table as it is now), and
    read-only. Read it on the table's own thread (the peer's), like everything seated."""

    @property
    def seat(self) -> int | None:
        """This seat's play seat, once the seat order is fixed (None before)."""

    @property
    def names(self) -> tuple[str, ...]:
        """The players' names by play seat once the order is fixed (before: in the seat
        message's order)."""

    @property
    def options(self) -> TableOptions: ...

    @property
    def ruleset(self) -> CommonRuleset:
        """The table's rule set: its card and move tokens, for showing them."""

    @property
    def phase(self) -> str:
        """seating, deal, play, reveal or done."""

    def player_view(self) -> Any:
        """The round as this seat sees it, the rule set's own view (Druids 2017: a
        ``PlayerView``); None before the first deal or without a seat."""

    @property
    def settled(self) -> bool:
        """False while a card table carries out card operations (a deal, a reveal, a shuffle,
        the owners' words): its copy of the game then holds a stand-in where a card is on its
        way to this seat (a drawn card before the others' shares are in), so a person is shown
        :meth:`player_view` only once it is settled. A game dealt by rounds is always settled."""

    def check(self, move: PlayerMove) -> str | None:
        """Why ``move`` is not legal for this seat now (the round's own rule), None if it is:
        for showing a person why a card cannot be played. Whatever a player answers, the table
        checks the move itself when it plays it (:meth:`Player.refused`)."""

    @property
    def game_over(self) -> bool: ...

    @property
    def round_scores(self) -> tuple[tuple[int, ...], ...]: ...

    @property
    def totals(self) -> tuple[int, ...]: ...

    @property
    def winners(self) -> tuple[int, ...] | None: ...

    @property
    def ended_by(self) -> str | None:
        """How the current (or last) round ended, None while it runs or before any."""


class Player:
    """Chooses this seat's moves. ``attach`` is called once the table exists (a user interface
    keeps the view to show the table); ``choose``/``poll`` when it is this seat's turn."""

    def attach(self, table: TableView) -> None:
        """Called once, before the table starts."""

    def start(self, table: TableView) -> None: ...
    def choose(self, table: TableView) -> PlayerMove:
        raise NotImplementedError

    def refused(self, move: PlayerMove, reason: str) -> None:
        """The table refused ``move`` (``reason``: the rule it breaks): it is not played, and
        this seat is asked again. A person is told why; a program that plays an illegal move
        is broken, so by default this stops the peer with the machine's own error."""
        raise IllegalMove(reason)

    def wants_to_leave(self) -> bool:
        """True once the person (or program) playing this seat has left: the table then stops
        with that reason, recorded and told to the others. Checked on every tick."""
        return False

    def stays_for_talk(self) -> bool:
        """True while the person is still at the table after its end (the end screen open):
        the peer keeps carrying chat until they leave (at most ``TALK_AFTER_GAME_S``,
        peer/ending.py). A bot or a terminal player is done at the end."""
        return False

    def poll(self, table: TableView) -> PlayerMove | None:
        """This seat's move if it has one now, else None (asked again on the next tick).

        The table loop keeps serving the network between calls, so a person may think as long
        as they like; the default simply blocks in :meth:`choose` (bots answer at once)."""
        return self.choose(table)


MAX_ASKS = 100
"""How many answers a person at the plain terminal may give that are no move, or moves the
table refuses, before the peer stops: a closed or scripted input must not loop for ever."""


def _to_stderr(line: str) -> None:
    """Where the prompt goes (``cli/peer_run.py``): a peer's standard output carries its events."""
    print(line, file=sys.stderr, flush=True)


class PromptPlayer(Player):
    """A person at a plain terminal (the Textual UI is a player of its own, ``tui/player.py``).

    Game-neutral: the rule set shows the view and names the legal moves; the table alone judges a
    move, and a refused one is asked again with its reason.
    """

    def __init__(
        self, ask: Callable[[str], str], tell: Callable[[str], None] | None = None
    ) -> None:
        self.ask = ask
        self.tell = tell or _to_stderr
        self.wrong = 0
        self.answer = ""
        """The token last typed: what a refusal names."""

    def _count(self, what: str) -> None:
        self.tell(what)
        self.wrong += 1
        if self.wrong >= MAX_ASKS:
            raise PeerError(f"no legal move entered in {MAX_ASKS} answers")

    def choose(self, table: TableView) -> PlayerMove:
        view = table.player_view()
        assert view is not None
        rules = table.ruleset
        legal = " ".join(rules.typed_move(rules.Move.of(m)) for m in view.legal)
        prompt = "\n".join([*rules.seat_lines(view), f"legal: {legal}", "your move> "])
        while True:
            self.answer = answer = self.ask(prompt).strip()
            try:
                return rules.parse_typed_move(answer)
            except ValueError as exc:
                self._count(f"not a move: {exc}")

    def refused(self, move: PlayerMove, reason: str) -> None:
        """Tell the person why the table refused ``move``; it asks again on its next tick."""
        self._count(f"the table refuses {self.answer!r}: {reason}")


# What one peer is asked to do: host or join which table, as whom, with which player, how
# patient.
@dataclass
class HostSpec:
    """The table a host opens: its name and the game's options."""

    name: str
    options: TableOptions
    ruleset: str = field(default_factory=default_name)
    """The game the table plays (bound into its seat message and named in its beacon)."""


@dataclass
class PeerConfig:
    """One peer's orders (see the module docstring); ``home`` keeps its tables' folders."""

    home: Path
    identity: Identity
    player: str = "bot:random"
    """``bot:NAME`` or ``human``."""
    bind: str = "127.0.0.1"
    port: int = 0
    host: HostSpec | None = None
    join: str | None = None
    """``HOST:PORT`` of a host's lobby socket."""
    announcement: bytes | None = None
    """A host's signed beacon heard on the LAN (``druids join NAME``): join with it directly,
    without asking a lobby socket (``join`` is then unused)."""
    announce: bool = True
    beacon_port: int = DEFAULT_PORT
    budget_ms: float = 100.0
    away_after_s: float = 3.0
    gone_after_s: float = 300.0
    """The move limit: how long a seat may take over a move (a person thinking) before it is
    blamed as gone; also the longest any owed message is waited for."""
    step_deadline_s: float = 10.0
    """How long an automatic message (seating, a card-table step, an owners' word or its check,
    the result) may be owed before its seat is blamed for withholding it
    (``peer/deadlines.py``): short, since a seat can send every one of them just before it."""
    rejoin_time_s: float = 30.0
    """A seat that falls silent while it owes an automatic message is waited for this much
    longer, once for the whole game (time to restart and rejoin), before it is unreachable."""
    lobby_timeout_s: float = 600.0
    plugins_dirs: tuple[Path, ...] = ()
    emit: Callable[[dict[str, Any]], None] = field(default=lambda event: None)
    human_input: Callable[[str], str] = field(default=input)
    custom_player: Player | None = None
    """Plays this seat instead of ``player`` (the terminal UI plugs itself in here)."""
    bot_players: BotPlayers | None = None
    """Builds the player of a ``bot:NAME`` seat (the CLI passes ``cli.bot_player.bot_player``).
    Injected so that the network layer meets players only as :class:`Player` and never imports
    the bots or the plugin loader; None: only ``human`` and ``custom_player`` seats can play."""
    approve_join: Approver | None = None
    """Asked about every joiner the host does not seat without asking (seating.py)."""
    allow_joins: tuple[str, ...] = ()
    """Fingerprint prefixes of joiners the host seats without asking (``--allow FP``)."""
    open_table: bool = False
    """Seat anyone (``--open``). Without it, ``allow_joins`` or ``approve_join`` a host seats
    nobody: every joiner is refused, told which fingerprint to ask the host to allow."""
    clock: Callable[[], float] = field(default=time.monotonic)
    """The seated table's clock (liveness, deadlines, grace periods): tests pass a fake one."""
    table_name: str | None = None
    """``druids join NAME``: the name (or lobby id prefix) typed, kept to find the table again."""
    resume: bool = False
    """``--resume``: rejoin the table still playing in ``home`` (homes.choose_table)."""
    new: bool = False
    """``--new``: start a new table even if one is still playing here (it is kept)."""
    resume_folder: Path | None = None
    """Rejoin exactly this saved table (``<home>/tables/<id>``)."""
    chat: ChatOutbox | None = None
    """Lines this seat's person types at the table (the terminal UI); None: it says nothing."""
    go_on: bool = True
    """Go on at a new table without a seat that kept the coin flip from finishing
    (``peer/go_on.py``, protocol.md §4). The terminal UI shows one table per session: it stops."""
    go_on_ask: Callable[[dict[str, Any]], bool] | None = None
    """Asked, when a seat of a game dealt by rounds is gone for good, whether to go on without
    it at a new table with a bot in its seat (``go_on.py``); handed the offer (its ``text`` is
    the question), it answers within ``go_on.ASK_S``. None: never (``--go-on``: always yes;
    the terminal UI asks its person)."""
    stand_in_bot: str = "rule"
    """The bot that stands in for a departed seat, if this peer is the one to start it."""
    rematch_ask: Callable[[dict[str, Any]], bool] | None = None
    """Asked once a table has ended whether to play a rematch (``peer/session.py``): the same
    players and options at a new table, a bot for any that does not come; it answers within
    ``rematch.ASK_S``. None: never (``--rematch N``: yes N times; the terminal UI: key r)."""
    rematch_wait_s: float = 30.0
    """How long this peer, hosting a rematch, waits for the old seats before a bot sits in each
    empty one (``--rematch-wait``; ``peer/session.py``'s ``FILL_AFTER_S``)."""

    @property
    def is_bot(self) -> bool:
        """A program plays this seat (``bot:NAME``), not a person: what its join says."""
        return self.custom_player is None and self.player.startswith("bot:")


BotPlayers = Callable[[str, PeerConfig, bytes], Player]
"""``(bot name, config, the seat's secret seed) -> Player``, raising :class:`PeerError` for an
unknown bot: how a ``bot:NAME`` seat gets its player (``PeerConfig.bot_players``)."""


def make_player(config: PeerConfig, secret_seed: bytes) -> Player:
    """This seat's player: the UI's own, a person at the terminal, or a ``bot:NAME``."""
    if config.custom_player is not None:
        return config.custom_player
    if config.player == "human":
        return PromptPlayer(config.human_input)
    if not config.player.startswith("bot:"):
        raise PeerError(f"a player is 'human' or 'bot:NAME', not {config.player!r}")
    if config.bot_players is None:
        raise PeerError(f"{config.player!r}: this peer was given no bot players (PeerConfig)")
    return config.bot_players(config.player[4:], config, secret_seed)
