"""The game folder a terminal UI's table writes in, and what ``druids play`` prints of it once
the UI closes (the result, the record, the folder).

One of each for every game's UI entry and the LAN lobby (``cli/play_ui.py``,
``cli/play_lan.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from druids_p2p.cli.app import fail


def open_game_folder(workdir: Path | None) -> Path:
    """``--workdir`` (made if need be) or a new folder under the data directory; exit 2 naming
    ``--workdir`` if it cannot be made, 1 if the data directory cannot."""
    from druids_p2p.tui.launch import game_folder

    try:
        return game_folder(workdir)
    except OSError as exc:
        if workdir is not None:
            fail(f"--workdir {workdir}: {exc.strerror or exc}")
        fail(f"cannot make the game folder: {exc}", 1)


def print_outcome(outcome: dict[str, Any] | None, folder: Path, as_json: bool) -> None:
    """What a terminal UI's table ended with (``DruidsApp.outcome``), printed after it closes."""
    outcome = outcome or {}
    result = outcome.get("result") or {}
    if as_json:
        print(json.dumps({**outcome, "folder": str(folder)}, default=str))
        return
    if result.get("finished"):
        print(f"game over: {_result_words(result, outcome)}")
    elif outcome.get("stopped"):
        print(f"table stopped: {outcome['stopped']}")
    evening = [s for s in outcome.get("evening") or [] if isinstance(s, dict)]
    if any(int(s.get("games", 0)) > 1 for s in evening):  # rematches: the running scores
        print(
            "this evening: "
            + "; ".join(
                f"{s['name']} {s['wins']} wins, {s['points']} points over {s['games']} games"
                for s in evening
            )
        )
    if outcome.get("record"):
        print(f"record: {outcome['record']}")
    print(f"game folder: {folder}")


def _result_words(result: dict[str, Any], outcome: dict[str, Any]) -> str:
    """``you (alice) won — totals: alice 47, rule-1 30, …``: names, never seat numbers."""
    names = list(outcome.get("names") or [])
    me = outcome.get("my_seat")
    totals = list(result.get("totals") or [])
    winners = [w for w in result.get("winners") or [] if isinstance(w, int)]

    def name(seat: int) -> str:
        return str(names[seat]) if 0 <= seat < len(names) else f"seat {seat}"

    won = [f"you ({name(w)})" if w == me else name(w) for w in winners]
    verb = "won" if len(won) == 1 else "share the win"
    scores = ", ".join(f"{name(seat)} {total}" for seat, total in enumerate(totals))
    return f"{' and '.join(won) or 'nobody'} {verb} — totals: {scores}"
