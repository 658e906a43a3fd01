"""What `pip install .` puts on a machine: every module and package the program imports."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_top_level_module_and_package_is_installed():
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    modules = {path.stem for path in ROOT.glob("*.py")}
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "bench"}
    # A module left out installs fine and then fails at the first import (`planloop --help`).
    assert set(setup["py-modules"]) == modules
    assert set(setup["packages"]) == packages
