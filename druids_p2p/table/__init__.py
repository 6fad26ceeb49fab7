"""The table machine: one peer's pure view of a seated table (no sockets, no clock), its steps,
the moves it takes and the codec that puts the mental card table's bodies on the wire."""

from druids_p2p.table import codec as _codec  # registers the card table's bodies

__all__: list[str] = []
del _codec
