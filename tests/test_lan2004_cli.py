"""Bad input to the commands that put Druids (2004) at a table of peer processes: one line
naming the input, exit 2, before any process, socket or folder is made."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_harness import run_cli

HEADLESS = ["play", "--headless", "--game", "druids2004"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ([*HEADLESS, "--seats", "human,bot:rule"], "--seats human: a person cannot sit"),
        ([*HEADLESS, "--seats", "bot:rule"], "--seats: a table has 2 to 4 seats, not 1"),
        ([*HEADLESS, "--seats", ",".join(["bot:rule"] * 5)], "a table has 2 to 4 seats, not 5"),
        (
            [*HEADLESS, "--seats", "bot:cautious,bot:rule"],
            "bot 'cautious' does not play druids2004",
        ),
        ([*HEADLESS, "--seats", "bot:rule,bot:rule", "--rounds", "3"], "druids2017 options"),
        ([*HEADLESS, "--seats", "bot:rule,bot:rule", "--variant"], "druids2017 options"),
        (["host", "--game", "druids2004", "--bot", "cautious"], "does not play druids2004"),
        (["peer", "--game", "druids2004", "--players", "5"], "--players must be 2 to 4"),
        (["peer", "--game", "chess"], "--game 'chess': unknown game"),
        (["bench", "table", "--game", "druids2004", "--players", "5"], "--players must be 2 to 4"),
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
