"""Suite-wide scheduling for parallel runs (README's command runs ``pytest -n 2``).

With ``--dist loadgroup`` (pyproject's addopts) xdist hands out work units in collection order,
after the ``xdist_group`` groups (largest first). Left in file order, a long real-process test
collected late (the TUI's e2e files sort last) starts when the other worker is already idle and
the run waits for it alone. So on xdist workers the long tiers (``slow``, ``e2e``, ``netns``) are
collected first and the short tests fill the gaps at the end. The order within each tier is the
file order, and a run without ``-n`` keeps the plain file order.
"""

from __future__ import annotations

import signal
import warnings
from collections.abc import Iterator

import pytest

LONG_TIERS = ("slow", "e2e", "netns")


def _is_long(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(name) is not None for name in LONG_TIERS)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Long tiers first on xdist workers (every worker sorts alike: the collections must match)."""
    if not hasattr(config, "workerinput"):
        return
    items.sort(key=lambda item: not _is_long(item))  # stable: file order within each tier


@pytest.fixture(autouse=True)
def _ctrl_c_is_not_ignored(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test starts with Ctrl-C handled as Python's default, and leaves it so.

    A disposition of SIGINT set to "ignore" in a worker's process (by a test, or a library it
    runs in-process) is inherited by every process the later tests on that worker start: the
    Ctrl-C tests of real ``druids`` processes then see their SIGINT ignored and the command play
    on to its end. So it is put back, and the test that changed it is named in a warning."""
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        warnings.warn(f"{request.node.nodeid} left SIGINT changed; restored", stacklevel=1)
