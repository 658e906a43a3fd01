"""Start `python agent.py ARGS` for the end-to-end tests without paying for `import anthropic`.

A fresh interpreter spends about 1.5 s of CPU importing the SDK and its friends (httpx,
pydantic, rich, prompt_toolkit) before planloop runs a line; the suite starts about a hundred
such processes. So each test process (each xdist worker) starts one *warm parent*: a real
`python tests/spawn.py SOCKET` that imports those third-party packages once, stays
single-threaded, and then forks a child for every `agent.py` the tests start.

What the child shares with the warm parent, and why the tests still prove what they claim:
- **Already imported:** the third-party modules in `WARM_MODULES` and the standard library
  they pull in, as a fresh interpreter would have them after the same imports (their
  import-time state depends on nothing but the environment, which is checked below). None of
  planloop's own modules is imported in the parent: agent.py, cli/, tools/... load fresh in
  every child, from the checkout under test.
- **Everything else is rebuilt as CPython builds it at start-up:** a process of its own (own
  pid, exit status, death by a signal as a negative returncode), a new session when asked
  (`start_new_session=True`, as subprocess does it: no controlling terminal), fds 0/1/2 from
  the fds the test passed (sent over a unix socket), every other fd closed, the cwd,
  `os.environ` (and what the standard library cached from it: the locale, the time zone,
  tempfile's folder), `sys.argv`, `sys.path[0]` = the folder of agent.py, `sys.stdin/stdout/stderr`
  built like CPython's (utf-8 per the locale, line-buffered on a tty, stderr always
  line-buffered), the signal dispositions of a fresh interpreter (SIGINT raises
  KeyboardInterrupt, SIGPIPE and SIGXFSZ ignored, the rest default, none blocked), and the
  `random` module reseeded (CPython does this at fork). agent.py runs through
  `runpy.run_path(..., run_name="__main__")`; then non-daemon threads are joined, atexit
  handlers run, the streams are flushed, and an uncaught KeyboardInterrupt ends the process
  by SIGINT, as `python` does.
  The test gets the pid only once all this is done, as `subprocess.Popen` returns only after
  the exec: a signal sent at once finds the child as a fresh interpreter would be.
- **Seen once, in the parent:** a warning raised while those packages are imported goes to the
  parent's stderr, not the child's; no test looks for one (both ways of starting agree).
- **When it cannot be the same, it is a real exec:** a command that is not
  `[sys.executable, agent.py, ...]`, a child environment that differs from the parent's in
  what CPython reads at start-up (`PYTHON*`, `LANG`, `LC_*`), keyword arguments this module
  does not model, or `real_exec=True` (tests about start-up and imports).
  `PLANLOOP_TEST_REAL_SPAWN=1` makes every start a real exec, to check that both agree.
"""

from __future__ import annotations

import io
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
WARM_MODULES = [
    "anthropic",
    "httpx2",
    "pydantic",
    "dotenv",
    "rich.console",
    "rich.markdown",
    "rich.live",
    "rich.status",
    "rich.syntax",
    "rich.text",
    "prompt_toolkit",
    "prompt_toolkit.shortcuts",
    "prompt_toolkit.key_binding",
    "prompt_toolkit.history",
]
# What CPython reads from the environment before any Python code runs: a child whose
# environment differs from the warm parent's here would start differently, so it is exec'ed.
START_UP_ENV = ("PYTHON", "LANG", "LC_")
PIPE, DEVNULL, STDOUT = subprocess.PIPE, subprocess.DEVNULL, subprocess.STDOUT
MODELLED_OPTIONS = {"cwd", "env", "stdin", "stdout", "stderr", "text", "start_new_session"}
MESSAGE_SIZE = 1 << 20


# ---- the test side ---------------------------------------------------------------------------


class WarmParent:
    """The warm parent of one test process: started on first use, stopped at the end."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="planloop-spawn-")
        self.address = os.path.join(self.folder, "socket")
        self.env = dict(os.environ)
        self.proc = subprocess.Popen(
            [sys.executable, __file__, self.address],
            stdin=PIPE,  # the parent ends when this test process does: its stdin reaches EOF
            stdout=PIPE,
            env=self.env,
            start_new_session=True,
        )
        # The parent writes one line once its imports are done and it listens.
        ready = self.proc.stdout.readline()
        assert ready == b"ready\n", f"the warm parent did not start: {ready!r}"

    def can_start(self, env: dict) -> bool:
        def start_up(e: dict) -> dict:
            return {k: v for k, v in e.items() if k.startswith(START_UP_ENV)}

        return self.proc.poll() is None and start_up(env) == start_up(self.env)

    def stop(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        os.unlink(self.address)
        os.rmdir(self.folder)


_parent: WarmParent | None = None


def warm_parent() -> WarmParent:
    global _parent
    if _parent is None:
        _parent = WarmParent()
    return _parent


def stop_warm_parent() -> None:
    """End this test process's warm parent, if one was started."""
    global _parent
    if _parent is not None:
        _parent.stop()
        _parent = None


def _warm_possible(args, options: dict, real_exec: bool) -> bool:
    if real_exec or os.environ.get("PLANLOOP_TEST_REAL_SPAWN") == "1":
        return False
    if not isinstance(args, list | tuple) or len(args) < 2:
        return False
    if args[0] != sys.executable or Path(args[1]) != AGENT:
        return False
    return set(options) <= MODELLED_OPTIONS


def Popen(args, *, real_exec: bool = False, **options):  # noqa: N802 - mirrors subprocess.Popen
    """`subprocess.Popen(args, **options)`, forked from the warm parent where that is the same."""
    if not _warm_possible(args, options, real_exec):
        return subprocess.Popen(args, **options)
    env = dict(os.environ if options.get("env") is None else options["env"])
    parent = warm_parent()
    if not parent.can_start(env):
        return subprocess.Popen(args, **options)
    return WarmChild(parent, [str(a) for a in args], **{**options, "env": env})


def run(
    args, *, input=None, capture_output=False, timeout=None, check=False, real_exec=False, **options
):  # noqa: A002
    """`subprocess.run`, starting the process through `Popen` above."""
    if input is not None:
        options["stdin"] = PIPE
    if capture_output:
        options["stdout"] = options["stderr"] = PIPE
    with Popen(args, real_exec=real_exec, **options) as proc:
        try:
            stdout, stderr = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
    result = subprocess.CompletedProcess(args, proc.returncode, stdout, stderr)
    if check:
        result.check_returncode()
    return result


class WarmChild:
    """The test's handle on a forked child: the parts of `subprocess.Popen` the tests use."""

    def __init__(self, parent, args, *, env, cwd=None, stdin=None, stdout=None, stderr=None,
                 text=False, start_new_session=False) -> None:  # fmt: skip
        self.args = args
        self.returncode: int | None = None
        self.stdin = self.stdout = self.stderr = None
        child_fds, close_here = [], []

        def child_end(choice, fd: int, reading: bool):
            if choice is None:
                return fd
            if choice == DEVNULL:
                devnull = os.open(os.devnull, os.O_RDONLY if reading else os.O_WRONLY)
                close_here.append(devnull)
                return devnull
            if choice == PIPE:
                read_end, write_end = os.pipe()
                mine, theirs = (write_end, read_end) if reading else (read_end, write_end)
                close_here.append(theirs)
                stream = open(mine, "wb" if reading else "rb")  # noqa: SIM115 - kept on self
                if text:
                    stream = io.TextIOWrapper(stream, write_through=reading)
                return theirs, stream
            return choice if isinstance(choice, int) else choice.fileno()

        streams = {}
        for name, choice, fd, reading in (
            ("stdin", stdin, 0, True),
            ("stdout", stdout, 1, False),
            ("stderr", stderr, 2, False),
        ):
            if choice == STDOUT:
                child_fds.append(child_fds[1])
                continue
            end = child_end(choice, fd, reading)
            if isinstance(end, tuple):
                end, streams[name] = end
            child_fds.append(end)
        self.stdin, self.stdout, self.stderr = (
            streams.get(n) for n in ("stdin", "stdout", "stderr")
        )
        request = {
            "argv": args[1:],  # sys.argv: the script, then its arguments
            "cwd": str(cwd) if cwd is not None else os.getcwd(),
            "env": env,
            "new_session": bool(start_new_session),
        }
        self.channel = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.channel.connect(parent.address)
        socket.send_fds(self.channel, [json.dumps(request).encode()], child_fds)
        for fd in close_here:
            os.close(fd)
        self.pid = json.loads(self.channel.recv(MESSAGE_SIZE))["pid"]

    def poll(self) -> int | None:
        if self.returncode is None:
            self._read_status(timeout=0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None and not self._read_status(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout)
        return self.returncode

    def _read_status(self, timeout: float | None) -> bool:
        """Take the exit status the watcher sends once the child has ended, if it comes in time."""
        ready, _, _ = select.select([self.channel], [], [], timeout)
        if not ready:
            return False
        self.returncode = json.loads(self.channel.recv(MESSAGE_SIZE))["returncode"]
        self.channel.close()
        return True

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def communicate(self, input=None, timeout: float | None = None):  # noqa: A002
        """Write `input`, read stdout and stderr to the end, wait: as `Popen.communicate`."""
        output: dict[str, object] = {}

        def drain(name: str) -> None:
            output[name] = getattr(self, name).read()
            getattr(self, name).close()

        readers = [
            threading.Thread(target=drain, args=(name,), daemon=True)
            for name in ("stdout", "stderr")
            if getattr(self, name) is not None
        ]
        for reader in readers:
            reader.start()
        if self.stdin is not None:
            try:
                if input:
                    self.stdin.write(input)
                self.stdin.close()
            except BrokenPipeError:
                pass
        for reader in readers:
            reader.join(timeout)
            if reader.is_alive():
                raise subprocess.TimeoutExpired(self.args, timeout)
        self.wait(timeout)
        return output.get("stdout"), output.get("stderr")

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None and not stream.closed:
                stream.close()
        self.wait()


Process = subprocess.Popen | WarmChild  # what `Popen` above returns


# ---- the warm parent -------------------------------------------------------------------------


def serve(address: str) -> None:
    """Import the heavy packages once, then fork one child per request, forever."""
    import importlib

    for name in WARM_MODULES:
        importlib.import_module(name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(address)
    listener.listen(16)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        ready, _, _ = select.select([listener, sys.stdin], [], [])
        reap_watchers()  # so that their CPU time counts for the test run, as a real exec's does
        if sys.stdin in ready:
            return  # the test process has ended
        channel, _ = listener.accept()
        message, fds, _, _ = socket.recv_fds(channel, MESSAGE_SIZE, 3)
        if os.fork() == 0:
            listener.close()
            watch(channel, json.loads(message), fds)
        channel.close()
        for fd in fds:
            os.close(fd)


def reap_watchers() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def watch(channel: socket.socket, request: dict, fds: list[int]) -> None:
    """In a fork of the parent: fork the child, report its pid and, later, its exit status."""
    # As subprocess.Popen returns only once the child has exec'd, the pid goes to the test only
    # once the child is set up: a signal sent right away finds the fresh dispositions.
    set_up_read, set_up_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        become_agent(request, fds, set_up_write)
    for fd in (*fds, set_up_write):
        os.close(fd)
    os.read(set_up_read, 1)  # one byte when set up; nothing if the child died before
    channel.send(json.dumps({"pid": pid}).encode())
    _, status = os.waitpid(pid, 0)
    channel.send(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}).encode())
    os._exit(0)


def become_agent(request: dict, fds: list[int], set_up: int) -> None:
    """In the child: turn into `python agent.py ARGS` as a fresh interpreter would be."""
    import atexit
    import locale
    import runpy

    if request["new_session"]:
        os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, set_up)
    os.closerange(set_up + 1, os.sysconf("SC_OPEN_MAX"))
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    # What the standard library read from the parent's environment and keeps: read it again.
    locale.setlocale(locale.LC_CTYPE, "")
    time.tzset()
    tempfile.tempdir = None  # gettempdir() looks at TMPDIR again
    for sig in signal.valid_signals():
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        fresh = {
            signal.SIGINT: signal.default_int_handler,
            signal.SIGPIPE: signal.SIG_IGN,
            signal.SIGXFSZ: signal.SIG_IGN,
        }.get(sig, signal.SIG_DFL)
        if signal.getsignal(sig) is not fresh:
            signal.signal(sig, fresh)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    rebuild_stdio()
    sys.argv = request["argv"]
    sys.path[0] = str(AGENT.parent)
    os.write(set_up, b"1")
    os.close(set_up)

    code, interrupted = 0, False
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
    except SystemExit as stop:
        code = exit_code(stop.code)
    except BaseException as error:
        interrupted = isinstance(error, KeyboardInterrupt)
        sys.excepthook(type(error), error, error.__traceback__)
        code = 1
    # What Py_FinalizeEx does before the process ends.
    threading._shutdown()
    atexit._run_exitfuncs()
    for stream, failed_code in ((sys.stdout, 120), (sys.stderr, None)):
        try:
            stream.flush()
        except Exception:
            if failed_code is not None and code == 0:
                code = failed_code
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code)


def exit_code(code) -> int:
    """The status `python` exits with for `sys.exit(code)`."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def rebuild_stdio() -> None:
    """New sys.stdin/stdout/stderr on fds 0/1/2, made as CPython's create_stdio makes them."""
    encoding, errors = sys.__stdout__.encoding, sys.__stdout__.errors
    write_through = sys.__stdout__.write_through  # True under -u or PYTHONUNBUFFERED

    def stream(fd: int, name: str, reading: bool, errors: str):
        raw = io.FileIO(fd, "rb" if reading else "wb", closefd=False)
        raw.name = name
        tty = raw.isatty()
        buffered = io.BufferedReader(raw) if reading else io.BufferedWriter(raw)
        text = io.TextIOWrapper(
            buffered,
            encoding=encoding,
            errors=errors,
            newline="\n",
            line_buffering=not reading and (tty or fd == 2),
            write_through=write_through,
        )
        text.mode = "r" if reading else "w"
        return text

    sys.stdin = sys.__stdin__ = stream(0, "<stdin>", True, errors)
    sys.stdout = sys.__stdout__ = stream(1, "<stdout>", False, errors)
    sys.stderr = sys.__stderr__ = stream(2, "<stderr>", False, "backslashreplace")


if __name__ == "__main__":
    serve(sys.argv[1])
