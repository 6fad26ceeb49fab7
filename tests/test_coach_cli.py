"""The coach's switch where a person plays against bots (issue 32): ``druids play`` seats you at a
table of your bots with the coach on, and ``--no-coach`` leaves it off (the signed options then
have no ``coach``); ``druids host`` has it off unless ``--coach``, and takes ``--no-coach`` too.
``--no-coach`` where there is no table of yours to turn it off at (``--headless``, ``--lan``,
``--offline``) is a one-line error, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from cli_harness import run_cli

from druids_p2p.cli import play_ui
from druids_p2p.tui import launch, player
from druids_p2p.tui.bots import bot_seats


def test_play_has_the_coach_on_and_no_coach_turns_it_off(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    monkeypatch.setattr(play_ui, "play_ui", lambda opts: seen.append(opts.coach))
    for args in ([], ["--no-coach"], ["--coach"]):
        code, _, err = run_cli(["play", *args], capsys)
        assert code == 0, err
    assert seen == [True, False, True]


@pytest.mark.parametrize("where", ["--headless", "--lan", "--offline"])
def test_no_coach_where_there_is_no_table_of_yours_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], where: str
) -> None:
    code, out, err = run_cli(["play", "--no-coach", where], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--no-coach" in err, err


class _Stop(Exception):
    pass


@pytest.mark.parametrize("coach", [True, False])
def test_the_local_table_carries_the_choice_into_its_signed_options(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, coach: bool
) -> None:
    """``run_local`` (what ``druids play`` opens) founds the table with the coach as chosen."""
    made: list[Any] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        made.append(real(*args, **kwargs))
        raise _Stop

    real = player.local_table
    monkeypatch.setattr(player, "local_table", spy)
    with pytest.raises(_Stop):
        launch.run_local(
            None,
            bot_seats(["rule", "rule"]),
            rounds=1,
            variant=False,
            budget_ms=100.0,
            folder=tmp_path,
            coach=coach,
        )
    assert bool(getattr(made[0].host.options, "coach", False)) is coach


def test_host_takes_no_coach() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "host", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert "--coach" in shown.stdout and "--no-coach" in shown.stdout, shown.stdout
