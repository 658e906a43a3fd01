"""What the kernel refuses a sandboxed command: set-user-ID files, datagram socketpairs.

The workspace is the host's own folder, and a file a command leaves there belongs to its user
on the host (to root, for planloop run as root). A set-user-ID copy of a shell left there would
let anyone who reaches the folder act as that user. And an end of a datagram socketpair can
send to any unix socket the command can see (syslog, the journal, systemd's notify socket),
past the refusal of `socket(AF_UNIX)`. Each end-to-end test drives `python agent.py` against
the fake API, as root and as an unprivileged user.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import AGENT
from test_hostile_pass4 import (
    AS_NOBODY,
    needs_bwrap,
    owned_file,
    tool_results,
    user_folders,
)

from fakeapi import text, tool_use
from tools import seccomp

__all__ = ["user_folders"]  # a fixture, used by name below

SET_ID = stat.S_ISUID | stat.S_ISGID


def run_planloop(user: str, api, env: dict, workspace: Path, home: Path, planloop_home: Path):
    """`python agent.py -p` in `workspace` as `user`, to the end."""
    prefix = AS_NOBODY if user == "nobody" else []
    extra = {"HOME": str(home)} if user == "nobody" else {}
    return subprocess.run(
        [*prefix, sys.executable, str(AGENT), "-p", "build the tool"],
        cwd=workspace,
        env={**env, **extra, "PLANLOOP_HOME": str(planloop_home)},
        capture_output=True,
        text=True,
        timeout=90,
    )


def files_with_set_id_bits(folder: Path) -> list[str]:
    found = []
    for parent, folders, files in os.walk(folder):
        for name in folders + files:
            mode = os.lstat(os.path.join(parent, name)).st_mode
            if mode & SET_ID:
                found.append(f"{os.path.join(parent, name)} {stat.filemode(mode)}")
    return found


# The same chmod through the 32-bit system call numbers (`int 0x80`), which a 64-bit x86
# process can use too: code and path in a page below 4 GiB, where 32-bit pointers reach.
I386_CHMOD = r"""
import ctypes, os, platform
if platform.machine() == "x86_64":
    libc = ctypes.CDLL(None)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t] + [ctypes.c_int] * 3 + [ctypes.c_long]
    page = libc.mmap(None, 4096, 7, 0x22 | 0x40, -1, 0)  # rwx, private, anonymous, MAP_32BIT
    path = os.path.abspath("legacy32").encode() + b"\0"
    ctypes.memmove(page + 2048, path, len(path))
    word = lambda value: value.to_bytes(4, "little")
    # push rbx; mov eax, 15 (chmod); mov ebx, path; mov ecx, mode; int 0x80; pop rbx; ret
    code = b"\x53\xb8" + word(15) + b"\xbb" + word(page + 2048) + b"\xb9" + word(0o4755)
    code += b"\xcd\x80\x5b\xc3"
    ctypes.memmove(page, code, len(code))
    print("i386 chmod:", ctypes.CFUNCTYPE(ctypes.c_int)(page)())
"""

MAKE_SETUID = f"""
cp /bin/bash ./tool; chmod 4755 ./tool; chmod g+s ./tool; chmod u+s,g+s ./tool
install -m 4755 /bin/true ./installed
cp /bin/true ./legacy32
python3 -c "import os; os.close(os.open('created', os.O_CREAT | os.O_WRONLY, 0o4755))"
python3 -c "import os; os.close(os.open('group', os.O_CREAT | os.O_WRONLY, 0o2755))"
python3 -c "import os, stat; os.mknod('node', stat.S_IFREG | 0o6755)"
python3 -c "import os; os.chmod('legacy32', 0o4755, follow_symlinks=False)"
mkdir shared; chmod 2775 shared
python3 - <<'PY'
{I386_CHMOD}
PY
cp /bin/true ./plain; chmod 600 ./plain; chmod 755 ./plain && echo plain chmod works
ls -la
"""


@needs_bwrap
def test_a_sandboxed_command_leaves_no_set_user_id_program_on_the_host(api, env, user_folders):
    # As root, uid 0 in the sandbox is the host's root: `chmod 4755` on a copy of bash would
    # leave a root shell for any local user; as a user, a program that runs as that user.
    user, workspace, planloop_home, home = user_folders
    api.add({"content": [tool_use("bash", {"command": MAKE_SETUID})]})
    api.add({"content": [text("Done.")]})
    result = run_planloop(user, api, env, workspace, home, planloop_home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert files_with_set_id_bits(workspace) == []
    assert "Operation not permitted" in output
    assert "plain chmod works" in output  # an ordinary chmod still works
    assert stat.S_IMODE((workspace / "plain").stat().st_mode) == 0o755
    assert (workspace / "tool").exists() and (workspace / "shared").is_dir()
    assert "i386 chmod: 0" not in output  # (a kernel without 32-bit calls kills the probe)


# A key file saved while a task runs, read through a second name made in a folder planloop
# does not watch yet, then emptied through it: no event on the key file's folder would tell.
LINK_A_KEY_FILE = """
echo 'ANTHROPIC_API_KEY=later' > .env.local
mkdir -p fresh && ln .env.local fresh/h; echo "ln: $?"
python3 -c 'import os; os.link(".env.local", "fresh/h2")' 2>&1 | tail -1
nameless='fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)'
python3 -c "import os; $nameless; os.link(f'/proc/self/fd/{fd}', 'fresh/h3')" 2>&1 | tail -1
cp -l .env.local fresh/h4 2>&1 || cp .env.local fresh/copied; echo copies: $(ls fresh)
"""


@needs_bwrap
def test_a_sandboxed_command_makes_no_hard_link(api, env, user_folders):
    # link() and linkat() fail as between two file systems (EXDEV), on which tools copy.
    user, workspace, planloop_home, home = user_folders
    api.add({"content": [tool_use("bash", {"command": LINK_A_KEY_FILE})]})
    api.add({"content": [text("Done.")]})
    result = run_planloop(user, api, env, workspace, home, planloop_home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "Invalid cross-device link" in output and "ln: 1" in output
    assert output.count("Errno 18") == 2  # os.link, and linkat of a file made with no name
    assert "copies: copied" in output  # what a tool does on EXDEV: a copy
    assert os.stat(workspace / ".env.local").st_nlink == 1


def dgram_folder() -> Path:
    """A folder for a host socket that the sandbox sees (read-only), outside /tmp: the
    sandbox has a /tmp of its own."""
    for base in ("/var/tmp", "/run"):
        if os.path.isdir(base) and os.access(base, os.W_OK):
            folder = Path(tempfile.mkdtemp(prefix="planloop-dgram-", dir=base))
            os.chmod(folder, 0o755)
            return folder
    pytest.skip("no folder outside /tmp to put a host socket in")


@pytest.fixture
def host_dgram_socket():
    """A unix datagram socket on the host, as syslog's /dev/log or the journal's are."""
    folder = dgram_folder()
    path = folder / "service.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(path))
    os.chmod(path, 0o777)  # any user may send, as to /dev/log
    listener.setblocking(False)
    yield listener, path
    listener.close()
    shutil.rmtree(folder, ignore_errors=True)


REACH_HOST_SOCKET = """
python3 - <<'PY'
import socket
target = "{path}"
for kind in ("SOCK_DGRAM", "SOCK_SEQPACKET", "SOCK_RAW"):
    try:
        a, b = socket.socketpair(socket.AF_UNIX, getattr(socket, kind) | socket.SOCK_CLOEXEC)
    except OSError as error:
        print(kind, "refused:", error.errno)
        continue
    try:
        print(kind, "sent:", a.sendto(b"to the host from " + kind.encode(), target))
    except OSError as error:
        print(kind, "sendto failed:", error)
    try:
        a.connect(target)
        print(kind, "connected, sent:", a.send(b"connected " + kind.encode()))
    except OSError as error:
        print(kind, "connect failed:", error)
a, b = socket.socketpair()
a.sendall(b"ping")
print("stream pair:", b.recv(4))
PY
"""


@needs_bwrap
def test_a_datagram_socketpair_cannot_reach_a_host_socket(
    api, env, user_folders, host_dgram_socket
):
    user, workspace, planloop_home, home = user_folders
    listener, path = host_dgram_socket
    api.add({"content": [tool_use("bash", {"command": REACH_HOST_SOCKET.format(path=path)})]})
    api.add({"content": [text("Done.")]})
    result = run_planloop(user, api, env, workspace, home, planloop_home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    # The command has ended: whatever it sent is in the socket's queue by now.
    with pytest.raises(BlockingIOError):
        print("the host socket got:", listener.recvfrom(4096))
    assert f"SOCK_DGRAM refused: {errno.EPERM}" in output
    assert f"SOCK_SEQPACKET refused: {errno.EPERM}" in output
    assert "stream pair: b'ping'" in output  # what asyncio and subprocess plumbing use


def test_the_file_tools_drop_the_set_user_id_bit_of_a_file_they_rewrite(api, env, user_folders):
    # planloop writes outside the sandbox: a set-user-ID file whose content the model
    # rewrites would run that content as planloop's user.
    user, workspace, planloop_home, home = user_folders
    for name in ("tool.sh", "helper.sh"):
        owned_file(workspace / name, "#!/bin/sh\necho old\n", user)
        os.chmod(workspace / name, 0o6755)
    write = tool_use("write_file", {"path": "tool.sh", "content": "#!/bin/sh\nid\n"})
    edit = tool_use("edit_file", {"path": "helper.sh", "old_text": "echo old", "new_text": "id"})
    read = [tool_use("read_file", {"path": name}) for name in ("tool.sh", "helper.sh")]
    api.add({"content": read})
    api.add({"content": [write]})
    api.add({"content": [edit]})
    api.add({"content": [text("Done.")]})
    result = run_planloop(user, api, env, workspace, home, planloop_home)
    assert result.returncode == 0, result.stderr
    assert (workspace / "tool.sh").read_text() == "#!/bin/sh\nid\n"
    assert (workspace / "helper.sh").read_text() == "#!/bin/sh\nid\n"
    for name in ("tool.sh", "helper.sh"):
        assert stat.S_IMODE((workspace / name).stat().st_mode) == 0o755  # the rest is kept


# ---- the filter itself, for every architecture it covers ------------------------------------


def run_filter(program: bytes, arch: int, nr: int, *args: int) -> int:
    """What the classic BPF `program` returns for one system call."""
    values = [*args, *[0] * (6 - len(args))]
    data = struct.pack("=iIQ6Q", nr - (1 << 32) if nr >= 1 << 31 else nr, arch, 0, *values)
    steps = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    here, accumulator = 0, 0
    while True:
        code, if_true, if_false, k = steps[here]
        if code == seccomp.LOAD_WORD:
            accumulator = struct.unpack_from("=I", data, k)[0]
        elif code == seccomp.AND:
            accumulator &= k
        elif code == seccomp.JUMP_IF_EQUAL:
            here += if_true if accumulator == k else if_false
        elif code == seccomp.JUMP_IF_ANY_BIT:
            here += if_true if accumulator & k else if_false
        elif code == seccomp.RETURN:
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        here += 1


REFUSED = seccomp.RET_ERRNO | errno.EPERM
# Where each call takes its mode (the C prototypes: chmod(path, mode), openat(dir, path,
# flags, mode), mknodat(dir, path, mode, dev), ...).
MODE_POSITION = {
    "chmod": 1, "fchmod": 1, "creat": 1, "mknod": 1,
    "open": 2, "mknodat": 2, "fchmodat": 2, "fchmodat2": 2, "openat": 3,
}  # fmt: skip


def every_abi():
    """(machine, arch, number bit) for every ABI the filter covers, x32 included."""
    for machine, arches in seccomp.MACHINE_ARCHES.items():
        for arch in arches:
            yield machine, arch, 0
            if arch == seccomp.AUDIT_ARCH_X86_64:
                yield machine, arch, seccomp.X32_SYSCALL_BIT


@pytest.mark.parametrize("machine, arch, bit", list(every_abi()))
def test_every_abi_refuses_set_id_modes_and_datagram_pairs(machine, arch, bit):
    program = seccomp.unix_socket_filter(machine)
    numbers = {name: nr | bit for name, nr in seccomp.SYSCALLS[arch].items()}
    for name, position in MODE_POSITION.items():
        if name not in numbers:
            continue
        for mode, expected in [
            (0o4755, REFUSED),
            (0o2755, REFUSED),
            (stat.S_IFREG | 0o6700, REFUSED),
            (0o755, seccomp.RET_ALLOW),
            (0o1777, seccomp.RET_ALLOW),  # the sticky bit gives no one anything
            (stat.S_IFREG | 0o644, seccomp.RET_ALLOW),
        ]:
            args = [0] * 6
            args[position] = mode
            assert run_filter(program, arch, numbers[name], *args) == expected, (name, oct(mode))
    assert run_filter(program, arch, numbers["openat2"]) == seccomp.RET_ERRNO | errno.ENOSYS
    assert "linkat" in numbers
    for name in ("link", "linkat"):  # aarch64 has only linkat
        if name in numbers:
            assert run_filter(program, arch, numbers[name]) == seccomp.RET_ERRNO | errno.EXDEV
    pair = numbers["socketpair"]
    for kind in (socket.SOCK_DGRAM, socket.SOCK_SEQPACKET, socket.SOCK_RAW):
        assert run_filter(program, arch, pair, socket.AF_UNIX, kind) == REFUSED
        assert run_filter(program, arch, pair, socket.AF_UNIX, kind | socket.SOCK_CLOEXEC) == (
            REFUSED
        )
    stream = socket.SOCK_STREAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC
    assert run_filter(program, arch, pair, socket.AF_UNIX, socket.SOCK_STREAM) == seccomp.RET_ALLOW
    assert run_filter(program, arch, pair, socket.AF_UNIX, stream) == seccomp.RET_ALLOW
    assert run_filter(program, arch, pair, 40, socket.SOCK_STREAM) == REFUSED  # AF_VSOCK
    assert run_filter(program, arch, numbers["socket"], socket.AF_UNIX) == REFUSED
    assert run_filter(program, arch, numbers["socket"], socket.AF_INET) == seccomp.RET_ALLOW
    # A call the filter does not name goes through whatever its arguments.
    other = 1000 | bit
    assert run_filter(program, arch, other, socket.AF_UNIX, 0o4755, 0o4755, 0o4755) == (
        seccomp.RET_ALLOW
    )


def header_numbers(header: Path, prefix: str = "__NR_") -> dict[str, int]:
    """The syscall numbers a kernel header defines (`#define __NR_open 2`, x32's with a bit)."""
    numbers = {}
    for name, value in re.findall(rf"#define {prefix}(\w+)\s+\(?([^\n)]*)\)?", header.read_text()):
        value = value.replace("__X32_SYSCALL_BIT", str(seccomp.X32_SYSCALL_BIT))
        if re.fullmatch(r"[\d +]+", value):
            numbers[name] = sum(int(part) for part in value.split("+"))
    return numbers


HEADERS = {
    seccomp.AUDIT_ARCH_X86_64: "/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
    seccomp.AUDIT_ARCH_I386: "/usr/include/x86_64-linux-gnu/asm/unistd_32.h",
    seccomp.AUDIT_ARCH_AARCH64: "/usr/include/asm-generic/unistd.h",
}


@pytest.mark.parametrize("arch", list(HEADERS))
def test_the_numbers_match_the_kernel_headers_where_they_are_installed(arch):
    header = Path(HEADERS[arch])
    if not header.exists():
        pytest.skip(f"no {header}")
    defined = header_numbers(header)
    named = seccomp.SYSCALLS[arch]
    checked = [name for name in named if name in defined]  # an old header lacks the newest
    assert len(checked) >= len(named) - 2
    assert {name: named[name] for name in checked} == {name: defined[name] for name in checked}
    x32 = Path("/usr/include/x86_64-linux-gnu/asm/unistd_x32.h")
    if arch == seccomp.AUDIT_ARCH_X86_64 and x32.exists():
        defined = header_numbers(x32)
        for name in checked:
            assert defined[name] == named[name] | seccomp.X32_SYSCALL_BIT, name
