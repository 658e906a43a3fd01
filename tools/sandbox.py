"""Where shell commands run: directly, or inside a bubblewrap sandbox.

A sandbox is any object with one method, `wrap(workspace, command) -> (argv, env)`: the argv to
spawn and the environment to give it. The bash tool and background tasks both spawn through it.

    NoSandbox()                 /bin/bash -c COMMAND, with a clean environment
    Bubblewrap(allow_network)   the same command inside bwrap (https://github.com/containers/bubblewrap):

        /                   read-only         the system is there to use, not to change
        the workspace       writable          ... except its protected paths (tools/paths.py):
          .git/config, .git/hooks, .env*      read-only, so no command can plant a hook
        /tmp                private, empty    a tmpfs only this command sees
        /proc, /dev         fresh, minimal    a new pid namespace: the tree dies with planloop
        network             none              unless allow_network (--allow-network)

The environment is built on purpose either way (tools/environment.py): no `ANTHROPIC_*`
variable (the key, an auth token, the base URL) and nothing that makes bash or the dynamic
loader run extra code reaches a command, or bwrap itself; sandboxed commands also get no
addresses of your agents and daemons (SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS, ...).

`bubblewrap_works()` is the start-up probe: it runs `true` in the same sandbox once.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from pathlib import Path

from tools.environment import command_environment
from tools.paths import ENV_FILE_PREFIX, GIT_DIR_NAME, existing_protected_paths

INSTALL_HINT = "install it with: apt-get install bubblewrap"


def clean_environment(sandboxed: bool = True) -> dict[str, str]:
    """The environment of a command, and of bwrap when `sandboxed` (tools/environment.py)."""
    return command_environment(sandboxed)


class NoSandbox:
    """Run the command directly with bash; only the environment is cleaned."""

    confines_writes = False

    def wrap(self, workspace: Path, command: str) -> tuple[list[str], dict[str, str]]:
        return ["/bin/bash", "-c", command], clean_environment(sandboxed=False)


class Bubblewrap:
    """Run the command in bubblewrap: read-only system, writable workspace, no network."""

    confines_writes = True
    # A pid namespace and --die-with-parent: its processes die with planloop, no supervisor needed.
    confines_processes = True

    def __init__(self, allow_network: bool = False) -> None:
        self.allow_network = allow_network

    @property
    def description(self) -> str:
        """What the model is told, so a read-only error does not surprise it."""
        network = "" if self.allow_network else " There is no network."
        return (
            " Commands run in a sandbox: only the workspace is writable (not .git/config, "
            f".git/hooks or .env files), and /tmp is private and empty.{network}"
        )

    def wrap(
        self, workspace: Path, command: str, protected: list[Path] | None = None
    ) -> tuple[list[str], dict[str, str]]:
        """The bwrap argv and environment; `protected` is a scan the caller already made."""
        root = str(Path(workspace).resolve())
        argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        # The tmpfs comes before the workspace: a workspace under /tmp is then mounted on top of
        # the empty /tmp instead of being hidden by it.
        argv += ["--tmpfs", "/tmp", "--bind", root, root]
        if protected is None:
            protected = self.protected_paths(Path(root))
        for path in protected:
            # A link is protected by binding what it points to; -try skips a dangling one
            # instead of failing every command.
            target = str(path.resolve())
            argv += ["--ro-bind-try", target, target]
        # A new pid namespace (its init's death kills everything in it, setsid or not), the
        # command dies with planloop, and a new session so it cannot push keys into our terminal.
        argv += ["--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session"]
        if not self.allow_network:
            argv.append("--unshare-net")
        argv += ["--chdir", root, "--", "/bin/bash", "-c", command]
        return argv, clean_environment()

    @staticmethod
    def protected_paths(root: Path) -> list[Path]:
        """The protected paths to bind read-only, creating an empty .git/hooks if it is missing.

        A missing hooks folder cannot be bound, and a command could then create it with a hook
        in it; an empty one is what `git init` makes anyway.
        """
        git_dir = root / GIT_DIR_NAME
        if git_dir.is_dir() and not (git_dir / "hooks").exists():
            (git_dir / "hooks").mkdir()
        return existing_protected_paths(root)


def new_env_files(workspace: Path, before: list[Path]) -> list[Path]:
    """The `.env*` files that exist now but were not in `before` (a list from before a command).

    Bind mounts keep existing protected files read-only, but cannot stop a new name from being
    created; the bash tool removes these after a sandboxed command instead.
    """
    existed = set(before)
    return [
        path
        for path in existing_protected_paths(workspace)
        if path.name.startswith(ENV_FILE_PREFIX) and path not in existed
    ]


@functools.cache
def bubblewrap_works() -> bool | str:
    """True if bwrap can start a sandbox here, else a one-line reason (test it with `is True`).

    bwrap may be missing, or present but refused by the system (no user namespaces in a
    container, for example); both are found by running `true` inside it once.
    """
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed; {INSTALL_HINT}"
    try:
        with tempfile.TemporaryDirectory() as empty_workspace:
            argv, env = Bubblewrap().wrap(Path(empty_workspace), "true")
            probe = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"bubblewrap cannot start ({err})"
    if probe.returncode != 0:
        first_line = (probe.stderr.strip().splitlines() or ["no message"])[0]
        return f"bubblewrap cannot start a sandbox here ({first_line})"
    return True


def choose_sandbox(wanted: bool, allow_network: bool = False) -> tuple[object, str | None]:
    """The sandbox to use, and why there is none when one was wanted but cannot run here.

    Returns (Bubblewrap, None) when it works, else (NoSandbox, reason); with `wanted` False
    (--no-sandbox), (NoSandbox, None).
    """
    if not wanted:
        return NoSandbox(), None
    works = bubblewrap_works()
    if works is True:
        return Bubblewrap(allow_network=allow_network), None
    return NoSandbox(), str(works)
