"""What a seated table's runner needs of the network: the :class:`MeshPort` protocol.

The runner (``peer/runner.py``) and its links (``peer/links.py``) reach the other seats only
through these five methods; :class:`~druids_p2p.lan.mesh.Mesh` (ZeroMQ) provides them, and so do
the tests' in-memory meshes (``tests/attack_arena.py``), which mypy checks against this protocol.
The lobby (``lan/lobby.py``) needs a little more: :class:`LobbyMesh`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import zmq

from druids_p2p.lan.mesh import Inbound
from druids_p2p.lan.network import TableNetwork


class MeshPort(Protocol):
    """One peer's links to the other seats of its table."""

    def send(self, peer_id: bytes, payload: bytes, both_links: bool = False) -> bool:
        """Queue a message to one peer (``both_links``: also over its link to us); False if it
        could not be queued (it will be resent)."""

    def broadcast(self, payload: bytes, exclude: Iterable[bytes] = ()) -> None:
        """Queue a message to every linked peer but ``exclude``."""

    def poll(self, timeout_ms: int, limit: int = 256) -> list[Inbound]:
        """What arrived, waiting at most ``timeout_ms`` for the first, at most ``limit``."""

    def connect(self, peer_id: bytes, endpoint: str, curve_public_raw: bytes) -> None:
        """Link to a peer's inbox at ``endpoint``, authenticating its CURVE key."""

    def close_gate(self, raw_keys: Iterable[bytes]) -> None:
        """From now on, hear only from the links of these CURVE keys."""


class LobbyMesh(MeshPort, Protocol):
    """What the lobby and a joiner need besides: where this peer is reached, its network's
    rules, the context to open the lobby socket in, and replies before a link exists."""

    endpoint: str
    network: TableNetwork
    ctx: zmq.Context[zmq.Socket[bytes]]

    @property
    def curve_public_raw(self) -> bytes: ...

    def reply(self, routing_id: bytes, payload: bytes) -> None:
        """Answer on the inbox whoever sent ``routing_id`` (a lobby refusal)."""

    def watch_dealer(self, peer_id: bytes) -> None:
        """Also poll the link to ``peer_id`` for replies (the host answers a joiner there)."""


__all__ = ["LobbyMesh", "MeshPort"]
