"""``druids history``: every past game of the data folder, newest first — when, game, players,
result, record path — each table once however many of its seats this machine kept, and a
malformed or partial game folder listed as such, never a traceback (issue 28 item 12). A game of
real peer processes is listed in test_headless_play.py, after the game that test plays."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_harness import run_cli
from table_harness import LocalTable, seat_message

from druids_p2p.peer.homes import HomeTable


def _finished_table(
    home: Path, mtime: float, seed: int, players: int = 3
) -> tuple[HomeTable, list[str]]:
    """A whole one-round game of table machines in this process, kept in ``home`` as a peer
    keeps it (seat message, record, state.json finished with its result); the play order's
    names. Each ``seed`` is another table (its keys and id too)."""
    scratch = home.parent / f"scratch-{mtime:.0f}"
    scratch.mkdir(parents=True)
    table = LocalTable(players=players, rounds=1, seed=seed, records=scratch)
    table.start_all()
    table.run()
    machine = table.machines[0]
    assert machine.finished
    state = HomeTable(home / "tables" / machine.table_id.hex()[:24])
    state.save(machine.seat_message.raw, b"pub", b"sec", 4000, {"role": "host", "name": "t"})
    machine.transcript.flush(sync=True)
    (scratch / "p0.druids").rename(state.record)
    totals, winners = machine.outcome()
    state.mark_finished({"totals": totals, "winners": winners})  # no names: read from the record
    names = [machine.name_of_seat(s) for s in range(players)]
    for path in (state.folder / "seat.msg", state.folder / "state.json", state.record):
        os.utime(path, (mtime, mtime))
    return state, names


def test_history_lists_each_game_once_newest_first_with_names_and_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("DRUIDS_HOME", str(data))
    old, old_names = _finished_table(data / "games" / "20240101-1" / "me", 1_700_000_000, 1)
    # The same table seen from a bot's home beside it: one game, not two.
    twin = data / "games" / "20240101-1" / "bots" / "rule-1" / "tables" / old.table_id
    twin.mkdir(parents=True)
    for name in ("seat.msg", "state.json", "record.druids"):
        (twin / name).write_bytes((old.folder / name).read_bytes())
    new, _ = _finished_table(data, 1_800_000_000, 2)  # a `druids host` table: home = the data dir
    stopped = HomeTable(data / "tables" / "c0ffee")
    stopped.save(seat_message("druids2004", players=2), b"pub", b"sec", 4000, {"role": "join"})
    stopped.mark_stopped("rule-2 (seat 1) unreachable: gone for 31 s")
    os.utime(stopped.folder / "seat.msg", (1_750_000_000, 1_750_000_000))

    code, out, err = run_cli(["history", "--json"], capsys)
    assert code == 0, err
    games = json.loads(out)
    assert [g["record"] for g in games] == [
        str(new.record),
        str(stopped.record),
        str(old.record),
    ]
    first, middle, last = games
    assert first["game"] == "druids2017" and first["status"] == "finished"
    assert last["players"] == [
        {"name": name, "total": total, "won": seat in old.info()["result"]["winners"]}
        for seat, (name, total) in enumerate(
            zip(old_names, old.info()["result"]["totals"], strict=True)
        )
    ]
    assert middle["game"] == "druids2004" and middle["status"] == "stopped"
    assert "unreachable" in middle["result"]
    assert [p["name"] for p in middle["players"]] == ["p0", "p1"]  # seat list: never seated
    assert first["when"] > middle["when"] > last["when"]

    code, out, err = run_cli(["history"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    at = [next(i for i, line in enumerate(lines) if g["folder"] in line) for g in games]
    assert at == sorted(at)  # newest first in the plain listing too
    won = [n for n, p in zip(old_names, last["players"], strict=True) if p["won"]]
    assert any(f"{won[0]} won" in line or "share the win" in line for line in lines)
    assert "stopped: rule-2 (seat 1) unreachable" in out


def test_malformed_or_partial_game_folders_are_listed_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("DRUIDS_HOME", str(data))
    tables = data / "games" / "x" / "me" / "tables"
    (tables / "no-state").mkdir(parents=True)  # a crash before the first save
    bad_json = tables / "bad-json"
    bad_json.mkdir()
    (bad_json / "state.json").write_text("{not json")
    (bad_json / "seat.msg").write_bytes(seat_message("druids2017"))
    bad_seat = tables / "bad-seat"
    bad_seat.mkdir()
    (bad_seat / "state.json").write_text(json.dumps({"status": "finished", "result": 7}))
    (bad_seat / "seat.msg").write_bytes(b"\x93garbage")
    odd = tables / "odd-result"
    odd.mkdir()
    (odd / "seat.msg").write_bytes(seat_message("druids2017"))
    (odd / "state.json").write_text(
        json.dumps({"status": "finished", "result": {"totals": "x", "winners": [9]}})
    )
    (data / "tables").mkdir(parents=True)
    (data / "tables" / "a-file").write_text("not a table folder")

    code, out, err = run_cli(["history", "--json"], capsys)
    assert code == 0, err
    games = {Path(g["folder"]).name: g for g in json.loads(out)}
    assert set(games) == {"no-state", "bad-json", "bad-seat", "odd-result"}
    for name in ("no-state", "bad-json", "bad-seat", "odd-result"):
        assert games[name]["status"] == "malformed", games[name]
        assert games[name]["problem"]
    assert "no seat message" in games["no-state"]["problem"]
    assert "state.json" in games["bad-json"]["problem"]
    assert "seat message" in games["bad-seat"]["problem"]
    assert "result" in games["odd-result"]["problem"]
    code, out, err = run_cli(["history"], capsys)
    assert code == 0 and "Traceback" not in err
    assert out.count("\n    malformed: ") == 4


def test_an_empty_data_folder_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "nothing-here"))
    code, out, _ = run_cli(["history"], capsys)
    assert code == 0 and "no games" in out
    code, out, _ = run_cli(["history", "--json"], capsys)
    assert code == 0 and json.loads(out) == []
    code, _, err = run_cli(["history", "--limit", "-1"], capsys)
    assert code == 2 and "--limit" in err
