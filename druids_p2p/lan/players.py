"""Who chooses this seat's moves, and what they may see of the table.

A player (a bot, a person at the terminal, the terminal UI) is handed a :class:`TableView`: a
read-only window on the seated table that says what a player may know (its seat, the names, the
game as this seat sees it, whether a move is legal now) and nothing else. It is never the table
machine (this module does not even import it; the runner's ``MachineView`` implements the view):
a player cannot send, record or stop anything; it only answers with a move, which the runner
plays (``peer/runner.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Protocol

from druids_p2p.games.seam import CommonRuleset, GameMove, IllegalMove, TableOptions
from druids_p2p.lan.errors import PeerError

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

    Game-neutral: the rule set tells the seat's view in a few lines (``seat_lines``) and names
    each legal move (``typed_move``: the tokens the person types back, numbered as the lines
    number things). It reads a token as a
    move of the game and no more: whether that move is legal now is the table's one check, and
    a refused move is asked again with the table's reason (:meth:`refused`)."""

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


__all__ = ["Player", "PromptPlayer", "TableView"]
