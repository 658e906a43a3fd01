"""Refuse to overwrite a file the model has not seen in its current state.

A model edits from what it last read. If the file changed since (a command it ran, a formatter,
the person in their editor), an edit or a whole-file write based on the old text silently undoes
that change. This middleware remembers, per agent, how each file looked when the model last read
or wrote it (modification time, size and inode), and refuses write_file and edit_file on an
existing file whose fingerprint differs, or that the model never read in this session:

    read_file / write_file / edit_file succeeded  ->  remember the file's fingerprint
    write_file / edit_file on an existing file     ->  refused unless the fingerprint matches

New files are never refused. The error tells the model to read the file again.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from middleware.base import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    Middleware,
)
from tools.base import ToolError
from tools.paths import safe_path

WATCHED_TOOLS = ("read_file", "write_file", "edit_file")
WRITING_TOOLS = ("write_file", "edit_file")

Fingerprint = tuple[int, int, int]


class StaleWriteGuard(Middleware):
    """Refuse write_file and edit_file on files that changed since the model last saw them."""

    def __init__(self) -> None:
        self.seen: dict[Path, Fingerprint] = {}

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, *, signal: asyncio.Event | None = None
    ) -> BeforeToolCallResult | None:
        name = ctx.tool_call["name"]
        target = _target(ctx)
        if name not in WRITING_TOOLS or target is None:
            return None
        now = _fingerprint(target)
        if now is None:
            return None  # a new file (or not a regular file: the tool says what is wrong)
        path = ctx.args["path"]
        if target not in self.seen:
            return BeforeToolCallResult(
                block=True,
                reason=(
                    f"{name}: {path} already exists and has not been read in this session, so "
                    "this would replace content you have not seen. Read it with read_file "
                    "first, then send the change again."
                ),
            )
        if self.seen[target] != now:
            return BeforeToolCallResult(
                block=True,
                reason=(
                    f"{name}: {path} changed on disk since you last read or wrote it (a command "
                    "or someone else changed it). Nothing was written. Read it again with "
                    "read_file, then send the change based on what is there now."
                ),
            )
        return None

    async def after_tool_call(
        self, ctx: AfterToolCallContext, *, signal: asyncio.Event | None = None
    ) -> AfterToolCallResult | None:
        target = _target(ctx)
        if ctx.tool_call["name"] in WATCHED_TOOLS and not ctx.is_error and target is not None:
            fingerprint = _fingerprint(target)
            if fingerprint is not None:
                self.seen[target] = fingerprint
        return None  # observe only


def _target(ctx: BeforeToolCallContext) -> Path | None:
    path = ctx.args.get("path") if ctx.tool_call["name"] in WATCHED_TOOLS else None
    if not isinstance(path, str):
        return None
    try:
        return safe_path(ctx.context.workspace, path)
    except ToolError:
        return None  # the tool itself refuses it


def _fingerprint(path: Path) -> Fingerprint | None:
    """What changes when a file's content is replaced: mtime (ns), size and inode."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    if not os.path.isfile(path):
        return None
    return status.st_mtime_ns, status.st_size, status.st_ino
