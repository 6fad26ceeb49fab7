"""Import every command module so that each registers its commands on the app."""

from druids_p2p.cli import bench_cmd, demo_cmd, replay_cmd  # noqa: F401
