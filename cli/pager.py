"""Paging a long text: a tool call's whole result (/output), a background task's output
(/tasks show).

    page(console, text)
      --> $PAGER, as the person set it in their own environment (trusted)
      --> else `less -FRX` where it is installed
          (either found outside the workspace, and started without planloop's key)
      --> else, or when the output is not a terminal, printed as it is

The text is untrusted (a command's output, a file's contents). It is made visible
(cli/sanitize.py) before any pager sees it, so no escape sequence in it reaches the terminal,
whichever pager shows it. The pager runs as a child process while the event loop waits for it,
so background tasks go on meanwhile; Ctrl-C or SIGTERM ends the pager (`page_for`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from cli.sanitize import visible
from middleware import CancelSignal, Interrupted
from tools.environment import command_environment, host_program

if TYPE_CHECKING:
    from agent import Agent

# -F: quit at once when the text fits on one screen; -R: keep colours; -X: leave what was
# shown on the screen after quitting (git pages with the same three).
FALLBACK_PAGER = ["less", "-FRX"]


def pager_command(workspace: Path | None = None) -> list[str] | None:
    """The pager to run: $PAGER (words split as a shell would), else less, else None.

    The program is looked up outside the workspace (tools/environment.py `host_program`): a
    PATH entry in the workspace, such as an activated `.venv/bin`, may hold a `less` that a
    sandboxed command planted, and the pager runs outside the sandbox.
    """
    configured = os.environ.get("PAGER", "").strip()
    try:
        command = shlex.split(configured) if configured else list(FALLBACK_PAGER)
    except ValueError:  # unbalanced quotes: print instead
        return None
    program = host_program(command[0], workspace) if command else None
    return [program, *command[1:]] if program else None


async def page(console: Console, text: str, workspace: Path | None = None) -> None:
    """Show `text` one screen at a time in the pager (made visible first); print it without one."""
    shown = visible(text)
    if not shown.endswith("\n"):
        shown += "\n"
    command = pager_command(workspace) if console.is_terminal else None
    if command is not None:
        try:
            # A command's environment: no key, no LD_PRELOAD and kin (tools/environment.py).
            # The pager is a program of the person's, but it may start others (an editor),
            # and unlike planloop it can be read by any process of the same user.
            pager = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.PIPE, env=command_environment(sandboxed=False)
            )
        except OSError as err:
            warning = f"! The pager {command[0]} did not start ({err}); here is the text."
            console.print(Text(visible(warning), style="yellow"))
        else:
            try:
                # A pager quit before the end closes its input: that is no error.
                await pager.communicate(shown.encode("utf-8", errors="replace"))
            except asyncio.CancelledError:
                with contextlib.suppress(ProcessLookupError):
                    pager.kill()
                await pager.wait()
                raise
            return
    console.file.write(shown)
    console.file.flush()


async def page_for(agent: Agent, console: Console, text: str) -> None:
    """`page` for a slash command: Ctrl-C or SIGTERM (which reach `agent.cancel`) end it."""
    agent.context.signal = CancelSignal()  # a Ctrl-C of an earlier run must not end this one
    with contextlib.suppress(Interrupted):
        await agent.until_cancelled(page(console, text, agent.workspace))
