"""A seccomp filter for bubblewrap's `--seccomp FD`: no unix sockets, set-user-ID files or hard
links.

Without a network namespace's help, a sandboxed command could still connect to any unix socket
it can see on the read-only host file system: a desktop's D-Bus session bus (which starts
programs outside the sandbox), the docker socket (which is root), an ssh agent, syslog's and
the journal's datagram sockets. Mounts cannot hide them all, so the kernel refuses the call
that makes such a socket: `socket(AF_UNIX, ...)` fails with EPERM. `socketpair` stays allowed
for AF_UNIX stream sockets only (asyncio, libuv and subprocess plumbing use them): a connected
stream socket cannot be connected again, so its two ends only talk to each other. A datagram
(or seqpacket, raw) pair is refused: an end of it can `sendto` any unix path it sees.

Other families reach past a network namespace too: a vsock (AF_VSOCK) talks to the virtual
machine's host, whose services are often unix sockets there. So only the families a command
needs are let through (IPv4, IPv6, and netlink, which the C library uses to list addresses);
every other family fails with EPERM.

The workspace is the host's own folder, without the `nosuid` that the sandbox's mounts have,
and a command's files belong to its user on the host (root's to root). A set-user-ID copy of
a shell left there would be a way into that user for anyone who can reach the folder. So every
call that would give a file the set-user-ID or set-group-ID bit fails with EPERM: chmod,
fchmod, fchmodat, fchmodat2, and a mode with either bit given to open, openat, creat, mknod or
mknodat (the kernel keeps the bits of a new file's mode). openat2 reads its mode from memory a
filter cannot see, so it fails with ENOSYS, as on a kernel without it: C libraries then fall
back to openat.

The filter is a classic BPF program (the kernel's `struct sock_filter` array, which is what
bwrap reads from the fd), written here with `struct` so that no compiler or library is needed:

    load the architecture     native (x86_64, aarch64), or its 32-bit compat ABI, else kill
    load the syscall number   socket: go on to its family; socketpair: to its family and type
                              socketcall: refuse (i386 reaches socket() through it)
                              io_uring_setup: refuse (io_uring can open sockets without socket())
                              add_key, request_key, keyctl: refuse (see CHECKS)
                              openat2: ENOSYS
                              link, linkat: EXDEV
                              chmod, open, mknod and the rest: go on to their mode argument
    socket: load args[0]      AF_INET, AF_INET6, AF_NETLINK: allow; anything else: EPERM
    socketpair                args[0] AF_UNIX and (args[1] & 0xf) SOCK_STREAM: allow; else EPERM
    mode: load args[k]        S_ISUID or S_ISGID set (BPF_JSET 0o6000): EPERM; else allow

No hard link can be made: link and linkat fail with EXDEV, the error of a link between two
file systems, on which installers and build tools (cargo, uv, pnpm) copy instead. A second
name made in a folder planloop does not watch yet would let a command read a key file saved
while it runs, and empty it again, with no event on the key file's own folder to tell
(tools/folder_watch.py).

A process started with a foreign architecture's calling convention is killed rather than let
through, so an unexpected ABI can never skip the check.
"""

from __future__ import annotations

import errno
import platform
import socket
import stat
import struct

# Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS: A = 32 bits at offset k of the seccomp_data
JUMP_IF_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K: if A == k jump jt, else jump jf
JUMP_IF_ANY_BIT = 0x45  # BPF_JMP | BPF_JSET | BPF_K: if A & k jump jt, else jump jf
AND = 0x54  # BPF_ALU | BPF_AND | BPF_K: A = A & k
RETURN = 0x06  # BPF_RET | BPF_K
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]. Both supported
# machines are little-endian, so the low 32 bits of args[k] sit at its start.
OFFSET_NR = 0
OFFSET_ARCH = 4
OFFSET_ARG0_LOW = 16


def offset_of_arg(index: int) -> int:
    """Where the low 32 bits of args[index] sit in struct seccomp_data."""
    return OFFSET_ARG0_LOW + 8 * index


# AUDIT_ARCH_* values (linux/audit.h).
AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_I386 = 0x40000003
AUDIT_ARCH_AARCH64 = 0xC00000B7
AUDIT_ARCH_ARM = 0x40000028

X32_SYSCALL_BIT = 0x40000000

# The socket families a sandboxed command may create; AF_UNIX and AF_VSOCK are not among them.
ALLOWED_FAMILIES = (socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK)
SOCKET_TYPE_MASK = 0xF  # the rest of socket()'s type holds SOCK_NONBLOCK and SOCK_CLOEXEC
SET_ID_BITS = stat.S_ISUID | stat.S_ISGID

# What the filter does with each call it names; every other call is allowed.
#   check family         socket(): by its family
#   check pair           socketpair(): by its family and type
#   refuse               EPERM whatever the arguments
#   unknown              ENOSYS: openat2, whose mode lies in memory the filter cannot read
#   mode at N            EPERM when args[N], a file mode, has S_ISUID or S_ISGID
#   cross-device         EXDEV: link and linkat, as between two file systems
# The kernel's keyrings (add_key, request_key, keyctl) are refused: they are not confined by
# any namespace a sandbox makes. A login's session keyring is inherited by every process
# started from it, and holds what programs keep there (Kerberos tickets, file system keys);
# a command could read those keys, or plant one a program outside trusts.
CHECKS = {
    "socket": "check family",
    "socketpair": "check pair",
    "socketcall": "refuse",  # i386's way to every socket call, arguments out of reach
    "io_uring_setup": "refuse",  # io_uring opens sockets and files without these calls
    "add_key": "refuse",
    "request_key": "refuse",
    "keyctl": "refuse",
    "openat2": "unknown",
    "chmod": "mode at 1",
    "fchmod": "mode at 1",
    "creat": "mode at 1",
    "mknod": "mode at 1",
    "open": "mode at 2",
    "mknodat": "mode at 2",
    "fchmodat": "mode at 2",
    "fchmodat2": "mode at 2",
    "openat": "mode at 3",
    "link": "cross-device",
    "linkat": "cross-device",
}
MODE_ARGS = (1, 2, 3)  # the argument positions a "mode at N" check reads

# The numbers of those calls per architecture, from the kernel's tables
# (arch/x86/entry/syscalls/syscall_64.tbl and syscall_32.tbl, arch/arm/tools/syscall.tbl, and
# the generic scripts/syscall.tbl that aarch64 uses); None where an architecture lacks the call
# (aarch64 has only the *at forms; socketcall is i386's, ARM's EABI has none).
ARCH_COLUMNS = (AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64, AUDIT_ARCH_ARM)
# fmt: off
NUMBERS: dict[str, tuple[int | None, ...]] = {
    #                  x86_64  i386  aarch64   arm
    "socket":         (41,     359,  198,      281),
    "socketpair":     (53,     360,  199,      288),
    "socketcall":     (None,   102,  None,     None),
    "io_uring_setup": (425,    425,  425,      425),
    "add_key":        (248,    286,  217,      309),
    "request_key":    (249,    287,  218,      310),
    "keyctl":         (250,    288,  219,      311),
    "openat2":        (437,    437,  437,      437),
    "chmod":          (90,     15,   None,     15),
    "fchmod":         (91,     94,   52,       94),
    "creat":          (85,     8,    None,     8),
    "mknod":          (133,    14,   None,     14),
    "open":           (2,      5,    None,     5),
    "mknodat":        (259,    297,  33,       324),
    "fchmodat":       (268,    306,  53,       333),
    "fchmodat2":      (452,    452,  452,      452),
    "openat":         (257,    295,  56,       322),
    "link":           (86,     9,    None,     9),
    "linkat":         (265,    303,  37,       330),
}
# fmt: on
SYSCALLS: dict[int, dict[str, int]] = {
    arch: {name: row[column] for name, row in NUMBERS.items() if row[column] is not None}
    for column, arch in enumerate(ARCH_COLUMNS)
}
# x86_64 also accepts x32 calls under its own arch value, numbered with X32_SYSCALL_BIT; the
# calls above keep their native numbers there.
X32_ARCHES = (AUDIT_ARCH_X86_64,)
# The architectures a process on this machine can call the kernel with.
MACHINE_ARCHES = {
    "x86_64": (AUDIT_ARCH_X86_64, AUDIT_ARCH_I386),
    "aarch64": (AUDIT_ARCH_AARCH64, AUDIT_ARCH_ARM),
}


class UnsupportedMachine(Exception):
    """This machine's architecture has no filter here; the caller decides what to do."""


Step = tuple[int, int, str | None, str | None]  # code, k, label if true, label if false


def _assemble(steps: list[Step | str]) -> bytes:
    """Turn steps and label names into sock_filter bytes; jumps name a later label."""
    positions: dict[str, int] = {}
    instructions: list[Step] = []
    for step in steps:
        if isinstance(step, str):
            positions[step] = len(instructions)
        else:
            instructions.append(step)

    def offset(label: str | None, here: int) -> int:
        return 0 if label is None else positions[label] - here - 1

    return b"".join(
        struct.pack("=HBBI", code, offset(if_true, here), offset(if_false, here), k)
        for here, (code, k, if_true, if_false) in enumerate(instructions)
    )


def unix_socket_filter(machine: str | None = None) -> bytes:
    """The compiled filter for `machine` (default: this one), as bwrap's --seccomp reads it.

    Raises UnsupportedMachine for an architecture without a table above.
    """
    machine = machine or platform.machine()
    if machine not in MACHINE_ARCHES:
        raise UnsupportedMachine(
            f"no seccomp filter for the {machine} architecture (only x86_64 and aarch64)"
        )
    arches = MACHINE_ARCHES[machine]
    steps: list[Step | str] = [(LOAD_WORD, OFFSET_ARCH, None, None)]
    steps += [(JUMP_IF_EQUAL, arch, f"arch {arch}", None) for arch in arches]
    steps.append((RETURN, RET_KILL_PROCESS, None, None))  # a foreign ABI: never let through
    for arch in arches:
        steps += [f"arch {arch}", (LOAD_WORD, OFFSET_NR, None, None)]
        bits = (0, X32_SYSCALL_BIT) if arch in X32_ARCHES else (0,)
        for bit in bits:
            for name, nr in SYSCALLS[arch].items():
                steps.append((JUMP_IF_EQUAL, nr | bit, CHECKS[name], None))
        steps.append((RETURN, RET_ALLOW, None, None))
    steps += [
        "check family",
        (LOAD_WORD, offset_of_arg(0), None, None),
        *[(JUMP_IF_EQUAL, family, "allow", None) for family in ALLOWED_FAMILIES],
        (RETURN, RET_ERRNO | errno.EPERM, None, None),
        "check pair",
        (LOAD_WORD, offset_of_arg(0), None, None),
        (JUMP_IF_EQUAL, socket.AF_UNIX, None, "refuse"),
        (LOAD_WORD, offset_of_arg(1), None, None),
        (AND, SOCKET_TYPE_MASK, None, None),
        (JUMP_IF_EQUAL, socket.SOCK_STREAM, "allow", "refuse"),
    ]
    for n in MODE_ARGS:
        steps += [
            f"mode at {n}",
            (LOAD_WORD, offset_of_arg(n), None, None),
            (JUMP_IF_ANY_BIT, SET_ID_BITS, "refuse", "allow"),
        ]
    steps += [
        "refuse",
        (RETURN, RET_ERRNO | errno.EPERM, None, None),
        "unknown",
        (RETURN, RET_ERRNO | errno.ENOSYS, None, None),
        "cross-device",
        (RETURN, RET_ERRNO | errno.EXDEV, None, None),
        "allow",
        (RETURN, RET_ALLOW, None, None),
    ]
    return _assemble(steps)
