"""Answers worked out from your own files, kept while those files are as they were.

Some questions are asked before every command and cost a read of many files: which keys your
ssh and git configs name, which files your shell's start-up files source. A kept function
notes each file and folder it looks at (`looked_at`), and its answer stands while a `stat` of
each shows no change: an edit you make while planloop runs is seen at the next command.
"""

from __future__ import annotations

import contextvars
import functools
import glob
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

# The paths the answer being worked out now by a `kept_while_unchanged` function depends on
# (None: none is being worked out).
_LOOKED_AT: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "looked_at", default=None
)
# How long ago a file an answer depends on must have changed for the answer to be kept: a
# change made while it was read may leave the file's times where they were before (a coarse
# clock, a file system that keeps whole seconds).
SETTLED_NS = 2_000_000_000
MAX_KEPT_ANSWERS = 8

Answer = TypeVar("Answer")


def looked_at(*paths: str | Path) -> None:
    """Note that the answer being worked out (`kept_while_unchanged`) depends on what the
    files or folders `paths` hold, or on their not being there."""
    noted = _LOOKED_AT.get()
    if noted is not None:
        noted += map(str, paths)


def file_identity(path: str) -> tuple[int, ...] | None:
    """What tells a file or folder from itself once changed: its device, inode, size and
    times (a folder's change with each entry made, removed or renamed); None for nothing."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def pattern_folders(pattern: str) -> list[str]:
    """The folders whose entries decide what `pattern` matches: the one above each of its
    parts that holds a glob character, each that matches there."""
    parts = pattern.split("/")
    folders = []
    for at, part in enumerate(parts):
        if glob.has_magic(part):
            above = "/".join(parts[:at]) or "/"
            folders += glob.glob(above) if glob.has_magic(above) else [above]
    return folders


def kept_while_unchanged(function: Callable[..., Answer]) -> Callable[..., Answer]:
    """`function`, with its answer for the same arguments kept while every file and folder it
    looked at (`looked_at`) is as it was: a config you edit while planloop runs (an
    `IdentityFile` line for a key you just made, a git `credential.helper`, a file either
    includes) is read again before the next command, and an unchanged one costs a `stat` per
    file. An answer worked out from a file changed in the last SETTLED_NS is not kept. What
    a kept function looks at counts for the one that calls it too. The answer is shared:
    callers must not change it (return a tuple)."""
    kept: dict[object, tuple[tuple[str, ...], list[tuple[int, ...] | None], Answer]] = {}

    @functools.wraps(function)
    def answer(*args: object, **kwargs: object) -> Answer:
        key = (args, tuple(kwargs.items()))
        if (entry := kept.get(key)) and [file_identity(path) for path in entry[0]] == entry[1]:
            looked_at(*entry[0])
            return entry[2]
        started, noted = time.time_ns(), list[str]()
        token = _LOOKED_AT.set(noted)
        try:
            result = function(*args, **kwargs)
        finally:
            _LOOKED_AT.reset(token)
        paths = tuple(dict.fromkeys(noted))
        identities = [file_identity(path) for path in paths]
        looked_at(*paths)
        kept.pop(key, None)
        if all(found is None or found[-1] < started - SETTLED_NS for found in identities):
            if len(kept) >= MAX_KEPT_ANSWERS:
                kept.pop(next(iter(kept)), None)
            kept[key] = (paths, identities, result)
        return result

    answer.cache_clear = kept.clear  # type: ignore[attr-defined]
    return answer
