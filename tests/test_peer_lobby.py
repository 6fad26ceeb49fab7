"""The direct-join path refuses targets that are not one host, before any connection."""

from __future__ import annotations

import pytest

from druids_p2p.lan.lobby import lobby_table_id, query_lobby
from druids_p2p.lan.peer_config import PeerError


@pytest.mark.parametrize(
    "target",
    ["255.255.255.255:4000", "0.0.0.0:4000", "224.0.0.1:4000", "239.1.2.3:1", "nohost", ":80"],
)
def test_query_lobby_refuses_non_host_targets(target: str) -> None:
    with pytest.raises(PeerError):
        query_lobby(target, timeout_s=0.1)


def test_lobby_offer_id_is_domain_separated() -> None:
    a, b = lobby_table_id(b"x" * 16), lobby_table_id(b"y" * 16)
    assert a != b and len(a) == 32
