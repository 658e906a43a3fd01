"""What `pip install .` puts on a machine: every module and package the program imports."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_top_level_module_and_package_is_installed():
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    modules = {path.stem for path in ROOT.glob("*.py")}
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "bench"}
    # A module left out installs fine and then fails at the first import (`planloop --help`).
    assert set(setup["py-modules"]) == modules
    assert set(setup["packages"]) == packages


def test_every_module_imports_on_its_own():
    # A cycle between modules shows only when the wrong one is imported first: the key-copy
    # search's child process starts from tools.key_copies, a program embedding planloop from
    # whichever module it needs.
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "bench"}
    names = [path.stem for path in ROOT.glob("*.py")]
    names += [
        f"{package}.{path.stem}".removesuffix(".__init__")
        for package in packages
        for path in (ROOT / package).glob("*.py")
    ]

    def imported(name: str) -> tuple[str, str]:
        done = subprocess.run(
            [sys.executable, "-c", f"import {name}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return name, done.stderr.strip().splitlines()[-1] if done.returncode else ""

    with ThreadPoolExecutor(4) as pool:
        failed = {name: error for name, error in pool.map(imported, sorted(names)) if error}
    assert failed == {}
