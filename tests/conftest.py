"""Suite-wide scheduling for parallel runs (README's command runs ``pytest -n 2``).

With ``--dist loadgroup`` (pyproject's addopts) xdist hands out work units in collection order,
after the ``xdist_group`` groups (largest first). Left in file order, a long real-process test
collected late (the TUI's e2e files sort last) starts when the other worker is already idle and
the run waits for it alone. So on xdist workers the long tiers (``slow``, ``e2e``, ``netns``) are
collected first and the short tests fill the gaps at the end. The order within each tier is the
file order, and a run without ``-n`` keeps the plain file order.
"""

from __future__ import annotations

import pytest

LONG_TIERS = ("slow", "e2e", "netns")


def _is_long(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(name) is not None for name in LONG_TIERS)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Long tiers first on xdist workers (every worker sorts alike: the collections must match)."""
    if not hasattr(config, "workerinput"):
        return
    items.sort(key=lambda item: not _is_long(item))  # stable: file order within each tier
