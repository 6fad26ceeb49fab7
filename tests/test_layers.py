"""The layer arrows at run time: the network layer gets its bot players from its caller."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from druids_p2p.cli.bot_player import BotPlayer, bot_player
from druids_p2p.net.peer import PeerConfig, PeerError, make_player
from druids_p2p.wire import Identity


def _config(tmp_path: Path, player: str, **kwargs: Any) -> PeerConfig:
    return PeerConfig(home=tmp_path, identity=Identity.generate("me"), player=player, **kwargs)


def test_a_peer_given_no_bot_players_refuses_a_bot_seat(tmp_path: Path) -> None:
    with pytest.raises(PeerError, match="'bot:random': this peer was given no bot players"):
        make_player(_config(tmp_path, "bot:random"), b"seed")


def test_the_cli_bot_players_build_the_named_bot(tmp_path: Path) -> None:
    player = make_player(_config(tmp_path, "bot:random", bot_players=bot_player), b"seed")
    assert isinstance(player, BotPlayer) and player.name == "random"
    with pytest.raises(PeerError, match=r"no bot named .nobody. \(known: .*random"):
        make_player(_config(tmp_path, "bot:nobody", bot_players=bot_player), b"seed")
