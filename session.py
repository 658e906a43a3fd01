"""Sessions: the conversation as an append-only log, one JSON Lines file per session.

    agent.messages --sync--> only what is new --> <sessions folder>/<id>.jsonl
                                                  {"v": 1, "type": "start", ...}
                                                  {"v": 1, "type": "message", "message": ...}
                                                  {"v": 1, "type": "blocks", "blocks": [...]}
                                                  {"v": 1, "type": "extra", "extra": {...}}
                                                  {"v": 1, "type": "note", "text": "..."}
                                                  {"v": 1, "type": "undo", "event": ...}

Each record is written and flushed to the operating system as soon as it exists, so a killed
process loses nothing that had finished; `sync_to_disk` (fsync) runs at the end of a run,
not per record. Replaying `message` and `blocks` records in order rebuilds the messages
exactly; the last `extra` record is the checkpointed state; `undo` records hold what /undo
needs (each file's content before an input first changed it, middleware/undo.py). Saving a
step costs the same at step 10 and at step 1,000, because nothing already written is written
again.

Files live outside the project, in ~/.planloop/sessions/<end of the workspace path>-<hash>/
(PLANLOOP_HOME moves the root), and a log whose start record names another folder is not
continued. One process writes a session at a time (an advisory lock); API keys are redacted
from every record. Sessions in the older single-JSON format (<id>.json) still load.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import json
import os
import re
import secrets
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conversation import close_unanswered_calls, unanswered_calls
from redaction import redact, secret_values
from todo.manager import STORED_STATUSES

FORMAT_VERSION = 1
LEGACY_VERSION = 1  # the single-JSON format (<id>.json) written before the log
SESSION_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{4}")
READABLE_CHARS = 40  # of the workspace path, at the start of its sessions folder's name
HASH_CHARS = 16  # hex digits of the path's SHA-256: 64 bits, no two real folders collide
START_RECORD_MAX_BYTES = 64 * 1024  # a start record is a few hundred bytes
STOPPED_MID_CALL = (
    "The planloop process stopped before this call finished; it may or may not have run. "
    "Check its effects before repeating it."
)


def planloop_home() -> Path:
    """Set only in your environment: a workspace's .env cannot move it (settings.py)."""
    return _resolved_home(os.environ.get("PLANLOOP_HOME") or str(Path.home() / ".planloop"))


@functools.lru_cache(maxsize=8)
def _resolved_home(given: str) -> Path:
    """The folder `given` names, resolved once: a relative path or a link on the way that
    changes later (a command's `ln -sfn`) does not move the home of this run."""
    return Path(os.path.realpath(given))


def make_private_folder(folder: Path) -> None:
    """Create `folder` inside planloop's home; the home itself is made, or tightened, to 0700.

    The home holds every conversation, the prompt history and the output of tasks: what you
    typed and what the model read. No other user of the machine may list or read it.
    """
    home = planloop_home()
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    if home.stat().st_mode & 0o077:  # made by an earlier version, or by hand
        with contextlib.suppress(OSError):
            home.chmod(0o700)
    # Another user's folder on the way (the home, or one made in it while it was open to all):
    # they could plant a session for --resume, or a lock file that is a link to a file of yours.
    _require_yours(home)  # before anything of yours is put there
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    inside = folder.relative_to(home) if folder.is_relative_to(home) else Path(".")
    for each in [*(home / part for part in reversed(inside.parents)), folder]:
        _require_yours(each)


def _require_yours(folder: Path) -> None:
    owner = folder.stat().st_uid
    if owner != os.geteuid():
        raise PermissionError(errno.EPERM, f"{folder} belongs to another user (uid {owner})")


def write_private_json(path: Path, record: dict, prefix: str) -> None:
    """Write `record` to `path` in planloop's home: a new file (0600 from mkstemp) renamed over
    the old one, so it is never half written and never shared."""
    make_private_folder(path.parent)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(record, file, indent=1)
            file.write("\n")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def sessions_dir(workspace: Path) -> Path:
    """One folder per workspace: the end of its path, to find it by eye, and a hash of all of it.

    The readable part alone is not unique (`/x/client-api` and `/x/client/api` give the same
    one); the hash of the exact path keeps two projects' sessions apart.
    """
    path = workspace.resolve()
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", str(path)).strip("-")[-READABLE_CHARS:]
    digest = hashlib.sha256(os.fsencode(path)).hexdigest()[:HASH_CHARS]
    return planloop_home() / "sessions" / f"{slug.lstrip('-.')}-{digest}"


def older_sessions_dir(workspace: Path) -> Path:
    """Where planloop kept a workspace's sessions before the folder name held a hash.

    Several workspaces may share it, so a session found there counts only if its start
    record names this very workspace.
    """
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", str(workspace.resolve())).strip("-")
    return planloop_home() / "sessions" / slug


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


class SessionError(Exception):
    """A session that cannot be found, read, locked or written; str() says what to do."""


class Session:
    """One session's log file: lock it, load it, then `sync` the agent's state after each step."""

    def __init__(self, workspace: Path, session_id: str | None = None) -> None:
        if session_id is not None and not SESSION_ID.fullmatch(session_id):
            raise SessionError(
                f"No session {session_id!r} for this folder: session ids look like "
                f"{new_session_id()}.{recent_ids_hint(workspace)}"
            )
        self.workspace = workspace = Path(workspace).resolve()
        self.id = session_id or new_session_id()
        folder = session_folder(workspace, self.id)
        self.path = folder / f"{self.id}.jsonl"
        self.legacy_path = folder / f"{self.id}.json"
        self.notes: list[str] = []  # what loading found worth telling the user
        self._file: Any = None  # the append handle, opened on the first write
        self._lock: Any = None
        self._good_size: int | None = None  # bytes of whole records; a torn tail is cut off
        self._written_messages = 0
        self._last_blocks: list = []  # the written blocks of the last written message
        self._written_extra: str | None = None
        # The undo records of this session, read back on load and added as they come: a log
        # written whole again (after a failed write) keeps them.
        self.undo_records: list[dict] = []

    # ---- one writer -----------------------------------------------------------------------

    def lock(self) -> None:
        """Take the session's advisory lock, or raise SessionError naming the process holding it."""
        lock_path = self.path.with_suffix(".lock")
        try:
            make_private_folder(self.path.parent)
            # (never through a link: a lock file that leads elsewhere is no lock of planloop's)
            no_link = os.O_NOFOLLOW | os.O_CLOEXEC
            opener = lambda path, flags: os.open(path, flags | no_link, 0o600)  # noqa: E731
            handle = open(lock_path, "a+", opener=opener)  # noqa: SIM115 (held until close())
        except OSError as err:
            raise self._write_error(err) from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise SessionError(
                f"Session {self.id} is in use by another planloop process (pid {holder}); "
                "close that one first, or start a new session without --resume."
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._lock = handle

    def close(self) -> None:
        """Flush to disk and let go of the file and the lock (both, even if the flush fails)."""
        try:
            self.sync_to_disk()
        finally:
            if self._file is not None:
                self._file.close()
                self._file = None
            if self._lock is not None:
                self._lock.close()
                self._lock = None

    # ---- loading --------------------------------------------------------------------------

    def load_into(self, agent: Any) -> None:
        """Lock the session, then replace the agent's conversation and state with the saved ones.

        Calls left without a result by a process that died get an error result saying so,
        so the first request after a crash is valid. Raises SessionError for a missing file
        or one planloop did not write as it expects; such a file is never written to.
        """
        if not (self.path.exists() or self.legacy_path.exists()):
            raise SessionError(
                f"No session {self.id!r} for this folder.{recent_ids_hint(self.workspace)}"
            )
        if self._lock is None:
            self.lock()  # before reading: another writer could be appending right now
        self._check_workspace()
        if self.path.exists():
            messages, extra = self._replay()
        else:
            messages, extra = read_legacy(self.legacy_path)
        check_state(messages, extra, self.path if self.path.exists() else self.legacy_path)
        if self._good_size is not None:  # the log goes on from where it is
            self._remember(messages, extra)
        agent.messages[:] = messages  # in place: the agent context shares the list
        boundary = extra.pop(BOUNDARY_KEY, None)
        agent.extra.clear()
        agent.extra.update(extra)
        restore_input_boundary(agent, boundary)
        open_calls = len(unanswered_calls(messages))
        if open_calls:
            close_unanswered_calls(agent.messages, STOPPED_MID_CALL)
            self.notes.append(
                f"The last run stopped during {open_calls} tool call(s); the model is told "
                "they may or may not have run."
            )

    def _check_workspace(self) -> None:
        """Refuse a log whose start record names another folder: never continue its work here."""
        recorded = recorded_workspace(self.path if self.path.exists() else self.legacy_path)
        if recorded is not None and recorded != str(self.workspace):
            raise SessionError(
                f"Session {self.id} was started in {recorded}, not in this folder "
                f"({self.workspace}); run planloop --resume from that folder, or start a new "
                "session here."
            )

    def _replay(self) -> tuple[list[dict], dict]:
        try:
            data = read_log(self.path)
        except OSError as err:
            raise SessionError(f"Session file {self.path} cannot be read: {err}") from None
        messages, extra, self._good_size = replay(data, self.path, self.undo_records)
        if self._good_size < len(data):
            self.notes.append(
                f"The last record of session {self.id} was cut short by a crash while "
                "writing; it was skipped."
            )
        return messages, extra

    # ---- writing --------------------------------------------------------------------------

    def sync(
        self, messages: list[dict], extra: dict, *, model: str = "", usage: dict | None = None
    ) -> None:
        """Append to the log what is new since the last sync.

        Messages only grow at the end and the last message only grows by blocks, so this
        writes a few records per step. Anything else (a rewritten history) rewrites the
        file once. `usage` goes with the newest assistant message written now.
        """
        if not messages:
            return
        try:
            if self._file is None:
                self._open(messages, extra, model)
            records = self._new_records(messages, extra, usage)
            if records is None:  # the history changed behind the log: write it whole
                self._rewrite(messages, extra, model)
                return
            self._append(records)
        except (OSError, ValueError) as err:  # ValueError: text that cannot be UTF-8
            self._forget_file()
            raise self._write_error(err) from None

    def save(self, agent: Any) -> None:
        """Sync the agent's messages and extra (see `sync`), with its input boundary."""
        usage = getattr(agent, "last_usage", None)
        extra = {**agent.extra, BOUNDARY_KEY: input_boundary(agent)}
        self.sync(agent.messages, extra, model=agent.model, usage=usage)

    def note(self, text: str) -> None:
        """Record a harness event (interrupted, compacted) in the log, if the log exists."""
        if self._file is not None:
            try:
                self._append([record("note", text=text)])
            except OSError as err:
                self._forget_file()
                raise self._write_error(err) from None

    def record_undo(self, entry: dict) -> None:
        """Append one undo record (middleware/undo.py); kept for a rewrite of the log too."""
        self.undo_records.append(entry)
        try:
            if self._file is None and self._good_size is not None:
                self._open([], {}, "")  # a resumed log, not written to yet: append to it
            if self._file is not None:
                self._append([record("undo", **entry)])
        except OSError as err:
            self._forget_file()
            raise self._write_error(err) from None

    def sync_to_disk(self) -> None:
        """fsync the log: call at the end of a run and after a compaction."""
        if self._file is not None:
            try:
                self._file.flush()
            except OSError as err:
                self._forget_file()
                raise self._write_error(err) from None
            with contextlib.suppress(OSError):
                os.fsync(self._file.fileno())

    def _forget_file(self) -> None:
        """After a failed write, what reached the file is unknown: the next sync writes the
        whole log again (temporary file, then rename), so the log is never left half-written."""
        with contextlib.suppress(OSError):
            if self._file is not None:
                self._file.close()  # its flush fails again on a full disk; the file closes anyway
        self._file, self._good_size = None, None

    def _open(self, messages: list[dict], extra: dict, model: str) -> None:
        if self._lock is None:
            self.lock()
        if self._good_size is None:  # a new session, or one continued from the old format
            self._rewrite(messages, extra, model)
        else:
            self._file = os.fdopen(open_log(self.path, os.O_RDWR), "r+b")  # the whole session
            self._file.truncate(self._good_size)  # drop a torn last record before appending
            self._file.seek(0, os.SEEK_END)
        for text in self.notes:
            self.note(text)

    def _new_records(
        self, messages: list[dict], extra: dict, usage: dict | None
    ) -> list[dict] | None:
        written = self._written_messages
        if len(messages) < written:
            return None
        records = []
        if written:
            content, known = messages[written - 1]["content"], self._last_blocks
            if isinstance(content, str) or isinstance(known, str):
                if content != known:
                    return None
            elif content[: len(known)] != known:
                return None
            elif len(content) > len(known):
                records.append(record("blocks", blocks=content[len(known) :]))
        newest_reply = max(
            (i for i in range(written, len(messages)) if messages[i]["role"] == "assistant"),
            default=None,
        )
        for index in range(written, len(messages)):
            fields: dict = {"message": messages[index]}
            if index == newest_reply and usage:
                fields["usage"] = usage
            records.append(record("message", **fields))
        snapshot = json.dumps(extra, sort_keys=True)
        if snapshot != self._written_extra:
            records.append(record("extra", extra=extra))
        self._remember(messages, extra, snapshot)
        return records

    def _remember(self, messages: list[dict], extra: dict, snapshot: str | None = None) -> None:
        """Note what the file holds now, so the next sync writes only what comes after it."""
        content = messages[-1]["content"] if messages else []
        self._written_messages = len(messages)
        self._last_blocks = content if isinstance(content, str) else list(content)
        self._written_extra = snapshot or json.dumps(extra, sort_keys=True)

    def _rewrite(self, messages: list[dict], extra: dict, model: str) -> None:
        """Write the whole session as a fresh log (temporary file, then rename)."""
        start = record(
            "start",
            id=self.id,
            workspace=str(self.workspace),
            model=model,
            created=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        )
        lines = [start] + [record("message", message=m) for m in messages]
        lines += [record("undo", **entry) for entry in self.undo_records]
        lines.append(record("extra", extra=extra))
        make_private_folder(self.path.parent)
        descriptor, temp_name = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        try:
            with os.fdopen(descriptor, "wb") as temp:
                hidden = secret_values()
                temp.write(b"".join(encode(line, hidden) for line in lines))
                temp.flush()
                os.fsync(temp.fileno())
            os.replace(temp_name, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp_name)
            raise
        if self._file is not None:
            self._file.close()
        self._file = os.fdopen(open_log(self.path, os.O_WRONLY | os.O_APPEND), "ab")
        self._good_size = self.path.stat().st_size
        self._remember(messages, extra)

    def _append(self, records: list[dict]) -> None:
        # The batch in one write, flushed to the OS at once: a killed process loses nothing
        # written, and a step's records (often three or four) cost one system call, not one each.
        hidden = secret_values()  # looked up once for the batch, not once per record
        self._file.write(b"".join(encode(entry, hidden) for entry in records))
        self._file.flush()

    def _write_error(self, err: OSError | ValueError) -> SessionError:
        if not isinstance(err, OSError):
            return SessionError(f"Cannot save session {self.id}: {err}.")
        return SessionError(
            f"Cannot save the session in {self.path.parent} ({err.strerror or err}). "
            "Set PLANLOOP_HOME to a folder you can write."
        )

    @classmethod
    def latest(cls, workspace: Path) -> Session:
        """The most recently saved session of this workspace, in either format."""
        files = session_files(workspace)
        if not files:
            raise SessionError("There is no saved session for this folder yet.")
        return cls(workspace, files[0][1].stem)


# ---- records ----------------------------------------------------------------------------------


# The run id and input counter of the agent's context, saved beside `extra` so that state
# bound to "the current input" (a task wait, todo/taskwait.py) is still current after a
# resume, until the next input moves the counter on as it would have without the restart.
BOUNDARY_KEY = "input_boundary"


def input_boundary(agent: Any) -> dict:
    context = getattr(agent, "context", None)
    return {
        "run_id": getattr(context, "run_id", ""),
        "input_seq": getattr(context, "input_seq", 0),
    }


def restore_input_boundary(agent: Any, boundary: object) -> None:
    context = getattr(agent, "context", None)
    if context is None or not isinstance(boundary, dict):
        return
    run_id, input_seq = boundary.get("run_id"), boundary.get("input_seq")
    if isinstance(run_id, str) and isinstance(input_seq, int) and not isinstance(input_seq, bool):
        context.run_id, context.input_seq = run_id, input_seq


def record(kind: str, **fields: Any) -> dict:
    return {"v": FORMAT_VERSION, "type": kind, **fields}


def encode(entry: dict, secrets: list[str] | None = None) -> bytes:
    """One JSON line, with the values of the API key and auth token replaced (redaction.py)."""
    return (redact(json.dumps(entry, ensure_ascii=False), secrets) + "\n").encode("utf-8")


NOT_A_LOG = "not a session file of planloop's: a link, another user's file, or one with two names"


def open_log(path: Path, flags: int = os.O_RDONLY) -> int:
    """A session file, opened only as one planloop wrote: not through a link, a regular file of
    yours, with no other name. A link planted at a log's name (to a one-line file such as
    `~/.docker/config.json`) read as a torn session, and the next save emptied that file and
    wrote the conversation into it; a second name of another file would do the same."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as err:
        if err.errno == errno.ELOOP:  # a link
            raise OSError(errno.EPERM, NOT_A_LOG) from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_nlink != 1:
        os.close(fd)
        raise OSError(errno.EPERM, NOT_A_LOG)
    return fd


def read_log(path: Path) -> bytes:
    with os.fdopen(open_log(path), "rb") as log:
        return log.read()


def read_session(path: Path) -> tuple[list[dict], dict]:
    """The messages and extra saved in a session file of either format (no lock, no repair)."""
    if path.suffix == ".json":
        return read_legacy(path)
    messages, extra, _ = replay(read_log(path), path)
    extra.pop(BOUNDARY_KEY, None)  # the agent's context, not its extra (see input_boundary)
    return messages, extra


def replay(
    data: bytes, path: Path, undo_records: list[dict] | None = None
) -> tuple[list[dict], dict, int]:
    """Replay a log's records; also return the size of its whole records.

    A last line without its newline was cut short by a crash: it is left out (and the size
    tells the writer where to cut it off). Any other line that is not a record is an error.
    The undo records go to `undo_records`, when given, without their `v` and `type`.
    """
    messages: list[dict] = []
    extra: dict = {}
    good_size = 0
    lines = data.split(b"\n")
    for number, line in enumerate(lines[:-1], start=1):  # lines[-1] has no newline after it
        if line.strip():
            try:
                entry = json.loads(line)
            except ValueError:
                raise not_planloop(path, f"line {number} is not JSON") from None
            apply_record(entry, messages, extra, path, number)
            if undo_records is not None and entry.get("type") == "undo":
                undo_records.append({k: v for k, v in entry.items() if k not in ("v", "type")})
        good_size += len(line) + 1
    return messages, extra, good_size


def apply_record(entry: Any, messages: list[dict], extra: dict, path: Path, number: int) -> None:
    """Replay one record into `messages` and `extra`; unknown record types are skipped."""
    if not isinstance(entry, dict) or not isinstance(entry.get("v"), int):
        raise not_planloop(path, f"line {number} is not a session record")
    if entry["v"] > FORMAT_VERSION:
        raise newer_format(path, entry["v"])
    kind = entry.get("type")
    if kind == "message":
        messages.append(entry.get("message"))
    elif kind == "blocks":
        if not messages or not isinstance(entry.get("blocks"), list):
            raise not_planloop(path, f"line {number} adds blocks to no message")
        last = messages[-1]
        content = last.get("content") if isinstance(last, dict) else None
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            raise not_planloop(path, f"line {number} adds blocks to a malformed message")
        messages[-1] = {**last, "content": content + entry["blocks"]}
    elif kind == "extra":
        if not isinstance(entry.get("extra"), dict):
            raise not_planloop(path, f"line {number} holds an extra that is not an object")
        extra.clear()
        extra.update(entry["extra"])


def read_legacy(path: Path) -> tuple[list[dict], dict]:
    """A session in the single-JSON format: {"version": 1, "messages": [...], "extra": {...}}."""
    try:
        data = json.loads(read_log(path).decode("utf-8"))
    except (OSError, ValueError) as err:
        raise SessionError(f"Session file {path} cannot be read: {err}") from None
    if not isinstance(data, dict):
        raise not_planloop(path, "it is not a JSON object")
    version = data.get("version", LEGACY_VERSION)
    if not isinstance(version, int):
        raise not_planloop(path, "its version is not a number")
    if version > LEGACY_VERSION:
        raise newer_format(path, version)
    return data.get("messages", []), data.get("extra", {})


def check_state(messages: Any, extra: Any, path: Path) -> None:
    """The loaded state has the shape the loop and the todo list rely on, or SessionError."""
    if not isinstance(messages, list):
        raise not_planloop(path, "its messages are not a list")
    for index, message in enumerate(messages):
        if (
            not isinstance(message, dict)
            or message.get("role") not in ("user", "assistant")
            or not isinstance(message.get("content"), str | list)
            or (
                isinstance(message["content"], list)
                and not all(isinstance(b, dict) for b in message["content"])
            )
        ):
            raise not_planloop(path, f"message {index} is not a user or assistant message")
    if not isinstance(extra, dict):
        raise not_planloop(path, "its extra is not an object")
    todos = extra.get("todos")
    if todos is None:
        return
    if not isinstance(todos, list) or not all(isinstance(item, dict) for item in todos):
        raise not_planloop(path, "its todo list is not a list of items")
    for item in todos:
        if item.get("status") not in STORED_STATUSES or not isinstance(item.get("content"), str):
            raise not_planloop(path, f"a todo item has the unknown status {item.get('status')!r}")


def not_planloop(path: Path, why: str) -> SessionError:
    return SessionError(
        f"Session file {path} was not written by this planloop ({why}); it was left unchanged. "
        "Start a new session, or move the file away."
    )


def newer_format(path: Path, version: int) -> SessionError:
    return SessionError(
        f"Session file {path} uses format version {version}, newer than this planloop reads "
        f"({FORMAT_VERSION}); it was left unchanged. Update planloop to continue it."
    )


# ---- which folder -------------------------------------------------------------------------------


def session_folder(workspace: Path, session_id: str) -> Path:
    """The folder holding a session: the workspace's own, or the older shared one if it is there."""
    folder = sessions_dir(workspace)
    if any((folder / f"{session_id}{suffix}").exists() for suffix in (".jsonl", ".json")):
        return folder
    older = older_sessions_dir(workspace)
    for suffix in (".jsonl", ".json"):
        if belongs_to(older / f"{session_id}{suffix}", workspace):
            return older
    return folder


def belongs_to(path: Path, workspace: Path) -> bool:
    """Whether a session file's start record names exactly this workspace."""
    return recorded_workspace(path) == str(workspace.resolve())


def recorded_workspace(path: Path) -> str | None:
    """The workspace a session file says it was started in; None if it says nothing readable.

    Only the start of the file is read: the start record is the first line of a log, and the
    older single-JSON format keeps a "workspace" key.
    """
    try:
        if path.suffix == ".json":
            data = json.loads(read_log(path).decode("utf-8"))
            recorded = data.get("workspace") if isinstance(data, dict) else None
        else:
            with os.fdopen(open_log(path), "rb") as log:
                first = json.loads(log.readline(START_RECORD_MAX_BYTES) or b"null")
            is_start = isinstance(first, dict) and first.get("type") == "start"
            recorded = first.get("workspace") if is_start else None
    except (OSError, ValueError):
        return None
    return recorded if isinstance(recorded, str) else None


# ---- listing ----------------------------------------------------------------------------------


@dataclass
class SessionSummary:
    """What /sessions and --resume show about a saved session."""

    id: str
    modified: float
    first_prompt: str
    messages: int
    todos_done: int
    todos_total: int


def list_sessions(workspace: Path, limit: int = 20) -> list[SessionSummary]:
    """This folder's sessions, newest first; unreadable files are left out."""
    summaries = []
    for modified, path in session_files(workspace)[:limit]:
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError, AttributeError):
            summaries.append(summarize(path, modified))
    return summaries


def session_files(workspace: Path) -> list[tuple[float, Path]]:
    """(modified time, path) of each session of this folder, newest first, either format.

    Sessions kept in the older, shared folder count when their start record names this
    workspace; a session in the current folder wins over one of the same id there.
    """
    newest: dict[str, Path] = {}
    older = older_sessions_dir(workspace)
    for folder in (older, sessions_dir(workspace)):
        for path in sorted(folder.glob("*.json*")):  # .json before .jsonl: the log wins
            if not (SESSION_ID.fullmatch(path.stem) and path.suffix in (".json", ".jsonl")):
                continue
            if folder == older and not belongs_to(path, workspace):
                continue
            newest[path.stem] = path
    dated = []
    for path in newest.values():
        with contextlib.suppress(OSError):
            dated.append((path.stat().st_mtime, path))
    return sorted(dated, reverse=True)


def summarize(path: Path, modified: float) -> SessionSummary:
    """Cheap: one read, counting record prefixes, parsing only the first prompt and last extra."""
    if path.suffix == ".json":
        data = json.loads(read_log(path).decode("utf-8"))
        messages, extra = data.get("messages", []), data.get("extra", {})
        count, first = len(messages), messages[0] if messages else None
    else:
        data = read_log(path)
        marker = b'{"v": 1, "type": "message"'
        count = data.count(b"\n" + marker) + data.startswith(marker)
        at = data.find(marker)
        first = json.loads(data[at : data.index(b"\n", at)])["message"] if at >= 0 else None
        at = data.rfind(b'{"v": 1, "type": "extra"')
        extra = json.loads(data[at : data.index(b"\n", at)])["extra"] if at >= 0 else {}
    # Cancelled items are no longer part of the work: "2/2" as the checklist counts them.
    todos = [item for item in extra.get("todos") or [] if item.get("status") != "cancelled"]
    return SessionSummary(
        id=path.stem,
        modified=modified,
        first_prompt=first_text(first),
        messages=count,
        todos_done=sum(1 for item in todos if item.get("status") == "completed"),
        todos_total=len(todos),
    )


def first_text(message: dict | None) -> str:
    if not message:
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return next((b.get("text", "") for b in content if b.get("type") == "text"), "")


def recent_ids_hint(workspace: Path) -> str:
    ids = [summary.id for summary in list_sessions(workspace, limit=5)]
    return f" Recent sessions: {', '.join(ids)}." if ids else ""
