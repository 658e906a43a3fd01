"""Copies of planloop's key that a search by name or by plain bytes misses.

A Kubernetes Secret holds the key in base64; a notebook holding it is larger than a config
file; people keep it in places that hold packages too (a venv's `bin/activate`, cargo's
`[env]`, conda's `activate.d`), deeper than a project's top; a repository opened at a
subfolder owns the folder above the workspace and can fill it to use up the search; a server's
key lives in /etc; an editor's auto-save of the workspace `.env` has a name of its own. Each
test drives `python agent.py` against the fake API with a command that tries to hand the key
to the model past the redaction (reversed, in base64).
"""

from __future__ import annotations

import base64
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import test_key_copies
from conftest import AGENT, API_KEY, outside_tmp
from test_hostile_pass4 import AS_NOBODY, NOBODY, can_switch_user, needs_bwrap, tool_results
from test_key_copies import KEY_LINE, assert_no_key, plant, run_steal

from fakeapi import text, tool_use
from tools.key_copies import _closed_and_untraced

ROOT = Path(__file__).resolve().parent.parent

layout = test_key_copies.layout  # (user, workspace, planloop home, home), as root and nobody


def show_each(paths: list[str]) -> str:
    """A command printing each file reversed and in base64, past the output's redaction."""
    quoted = " ".join(f"'{path}'" for path in paths)
    return f'for f in {quoted}; do echo "$f: $(rev "$f" | tr -d "\\n") $(base64 -w0 "$f")"; done'


@needs_bwrap
def test_copies_in_base64_large_files_and_tool_folders_are_not_readable(api, env, layout):
    # Where people keep the key beside packages and tools' own files, and in forms a plain
    # search for its bytes misses.
    user, workspace, planloop_home, home = layout
    secret = base64.b64encode(API_KEY.encode()).decode()
    notebook = json.dumps(
        {
            "cells": [
                {"outputs": [{"data": {"image/png": "A" * 400_000}}]},  # a plot before it
                {"source": [f'os.environ["ANTHROPIC_API_KEY"] = "{API_KEY}"']},
            ]
        }
    )
    others = {
        "other/.venv/bin/activate": f"# venv\nexport ANTHROPIC_API_KEY={API_KEY}\n",
        "other/.venv/pyvenv.cfg": "home = /usr/bin\n",
        "other/k8s/secret.yaml": f"kind: Secret\ndata:\n  ANTHROPIC_API_KEY: {secret}\n",
        "other/k8s/all.yaml": "blob: " + base64.b64encode(b"x=" + KEY_LINE.encode()).decode(),
        "other/explore.ipynb": notebook,
    }
    plant(workspace.parent, others, user)
    files = {
        ".cargo/config.toml": f'[env]\nANTHROPIC_API_KEY = "{API_KEY}"\n',
        ".vscode-server/data/Machine/settings.json": json.dumps(
            {"terminal.integrated.env.linux": {"ANTHROPIC_API_KEY": API_KEY}}
        ),
        "miniconda3/envs/bot/etc/conda/activate.d/env_vars.sh": f"export K={API_KEY}\n",
        "miniconda3/envs/bot/conda-meta/history": "",
        ".conda/envs/ml/etc/conda/activate.d/keys.sh": f"export K={API_KEY}\n",
        "notes/plain.txt": "nothing here\n",
    }
    plant(home, files, user)
    paths = [str(workspace.parent / path) for path in others if not path.endswith(".cfg")]
    paths += [str(home / path) for path in files if "conda-meta" not in path]
    result, (output,) = run_steal(api, env, user, workspace, planloop_home, home, show_each(paths))
    assert_no_key(output + result.stdout + result.stderr)
    assert secret[:12] not in output and API_KEY[::-1] not in output
    assert "ereh gnihton" in output  # a file without the key: readable
    assert (home / ".cargo/config.toml").read_text().endswith(f'"{API_KEY}"\n')  # not changed
    assert "search for copies" not in result.stderr  # no bound stopped it


@needs_bwrap
def test_a_monorepo_keeps_its_deploy_secrets_deep_below_the_folder_above(api, env, layout):
    # The workspace is one service of a monorepo (<mono>/services/api); kustomize's
    # secretGenerator env file lies five folders below the monorepo's top.
    user, workspace, planloop_home, home = layout
    service = workspace / "services/api"
    service.mkdir(parents=True)
    deep = "deploy/k8s/overlays/prod/secrets.env"
    plant(workspace, {deep: KEY_LINE, "deploy/k8s/base/config.env": "LOG=debug\n"}, user)
    steal = show_each([f"../../{deep}", "../../deploy/k8s/base/config.env"])
    result, (output,) = run_steal(api, env, user, service, planloop_home, home, steal)
    assert_no_key(output + result.stdout + result.stderr)
    assert "gubed=GOL" in output


@needs_bwrap
def test_a_repository_filling_the_folder_above_cannot_use_up_the_search(api, env, layout):
    # Opened at its subfolder (`cd app`), a repository owns the folder above the workspace and
    # fills it with more files than the search reads; the person's other project lies beside
    # it. The search stops, says where, and the other project's key stays hidden.
    user, workspace, planloop_home, home = layout
    fixtures = workspace.parent / "fixtures"
    fixtures.mkdir()
    for index in range(60_001):
        (fixtures / f"case{index:05d}.txt").touch()
    (workspace.parent / ".git").mkdir()  # the repository's own top
    mine = workspace.parent.parent / "mybot"
    plant(mine, {".env": KEY_LINE, "config/settings.yaml": f"api_key: {API_KEY}\n"}, user)
    if user == "nobody":
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(workspace.parent)], check=True)
    steal = show_each([str(mine / ".env"), str(mine / "config/settings.yaml")])
    result, (output,) = run_steal(api, env, user, workspace, planloop_home, home, steal)
    assert_no_key(output + result.stdout + result.stderr)
    said = " ".join(result.stderr.split())
    assert "search for copies of the API key stopped" in said, said
    assert f"before it finished {workspace.parent}" in said  # where a copy may stay readable


@needs_bwrap
def test_as_root_a_key_file_under_etc_is_not_readable(api, env, layout, tmp_path):
    # A service's key kept the way systemd documents it: `EnvironmentFile=/etc/default/bot`,
    # readable by root only, which planloop runs as here; and one a unit names elsewhere.
    user, workspace, planloop_home, home = layout
    if user != "root" or os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("a root-only file read by root, in a mount namespace of its own")
    default = tmp_path / "default"
    shutil.copytree("/etc/default", default, symlinks=True)
    (default / "bot").write_text(KEY_LINE)
    os.chmod(default / "bot", 0o600)
    elsewhere = outside_tmp("planloop-srv-")
    try:
        (elsewhere / "bot.conf").write_text(KEY_LINE)
        unit = f"[Service]\nEnvironmentFile=-{elsewhere}/bot.conf\n"
        plant(home, {".config/systemd/user/bot.service": unit}, user)
        steal = show_each(["/etc/default/bot", f"{elsewhere}/bot.conf"])
        api.add({"content": [tool_use("bash", {"command": steal})]})
        api.add({"content": [text("Done.")]})
        run_env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
        # /etc/default is replaced by the copy in this run's own mount namespace only.
        script = 'mount --bind "$0" /etc/default && exec "$@"'
        command = ["unshare", "-m", "--propagation", "private", "sh", "-c", script]
        command += [str(default), sys.executable, str(AGENT), "-p", "look"]
        result = subprocess.run(
            command, cwd=workspace, env=run_env, capture_output=True, text=True, timeout=90
        )
    finally:
        shutil.rmtree(elsewhere, ignore_errors=True)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "/etc/default/bot: " in output
    assert_no_key(output + result.stdout + result.stderr)


@needs_bwrap
def test_an_editors_copies_of_the_workspace_env_are_not_readable(api, env, layout):
    # Emacs's auto-save `#.env#` beside the `.env` it edits, and backups of other names the
    # person made: none is a `.env*` name, each holds the key.
    user, workspace, planloop_home, home = layout
    copies = ["#.env#", "config/#settings.yaml#", "env.backup", "old/secrets.orig"]
    plant(workspace, {".env": KEY_LINE, **dict.fromkeys(copies, KEY_LINE)}, user)
    plant(workspace, {"README.md": "# work\n"}, user)
    steal = show_each([".env", *copies, "README.md"])
    result, (output,) = run_steal(api, env, user, workspace, planloop_home, home, steal)
    assert_no_key(output + result.stdout + result.stderr)
    assert "krow #" in output  # the workspace's other files: readable
    for name in copies:
        assert (workspace / name).read_text() == KEY_LINE  # hidden, not changed


def test_the_search_runs_in_a_child_that_finds_copies_without_the_key_in_its_environment(
    tmp_path, monkeypatch
):
    # The search runs beside planloop, not in a thread of its own (where it would hold the
    # interpreter's lock against the first turns); it gets the key on a pipe only. A search in
    # planloop's own process would fail here.
    import tools.key_copies as key_copies

    key = "sk-ant-api03-" + "childsearch" * 8
    place = tmp_path / "home"
    (place / "other/deep").mkdir(parents=True)
    (place / "other/deep/settings.json").write_text(f'{{"key": "{key}"}}')
    (place / "plain.txt").write_text("nothing here\n")

    def not_here(self):
        raise AssertionError("searched in planloop's own process")

    monkeypatch.setattr(key_copies.KeyCopySearch, "run", not_here)
    monkeypatch.setattr(key_copies, "others_may_trace", lambda: False)  # (Yama, or root)
    search = key_copies.KeyCopySearch(
        (key_copies.Place(place, 4),), (), key_copies.search_secrets_of([key])
    )
    search.start()
    assert search.result() == [place / "other/deep/settings.json"]
    assert search.cut_short is None and search.files_read == 2


def test_a_search_that_hangs_is_cut_short_and_not_run_again(tmp_path, monkeypatch):
    import tools.key_copies as key_copies

    def hangs(self, *args, **kwargs):  # (the child said READY; its answer never comes)
        raise subprocess.TimeoutExpired(self.args, key_copies.SEARCH_SECONDS + 5)

    def not_again(self):
        raise AssertionError("searched again after a hang")

    monkeypatch.setattr(key_copies.subprocess.Popen, "communicate", hangs)
    monkeypatch.setattr(key_copies.KeyCopySearch, "run", not_again)
    monkeypatch.setattr(key_copies, "others_may_trace", lambda: False)
    search = key_copies.KeyCopySearch((key_copies.Place(tmp_path, 2),), (), (b"sk-ant-x" * 4,))
    search.start()
    assert search.result() == []
    assert search.cut_short == f"{key_copies.SEARCH_SECONDS:.0f} s"
    assert search.unfinished == [tmp_path]


# A process of the unprivileged user that sleeps, made non-dumpable first or not; and the
# search's check of it, seen from another process of that user.
SLEEPER = """
import ctypes, sys, time
if sys.argv[1] == "closed":
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
print("ready", flush=True)
time.sleep(60)
"""
CHECK = (
    "import sys; from tools.key_copies import _closed_and_untraced as c; print(c(int(sys.argv[1])))"
)


@pytest.mark.skipif(not can_switch_user(), reason="needs root, setpriv and the unprivileged user")
@pytest.mark.parametrize(("state", "trusted"), [("closed", "True"), ("open", "False")])
def test_the_search_trusts_only_a_fork_that_is_closed_as_seen_from_outside(state, trusted):
    # A debugger attached in the child's first instant can turn its prctl into one that leaves
    # it open, and its look at itself into one that sees nothing: planloop looks from outside.
    sleeper = subprocess.Popen(
        [*AS_NOBODY, sys.executable, "-c", SLEEPER, state], stdout=subprocess.PIPE, text=True
    )
    try:
        assert sleeper.stdout.readline() == "ready\n"
        check = [*AS_NOBODY, sys.executable, "-c", CHECK, str(sleeper.pid)]
        seen = subprocess.run(check, cwd=ROOT, capture_output=True, text=True, check=True)
        assert seen.stdout.strip() == trusted
    finally:
        sleeper.kill()
        sleeper.wait()


def test_the_search_does_not_trust_a_traced_fork():
    traced = os.fork()
    if traced == 0:  # asks to be traced by the test, then waits to be killed
        ctypes.CDLL(None).ptrace(0, 0, 0, 0)  # PTRACE_TRACEME
        os.kill(os.getpid(), signal.SIGSTOP)
        os._exit(0)
    try:
        os.waitpid(traced, os.WUNTRACED)  # stopped: traced by now
        assert "TracerPid:\t0" not in Path(f"/proc/{traced}/status").read_text()
        assert not _closed_and_untraced(traced)
        assert _closed_and_untraced(os.getpid())  # (the control: root's own, untraced)
    finally:
        os.kill(traced, signal.SIGKILL)
        os.waitpid(traced, 0)


@pytest.mark.parametrize(
    ("scope", "uid", "traced"),
    [("0\n", 1000, True), (None, 1000, True), ("1\n", 1000, False), ("0\n", 0, False)],
    ids=["yama-0", "no-yama", "yama-1", "root"],
)
def test_others_may_trace_a_new_child_where_yama_allows_it(
    tmp_path, monkeypatch, scope, uid, traced
):
    import tools.key_copies as key_copies

    setting = tmp_path / "ptrace_scope"
    if scope is not None:
        setting.write_text(scope)
    monkeypatch.setattr(key_copies, "YAMA_SCOPE", setting)
    monkeypatch.setattr(key_copies.os, "geteuid", lambda: uid)
    assert key_copies.others_may_trace() is traced


def test_where_others_may_trace_the_search_keeps_the_key_in_planloop(tmp_path, monkeypatch):
    # A debugger attached to a new child in its first instant owns it, whatever is checked of
    # it later: no child is started, and the search runs in planloop's own thread.
    import tools.key_copies as key_copies

    def no_child(self):
        raise AssertionError("a child was started for the search")

    monkeypatch.setattr(key_copies, "others_may_trace", lambda: True)
    monkeypatch.setattr(key_copies.KeyCopySearch, "run_in_child", no_child)
    key = "sk-ant-" + "k" * 40
    (tmp_path / "settings.json").write_text(f'{{"key": "{key}"}}')
    search = key_copies.KeyCopySearch(
        (key_copies.Place(tmp_path, 2),), (), key_copies.search_secrets_of([key])
    )
    search.start()
    assert search.result() == [tmp_path / "settings.json"]
