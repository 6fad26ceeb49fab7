"""``pip install -e '.[dev]'`` brings everything the suite imports: no test skips for a missing
dev dependency (a skip would hide a feature that is never tested, like ``--plot``)."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Imported by tests (directly or through the code they test) but not by druids_p2p itself at run
# time: each must come with the dev extra. Name as imported -> name as installed.
TEST_ONLY = {
    "pytest": "pytest",
    "hypothesis": "hypothesis",
    "xdist": "pytest-xdist",
    "pytest_timeout": "pytest-timeout",
    "matplotlib": "matplotlib",
    "distributed": "dask",
}


def _dev_extra() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = project["optional-dependencies"]["dev"]
    return {re.split(r"[<>=!~\[; ]", name, maxsplit=1)[0].lower() for name in names}


def test_the_dev_extra_lists_every_test_dependency() -> None:
    missing = {dist for dist in TEST_ONLY.values() if dist not in _dev_extra()}
    assert not missing, f"add to [project.optional-dependencies] dev: {sorted(missing)}"


def test_every_test_dependency_is_installed() -> None:
    absent = [name for name in TEST_ONLY if importlib.util.find_spec(name) is None]
    assert not absent, f"pip install -e '.[dev]' did not bring {absent}"


def test_no_test_skips_for_a_missing_module() -> None:
    """``importorskip`` of a third-party module makes a missing dev dependency a silent skip."""
    offenders = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for m in re.finditer(r"importorskip\(\s*[\"']([\w.]+)", path.read_text()):
            if not m.group(1).startswith("druids_p2p"):
                offenders.append(f"{path.name}: {m.group(1)}")
    assert not offenders, offenders
