"""The table screen's status line, the players' states and who is still connecting: read from
the screen's state, nothing changed. Split from ``table.py``."""

from __future__ import annotations

import time

from rich.text import Text

from druids_p2p.games.druids2017.cards import COLOUR_NAMES, is_gaia_move
from druids_p2p.tui.druids2017.cards import domain_text
from druids_p2p.tui.druids2017.table_events import clock
from druids_p2p.tui.druids2017.table_screen_state import TableScreenState
from druids_p2p.tui.widgets import who

REJOINED_SHOWN_S = 10.0
"""How long a player who came back is shown as rejoined."""


def seat_states(table: TableScreenState) -> dict[int, Text]:
    snap = table.snapshot
    if snap is None:
        return {}
    now = time.monotonic()
    out: dict[int, Text] = {}
    view = snap.view
    for seat, name in enumerate(snap.names):
        if table.stopped is not None and seat == table.blame:
            out[seat] = Text("blamed", style="bold red")
        elif name in table.away:
            out[seat] = Text(f"away {clock(now - table.away[name])}", style="bold yellow")
        elif name in table.rejoined and now - table.rejoined[name] < REJOINED_SHOWN_S:
            out[seat] = Text("rejoined", style="bold cyan")
        elif name in table.slow:
            out[seat] = Text("slow", style="bold magenta")
        elif view is not None and view.to_move == seat and not view.round_over:
            out[seat] = Text(f"to move {clock(now - table.turn_since)}", style="green")
        else:
            out[seat] = Text("connected", style="dim")
    return out


def connecting_text(table: TableScreenState) -> Text:
    """Before the seat order is fixed: who has joined, who is still connecting."""
    text = Text("Players: ")
    named = [n for n in table.expected if not n.startswith("(")]
    for name in named:
        if name in table.joined:
            text.append(f"{name} (joined)  ", style="green")
        else:
            text.append(f"{name} (connecting…)  ", style="yellow")
    for name in table.joined:
        if name not in named:
            text.append(f"{name} (joined)  ", style="green")
    waiting_bots = sum(1 for n in named if n not in table.joined)
    open_seats = table.players - 1 - len(table.joined) - waiting_bots if table.players else 0
    if open_seats > 0:
        text.append(f"{open_seats} seat(s) open for LAN players", style="bold")
    return text


def status_text(table: TableScreenState) -> Text:
    snap = table.snapshot
    if table.stopped is not None:
        return Text(f"■ Table stopped: {table.stopped}")
    if table.finished and snap is not None:
        names = ", ".join(who(snap, s) for s in snap.winners or ())
        return Text(f"Game over — winner{'s' if len(snap.winners or ()) > 1 else ''}: {names}")
    view = snap.view if snap is not None else None
    if snap is None or view is None or view.round_over or snap.phase != "play":
        return Text(table.phase_text)
    elapsed = clock(time.monotonic() - table.turn_since)
    rnd = f"Round {snap.round_number}/{snap.rounds} · "
    if table.trick_held and view.tricks:
        taker = who(snap, view.tricks[-1][2])
        return Text(f"{rnd}Trick {len(view.tricks)} taken by {taker} — any key to go on")
    if snap.my_turn and not table.awaiting:
        text = Text(f"{rnd}▶ Your turn ({elapsed})", style="bold")
        if view.pending_pile_choice:
            text.append(" — your Sickle won: choose the pile it removes (p)")
        elif any(is_gaia_move(m) for m in view.legal):
            text.append(" — lead Gaia and name a domain (p)")
        elif view.lead_domain >= 0:
            text.append(" — led: ")
            text.append_text(domain_text(view.lead_domain))
        return text
    if table.awaiting:
        return Text(f"{rnd}sending your move…")
    if view.to_move is None:
        return Text(f"{rnd}waiting for the Gaia holder to lead ({elapsed})")
    text = Text(f"{rnd}Waiting for {snap.name(view.to_move)} ({elapsed})")
    if view.lead_domain >= 0:
        text.append(f" — led: {COLOUR_NAMES[view.lead_domain]}")
    return text
