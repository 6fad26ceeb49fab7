"""The README's test command is the one CI runs: .ci/run ends with it, character for character."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_test_command() -> str:
    """The one line of the bash block under README's "Set up and run the tests" heading."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Set up and run the tests", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


def test_ci_runs_the_readme_test_command_last() -> None:
    lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip()]
    assert lines[-1] == readme_test_command()


def test_the_readme_test_command_runs_the_whole_suite_on_three_workers() -> None:
    """Three xdist workers on the two cores keep the whole suite under ten minutes (the
    real-process tests mostly wait on peers and deadlines, so two leave a core idle); pyproject's
    ``--dist loadgroup`` keeps each ``xdist_group`` (the netns fault suite) on one worker."""
    command = readme_test_command()
    assert command.endswith("python3 -m pytest -q -n 3"), command
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "--dist loadgroup" in pyproject["tool"]["pytest"]["ini_options"]["addopts"]


MODULES_BEFORE_THE_LAYOUT = 251
"""Issue 30: the package's module count before its layout by job; the rule is a third fewer."""


def test_no_module_is_over_500_lines_and_the_package_keeps_a_third_fewer_modules() -> None:
    modules = sorted((ROOT / "druids_p2p").rglob("*.py"))
    long = [
        (str(m.relative_to(ROOT)), n)
        for m in modules
        if (n := len(m.read_text().splitlines())) > 500
    ]
    assert not long, long
    assert len(modules) <= MODULES_BEFORE_THE_LAYOUT * 2 // 3, len(modules)
