"""Bad input to the commands that put Druids (2004) at a table of peer processes: one line
naming the input, exit 2, before any process, socket or folder is made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_harness import run_cli

HEADLESS = ["play", "--headless", "--game", "druids2004"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ([*HEADLESS, "--seats", "bot:rule"], "--seats: a table has 2 to 4 seats, not 1"),
        ([*HEADLESS, "--seats", "human,human"], "can seat at most one human"),
        ([*HEADLESS, "--seats", ",".join(["bot:rule"] * 5)], "a table has 2 to 4 seats, not 5"),
        (
            [*HEADLESS, "--seats", "bot:cautious,bot:rule"],
            "bot 'cautious' does not play druids2004",
        ),
        ([*HEADLESS, "--seats", "bot:rule,bot:rule", "--rounds", "3"], "a game played by rounds"),
        ([*HEADLESS, "--seats", "bot:rule,bot:rule", "--variant"], "a game with a variant"),
        (["host", "--game", "druids2004", "--bot", "cautious"], "does not play druids2004"),
        (
            ["peer", "--game", "druids2004", "--players", "5"],
            "--players must be 2, 3 or 4 for druids2004",
        ),
        (["peer", "--game", "chess"], "--game 'chess': unknown game"),
        (["play", "--game", "druids2004", "--lan"], "the terminal UI needs a terminal"),
        (["play", "--game", "druids2004", "--lan", "--offline"], "--lan is the LAN lobby"),
        (["play", "--game", "druids2004", "--lan", "--beacon-port", "0"], "--beacon-port must"),
        (["play", "--game", "druids2004", "--fingerprint", "ab"], "it goes with --lan"),
        (["play", "--offline"], "'druids2017' has no offline table"),
        (
            [*HEADLESS, "--seats", "bot:rule,bot:rule", "--offline"],
            "--offline is the terminal UI's",
        ),
        (["play", "--game", "druids2004", "--players", "3"], "the terminal UI needs a terminal"),
        (
            ["bench", "table", "--game", "druids2004", "--players", "5"],
            "--players must be 2, 3 or 4 for druids2004",
        ),
    ],
)
def test_lan_druids2004_bad_input_is_one_line_exit_2(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run_cli(args, capsys)
    assert code == 2, out + err
    assert words in err and len(err.strip().splitlines()) == 1, err
    assert not list(tmp_path.iterdir())


def test_druids2017_headless_seats_still_3_to_5(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["play", "--headless", "--seats", "bot:rule,bot:rule"], capsys)
    assert code == 2 and "--seats: a table has 3 to 5 seats, not 2" in err


def test_play_druids2004_seats_the_person_at_a_table_of_bot_peers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``druids play --game druids2004`` opens the terminal UI's local table of peers (the bots
    as peer processes on loopback, ``tui/launch.run_local``) for the 2004 game, as 2017's
    default does; what the table screen does there is the Pilot tests' (test_tui_2004_lan.py).
    Here the app, which needs a real terminal, is replaced by a recorder of what it was given."""
    import sys

    import druids_p2p.tui.launch as launch
    from druids_p2p.tui.bots import BotSeat

    asked: list[tuple[list[BotSeat], dict[str, Any]]] = []

    def run_local(identity: object, bots: list[BotSeat], **kw: Any) -> dict[str, Any]:
        asked.append((bots, kw))
        return {"result": {"finished": False}, "stopped": "you left the table"}

    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(launch, "run_local", run_local)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    workdir = tmp_path / "game"
    args = ["play", "--game", "druids2004", "--bots", "rule,random", "--workdir", str(workdir)]
    code, out, err = run_cli([*args, "--move-pause", "0.2"], capsys)
    assert code == 0, out + err
    ((bots, call),) = asked
    assert call["game"] == "druids2004" and call["folder"] == workdir
    assert [b.bot for b in bots] == ["rule", "random"]
    assert call["pacing"].move_s == 0.2
    assert "table stopped: you left the table" in out
