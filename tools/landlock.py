"""The last step inside the sandbox: no write outside the writable folders, whatever the file.

    PYTHON -I -S -c SOURCE_OF_THIS_FILE WRITABLE_FOLDER... -- COMMAND...

bwrap mounts everything but the workspace read-only. A read-only mount refuses writes to files,
folders and links, but the kernel opens a named pipe (FIFO), a socket or a device node for
writing whatever the mount says. So, without this step, a sandboxed command could feed any host
program that reads a FIFO in /run, /var or the home folder (a media player's command pipe, a
status bar, systemd's initctl as root).

Landlock (Linux 5.13 and later, no privilege needed) closes that by path rather than by mount:
after bwrap has made its mounts and just before the command starts, this step asks the kernel to
refuse, for this process and everything it starts, every write, creation, removal, rename or
truncation anywhere but beneath the folders named (the workspace, the sandbox's own /tmp and
/dev). What the kernel refuses, it refuses for every kind of file. Reading is left alone: what a
command may read is bwrap's business (hidden secrets are mounted over).

It runs inside the sandbox because a process under Landlock may not make mounts, and bwrap must.
Where the kernel has no Landlock, tools/sandbox.py does not use this step and makes commands ask
first instead; if the kernel refuses here anyway, the command does not run.

Only `os`, `sys` and `ctypes` are imported: this runs before every sandboxed command.
"""

from __future__ import annotations

import ctypes
import os
import sys

# The descriptor planloop waits on while the sandbox is made (tools/process.py: a later sandbox
# reads this one's mounts): a byte written to it says bwrap is done.
READY_VARIABLE = "PLANLOOP_SANDBOX_MADE_FD"

# The kernel's system call numbers are the same on every architecture for these new calls.
CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
ASK_FOR_VERSION = 1  # landlock_create_ruleset's flag: return the ABI version, make nothing
PATH_BENEATH = 1  # the rule type: rights granted beneath an open folder
NO_NEW_PRIVS = 38  # prctl: required before restrict_self by an unprivileged process

# Each right the kernel can refuse, by the ABI version that brought it. EXECUTE, READ_FILE and
# READ_DIR (bits 0, 2 and 3) are not here: reading stays as bwrap left it.
RIGHTS_BY_ABI = (
    (1, 1 << 1),  # WRITE_FILE: open for writing, FIFOs, sockets and devices included
    (1, 1 << 4),  # REMOVE_DIR
    (1, 1 << 5),  # REMOVE_FILE
    (1, 1 << 6),  # MAKE_CHAR
    (1, 1 << 7),  # MAKE_DIR
    (1, 1 << 8),  # MAKE_REG
    (1, 1 << 9),  # MAKE_SOCK
    (1, 1 << 10),  # MAKE_FIFO
    (1, 1 << 11),  # MAKE_BLOCK
    (1, 1 << 12),  # MAKE_SYM
    (2, 1 << 13),  # REFER: link or rename from one folder to another
    (3, 1 << 14),  # TRUNCATE
    (5, 1 << 15),  # IOCTL_DEV: ioctl on a device opened after this step
)


def syscalls() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi_version() -> int:
    """The kernel's Landlock ABI version, or 0 where it has none (or has it switched off)."""
    try:
        version = syscalls().syscall(CREATE_RULESET, None, ctypes.c_size_t(0), ASK_FOR_VERSION)
    except (OSError, AttributeError):  # no C library to call through
        return 0
    return max(version, 0)


def rights_for(version: int) -> int:
    """Every right this step takes away (and gives back beneath the writable folders)."""
    return sum(bit for since, bit in RIGHTS_BY_ABI if version >= since)


def fail(why: str) -> None:
    """Stop before the command runs: a command must never run with less than was promised."""
    print(f"[sandbox: the command did not run: {why}]", file=sys.stderr)
    sys.exit(126)


def restrict(writable: list[str]) -> None:
    """Refuse this process and its children every write outside `writable`: folders, each
    maybe followed by `=DEV:INO`, the folder it must be. The path is looked up again here,
    after bwrap bound it; a link put in its place meanwhile would lead elsewhere."""
    libc = syscalls()
    version = abi_version()
    if version < 1:
        fail("this kernel refused Landlock")
    rights = rights_for(version)
    ruleset = libc.syscall(CREATE_RULESET, rights.to_bytes(8, sys.byteorder), ctypes.c_size_t(8), 0)
    if ruleset < 0:
        fail(f"Landlock refused a rule set ({os.strerror(ctypes.get_errno())})")
    for index, folder in enumerate(writable):
        if folder.startswith("="):
            continue  # (the identity of the folder before it)
        try:
            fd = os.open(folder, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as err:
            fail(f"{folder} cannot be opened ({err.strerror})")
        must_be = writable[index + 1] if index + 1 < len(writable) else ""
        info = os.fstat(fd)
        if must_be.startswith("=") and must_be != f"={info.st_dev}:{info.st_ino}":
            fail(f"{folder} was moved or replaced while the sandbox was made")
        # struct landlock_path_beneath_attr is packed: a 64-bit right mask, then a 32-bit fd.
        rule = rights.to_bytes(8, sys.byteorder) + fd.to_bytes(4, sys.byteorder, signed=True)
        if libc.syscall(ADD_RULE, ctypes.c_int(ruleset), PATH_BENEATH, rule, 0) != 0:
            fail(f"Landlock refused {folder} ({os.strerror(ctypes.get_errno())})")
        os.close(fd)
    if libc.prctl(NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        fail(f"no_new_privs could not be set ({os.strerror(ctypes.get_errno())})")
    if libc.syscall(RESTRICT_SELF, ctypes.c_int(ruleset), 0) != 0:
        fail(f"Landlock could not be applied ({os.strerror(ctypes.get_errno())})")
    os.close(ruleset)


def say_made() -> None:
    """Tell planloop that bwrap has made every mount: this step runs once it has."""
    ready = os.environ.pop(READY_VARIABLE, "")  # (popped: the command does not inherit it)
    if ready.isdigit():
        try:
            os.write(int(ready), b".")
            os.close(int(ready))
        except OSError:
            pass


def main() -> None:
    say_made()
    split = sys.argv.index("--")
    command = sys.argv[split + 1 :]
    restrict(sys.argv[1:split])
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
