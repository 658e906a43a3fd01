"""What the sandbox costs per bash command, and what each of its parts adds.

    python bench/sandbox.py [WORKSPACE]

Runs `true` many times through the bash tool, side by side in one run:

    direct                  no sandbox (the clean environment only)
    bwrap, minimal          bwrap as it once was: read-only /, writable workspace, nothing more
    full, without seccomp   today's sandbox without the unix-socket filter
    full, without Landlock  today's sandbox without the step that applies Landlock inside it
    full, without the system's private files
                            today's sandbox hiding nothing of /etc and /var/lib
    full                    today's sandbox: launcher, every protected bind, hidden secrets,
                            no capabilities, the seccomp filter, Landlock

and times the parts on their own: the workspace scan (done before and after each command),
the launcher that opens and checks the protected paths, and the scan of a generated tree the
size of a large project, to show where the scan limit (tools/paths.py) stands.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tools.sandbox  # noqa: E402
from tools.bash import run_bash  # noqa: E402
from tools.paths import (  # noqa: E402
    CTIME_TRUST_MARGIN_NS,
    SCAN_ENTRY_LIMIT,
    SCAN_SECONDS_LIMIT,
    scan_workspace,
)
from tools.sandbox import Bubblewrap, NoSandbox, bubblewrap_works, clean_environment  # noqa: E402

RUNS = 20


class MinimalBubblewrap:
    """bwrap with only the mounts and namespaces the first sandbox had, for comparison."""

    def wrap(self, workspace: Path, command: str) -> tuple[list[str], dict[str, str]]:
        root = str(workspace)
        argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        argv += ["--tmpfs", "/tmp", "--bind", root, root, "--unshare-pid", "--unshare-ipc"]
        argv += ["--die-with-parent", "--new-session", "--unshare-net", "--chdir", root]
        return [*argv, "--", "/bin/bash", "-c", command], clean_environment()


class WithoutPrivateSystemFiles(Bubblewrap):
    """Today's sandbox with no private file of the system's hidden (PRIVATE_SYSTEM_FOLDERS)."""

    def wrap(self, workspace: Path, command: str, **options) -> tuple[list[str], dict[str, str]]:
        folders, tools.sandbox.PRIVATE_SYSTEM_FOLDERS = tools.sandbox.PRIVATE_SYSTEM_FOLDERS, ()
        try:
            return super().wrap(workspace, command, **options)
        finally:
            tools.sandbox.PRIVATE_SYSTEM_FOLDERS = folders


def per_call_ms(action, runs: int = RUNS) -> float:
    action()  # once to warm caches
    start = time.perf_counter()
    for _ in range(runs):
        action()
    return (time.perf_counter() - start) / runs * 1000


def big_tree(folder: Path, folders: int = 5_000, files_each: int = 20) -> int:
    """A generated project: `folders` folders of `files_each` files; returns the entry count."""
    for number in range(folders):
        sub = folder / f"pkg{number // 100}" / f"mod{number}"
        sub.mkdir(parents=True)
        for index in range(files_each):
            (sub / f"f{index}.js").touch()
    return folders * (files_each + 1) + folders // 100


def main() -> None:
    workspace = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT).resolve()
    scan = scan_workspace(workspace)
    print(
        f"workspace: {workspace} ({len(scan.env_files)} .env files, "
        f"{len(scan.git_entries)} .git entries)"
    )
    print(f"workspace scan, whole    {per_call_ms(lambda: scan_workspace(workspace)):7.1f} ms")
    cache: dict = {}
    ms = per_call_ms(lambda: scan_workspace(workspace, cache=cache))
    print(f"workspace scan, cached   {ms:7.1f} ms (folders unchanged since the last scan)")
    with tempfile.TemporaryDirectory() as folder:
        entries = big_tree(Path(folder))
        # Folders changed within the margin are always listed again; a real tree is older.
        time.sleep(CTIME_TRUST_MARGIN_NS / 1e9)
        ms = per_call_ms(lambda: scan_workspace(Path(folder)), runs=3)
        print(
            f"{entries:,} entries, whole {ms:7.1f} ms (limit: {SCAN_ENTRY_LIMIT:,} entries "
            f"or {SCAN_SECONDS_LIMIT:g} s)"
        )
        cache = {}
        scan_workspace(Path(folder), cache=cache)
        ms = per_call_ms(lambda: scan_workspace(Path(folder), cache=cache), runs=3)
        print(f"{entries:,} entries, cached {ms:6.1f} ms (the scan runs twice per command)")
    probe = bubblewrap_works()
    if probe is not True:
        print(f"(no bubblewrap: {probe}; only the direct figure follows)")
    full = Bubblewrap()
    without_seccomp = Bubblewrap()
    without_seccomp.filter_file = None
    without_landlock = Bubblewrap()
    without_landlock.landlock = False
    sandboxes = [("direct", NoSandbox())]
    if probe is True:
        sandboxes += [
            ("bwrap, minimal", MinimalBubblewrap()),
            ("full, without seccomp", without_seccomp),
            ("full, without Landlock", without_landlock),
            ("full, no private files", WithoutPrivateSystemFiles()),
            ("full", full),
        ]
    for name, sandbox in sandboxes:
        ms = per_call_ms(lambda s=sandbox: asyncio.run(run_bash(workspace, "true", sandbox=s)))
        print(f"{name:<24} {ms:7.1f} ms per command (`true`, everything included)")
    if probe is True:
        launcher = [sys.executable, "-I", "-S", "-c", "pass"]
        ms = per_call_ms(lambda: subprocess.run(launcher, check=True))
        print(f"launcher's Python start  {ms:7.1f} ms (part of `full`)")
        argv, _ = full.wrap(workspace, "true")
        binds = argv.count("--ro-bind-fd") + argv.count("--tmpfs") + argv.count("--ro-bind")
        print(f"mounts in the full argv  {binds:7d}")
    folders = tools.sandbox.PRIVATE_SYSTEM_FOLDERS
    start = time.perf_counter()
    private = tools.sandbox.private_system_files.__wrapped__(folders)
    ms = (time.perf_counter() - start) * 1000
    print(f"system's private files  {ms:7.1f} ms (once a run: {len(private)} found, as this user)")
    start = time.perf_counter()
    bubblewrap_works.cache_clear()
    bubblewrap_works()
    print(f"start-up probe           {(time.perf_counter() - start) * 1000:7.1f} ms (once)")


if __name__ == "__main__":
    main()
