"""Which saved table a command resumes (peer/homes.py): only the one it asks for, never a stopped
or finished one; any other request while a table is playing is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from table_harness import LocalTable, seat_message

from druids_p2p.peer.homes import (
    FINISHED,
    PLAYING,
    SET_ASIDE,
    STOPPED,
    HomeTable,
    Request,
    TableChoiceNeeded,
    choose_table,
    playing_tables,
    set_aside,
)
from druids_p2p.wire import MsgType


def _saved(home: Path, table_id: str, **about: object) -> HomeTable:
    state = HomeTable(home / "tables" / table_id)
    state.save(b"seat", b"pub", b"sec", 4000, dict(about))
    return state


def _record_ending_in_abort(path: Path) -> None:
    """A real record: the seat message, this peer's seating messages, then its signed abort."""
    table = LocalTable(players=3, records=path.parent)
    machine = table.machines[0]
    machine.start()
    for _, own in sorted(machine.pending[machine.me].items()):  # as TableRunner._abort does
        machine.transcript.append(own)
    raw = machine.chain.seal(MsgType.ABORT, {"reason": "p2 was gone"}, machine.transcript.head)
    machine.transcript.append(raw)
    machine.transcript.flush(sync=True)
    (path.parent / "p0.druids").rename(path)


def test_a_record_ending_in_an_abort_marks_its_table_stopped(tmp_path: Path) -> None:
    state = _saved(tmp_path, "aaaa", role="host", name="lan-lab")
    assert state.status == PLAYING
    _record_ending_in_abort(state.record)
    assert state.status == STOPPED
    info = json.loads((state.folder / "state.json").read_text())
    assert info["status"] == STOPPED and info["stopped"] == "p2 was gone"
    # and it blocks nothing: the same host command starts a new table
    assert choose_table(tmp_path, Request("host", "lan-lab")) is None
    assert state.record.exists()  # never deleted


def test_finished_and_stopped_tables_never_block_a_new_one(tmp_path: Path) -> None:
    _saved(tmp_path, "aaaa", role="host", name="lan-lab").mark_finished({"totals": [1]})
    _saved(tmp_path, "bbbb", role="join", name="lan-lab").mark_stopped("left")
    assert [t.status for t in (HomeTable(tmp_path / "tables" / i) for i in ("aaaa", "bbbb"))] == [
        FINISHED,
        STOPPED,
    ]
    for request in (Request("host", "lan-lab"), Request("join", "lan-lab"), Request("join")):
        assert choose_table(tmp_path, request) is None
    with pytest.raises(TableChoiceNeeded, match="no unfinished table to resume"):
        choose_table(tmp_path, Request("host", "x", resume=True))


def test_the_same_request_resumes_its_playing_table(tmp_path: Path) -> None:
    host = _saved(tmp_path, "aaaa", role="host", name="friday")
    assert choose_table(tmp_path, Request("host", "friday")) == host
    tmp2 = tmp_path / "other"
    join = _saved(tmp2, "cccc", role="join", name="lan-lab", lobby_id="0a1b2c3d4e5f")
    assert choose_table(tmp2, Request("join", name="lan-lab")) == join
    assert choose_table(tmp2, Request("join", name="0A1B2C")) == join  # a lobby id prefix
    assert choose_table(tmp2, Request("join", lobby_id="0a1b2c3d4e5f")) == join
    tmp3 = tmp_path / "third"
    direct = _saved(tmp3, "dddd", role="join", name="t", lobby="127.0.0.1:4000")
    assert choose_table(tmp3, Request("join", lobby="127.0.0.1:4000")) == direct


@pytest.mark.parametrize(
    "request_",
    [
        Request("host", "another table"),
        Request("join", name="lan-lab"),  # a joiner's name, but this home hosted it
        Request("join", lobby="127.0.0.1:5000"),
        Request(None),
    ],
)
def test_another_request_while_a_table_plays_is_refused_in_one_line(
    tmp_path: Path, request_: Request
) -> None:
    saved = _saved(tmp_path, "aaaa", role="host", name="lan-lab")
    with pytest.raises(TableChoiceNeeded) as info:
        choose_table(tmp_path, request_)
    text = str(info.value)
    assert "\n" not in text and "--resume" in text and "--new" in text and "'lan-lab'" in text
    # --new starts beside it (kept), --resume takes it up
    assert choose_table(tmp_path, Request(request_.role, request_.name, new=True)) is None
    assert playing_tables(tmp_path) == [saved]
    assert choose_table(tmp_path, Request(request_.role, resume=True)) == saved


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ([], "holds an unfinished table: add --resume to play it on, or --new"),
        (["--resume", "--new"], "give one of them"),
    ],
)
def test_play_headless_in_a_folder_with_an_unfinished_table_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    from druids_p2p.cli.main import main

    _saved(tmp_path / "random-2", "aaaa", role="join", lobby="127.0.0.1:4000")  # a seat's folder
    argv = ["play", "--headless", "--seats", "bot:random,bot:random,bot:random"]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--workdir", str(tmp_path), *flags])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_play_headless_resume_needs_a_table_for_every_seat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from druids_p2p.cli.main import main

    _saved(tmp_path / "random-1", "aaaa", role="host", name="druids")
    argv = ["play", "--headless", "--seats", "bot:random,bot:random,bot:random", "--resume"]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--workdir", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--resume" in err and "every seat" in err and len(err.strip().splitlines()) == 1


def test_a_saved_table_that_cannot_be_read_is_marked_stopped_and_blocks_nothing(
    tmp_path: Path,
) -> None:
    from druids_p2p.lan.peer_config import PeerConfig, PeerError
    from druids_p2p.peer.session import run_peer
    from druids_p2p.wire import Identity

    state = _saved(tmp_path, "aaaa", role="host", name="friday")
    (state.folder / "curve.key").write_bytes(b"no key pair here")
    config = PeerConfig(home=tmp_path, identity=Identity.generate("me"), resume=True)
    with pytest.raises(PeerError, match="cannot be rejoined") as info:
        run_peer(config)
    assert "\n" not in str(info.value) and "next command starts a new table" in str(info.value)
    assert state.status == STOPPED and state.folder.is_dir()
    assert choose_table(tmp_path, Request("host", "friday")) is None


def test_new_sets_the_other_playing_tables_aside_and_keeps_them(tmp_path: Path) -> None:
    old = _saved(tmp_path, "aaaa", role="host", name="friday")
    done = _saved(tmp_path, "bbbb", role="host", name="friday")
    done.mark_finished({"totals": [1]})
    new = _saved(tmp_path, "cccc", role="join", name="lan-lab")
    assert set_aside(tmp_path, new) == [old]
    assert (old.status, done.status, new.status) == (STOPPED, FINISHED, PLAYING)
    assert old.info()["stopped"] == SET_ASIDE and old.folder.is_dir()
    assert playing_tables(tmp_path) == [new]  # the old one is offered no more
    assert choose_table(tmp_path, Request("host", "friday", resume=True)) == new


@pytest.mark.parametrize("game", ["druids2017", "druids2004"])
def test_a_saved_table_keeps_the_game_its_seat_message_names(tmp_path: Path, game: str) -> None:
    """Kept in ``state.json`` (a UI offers to rejoin only a table of its own game)."""
    state = HomeTable(tmp_path / "tables" / "aaaa")
    state.save(seat_message(game), b"pub", b"sec", 4000, {"role": "host", "name": "friday"})
    info = json.loads((state.folder / "state.json").read_text())
    assert info["game"] == game and info["name"] == "friday"
    assert state.game == game
    state.mark_stopped("left")
    assert state.game == game  # every later write keeps it


@pytest.mark.parametrize(
    ("written", "legacy", "game"),
    [
        ("druids2004", False, "druids2004"),
        ("druids2017", False, "druids2017"),
        ("druids2017", True, "druids2017"),  # its options name no rule set: version 1's
        (None, False, None),  # no seat message to read: nothing to rejoin
    ],
)
def test_a_table_saved_before_the_game_was_kept_reads_it_from_its_seat_message(
    tmp_path: Path, written: str | None, legacy: bool, game: str | None
) -> None:
    seat = seat_message(written, legacy=legacy) if written else b"not a seat message"
    state = HomeTable(tmp_path / "tables" / "aaaa")
    state.folder.mkdir(parents=True)
    (state.folder / "seat.msg").write_bytes(seat)
    old = {"port": 4000, "status": "playing", "finished": False, "role": "host", "name": "x"}
    (state.folder / "state.json").write_text(json.dumps(old))
    assert state.game == game
    assert state.status == PLAYING and state.info() == old  # read, not rewritten
