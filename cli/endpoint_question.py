"""The one question before an interactive start whose key would go to the workspace's endpoint.

A folder's `.env` may set `ANTHROPIC_BASE_URL` beside the key it holds (settings.py). Whether
that key is the folder's own or yours cannot be told from the file: a repository's committed
template asks you to fill in `ANTHROPIC_API_KEY=` and names its own endpoint further down. So
the endpoint is used only once you have said yes to it, in a terminal, for this folder:

    this folder's .env sends your key and this conversation to https://proxy.example: use it?
    [y]es / [n]o:  y      --> remembered in planloop's home, not asked again here

A "no" (or no terminal to ask in) ends the start with nothing sent; a headless run never asks
and refuses the same way (`require_confirmed_endpoint`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.text import Text

from cli.sanitize import visible
from settings import BASE_URL, SettingsError, confirm_endpoint, read_settings, shown_endpoint


def confirm_workspace_endpoint(workspace: Path, console: Console) -> None:
    """Ask once whether the endpoint of `workspace`'s .env may have the key and the
    conversation; remember a yes, raise SettingsError on a no. Nothing is asked when there is
    no such endpoint, it is confirmed already, or stdin is not a terminal (the agent then
    refuses with what to do)."""
    settings = read_settings(workspace)  # a .env it cannot read is reported by the agent too
    url = settings.unconfirmed_endpoint
    if url is None or not sys.stdin.isatty():
        return
    question = (
        f"{workspace / '.env'} sets {BASE_URL}: this folder's .env sends your key and this "
        "conversation (what you type, the files read, the commands' output) to "
        f"{shown_endpoint(url)}. Use it? "
        "Only say yes if you chose this endpoint yourself."
    )
    console.print(Text(visible(question), style="yellow"))
    while True:
        sys.stdout.write("[y]es / [n]o: ")
        sys.stdout.flush()
        answer = sys.stdin.readline()
        if not answer or answer.strip().lower() in ("n", "no"):  # end of input counts as no
            raise SettingsError(
                f"not using {shown_endpoint(url)}; nothing was sent. Remove {BASE_URL} from "
                f"{workspace / '.env'}, or set {BASE_URL} in your own environment."
            )
        if answer.strip().lower() in ("y", "yes"):
            path = confirm_endpoint(workspace, url)
            console.print(Text(f"Remembered in {path}; not asked again here.", style="dim"))
            return
        console.print(Text("Please type y or n.", style="yellow"))
