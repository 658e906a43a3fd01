"""What installed packages cost each bash command when a hook runs lint-staged.

    python bench/per_file_packages.py [--runs 3] [--packages 3000]

lint-staged takes the config of every file git does not ignore, node_modules included, and a
package.json counts when it has the `lint-staged` key; so each look reads every package.json
there (tools/per_file_configs.py). `true` is run through the bash tool in the sandbox, side by
side in one run, in workspaces with a git hook that runs:

    make lint       no per-file tool: node_modules is listed, never read
    npx lint-staged each package.json in node_modules is read for its key
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tool_settings import per_command_ms  # noqa: E402  (bench/: the same measure)

from tools.sandbox import Bubblewrap, bubblewrap_works  # noqa: E402


def workspace(folder: Path, hook: str, packages: int) -> Path:
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    pre_commit = folder / ".git" / "hooks" / "pre-commit"
    pre_commit.write_text(f"#!/bin/sh\n{hook}\n")
    pre_commit.chmod(0o755)
    (folder / "package.json").write_text(json.dumps({"lint-staged": {"*.js": "prettier -c"}}))
    for number in range(packages):
        package = folder / "node_modules" / f"pkg{number}"
        (package / "lib").mkdir(parents=True)
        manifest = {"name": f"pkg{number}", "version": "1.0.0", "description": "x" * 300}
        (package / "package.json").write_text(json.dumps(manifest))
        (package / "lib" / "index.js").write_text("module.exports = {};\n")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--packages", type=int, default=3000)
    args = parser.parse_args()
    if not bubblewrap_works():
        sys.exit("bubblewrap cannot make a sandbox here")
    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-api03-" + "x" * 80)
    print(f"ms per `true` through bash, {args.packages:,} packages, mean of {args.runs} runs")
    print(f"{'hook':<16}{'no packages':>14}{'with packages':>16}")
    with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as scratch:
        for hook in ("make lint", "npx lint-staged"):
            row = []
            for packages in (0, args.packages):
                folder = Path(scratch) / f"{hook.split()[-1]}-{packages}"
                row.append(
                    per_command_ms(workspace(folder, hook, packages), Bubblewrap(), args.runs)
                )
            print(f"{hook:<16}{row[0]:>14.0f}{row[1]:>16.0f}")


if __name__ == "__main__":
    main()
