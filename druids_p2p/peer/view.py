"""What a player is shown of its seated table: a read-only :class:`TableView` over the table
machine, so that no player (a bot, a person's UI) can reach the machine and change it.
"""

from __future__ import annotations

from typing import Any

from druids_p2p.games.seam import CardTableSeat, CommonRuleset, TableOptions
from druids_p2p.lan.peer_config import PlayerMove
from druids_p2p.table.table import TableMachine

__all__ = ["MachineView"]


class MachineView:
    """The :class:`TableView` of a seated table machine: reads it, never writes, and keeps it
    out of reach (a player is handed this, typed as the protocol)."""

    __slots__ = ("_machine",)

    def __init__(self, machine: TableMachine) -> None:
        self._machine = machine

    @property
    def seat(self) -> int | None:
        return self._machine.my_seat

    @property
    def names(self) -> tuple[str, ...]:
        machine = self._machine
        if machine.order:
            return tuple(machine.name_of_seat(s) for s in range(machine.options.players))
        return tuple(str(machine.names[k]) for k in machine.list_keys)

    @property
    def options(self) -> TableOptions:
        return self._machine.options

    @property
    def ruleset(self) -> CommonRuleset:
        return self._machine.card_rules

    def _game(self) -> CardTableSeat | None:
        """The game's progress: this seat's copy of it (None before the seats are fixed)."""
        play = self._machine.card_play
        return None if play is None else play.copy

    @property
    def phase(self) -> str:
        return self._machine.phase

    def player_view(self) -> Any:
        return self._machine.view()

    @property
    def settled(self) -> bool:
        play = self._machine.card_play
        if play is None:
            return True
        deck = play.peer.state
        if deck.done < len(deck.ops):  # a shuffle, deal, turn or reveal is under way
            return False
        # Between a ritual's steps, or while the owners' words are due, nobody is to move.
        return bool(play.copy.game_over or play.copy.to_move is not None)

    def check(self, move: PlayerMove) -> str | None:
        play = self._machine.card_play
        if play is None:
            return "the game has not started"
        try:
            value = self._machine.move_value(move)
        except ValueError as exc:
            return str(exc)
        reason: str | None = play.refusal(value)  # the check its move will get (table/codec.py)
        return reason

    @property
    def game_over(self) -> bool:
        game = self._game()
        return game is not None and game.game_over

    @property
    def round_scores(self) -> tuple[tuple[int, ...], ...]:
        """Every round's scores, a continued table's carried rounds first."""
        return tuple(tuple(s) for s in self._machine.all_round_scores())

    @property
    def carried_rounds(self) -> int:
        """Rounds carried from the previous tables of a game going on (``lan/seating.py``)."""
        carried = self._machine.carried
        return len(next(iter(carried.values()))) if carried else 0

    @property
    def stand_in(self) -> int | None:
        """The play seat of the bot standing in for a departed seat at a continued table."""
        machine = self._machine
        index = machine.seat_message.body.get("stand_in")
        if index is None or not machine.order:
            return None
        return machine.order.index(machine.list_keys[index])

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self._machine.outcome()[0])

    @property
    def winners(self) -> tuple[int, ...] | None:
        winners = self._machine.outcome()[1]
        return None if winners is None else tuple(winners)

    @property
    def ended_by(self) -> str | None:
        game = self._game()
        return None if game is None else game.ended_by
