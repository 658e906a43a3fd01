#!/usr/bin/env bash
# Mutation testing of the loop, the plan, the middlewares and the path checks.
#
#     bench/mutation.sh                      every mutant of the configured files
#     bench/mutation.sh 'tools.paths.*'      only the mutants whose names match (mutmut globs)
#     bench/mutation.sh --summary            print the summary of the last run again
#     bench/mutation.sh --confirm [GLOB ...] run the last run's survivors again, each in a fresh
#                                            process, with today's tests/test_mutants_*.py
#
# mutmut (pip install mutmut, version 3) changes one small thing in the code at a time (a
# comparison, a constant, a call argument) and runs the tests that reach the changed function.
# A mutant that no test notices ("survived") marks behaviour that nothing checks.
# The files to mutate and the tests to run are in pyproject.toml under [tool.mutmut]: only fast
# in-process tests, since each mutant runs them again.
#
# The run happens in a copy of the tree ($MUTATION_DIR, /tmp/planloop-mutation by default), so
# the checkout stays untouched; mutmut keeps its results there and a second run only checks
# what changed. It runs at the lowest priority with one worker ($MUTATION_WORKERS to change).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
WORK=${MUTATION_DIR:-/tmp/planloop-mutation}
WORKERS=${MUTATION_WORKERS:-1}

if ! "$PYTHON" -c 'import mutmut, sys; sys.exit(int(mutmut.__version__.split(".")[0]) < 3)' 2>/dev/null; then
    echo "mutmut 3 is needed: $PYTHON -m pip install 'mutmut>=3'" >&2
    exit 2
fi

summary() {
    (cd "$WORK" && "$PYTHON" -m mutmut results --all true) | "$PYTHON" "$ROOT/bench/mutation_summary.py"
    echo "(folder of the run: $WORK)"
}

if [[ ${1:-} == --confirm ]]; then
    shift
    MUTATION_DIR=$WORK nice -n 19 "$PYTHON" "$ROOT/bench/mutation_confirm.py" "$@"
    exit 0
fi

if [[ ${1:-} == --summary ]]; then
    summary
    exit 0
fi

# Copy the tracked and new files, keeping mutmut's own results from an earlier run.
mkdir -p "$WORK"
find "$WORK" -mindepth 1 -maxdepth 1 ! -name mutants -exec rm -rf {} +
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard) |
    (cd "$ROOT" && tar --null -cf - -T - 2>/dev/null) | (cd "$WORK" && tar -xf -)

cd "$WORK"
nice -n 19 "$PYTHON" -m mutmut run --max-children "$WORKERS" "$@" || true
summary
