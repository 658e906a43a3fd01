"""A seccomp filter that refuses unix-domain sockets, for bubblewrap's `--seccomp FD`.

Without a network namespace's help, a sandboxed command could still connect to any unix socket
it can see on the read-only host file system: a desktop's D-Bus session bus (which starts
programs outside the sandbox), the docker socket (which is root), an ssh agent. Mounts cannot
hide them all, so the kernel refuses the call that makes such a socket: `socket(AF_UNIX, ...)`
fails with EPERM. `socketpair` stays allowed; its two ends only talk to each other.

Other families reach past a network namespace too: a vsock (AF_VSOCK) talks to the virtual
machine's host, whose services are often unix sockets there. So only the families a command
needs are let through (IPv4, IPv6, and netlink, which the C library uses to list addresses);
every other family fails with EPERM.

The filter is a classic BPF program (the kernel's `struct sock_filter` array, which is what
bwrap reads from the fd), written here with `struct` so that no compiler or library is needed:

    load the architecture     native (x86_64, aarch64), or its 32-bit compat ABI, else kill
    load the syscall number   socket: go on to its first argument; socketcall: refuse
                              io_uring_setup: refuse (io_uring can open sockets without socket())
                              add_key, request_key, keyctl: refuse (see SYSCALLS)
    load args[0]              AF_INET, AF_INET6, AF_NETLINK: allow; anything else: EPERM

A process started with a foreign architecture's calling convention is killed rather than let
through, so an unexpected ABI can never skip the check.
"""

from __future__ import annotations

import errno
import platform
import socket
import struct

# Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS: A = 32 bits at offset k of the seccomp_data
JUMP_IF_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K: if A == k jump jt, else jump jf
RETURN = 0x06  # BPF_RET | BPF_K
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]. Both supported
# machines are little-endian, so the low 32 bits of args[0] sit at its start.
OFFSET_NR = 0
OFFSET_ARCH = 4
OFFSET_ARG0_LOW = 16

# AUDIT_ARCH_* values (linux/audit.h).
AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_I386 = 0x40000003
AUDIT_ARCH_AARCH64 = 0xC00000B7
AUDIT_ARCH_ARM = 0x40000028

X32_SYSCALL_BIT = 0x40000000

# The socket families a sandboxed command may create; AF_UNIX and AF_VSOCK are not among them.
ALLOWED_FAMILIES = (socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK)

# Per architecture: the numbers of socket(), and of the calls refused outright.
# x86_64 also accepts x32 calls under its own arch value, numbered with X32_SYSCALL_BIT.
# The kernel's keyrings (add_key, request_key, keyctl) are refused too: they are not confined
# by any namespace a sandbox makes. A login's session keyring is inherited by every process
# started from it, and holds what programs keep there (Kerberos tickets, file system keys);
# a command could read those keys, or plant one a program outside trusts.
SYSCALLS = {
    AUDIT_ARCH_X86_64: {
        "socket": (41, X32_SYSCALL_BIT | 41),
        # io_uring_setup, add_key, request_key, keyctl, also by their x32 numbers
        "refused": tuple(nr | bit for bit in (0, X32_SYSCALL_BIT) for nr in (425, 248, 249, 250)),
    },
    AUDIT_ARCH_I386: {"socket": (359,), "refused": (102, 425, 286, 287, 288)},  # 102: socketcall
    AUDIT_ARCH_AARCH64: {"socket": (198,), "refused": (425, 217, 218, 219)},
    AUDIT_ARCH_ARM: {"socket": (281,), "refused": (425, 309, 310, 311)},  # no socketcall on EABI
}
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
            f"no unix-socket filter for the {machine} architecture (only x86_64 and aarch64)"
        )
    arches = MACHINE_ARCHES[machine]
    steps: list[Step | str] = [(LOAD_WORD, OFFSET_ARCH, None, None)]
    steps += [(JUMP_IF_EQUAL, arch, f"arch {arch}", None) for arch in arches]
    steps.append((RETURN, RET_KILL_PROCESS, None, None))  # a foreign ABI: never let through
    for arch in arches:
        table = SYSCALLS[arch]
        steps += [f"arch {arch}", (LOAD_WORD, OFFSET_NR, None, None)]
        steps += [(JUMP_IF_EQUAL, nr, "check family", None) for nr in table["socket"]]
        steps += [(JUMP_IF_EQUAL, nr, "refuse", None) for nr in table["refused"]]
        steps.append((RETURN, RET_ALLOW, None, None))
    steps += [
        "check family",
        (LOAD_WORD, OFFSET_ARG0_LOW, None, None),
        *[(JUMP_IF_EQUAL, family, "allow", None) for family in ALLOWED_FAMILIES],
        "refuse",
        (RETURN, RET_ERRNO | errno.EPERM, None, None),
        "allow",
        (RETURN, RET_ALLOW, None, None),
    ]
    return _assemble(steps)
