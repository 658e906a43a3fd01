"""The terminal front end of planloop.

    python agent.py                 interactive: streamed answers, live checklist, approvals
    python agent.py -p "TASK"       headless: progress on stderr, the answer on stdout
    python agent.py --resume [ID]   go on with a saved session of this folder

`app` reads the flags and builds the agent, `prompt` runs the interactive session, and
`render` decides what the user sees. Only this package prints.
"""

import contextlib
import sys


def main(argv: list[str] | None = None) -> None:
    """Run planloop; `--help` and `--version` are answered by the flags alone, before anything
    heavy loads."""
    argv = sys.argv[1:] if argv is None else argv
    if "-h" in argv or "--help" in argv or "--version" in argv:
        from cli.flags import UsageError, parse_args

        # Prints the help (or the version) and exits; a mistake next to --help is reported
        # below, as usual.
        with contextlib.suppress(UsageError):
            parse_args(argv)
    from cli.app import main as run_main

    run_main(argv)


def run_cli(argv: list[str] | None = None) -> int:
    """Run planloop and return its exit code instead of exiting (for tests and embedding)."""
    from cli.app import run_cli as run

    return run(argv)


__all__ = ["main", "run_cli"]
