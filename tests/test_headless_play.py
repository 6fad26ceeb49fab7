"""``druids play --headless`` as a person runs it (issue 28, items 5, 7 and 11).

While the game is played it says so (a line per round on stderr; nothing with ``--json``); the
result names every player with its total and place, seats in play order (the coin flip's, as
the records and ``druids audit`` number them); the records stay in the data folder with the
other games (``<data>/games/<when>/<player>/``), not in the system's temporary folder; the peers
are stopped as soon as every seat holds the agreed result; and Ctrl-C says what was kept.
Every game here is real peer processes on loopback, every wait bounded.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from cli_harness import audit_record, check_result_block, result_block

from druids_p2p.games.registry import new_table_options
from druids_p2p.peer.local_table import LocalTable
from druids_p2p.wire import MsgType, decode

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BOUND_S = 300.0
SEATS = "bot:rule,bot:random,bot:random"
NAMES = {"rule-1", "random-2", "random-3"}


def _headless(*args: str) -> list[str]:
    return [sys.executable, "-m", "druids_p2p", "play", "--headless", "--seats", SEATS, *args]


def _env(home: Path) -> dict[str, str]:
    return dict(os.environ, DRUIDS_HOME=str(home))


def _audited(record: str) -> dict[str, Any]:
    code, report = audit_record(record)
    assert code == 0 and report["verdict"] == "complete", report
    return report


def _place(totals: list[int], seat: int) -> int:
    return 1 + sum(1 for t in totals if t > totals[seat])


def _in_data_folder(home: Path, record: str, name: str) -> None:
    """``<data>/games/<when>/<name>/tables/<id>/record.druids``: the player's own folder."""
    parts = Path(record).relative_to(home / "games").parts
    assert len(parts) == 5 and parts[1] == name and parts[2] == "tables", record


def test_headless_play_shows_each_round_and_names_every_player_with_total_and_place(
    tmp_path: Path,
) -> None:
    proc = subprocess.run(
        _headless("--rounds", "2", "--time-per-move", "20"),
        capture_output=True, text=True, timeout=BOUND_S, stdin=subprocess.DEVNULL,
        env=_env(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rounds = [line for line in proc.stderr.splitlines() if line.startswith("round ")]
    assert len(rounds) == 2, proc.stderr
    for line in rounds:
        assert all(name in line for name in NAMES), line
    _, rows, records = result_block(proc.stdout)
    assert len(records) == 3
    report = _audited(records[0])
    check_result_block(proc.stdout, report)  # every seat's name and total, the winners named
    names = [p["name"] for p in report["players"]]
    totals = report["totals"]
    assert [place for _, _, _, place in rows] == [_place(totals, s) for s in range(3)]
    for seat, record in enumerate(records):  # in play order too: each the seat's own folder
        _in_data_folder(tmp_path, record, names[seat])
        assert _audited(record)["totals"] == totals


def test_headless_json_is_quiet_and_lists_the_players_in_play_order(tmp_path: Path) -> None:
    proc = subprocess.run(
        _headless("--rounds", "1", "--time-per-move", "20", "--json"),
        capture_output=True, text=True, timeout=BOUND_S, stdin=subprocess.DEVNULL,
        env=_env(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == ""  # no progress lines with --json
    result = json.loads(proc.stdout)
    players = result["players"]
    assert [p["seat"] for p in players] == [0, 1, 2]
    assert {p["name"] for p in players} == NAMES
    report = _audited(players[0]["record"])
    assert [p["name"] for p in players] == [p["name"] for p in report["players"]]
    assert [p["total"] for p in players] == report["totals"] == result["totals"]
    assert [p["place"] for p in players] == [_place(report["totals"], s) for s in range(3)]
    assert result["records"] == [p["record"] for p in players]  # one order for every list
    assert result["winners"] == report["winners"]
    assert all(Path(r).is_file() for r in result["records"])
    # ``druids history`` lists the game once, as its three seats kept it (test_history.py).
    listed = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "history", "--json"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=_env(tmp_path),
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    (game,) = json.loads(listed.stdout)
    assert game["status"] == "finished" and game["seen_from"] == 3
    assert [p["total"] for p in game["players"]] == result["totals"]
    assert game["record"] in result["records"]
    seat = decode((Path(game["folder"]) / "seat.msg").read_bytes())
    assert seat.type is MsgType.SEAT
    assert sorted(p["name"] for p in game["players"]) == sorted(seat.body["names"])
    for player in players:
        _in_data_folder(tmp_path, player["record"], player["name"])


def test_the_peers_are_stopped_once_every_seat_holds_the_agreed_result(tmp_path: Path) -> None:
    """Every seat reported the same finished result: nobody needs a resend, so the table stops
    each peer then (``SIGTERM``) instead of waiting out their lingering; each record is already
    complete on disk when its peer reports its result."""
    options = new_table_options("druids2017", 3, False, 1)
    table = LocalTable(["bot:random"] * 3, tmp_path, options, 20.0, move_events=False)
    try:
        table.start()
        results = table.wait(BOUND_S)
        codes = [peer.proc.returncode if peer.proc else None for peer in table.peers]
    finally:
        table.close()
    assert all(r["finished"] for r in results) and len({r["head"] for r in results}) == 1
    assert table.stopped_agreed  # told SIGTERM once the result was agreed, not left to linger
    assert codes == [0] * 3, codes  # a finished peer takes it as a clean exit
    for result in results:
        _audited(result["record"])


def test_ctrl_c_stops_a_headless_table_and_says_where_its_records_are(tmp_path: Path) -> None:
    """Ctrl-C (here SIGINT to the command alone; a terminal sends it to the peers too): every
    seat leaves, recorded, and the command's last line says where the records are kept."""
    argv = [sys.executable, "-m", "druids_p2p", "play", "--headless", "--seats"]
    argv += ["bot:pimc,bot:random,bot:random", "--time-per-move", "300"]  # a long game
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        env=_env(tmp_path),
    )  # fmt: skip
    lines: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        lines.extend(line.rstrip("\n") for line in proc.stderr)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + BOUND_S
        while not any(line.startswith("seats in play order") for line in lines):
            assert proc.poll() is None and time.monotonic() < deadline, lines
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        code = proc.wait(120)
        reader.join(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert code == 130, lines
    assert "Traceback" not in "\n".join(lines)
    last = lines[-1]
    assert last.startswith("druids: interrupted: "), lines
    (folder,) = (tmp_path / "games").iterdir()
    assert str(folder) in last, last
    records = sorted(folder.glob("*/tables/*/record.druids"))
    assert {r.parts[-4] for r in records} == {"pimc-1", "random-2", "random-3"}
    for record in records:
        code, report = audit_record(str(record))
        assert code == 4 and report["verdict"] == "stopped", report


def test_a_game_without_rounds_says_no_round_count(capsys: pytest.CaptureFixture[str]) -> None:
    """The seats' round events of a game of one long round (Druids 2004 and 2016, highcard:
    ``spec.rounds == 0``) are told without 'round 1 of 5': the game has no rounds to count."""
    from druids_p2p.cli.play_cmd import Progress

    progress = Progress(5, card_table=True)
    progress({"event": "seated", "order": ["rule-1", "random-2"]})
    progress({"event": "round_started", "round": 0, "text": "the table is dealt"})
    progress({"event": "round_ended", "round": 0, "scores": [2, 0], "text": "rule-1 won"})
    said = capsys.readouterr().err
    assert "round" not in said and "game over" in said and "rule-1 +2" in said, said


def test_headless_druids2016_prints_no_rounds(tmp_path: Path) -> None:
    """``druids play --headless --game druids2016``: two real peer processes play the board game
    to its end, and stderr says no 'round N of M' (it has no rounds)."""
    proc = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "play", "--headless", "--game", "druids2016",
         "--seats", "bot:rule,bot:random", "--time-per-move", "20"],
        capture_output=True, text=True, timeout=BOUND_S, stdin=subprocess.DEVNULL,
        env=_env(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not [line for line in proc.stderr.splitlines() if " of 5" in line], proc.stderr
    _, _, records = result_block(proc.stdout)
    assert len(records) == 2
    _audited(records[0])
