"""Refuse to overwrite a file the model has not seen in its current state.

A model edits from what it last read. If the file changed since (a command it ran, a formatter,
the person in their editor), an edit or a whole-file write based on the old text silently undoes
that change. This middleware remembers, per agent, how each file looked when the model last read
or wrote it (modification time, size and inode), and refuses a write to an existing file whose
fingerprint differs, or that the model never read in this session:

    a tool that reads or writes succeeded  ->  remember the file's fingerprint
    a write to an existing file            ->  refused unless the fingerprint matches

Which tools read or write, and which input is the path, comes from each tool's declaration
(`Tool(..., reads="path")`, `Tool(..., writes="path")`, tools/base.py), never from its name.
Files are known by their canonical path: where the path leads, links resolved (tools/beneath.py).

The check here is repeated where it counts: what the guard accepted goes to the tool as the
call's `expected` fingerprints (tools/file_call.py), and the tool compares them with the file it
actually opened just before it replaces it. What the tool read or wrote comes back the same way,
so the fingerprint remembered is that of the file the model saw, not of whatever is at the path
a moment later. New files are never refused. The error tells the model to read the file again.
"""

from __future__ import annotations

import asyncio

from middleware.base import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    Middleware,
)
from tools.base import ToolError
from tools.beneath import Fingerprint, target_of
from tools.file_call import current_file_call, file_call
from tools.files import is_hidden_secret


class StaleWriteGuard(Middleware):
    """Refuse writes to files that changed since the model last saw them."""

    def __init__(self) -> None:
        self.seen: dict[str, Fingerprint] = {}  # canonical path -> what the model last saw

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, *, signal: asyncio.Event | None = None
    ) -> BeforeToolCallResult | None:
        call = file_call(ctx.tool_call["id"])
        path = _declared_path(ctx, "writes")
        if path is None:
            return None
        try:
            found = target_of(ctx.context.workspace, path)
        except (ToolError, OSError):
            return None  # the tool itself refuses it, with the reason
        target, now = found.relative, found.fingerprint
        name = ctx.tool_call["name"]
        # A secret the sandbox hides is never shown to the model, so "read it first" could not
        # be done: whether it may be written is the permission policy's to say, and the tool's.
        never_shown = is_hidden_secret(ctx.context.workspace, target)
        if now is not None and target not in self.seen and not never_shown:
            return BeforeToolCallResult(
                block=True,
                reason=(
                    f"{name}: {path} already exists and has not been read in this session, so "
                    "this would replace content you have not seen. Read it with read_file "
                    "first, then send the change again."
                ),
            )
        if now is not None and target in self.seen and self.seen[target] != now:
            return BeforeToolCallResult(
                block=True,
                reason=(
                    f"{name}: {path} changed on disk since you last read or wrote it (a command "
                    "or someone else changed it). Nothing was written. Read it again with "
                    "read_file, then send the change based on what is there now."
                ),
            )
        # The tool writes only if it finds this very file (or still no file) when it writes.
        call.expected = {target: now}
        return None

    async def after_tool_call(
        self, ctx: AfterToolCallContext, *, signal: asyncio.Event | None = None
    ) -> AfterToolCallResult | None:
        if ctx.is_error:
            return None
        call = current_file_call()
        if call is not None and call.call_id == ctx.tool_call["id"] and call.touched:
            self.seen.update(call.touched)  # what the tool itself opened
            return None
        # A tool that declares its path but does not report what it opened: look now.
        for kind in ("reads", "writes"):
            path = _declared_path(ctx, kind)
            if path is None:
                continue
            try:
                found = target_of(ctx.context.workspace, path)
            except (ToolError, OSError):
                continue
            if found.fingerprint is not None:
                self.seen[found.relative] = found.fingerprint
        return None  # observe only


def _declared_path(ctx: BeforeToolCallContext, kind: str) -> str | None:
    """The path input the called tool declares as `kind` ("reads" or "writes"), if any."""
    tool = ctx.context.tools.get(ctx.tool_call["name"])
    name = getattr(tool, kind, None)
    path = ctx.args.get(name) if name else None
    return path if isinstance(path, str) else None
