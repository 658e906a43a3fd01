"""What python runs at every start of a workspace environment is not changed unseen.

python's `site` runs the `import` lines of every .pth file in site-packages, and sitecustomize,
each time that environment's python starts. A virtualenv's site-packages is read-only whole
(tools/shell_config.py); a Python installed into the workspace at a prefix is not, and a
command may add such a file there (pip does, for an editable install), so the sandbox keeps a
new or changed one and reports it; the file tools ask first.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from test_hostile_pass4 import NOBODY, needs_bwrap, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools.paths import protected_reason

__all__ = ["user_folders"]  # a fixture, used by name below

# A Python built into the workspace (`./configure --prefix=$PWD/python`), not a virtualenv.
SITE = "python/lib/python3.11/site-packages"
SHIPPED = "import _virtualenv\n"


def make_environment(workspace: Path) -> Path:
    site = workspace / SITE
    site.mkdir(parents=True)
    (workspace / "python/bin").mkdir()
    (workspace / "python/bin/python3").symlink_to("/usr/bin/python3")
    (site / "_virtualenv.pth").write_text(SHIPPED)
    (site / "requests").mkdir()
    (site / "requests/__init__.py").write_text("")
    return site


def give_to(user: str, workspace: Path) -> None:
    if user == "nobody":
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(workspace)], check=True)


@needs_bwrap
def test_a_new_or_changed_start_up_file_is_kept_and_reported_at_once_and_at_exit(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    site = make_environment(workspace)
    give_to(user, workspace)
    attack = (
        f"echo 'import os; os.system(\"touch ~/PWNED\")' > {SITE}/zz-setup.pth; "
        f"echo 'import os' >> {SITE}/_virtualenv.pth; "
        f"echo '# a plain module' >> {SITE}/requests/__init__.py; echo finished"
    )
    api.add({"content": [tool_use("bash", {"command": attack})]})
    api.add({"content": [tool_use("bash", {"command": "echo a quiet command"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    first, second = tool_results(api)
    terminal = " ".join(result.stderr.split())  # lines as the terminal wrapped them, joined
    assert "finished" in first
    for name, what, said in (
        ("zz-setup.pth", "a new", "is new"),
        ("_virtualenv.pth", "a changed", "was changed"),
    ):
        assert f"{SITE}/{name} {said}. It was kept" in first, first
        # Told on the terminal when it happened, and once more in planloop's last words.
        told = f"{SITE}/{name} ({what} python start-up file)"
        assert terminal.count(told) == 2, result.stderr
    assert "It was kept" not in second  # said once, not again at every command
    assert "requests/__init__.py" not in first  # an ordinary module is the project's business
    assert (site / "zz-setup.pth").exists()  # nothing of what the command made is deleted


def test_write_file_asks_before_it_adds_a_start_up_file(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    make_environment(workspace)
    give_to(user, workspace)
    planted = {"path": f"{SITE}/sitecustomize.py", "content": "import os\n"}
    api.add({"content": [tool_use("write_file", planted)]})
    api.add({"content": [text("Done.")]})
    # Headless without --yes: nobody can be asked, so the write is refused.
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "python runs" in output and "sitecustomize" in output
    assert not (workspace / SITE / "sitecustomize.py").exists()


def test_only_what_site_runs_is_asked_about():
    root = Path("/work")
    for path in (f"{SITE}/x.pth", f"{SITE}/sitecustomize.py", f"{SITE}/usercustomize/__init__.py"):
        assert protected_reason(root, path), path
    # src/sitecustomize.py is start-up code too (an editable install outside may put src/ on
    # the path: tests/test_python_start_more.py); a package's folder is on nobody's path.
    for path in (f"{SITE}/requests/__init__.py", "docs/notes.pth", "src/app/sitecustomize.py"):
        assert protected_reason(root, path) is None, path
