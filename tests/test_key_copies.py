"""Copies of planloop's key outside the places the sandbox hides by name.

People paste the one key into every project's `.env`, into their systemd units and tool
configs; editors and the desktop keep copies of the workspace's `.env`; the workspace may be
reachable by a second path on the host; and AGENTS.md may lead to a key file in an encoding
a text redaction does not see. Each test drives `python agent.py` against the fake API, as
root and as an unprivileged user, with a command or a start that tries to hand the key to the
model, base64-encoded past the redaction.
"""

from __future__ import annotations

import base64
import codecs
import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import API_KEY, outside_tmp
from test_hostile_pass4 import (
    NOBODY,
    can_switch_user,
    needs_bwrap,
    run_as,
    tool_results,
)

from fakeapi import text, tool_use
from tools.paths import scan_workspace

KEY_LINE = f"ANTHROPIC_API_KEY={API_KEY}\n"


def key_forms() -> list[str]:
    """The key, and the forms a command would use to carry it past the redaction."""
    line = KEY_LINE.encode()
    return [
        API_KEY,
        API_KEY[::-1],
        base64.b64encode(API_KEY.encode()).decode()[:16],
        base64.b64encode(line).decode()[:24],
        API_KEY.encode().hex(),
    ]


def assert_no_key(output: str) -> None:
    for form in key_forms():
        assert form not in output, f"the key reached the model as {form!r}"


@pytest.fixture(params=["root", "nobody"])
def layout(request, isolated_home):
    """(user, workspace, planloop home, home) in a folder outside /tmp (the sandbox's /tmp is
    its own, so only folders elsewhere can leak), with room for other projects beside the
    workspace; all of it owned by the user."""
    user = request.param
    if user == "nobody" and not can_switch_user():
        pytest.skip("needs root, setpriv, and a Python the unprivileged user can run")
    folder = outside_tmp("planloop-copies-")
    os.chmod(folder, 0o755)
    paths = [folder / name for name in ("projects/work", "planloop-home", "home")]
    for path in paths:
        path.mkdir(parents=True)
    yield user, *paths
    shutil.rmtree(folder, ignore_errors=True)


def plant(base: Path, files: dict[str, bytes | str], user: str) -> None:
    """Write `files` (relative to `base`), owned by `user`, folders and all."""
    for relative, content in files.items():
        path = base / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode() if isinstance(content, str) else content
        path.write_bytes(data)
    if user == "nobody":
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(base)], check=True)


def run_steal(api, env, user, workspace, planloop_home, home, command: str):
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    return result, tool_results(api)


@needs_bwrap
def test_the_key_in_other_projects_env_files_is_not_readable(api, env, layout):
    # The same key in every project: ~/code/chatbot/.env, ../other/.env.local.
    user, workspace, planloop_home, home = layout
    plant(home, {"code/chatbot/.env": KEY_LINE, "code/notes/.env": "DEBUG=1\n"}, user)
    plant(workspace.parent, {"other/.env.local": KEY_LINE}, user)
    plant(workspace, {".env": KEY_LINE}, user)
    steal = (
        "for f in ~/code/chatbot/.env ../other/.env.local ~/code/notes/.env; do "
        'echo "$f: $(base64 -w0 $f) $(rev $f)"; done'
    )
    result, (output,) = run_steal(api, env, user, workspace, planloop_home, home, steal)
    assert "[exit code: 0]" in output
    assert_no_key(output + result.stdout + result.stderr)
    assert base64.b64encode(b"DEBUG=1\n").decode() in output  # a file without the key: readable
    assert (home / "code/chatbot/.env").read_text() == KEY_LINE  # hidden, not changed


@needs_bwrap
def test_a_key_other_projects_env_files_join_from_halves_is_not_readable(api, env, layout):
    # Every dotenv reader joins `${A}${B}`: no line of these files holds the key whole.
    user, workspace, planloop_home, home = layout
    half = len(API_KEY) // 2
    halves = f"A={API_KEY[:half]}\nB={API_KEY[half:]}\nANTHROPIC_API_KEY=${{A}}${{B}}\n"
    plant(home, {"code/chatbot/.env": halves, "code/notes/.env": "A=1\nB=${A}2\n"}, user)
    plant(workspace.parent, {"other/.env.local": halves}, user)
    steal = "cat ~/code/chatbot/.env ../other/.env.local ~/code/notes/.env"
    result, (output,) = run_steal(api, env, user, workspace, planloop_home, home, steal)
    assert "B=${A}2" in output  # (a file whose values give no key: readable)
    assert API_KEY[half:] not in output + result.stdout + result.stderr


@needs_bwrap
def test_halves_nodes_dotenv_joins_in_its_own_forms_are_not_readable(api, env, layout):
    # Node's dotenv with dotenv-expand (Next.js's) joins halves given after the line that joins
    # them, a later value over an earlier one, `NAME: value`, back quotes, and a half given as
    # the word of `${SET:+word}` or `${SET+word}`, which it puts in where SET has a value.
    user, workspace, planloop_home, home = layout
    a, b = API_KEY[: len(API_KEY) // 2], API_KEY[len(API_KEY) // 2 :]
    forms = {
        "later": f"K=${{A}}${{B}}\nA={a}\nB={b}\n",
        "override": f"A=x\nK=${{A}}${{B}}\nA={a}\nB={b}\n",
        "colon": f"A: {a}\nB: {b}\nK: ${{A}}${{B}}\n",
        "backquotes": f"A=`{a}`\nB={b}\nK=${{A}}${{B}}\n",
        "alternate": f"ON=1\nB={b}\nK=${{ON:+{a}}}${{B}}\n",
        "set": f"B={b}\nK=${{ON+{a}}}${{B}}\nON=1\n",
    }
    plant(home, {f"code/{name}/.env": text for name, text in forms.items()}, user)
    plant(home, {"code/notes/.env": "A=1\nK=${A}${B}\nB=2\n"}, user)
    steal = "cat ~/code/*/.env"
    result, (output,) = run_steal(api, env, user, workspace, planloop_home, home, steal)
    assert "K=${A}${B}\nB=2" in output  # (a file whose values give no key: readable)
    assert b not in output + result.stdout + result.stderr


@needs_bwrap
def test_the_key_in_home_files_of_other_names_is_not_readable(api, env, layout):
    # Where people keep the key for other programs: none of these is a `.env` by name.
    user, workspace, planloop_home, home = layout
    files = {
        ".config/systemd/user/proxy.service": f"[Service]\nEnvironment={KEY_LINE}",
        ".tmux.conf": f"set-environment -g ANTHROPIC_API_KEY {API_KEY}\n",
        ".config/Claude/claude_desktop_config.json": json.dumps({"env": {"K": API_KEY}}),
        ".local/share/jupyter/jupyter_ai/config.json": json.dumps({"api_keys": {"K": API_KEY}}),
        ".aider/oauth-keys.env": KEY_LINE,
        ".config/litellm/config.yaml": f"model_list:\n - api_key: {API_KEY}\n",
        # In UTF-16, as Windows PowerShell writes a file.
        "keys/anthropic.ps1": codecs.BOM_UTF16_LE + KEY_LINE.encode("utf-16-le"),
    }
    plant(home, files, user)
    steal = "grep -rl -a -e sk-ant ~ ; cat $(find ~ -type f) | iconv -f utf-16 -t utf-8 -c | base64"
    result, (output,) = run_steal(api, env, user, workspace, planloop_home, home, steal)
    assert_no_key(output + result.stdout + result.stderr)
    assert "tmux.conf" not in output and "proxy.service" not in output  # grep found nothing


@needs_bwrap
def test_copies_editors_and_the_desktop_keep_are_not_readable(api, env, layout):
    # VS Code's Local History, the Trash, vim's and Emacs' backups of the workspace's .env.
    user, workspace, planloop_home, home = layout
    plant(workspace, {".env": KEY_LINE}, user)
    files = {
        ".config/Code/User/History/-5d2c1a9f/Xq3B.env": KEY_LINE,
        ".local/share/Trash/files/.env": KEY_LINE,
        ".vim/backup/.env~": KEY_LINE,
        ".emacs.d/backups/!work!.env~": KEY_LINE,
    }
    plant(home, files, user)
    steal = 'wc -c .env; find ~ -type f | while read f; do echo "$f $(base64 -w0 "$f")"; done'
    result, (output,) = run_steal(api, env, user, workspace, planloop_home, home, steal)
    assert "0 .env" in output
    assert_no_key(output + result.stdout + result.stderr)


@needs_bwrap
def test_env_folders_and_files_named_dot_env_at_the_end_are_key_files(api, env, layout):
    # cookiecutter-django's `.envs/.local/.django`, docker compose's `docker.env`: commands
    # see them empty, and the file tools do not change the key in them unasked (an edit's
    # answer would tell what the file holds).
    user, workspace, planloop_home, home = layout
    plant(workspace, {".envs/.local/.django": KEY_LINE, "docker.env": KEY_LINE}, user)
    plant(workspace, {".envs/.local/.postgres": "POSTGRES_DB=app\n"}, user)
    steal = "base64 .envs/.local/.django docker.env; cat .envs/.local/.postgres"
    edit = {"path": "docker.env", "old_text": "-key", "new_text": "-kez"}
    for step in [
        tool_use("bash", {"command": steal}),
        tool_use("read_file", {"path": "docker.env"}),
        tool_use("edit_file", edit),
    ]:
        api.add({"content": [step]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    output, read, edited = tool_results(api)
    assert_no_key(output + read + edited + result.stdout + result.stderr)
    assert "POSTGRES_DB=app" in output  # a file of the folder without the key: readable
    assert "was not changed" in edited and "holds planloop's API key" in edited, edited
    assert (workspace / "docker.env").read_text() == KEY_LINE


@pytest.mark.parametrize("how", ["a .env links to it", "UTF-16 without a mark", "UTF-32"])
def test_agents_md_never_brings_the_key_into_the_system_prompt(api, env, layout, how):
    # A command links AGENTS.md to a key file in another encoding than UTF-8; planloop reads
    # AGENTS.md at its next start, outside the sandbox.
    user, workspace, planloop_home, home = layout
    encoded = {
        "a .env links to it": codecs.BOM_UTF16_LE + KEY_LINE.encode("utf-16-le"),
        "UTF-16 without a mark": ("# Notes\n" + KEY_LINE).encode("utf-16-le"),
        "UTF-32": KEY_LINE.encode("utf-32-le"),
    }[how]
    plant(workspace, {"secrets/anthropic.txt": encoded}, user)
    if how == "a .env links to it":
        os.symlink("secrets/anthropic.txt", workspace / ".env.local")
    os.symlink("secrets/anthropic.txt", workspace / "AGENTS.md")
    api.add({"content": [text("Hi.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    sent = json.dumps(api.accepted[0])
    assert "\\u0000" not in sent  # no wide text went in as it was
    for encoding in ("utf-16-le", "utf-32-le"):
        wide = API_KEY[4:12].encode(encoding).decode("utf-8")
        assert json.dumps(wide)[1:-1] not in sent
    assert_no_key(sent)
    assert "AGENTS.md was not loaded" in result.stderr


@needs_bwrap
@pytest.mark.parametrize("where", ["mounted elsewhere", "entered by the mount"])
def test_the_workspace_env_is_hidden_at_a_second_path_too(api, env, layout, where):
    # The folder holding the workspace is also mounted at a second path (a bind mount, the
    # top level of a btrfs filesystem mounted besides its subvolume): a command finds that
    # path in /proc/self/mountinfo. Either path may be the one planloop runs in.
    user, workspace, planloop_home, home = layout
    if os.geteuid() != 0:
        pytest.skip("making a bind mount needs root")
    plant(workspace, {".env": KEY_LINE}, user)
    alias = workspace.parent.parent / "alias"
    alias.mkdir()
    subprocess.run(["mount", "--bind", str(workspace.parent), str(alias)], check=True)
    if where == "mounted elsewhere":
        other = alias / "work/.env"
    else:
        other, workspace = workspace / ".env", alias / "work"
    try:
        steal = f"wc -c .env; wc -c {other}; base64 -w0 {other}"
        result, (output,) = run_steal(api, env, user, workspace, planloop_home, home, steal)
    finally:
        subprocess.run(["umount", str(alias)], check=True)
    assert "0 .env" in output and f"0 {other}" in output
    assert_no_key(output + result.stdout + result.stderr)


def test_a_virtualenv_named_env_keeps_its_links_and_packages_out_of_the_env_files(tmp_path):
    # `python -m venv .env` is common: its links lead out of it or to its own folders, and its
    # packages are no settings; only the plain files near its top count as `.env` files.
    venv = tmp_path / ".env"
    (venv / "bin").mkdir(parents=True)
    (venv / "lib/python3.12/site-packages/pkg").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin/python").symlink_to("/usr/bin/python3")
    (venv / "lib64").symlink_to("lib")
    (venv / "lib/python3.12/site-packages/pkg/__init__.py").write_text("")
    (tmp_path / ".envs/.local").mkdir(parents=True)
    (tmp_path / ".envs/.local/.django").write_text(KEY_LINE)
    (tmp_path / "docker.env").write_text(KEY_LINE)
    scan = scan_workspace(tmp_path)
    found = {path.relative_to(tmp_path).as_posix() for path in scan.key_files}
    assert found == {".env/pyvenv.cfg", ".envs/.local/.django", "docker.env"}
    assert scan.env_files == []  # none is a `.env*` file: planloop reads no setting there


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_the_wait_for_the_search_gives_way_to_ctrl_c_and_sigterm(signum):
    # The first command waits for the search, and the wait holds the event loop: SIGTERM came
    # while it waited, and planloop ended only once the search did (1.6 s, up to 15 s).
    import asyncio
    import threading

    from cli.signals import run_signals
    from tools import event_queues
    from tools.key_copies import KeyCopySearch

    class SignalledWhileWaited(threading.Event):
        def wait(self, timeout=None):
            if not hasattr(self, "sent"):
                self.sent = True
                os.kill(os.getpid(), signum)  # its handler runs here, in the wait
            return super().wait(timeout)

    search = KeyCopySearch((), (), (b"never found",))  # never started: it never ends
    search.done = SignalledWhileWaited()
    handled = []

    async def wait_in_the_loop():
        with run_signals(lambda: handled.append("ctrl-c"), handled.append):
            found = search.result()  # holds the loop, as the sandbox's call does
            while not handled:  # the loop's own handler runs after
                await asyncio.sleep(0.01)
            return found

    before = {each: signal.getsignal(each) for each in (signal.SIGINT, signal.SIGHUP, signum)}
    try:
        assert asyncio.run(wait_in_the_loop()) is None
    finally:
        event_queues.ENDING.clear()
        for each, handler in before.items():
            signal.signal(each, handler)
    assert handled == ["ctrl-c" if signum == signal.SIGINT else signal.SIGTERM]
