"""Run surviving mutants again, one fresh process each, with the tests of today's checkout.

    python bench/mutation_confirm.py [GLOB ...]      e.g. 'todo.manager.*'  (default: all)

mutmut runs each mutant in a process forked from the one that ran the whole selection once;
a mutant can survive there that a fresh `pytest` process kills (seen in this project). This
script repeats each survivor in a fresh process, with the tests mutmut found for it plus every
tests/test_mutants_*.py of the checkout (copied in first, so new tests can be tried against
the mutants of the last run without running mutmut again), and says which still survive.
bench/mutation.sh --confirm calls it in the folder of the last run.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def survivors(work: Path) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "mutmut", "results"], cwd=work, capture_output=True, text=True
    ).stdout
    return [line.split(":")[0].strip() for line in out.splitlines() if line.endswith(": survived")]


def tests_for(work: Path, mutant: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "mutmut", "tests-for-mutant", mutant],
        cwd=work,
        capture_output=True,
        text=True,
    ).stdout
    return [line.strip() for line in out.splitlines() if line.startswith("tests/")]


def main() -> None:
    work = Path(os.environ.get("MUTATION_DIR", "/tmp/planloop-mutation"))
    mutants = work / "mutants"
    for test_file in (ROOT / "tests").glob("test_mutants_*.py"):
        shutil.copy(test_file, mutants / "tests" / test_file.name)
    extra = sorted(f"tests/{p.name}" for p in (ROOT / "tests").glob("test_mutants_*.py"))
    patterns = sys.argv[1:] or ["*"]
    chosen = [m for m in survivors(work) if any(fnmatch.fnmatch(m, p) for p in patterns)]
    still = []
    for mutant in chosen:
        tests = tests_for(work, mutant) + extra
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
            cwd=mutants,
            env={**os.environ, "MUTANT_UNDER_TEST": mutant},
            capture_output=True,
            text=True,
        )
        verdict = "survives" if run.returncode == 0 else "killed"
        if run.returncode == 0:
            still.append(mutant)
        print(f"{verdict:9} {mutant}", flush=True)
    print(f"\n{len(chosen) - len(still)} of {len(chosen)} killed in a fresh process")


if __name__ == "__main__":
    main()
