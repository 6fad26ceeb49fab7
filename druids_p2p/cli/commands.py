"""Import every command module so that each registers its commands on the app."""

import druids_p2p.cli.tables_cmd  # noqa: F401  (net layer: discovery)
from druids_p2p.cli import bench_cmd, demo_cmd, replay_cmd  # noqa: F401

from . import audit_cmd, bench_wire, id_cmd  # noqa: F401  (wire layer commands)
