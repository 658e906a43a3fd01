"""Every folder python may put on its path at start has its start-up code watched.

python runs the .pth files of each site folder and imports sitecustomize (and what the base
installation's own start-up files import) from the first folder of its path that has it.
Besides a workspace virtualenv's site-packages, that is: Debian's and Ubuntu's dist-packages
folders of a virtualenv made from their python; modules a base python's sitecustomize or .pth
files import (Debian's `apport_python_hook`, setuptools' `_distutils_hack`), which python looks
for in the virtualenv first; and the workspace or its src/, which an editable install in a
virtualenv outside the workspace (poetry's, hatch's, `pip install --user -e .`) puts on the
path. A command that plants such code is reported (or finds it held), and write_file asks.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_held_links import owned, script
from test_hostile_pass4 import needs_bwrap, run_as, tool_results, user_folders

from tools.paths import protected_reason
from tools.shell_config import python_path_folders

__all__ = ["user_folders"]  # a fixture, used by name below

SITE = ".venv/lib/python3.11/site-packages"
PLANTED = "import os; os.system('touch ~/PWNED')\n"


def virtualenv(workspace: Path, home: str = "/usr/bin", system_site: bool = False) -> Path:
    """A workspace `.venv` as `python -m venv` leaves it (no python needed to read it)."""
    site = workspace / SITE
    site.mkdir(parents=True)
    (workspace / ".venv/bin").mkdir()
    include = "true" if system_site else "false"
    config = f"home = {home}\ninclude-system-site-packages = {include}\nversion = 3.11.2\n"
    (workspace / ".venv/pyvenv.cfg").write_text(config)
    return site


@needs_bwrap
def test_a_pth_file_in_a_debian_virtualenvs_dist_packages_is_start_up_code(api, env, user_folders):
    """Debian's python adds lib/python3/dist-packages, lib/python3.X/dist-packages and
    local/lib/python3.X/dist-packages of a virtualenv to its path and runs their .pth files:
    the model tries to plant one in each with a command, and one with write_file. The
    virtualenv is read-only whole."""
    user, workspace, planloop_home, home = user_folders
    virtualenv(workspace)
    owned(workspace, user)
    folders = [
        ".venv/lib/python3/dist-packages",
        ".venv/lib/python3.11/dist-packages",
        ".venv/local/lib/python3.11/dist-packages",
    ]
    plant = "; ".join(f"mkdir -p {f} && echo 'import os' > {f}/zz_evil.pth" for f in folders)
    script(
        api,
        ("write_file", {"path": f"{folders[0]}/aa.pth", "content": PLANTED}),
        ("bash", {"command": f"{plant}; echo planted"}),
    )
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    written, command = tool_results(api)
    assert "was not changed" in written
    assert "dist-packages" in written or "installed packages" in written, written
    assert not (workspace / folders[0] / "aa.pth").exists()
    assert "planted" in command and "Read-only file system" in command, command
    for folder in folders:
        assert not (workspace / folder / "zz_evil.pth").exists()


@needs_bwrap
def test_a_pth_file_too_big_to_read_makes_commands_ask(api, env, user_folders):
    """site reads a .pth whole: past what planloop reads, its import lines may import any
    module of the workspace (here src/zzhelper.py, on the path its first line adds), whose
    change the venv's python would then run at every start, unreported."""
    user, workspace, planloop_home, home = user_folders
    site = virtualenv(workspace)
    (workspace / "src").mkdir()
    (workspace / "src/zzhelper.py").write_text("X = 1\n")
    padding = "# notes\n" * (1 << 17)
    (site / "zz.pth").write_text(f"{workspace}/src\n{padding}import zzhelper\n")
    owned(workspace, user)
    script(api, ("bash", {"command": f"echo '{PLANTED.strip()}' >> src/zzhelper.py; echo done"}))
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    why = f"{SITE}/zz.pth, which python reads at every start, is larger than planloop reads"
    assert why in output, output
    assert (workspace / "src/zzhelper.py").read_text() == "X = 1\n"


@needs_bwrap
def test_what_the_base_pythons_start_up_files_import_is_start_up_code(api, env, user_folders):
    """The base python's own sitecustomize imports a module (Debian's imports
    apport_python_hook), and with --system-site-packages its .pth files run too (setuptools'
    `__import__('_distutils_hack')`): python finds those modules in the virtualenv's
    site-packages first, where a command plants them."""
    user, workspace, planloop_home, home = user_folders
    base = workspace.parent / "base-python"  # outside the workspace, as /usr or ~/.pyenv
    (base / "bin").mkdir(parents=True)
    (base / "lib/python3.11/site-packages").mkdir(parents=True)
    (base / "lib/python3.11/sitecustomize.py").write_text(
        "try:\n    import vendor_crash_hook\nexcept ImportError:\n    pass\n"
    )
    (base / "lib/python3.11/site-packages/zz-base.pth").write_text(
        "import base_pth_hook; base_pth_hook.go()\n"
    )
    site = virtualenv(workspace, home=str(base / "bin"), system_site=True)
    owned(workspace, user)
    plant = (
        f"echo 'import os' > {SITE}/vendor_crash_hook.py; mkdir {SITE}/base_pth_hook; "
        f"echo 'def go(): pass' > {SITE}/base_pth_hook/__init__.py; "
        f"echo 'def install(): pass' > {SITE}/apport_python_hook.py; "
        f"echo '# the project' > {SITE}/ordinary_module.py; echo planted"
    )
    script(
        api,
        ("write_file", {"path": f"{SITE}/_distutils_hack/__init__.py", "content": PLANTED}),
        ("write_file", {"path": f"{SITE}/vendor_crash_hook.py", "content": PLANTED}),
        ("bash", {"command": plant}),
    )
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    distutils_hack, crash_hook, command = tool_results(api)
    for written in (distutils_hack, crash_hook):
        assert "was not changed" in written, written
        assert "python runs" in written or "installed packages" in written, written
    assert not (site / "_distutils_hack").exists()
    # The virtualenv's site-packages is read-only whole: nothing can be planted there.
    assert "Read-only file system" in command, command
    for name in ("vendor_crash_hook.py", "base_pth_hook/__init__.py", "apport_python_hook.py"):
        assert not (site / name).exists()


def editable_virtualenv_outside(home: Path, workspace: Path) -> Path:
    """A real virtualenv under ~/.virtualenvs (virtualenvwrapper's place; poetry's is alike)
    with an editable install of the project whose .pth adds its src/ and packages/core."""
    venv = home / ".virtualenvs" / "proj"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = venv / "lib" / version / "site-packages"
    (site / "__editable__.proj-0.1.pth").write_text(
        f"{workspace / 'src'}\n{workspace / 'packages' / 'core'}\n"
    )
    return venv


@needs_bwrap
def test_start_up_modules_where_an_outside_editable_install_points_are_held(api, env, user_folders):
    """The active virtualenv lies outside the workspace and its editable install puts the
    workspace's src/ and packages/core/ on the path of every start: the model rewrites the
    project's own src/sitecustomize.py and plants modules where that python imports them."""
    user, workspace, planloop_home, home = user_folders
    (workspace / "src" / "proj").mkdir(parents=True)
    (workspace / "src" / "proj" / "__init__.py").write_text("")
    (workspace / "packages" / "core").mkdir(parents=True)
    (workspace / "src" / "sitecustomize.py").write_text("# the project's own, reviewed\n")
    venv = editable_virtualenv_outside(home, workspace)
    owned(workspace, user)
    owned(home, user)
    marker = home / "PLANTED-RAN"
    planted = f"open({str(marker)!r}, 'w').write('ran')\n"
    attack = (
        f'echo "{planted.strip()}" > src/sitecustomize.py; echo rewrite=$?; '
        "rm -f src/sitecustomize.py; echo remove=$?; "
        "echo 'import os' > packages/core/usercustomize.py; "
        "echo 'def install(): pass' > apport_python_hook.py; echo planted"
    )
    script(
        api,
        ("write_file", {"path": "packages/core/sitecustomize.py", "content": planted}),
        ("bash", {"command": attack}),
    )
    env = {
        **env,
        "PLANLOOP_HOME": str(planloop_home),
        "HOME": str(home),
        "VIRTUAL_ENV": str(venv),
        "PATH": f"{venv / 'bin'}:{env['PATH']}",
    }
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    written, command = tool_results(api)
    assert "was not changed" in written and "editable install" in written
    assert not (workspace / "packages/core/sitecustomize.py").exists()
    assert "rewrite=1" in command and "remove=1" in command, command
    for name in ("packages/core/usercustomize.py", "apport_python_hook.py"):
        assert f"{name} is new. It was kept" in command, command
        assert f"{name} (python runs it at start)" in " ".join(result.stderr.split())
    # The person's next start of that python, outside the sandbox, runs only what they had.
    assert (workspace / "src" / "sitecustomize.py").read_text() == "# the project's own, reviewed\n"
    subprocess.run([str(venv / "bin" / "python"), "-c", "pass"], cwd=home, check=True)
    assert not marker.exists()


def test_the_file_tools_ask_before_writing_start_up_code_on_any_start_path(tmp_path):
    root = tmp_path / "work"
    (root / ".venv").mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    asked = (
        ".venv/lib/python3/dist-packages/x.pth",
        ".venv/lib/python3.11/dist-packages/sitecustomize.py",
        ".venv/local/lib/python3.11/dist-packages/x.pth",
        f"{SITE}/apport_python_hook.py",
        f"{SITE}/_distutils_hack/__init__.py",
        "sitecustomize.py",
        "src/sitecustomize.py",
        "src/usercustomize/__init__.py",
        "src/apport_python_hook.py",
        "_distutils_hack/__init__.py",
    )
    for path in asked:
        assert protected_reason(root, path), path
    for path in ("src/app/sitecustomize.py", "docs/dist-packages.pth", "src/proj/__init__.py"):
        assert protected_reason(root, path) is None, path


def test_an_editable_install_outside_is_found_without_an_active_virtualenv(tmp_path, monkeypatch):
    """poetry keeps the project's virtualenv in its cache, and `pip install --user -e .` puts
    the .pth in your user site-packages: neither needs to be active for python to use it."""
    root, home = tmp_path / "work", tmp_path / "home"
    root.mkdir()
    poetry = home / ".cache/pypoetry/virtualenvs/proj-AbCd-py3.11/lib/python3.11/site-packages"
    user_site = tmp_path / "userbase/lib/python3.11/site-packages"
    for site, target in ((poetry, "services/api"), (user_site, "libs/util")):
        site.mkdir(parents=True)
        (site / "proj.pth").write_text(f"# an editable install\n{root / target}\nimport os\n")
    environ = {"HOME": str(home), "PYTHONUSERBASE": str(tmp_path / "userbase"), "PATH": ""}
    monkeypatch.setenv("HOME", str(home))  # where poetry's cache is looked for
    folders, names = python_path_folders(root, environ)
    assert root / "services/api" in folders and root / "libs/util" in folders
    assert root in folders and root / "src" in folders
    assert {"sitecustomize", "apport_python_hook", "_distutils_hack"} <= names


def test_what_a_pth_import_line_puts_on_the_path_or_runs_by_its_path_is_start_up_code(tmp_path):
    """An `import` line of a .pth may add a folder to python's path itself before it imports,
    or run a file by its path: that module and that file run at every start, as a path line's
    module does, so the file tools ask before changing them (and commands that do are told)."""
    workspace = tmp_path / "work"
    site = virtualenv(workspace)
    (workspace / "tools").mkdir()
    for name in ("boot.py", "hook.py", "notes.py"):
        (workspace / "tools" / name).write_text("# the project\n")
    tools = workspace / "tools"
    (site / "zz.pth").write_text(
        f"import sys; sys.path.insert(0, {str(tools)!r}); import boot\n"
        f"import runpy; runpy.run_path({str(tools / 'hook.py')!r})\n"
    )
    assert protected_reason(workspace, tools / "boot.py")
    assert protected_reason(workspace, tools / "hook.py")
    assert protected_reason(workspace, tools / "notes.py") is None  # imported by nothing
