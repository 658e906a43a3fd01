"""The command-line flags, kept apart so that `--help` answers before the terminal code loads.

Nothing here imports more than argparse: `python agent.py --help` and a mistyped flag cost
a few milliseconds, not the time to load the SDK, rich and prompt_toolkit.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


class UsageError(Exception):
    pass


def command_name() -> str:
    """How the user started planloop, written so that pasting it into a shell runs it again.

    `planloop` if that is what the shell finds on its PATH; otherwise the path of the command
    that ran. A script keeps its path as given (`python ../planloop/agent.py`), since a
    resume happens in the same folder; the interpreter is `python` or `python3` when the
    shell would find this very one, else its full path (a virtual environment not active).
    """
    script = sys.argv[0] if sys.argv and sys.argv[0] else "planloop"
    if Path(script).name == "planloop":  # the installed command
        return "planloop" if same_program(shutil.which("planloop"), script) else shlex.quote(script)
    if Path(script).name != "agent.py":  # a program that embeds planloop's terminal
        return "planloop"
    on_path = [
        name for name in ("python", "python3") if same_program(shutil.which(name), sys.executable)
    ]
    python = on_path[0] if on_path else sys.executable
    return f"{shlex.quote(python)} {shlex.quote(script)}"


def same_program(found: str | None, path: str) -> bool:
    """True when the shell's `found` is `path` itself. Links are not followed: a virtual
    environment's python links to the system's, but only the one in the environment has its
    packages."""
    return found is not None and os.path.abspath(found) == os.path.abspath(path)


def planloop_version() -> str:
    """The version in pyproject.toml for a checkout, else the installed package's metadata.

    A checkout's own file comes first: an older planloop installed in the same environment
    must not answer for the code that is running.
    """
    import tomllib

    try:
        project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8")).get("project", {})
        if project.get("name") == "planloop" and project.get("version"):
            return str(project["version"])
    except (OSError, ValueError):
        pass
    from importlib import metadata

    try:
        return metadata.version("planloop")
    except metadata.PackageNotFoundError:
        return "unknown"


class VersionAction(argparse.Action):
    """--version: one line and exit 0; the version is looked up only when asked for."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print planloop's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"planloop {planloop_version()}")
        parser.exit()


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad flag is one line saying what to do (no usage block)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see: {command_name()} --help)")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineParser(prog=command_name(), description="A small coding agent with a plan.")
    parser.add_argument(
        "-p",
        "--print",
        dest="prompt",
        metavar="PROMPT",
        help="run one task headless ('-' reads it from stdin) and print the answer",
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        help="allow everything that would ask first (bash without the sandbox, protected paths)",
    )
    parser.add_argument(
        "--no-sandbox",
        dest="sandbox",
        action="store_false",
        help="run bash without the bubblewrap sandbox (commands then ask first)",
    )
    parser.add_argument(
        "--allow-network",
        action="store_true",
        help=(
            "let sandboxed commands use the IP network, this machine's own services on "
            "127.0.0.1 included (unix sockets stay closed)"
        ),
    )
    parser.add_argument(
        "--sandbox-allow-read",
        action="append",
        default=[],
        metavar="PATH",
        help="let sandboxed commands read this hidden secret (~/.ssh, ~/.aws, ...); repeatable",
    )
    parser.add_argument("--model", help="model id (default: $MODEL_ID or claude-sonnet-4-6)")
    parser.add_argument(
        "--max-turns",
        type=positive_int,
        default=200,
        metavar="N",
        help="model calls allowed per user input (default: 200)",
    )
    parser.add_argument(
        "--thinking",
        type=thinking_setting,
        metavar="{off,adaptive,N}",
        help="extended thinking: off, adaptive, or a budget of N tokens (at least 1024); "
        "default: adaptive for models that have it, else off",
    )
    parser.add_argument(
        "--context-window",
        type=positive_int,
        metavar="N",
        help="the model's context window in tokens (default: known per model, else 200000)",
    )
    parser.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="latest",
        metavar="ID",
        help="continue the latest (or the given) session of this folder",
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="write every request and reply to <session id>.trace.jsonl beside the session",
    )
    parser.add_argument(
        "--view",
        nargs="?",
        const="latest",
        metavar="SESSION",
        help="write an HTML page of the latest (or given) session and print its path",
    )
    parser.add_argument("--demo", action="store_true", help="play a scripted session offline")
    parser.add_argument("--version", action=VersionAction)
    parser.add_argument(
        "--output-format",
        choices=["text", "json", "stream-json"],
        default="text",
        help="headless: the answer as plain text; json: one JSON object with the answer, the "
        "session id, the stop reason, turns, tokens and the plan; stream-json: one JSON line "
        "per event, that object last",
    )
    return parser.parse_args(argv)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def thinking_setting(text: str) -> str | int:
    """--thinking: 'off', 'adaptive' or a token budget (the API's minimum is 1024)."""
    if text in ("off", "adaptive"):
        return text
    try:
        budget = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not off, adaptive or a number of tokens"
        ) from None
    if budget < 1024:
        raise argparse.ArgumentTypeError(f"a thinking budget must be at least 1024, not {budget}")
    return budget
