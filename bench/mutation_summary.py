"""Summarise `mutmut results --all true` (read on stdin): killed and survived per module.

    mutmut results --all true | python bench/mutation_summary.py

bench/mutation.sh calls this after each run. Mutants not run yet count as "not checked".
"""

from __future__ import annotations

import collections
import re
import sys

COLUMNS = ["killed", "survived", "no tests", "timeout", "suspicious", "not checked"]


def module_of(mutant: str) -> str:
    """The dotted module of a mutant name such as `todo.manager.xǁTodoManagerǁupdate__mutmut_3`."""
    head, _, _ = mutant.partition(".x")
    return head


def main() -> None:
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    survivors = []
    for line in sys.stdin:
        match = re.match(r"\s*(\S+): (.+)$", line)
        if not match:
            continue
        name, status = match.groups()
        counts[module_of(name)][status] += 1
        if status == "survived":
            survivors.append(name)

    print("module".ljust(24) + "".join(c.rjust(13) for c in COLUMNS) + "score".rjust(8))
    for module in sorted(counts):
        row = counts[module]
        caught = row["killed"] + row["timeout"]
        checked = caught + row["survived"]
        score = f"{100 * caught / checked:.0f}%" if checked else "-"
        print(module.ljust(24) + "".join(str(row[c]).rjust(13) for c in COLUMNS) + score.rjust(8))
    if survivors:
        print("\nsurvived (show one with `mutmut show NAME` in the run's folder):")
        for name in survivors:
            print("  " + name)


if __name__ == "__main__":
    main()
