"""The last step before bwrap: open and check each protected path, then become bwrap.

    BASE_PYTHON -I -S -c SOURCE_OF_THIS_FILE WORKSPACE PLANLOOP_PID BWRAP ARGS...

(tools/sandbox.py reads this file once at start and passes its text, so that no file a command
could change is read or run outside the sandbox per command.)

The argv that tools/sandbox.py builds names each protected path as `@open:PATH` after
`--ro-bind-fd`. Between planloop's scan and bwrap's mount, a command still running (a
background task) could swap such a path, or a folder above it, for a link to the host's / or
/proc; binding by path would then bring the host into the sandbox. So this launcher opens each
path without following a final link, checks what it opened (a file or a folder, whose real path
is the one checked, inside the workspace), and hands bwrap that open descriptor. bwrap binds
the very object that was checked, and refuses to run if it changed under it.

A path that fails a check is not bound. If it lies inside the workspace (a link pointing out,
a device, a socket) the command's output says so; a path outside the workspace (a worktree's
real git folder elsewhere) is read-only there already and is skipped quietly.

`--bind-fd @pin:PATH PATH` pins a folder above a protected path: it is bound onto itself, so
that no command in this sandbox can rename it (a mount point cannot be moved) to make the
next sandbox's read-only bind land elsewhere while the real folder stays writable. A folder
to pin must be exactly PATH, with no link on the way; if it is not (a command is swapping it
right now), the sandbox is not made at all and the command does not run.

`@file:PATH` (the seccomp filter, planloop's own file) is opened for reading as it is.

A `--ro-bind` or `--tmpfs` that hides something outside the workspace and outside the
sandbox's own /tmp (a file holding planloop's key in another project, your ~/.ssh) is dropped
when nothing is there any more: outside the workspace all is read-only, so bwrap could not make
the mount point and would refuse to run the command; and what is gone needs no hiding. Only
you can bring it back there: no command can write outside the workspace.

Only `os` and `sys` are imported: this runs before every sandboxed command.
"""

from __future__ import annotations

import ctypes
import os
import signal
import stat
import sys

OPEN_PREFIX = "@open:"
PIN_PREFIX = "@pin:"
FILE_PREFIX = "@file:"


def open_marker(path: os.PathLike | str, check: bool = True) -> str:
    """The argv word that asks this launcher to open `path` (checked, or a plain read)."""
    return f"{OPEN_PREFIX if check else FILE_PREFIX}{os.fspath(path)}"


def pin_marker(folder: os.PathLike | str) -> str:
    """The argv word that asks this launcher to open `folder` exactly, to bind it onto itself."""
    return f"{PIN_PREFIX}{os.fspath(folder)}"


def open_checked(root: str, path: str) -> tuple[int | None, str]:
    """(descriptor, real path) of a file or folder inside `root`, or (None, why not)."""
    real = os.path.realpath(path)
    inside = real == root or real.startswith(root + os.sep)
    if not inside:
        return None, f"it points to {real}, outside the workspace"
    try:
        fd = os.open(real, os.O_PATH | os.O_NOFOLLOW)
    except OSError as err:
        return None, f"it cannot be opened ({err.strerror})"
    kind = os.fstat(fd).st_mode
    opened = os.readlink(f"/proc/self/fd/{fd}")
    if not (stat.S_ISDIR(kind) or stat.S_ISREG(kind)):
        os.close(fd)
        return None, "it is neither a file nor a folder"
    if opened != real:
        os.close(fd)
        return None, "it changed while it was being checked"
    os.set_inheritable(fd, True)
    return fd, real


def gone_outside(root: str, path: str) -> bool:
    """Whether `path`, outside the workspace and outside the sandbox's /tmp, no longer exists."""
    inside = any(path == folder or path.startswith(folder + os.sep) for folder in (root, "/tmp"))
    return not inside and not os.path.lexists(path)


def translate(root: str, args: list[str]) -> list[str]:
    """bwrap's argv with every marker turned into an open descriptor, up to the `--`."""
    out: list[str] = []
    bound: set[str] = set()
    position = 0
    while position < len(args):
        word = args[position]
        if word == "--":
            return out + args[position:]
        if word == "--ro-bind" and gone_outside(root, args[position + 2]):
            position += 3
            continue
        if word == "--tmpfs" and gone_outside(root, args[position + 1]):
            remount = args[position + 2 : position + 4] == ["--remount-ro", args[position + 1]]
            position += 4 if remount else 2
            continue
        if word == "--bind-fd" and args[position + 1].startswith(PIN_PREFIX):
            path = args[position + 1][len(PIN_PREFIX) :]
            position += 3
            fd, real = open_checked(root, path)
            if fd is None or real != path or not stat.S_ISDIR(os.fstat(fd).st_mode):
                shown = ascii(os.path.relpath(path, root))[1:-1]  # see below
                sys.exit(
                    f"[sandbox: {shown} changed while the sandbox was being made, so the "
                    "command did not run; a command still running may be moving folders]"
                )
            out += ["--bind-fd", str(fd), real]
            continue
        if word == "--ro-bind-fd" and args[position + 1].startswith(OPEN_PREFIX):
            path = args[position + 1][len(OPEN_PREFIX) :]
            position += 3
            fd, real = open_checked(root, path)
            if fd is None:
                if path.startswith(root + os.sep):
                    # ascii(): a name's line breaks must not start lines of their own in the note
                    shown, why = ascii(os.path.relpath(path, root))[1:-1], ascii(real)[1:-1]
                    print(f"[sandbox: {shown} was not made read-only: {why}]", file=sys.stderr)
            elif real not in bound:
                bound.add(real)
                out += ["--ro-bind-fd", str(fd), real]
            continue
        if word.startswith(FILE_PREFIX):
            fd = os.open(word[len(FILE_PREFIX) :], os.O_RDONLY)
            os.set_inheritable(fd, True)
            word = str(fd)
        out.append(word)
        position += 1
    return out


# prctl(2): the signal the kernel sends when the parent that started this process dies.
SET_PARENT_DEATH_SIGNAL = 1


def die_with(parent: int) -> None:
    """Be killed when planloop (`parent`) dies, from now on, and end now if it died already.

    bwrap's --die-with-parent covers the sandbox once bwrap has set it; until then only this
    covers the command: planloop killed in those milliseconds (SIGKILL runs no code of ours)
    left it running on, under init, unwatched. The setting holds across exec."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(SET_PARENT_DEATH_SIGNAL, signal.SIGKILL, 0, 0, 0) != 0:
        sys.exit("[sandbox: the command did not run: it could not be tied to planloop's life]")
    if os.getppid() != parent:
        sys.exit(0)  # planloop is gone already: nobody waits for this command


def main() -> None:
    root, parent, program, *args = sys.argv[1:]
    die_with(int(parent))
    argv = [program, *translate(root, args)]
    os.execvp(program, argv)


if __name__ == "__main__":
    main()
