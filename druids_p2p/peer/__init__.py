"""One peer's process at a table: the session, the runner that drives the table machine over the
mesh, its deadlines and liveness, its homes on disk, and going on, reseating or a rematch."""

from druids_p2p import table as _table  # registers the card table's bodies, as importing net did

__all__: list[str] = []
del _table
