"""Sessions: the conversation and the middlewares' state, saved after every step.

A session is one JSON file holding `messages` (exactly what the API saw) and `extra` (the
checkpointed state, such as the todo list). It is rewritten atomically after each turn, so
a crash or Ctrl-C loses at most the step in flight, and `--resume` picks it up again.

Files live outside the project, in ~/.planloop/sessions/<workspace>/ (PLANLOOP_HOME moves
the root), so they never show up in the user's repository.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from pathlib import Path
from typing import Any

from tools.files import write_atomically

FORMAT_VERSION = 1


def planloop_home() -> Path:
    return Path(os.environ.get("PLANLOOP_HOME") or Path.home() / ".planloop")


def sessions_dir(workspace: Path) -> Path:
    """One folder per workspace, named after its path so it can be found by eye."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", str(workspace.resolve())).strip("-")
    return planloop_home() / "sessions" / slug


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


class SessionError(Exception):
    """A session that cannot be found, read or written; str() says what to do."""


class Session:
    def __init__(self, workspace: Path, session_id: str | None = None) -> None:
        self.workspace = workspace
        self.id = session_id or new_session_id()
        self.path = sessions_dir(workspace) / f"{self.id}.json"

    def save(self, agent: Any) -> None:
        """Write messages and extra to disk atomically (temporary file, then rename).

        Raises SessionError when the folder cannot be written.
        """
        data = {
            "version": FORMAT_VERSION,
            "id": self.id,
            "workspace": str(self.workspace),
            "model": agent.model,
            "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "messages": agent.messages,
            "extra": agent.extra,
        }
        try:
            # Conversations can hold secrets from the project: keep the folder private.
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_atomically(self.path, json.dumps(data, ensure_ascii=False).encode("utf-8"))
        except OSError as err:
            raise SessionError(
                f"Cannot save the session in {self.path.parent} ({err.strerror or err}). "
                "Set PLANLOOP_HOME to a folder you can write."
            ) from None

    def load_into(self, agent: Any) -> None:
        """Replace the agent's conversation and state with the saved ones."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise SessionError(f"No session {self.id!r} for this folder.") from None
        except (OSError, ValueError) as err:
            raise SessionError(f"Session file {self.path} cannot be read: {err}") from None
        agent.messages[:] = data.get("messages", [])  # in place: the agent context shares the list
        agent.extra.clear()
        agent.extra.update(data.get("extra", {}))

    @classmethod
    def latest(cls, workspace: Path) -> Session:
        """The most recently saved session of this workspace."""
        files = sorted(sessions_dir(workspace).glob("*.json"), key=lambda p: p.stat().st_mtime)
        if not files:
            raise SessionError("There is no saved session for this folder yet.")
        return cls(workspace, files[-1].stem)
