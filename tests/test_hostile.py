"""What a confused or hostile model might send, through the loop and the real CLI.

Every case ends in an is_error result or a refusal, the loop goes on to the model's next reply,
and nothing outside the workspace changes. The sandbox cases need bubblewrap and are skipped,
saying so, where it is not installed.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import subprocess
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse

import pytest
from conftest import API_KEY, results_by_id, run, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from fakeapi import text, tool_use
from middleware import PermissionPolicy
from settings import confirm_endpoint
from tools import ToolError, default_tools, protected_reason, safe_path
from tools.bash import run_bash
from tools.git_programs import npmrc_programs, program_paths
from tools.sandbox import Bubblewrap, NoSandbox
from tools.tool_scripts import put_in

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None,
    reason="bubblewrap (bwrap) is not installed; apt-get install bubblewrap to test the sandbox",
)
SANDBOXES = [
    pytest.param(NoSandbox(), id="no-sandbox"),
    pytest.param(Bubblewrap(), id="bubblewrap", marks=needs_bwrap),
]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the workspace, holding a secret that must stay as it is."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("secret\n")
    return folder


def contents(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` with its bytes (links as their targets' names)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            found[str(path)] = os.readlink(path).encode()
        elif path.is_file():
            found[str(path)] = path.read_bytes()
    return found


def run_one_reply(api, make_agent, calls: list[dict], **agent_kwargs) -> dict[str, dict]:
    """All `calls` in one reply, then "Done."; the loop must get there. Results by id."""
    api.add({"content": calls})
    api.add({"content": [text("Done.")]})
    assert run(make_agent(**agent_kwargs).run("go")) == "Done."
    return results_by_id(api.accepted[1])


def bash(workspace: Path, command: str, sandbox, timeout: int = 20) -> str:
    return asyncio.run(run_bash(workspace, command, timeout=timeout, sandbox=sandbox))


def wait_until_gone(pids: list[int], seconds: float = 5.0) -> list[int]:
    """The pids still running (not zombies) after waiting up to `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        alive = [pid for pid in pids if _is_running(pid)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def _is_running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


# ---- path escapes ---------------------------------------------------------------------------


def escaping_paths(workspace: Path, outside: Path) -> list[str]:
    (workspace / "link_out").symlink_to(outside)
    (workspace / "chain_1").symlink_to(workspace / "chain_2")
    (workspace / "chain_2").symlink_to(outside / "secret.txt")
    return [
        "../outside/secret.txt",
        "a/../../outside/secret.txt",
        str(outside / "secret.txt"),
        "link_out/secret.txt",
        "link_out/new.txt",
        "chain_1",
        f"/proc/self/root{outside}/secret.txt",
        "/proc/self/cwd/../outside/secret.txt",
        "secret.txt\0.py",
        "deep/" * 2000 + "file.txt",
        "x" * 5000,
        "",
    ]


def test_path_escapes_end_in_errors_and_change_nothing_outside(api, make_agent, workspace, outside):
    before = contents(outside)
    calls = []
    for path in escaping_paths(workspace, outside):
        calls += [
            tool_use("read_file", {"path": path}),
            tool_use("write_file", {"path": path, "content": "pwned\n"}),
            tool_use("edit_file", {"path": path, "old_text": "secret", "new_text": "pwned"}),
        ]
    results = run_one_reply(api, make_agent, calls)
    for call in calls:
        result = results[call["id"]]
        assert result["is_error"] is True, (call["input"]["path"][:80], result)
        assert "Traceback" not in result["content"]
    assert contents(outside) == before


def test_a_file_name_that_is_not_utf8_is_listed_without_breaking_the_request(
    api, make_agent, workspace
):
    (workspace / "folder").mkdir()
    with open(os.fsencode(workspace / "folder") + b"/caf\xe9.txt", "wb") as file:
        file.write(b"hi\n")
    listing = tool_use("read_file", {"path": "folder"})
    shell = tool_use("bash", {"command": "ls folder"})
    results = run_one_reply(api, make_agent, [listing, shell])
    assert "caf" in results[listing["id"]]["content"]
    assert "caf" in results[shell["id"]]["content"]


# ---- malformed input ------------------------------------------------------------------------

WRONG_VALUE = {"string": 12, "integer": "ten", "boolean": "yes", "number": [], "array": 3}
VALID_VALUE = {"string": "notes.txt", "integer": 5, "boolean": False, "number": 1.5, "array": []}


def valid_arguments(tool) -> dict:
    """Every required argument of `tool`, each with a value its schema accepts."""
    properties = tool.input_schema["properties"]
    return {name: VALID_VALUE[properties[name]["type"]] for name in tool.input_schema["required"]}


def malformed_calls() -> list[tuple[dict, str | None]]:
    """For every tool: no arguments, an unknown one, and each argument of the wrong type.

    A wrongly typed argument comes with every required argument present and valid, so the
    call is refused for that argument's type and nothing else. Each call is paired with the
    argument its error must name (None where no one argument is to blame).
    """
    calls: list[tuple[dict, str | None]] = []
    for tool in default_tools():
        calls.append((tool_use(tool.name, {}), None))
        calls.append((tool_use(tool.name, {"unexpected": True}), None))
        for name, spec in tool.input_schema["properties"].items():
            arguments = {**valid_arguments(tool), name: WRONG_VALUE[spec["type"]]}
            calls.append((tool_use(tool.name, arguments), name))
    return calls


def test_missing_and_wrongly_typed_arguments_for_every_tool_are_errors(api, make_agent):
    calls = malformed_calls()
    results = run_one_reply(api, make_agent, [call for call, _ in calls])
    for call, wrong in calls:
        result = results[call["id"]]
        assert result["is_error"] is True, call
        assert "Send" in result["content"]
        if wrong is not None:  # refused for this argument's type, not for a missing one
            assert f"argument '{wrong}' must be" in result["content"], (call, result)


def test_one_megabyte_arguments_end_cleanly(api, make_agent, workspace):
    megabyte = "x" * (1024 * 1024)
    (workspace / "small.txt").write_text("hello\n")
    write = tool_use("write_file", {"path": "big.txt", "content": megabyte})
    edit = tool_use("edit_file", {"path": "small.txt", "old_text": megabyte, "new_text": "y"})
    command = tool_use("bash", {"command": f"echo {megabyte} | wc -c"})
    path = tool_use("read_file", {"path": megabyte})
    results = run_one_reply(api, make_agent, [write, edit, command, path])
    assert (workspace / "big.txt").stat().st_size == len(megabyte)
    assert results[edit["id"]]["is_error"] is True
    assert results[path["id"]]["is_error"] is True
    # A command longer than the kernel takes for one argument is an error, said plainly.
    assert results[command["id"]]["is_error"] is True
    assert "too long" in results[command["id"]]["content"]


# ---- commands that never end, fork, or flood ------------------------------------------------


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_never_ending_command_is_killed_at_its_timeout(workspace, sandbox):
    result = bash(workspace, "while :; do :; done", sandbox, timeout=1)
    assert "timed out after 1 s" in result


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_many_setsid_children_are_all_killed_and_the_result_says_so(workspace, sandbox):
    # Each `setsid sleep` leaves the process group; a sweep for the command's marker finds it.
    command = "for i in $(seq 30); do setsid sleep 3071 & done; (setsid sleep 3072 &); echo started"
    before = set(_sleepers())
    result = bash(workspace, command, sandbox)
    assert "started" in result
    if isinstance(sandbox, NoSandbox):  # in bwrap they die with the pid namespace, unreported
        assert "background were stopped" in result
    assert wait_until_gone(sorted(set(_sleepers()) - before)) == []


def _sleepers() -> list[int]:
    """Host pids of the test's `sleep 3071`/`sleep 3072` processes (in any pid namespace)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if cmdline in (b"sleep\x003071\x00", b"sleep\x003072\x00") and _is_running(
                int(entry.name)
            ):
                found.append(int(entry.name))
    return found


@needs_bwrap
def test_gigabytes_of_output_keep_memory_and_the_result_bounded(workspace):
    result = bash(workspace, "yes | head -c 2G", Bubblewrap(), timeout=300)
    assert len(result) < 40_000
    assert "bytes cut from the middle of the output" in result
    assert result.endswith("[exit code: 0]")


# ---- the four holes -------------------------------------------------------------------------


@pytest.fixture
def git_repo(workspace: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / ".env").write_text("DEBUG=1\n")
    return workspace


def cli_env(api, home: Path) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "MODEL_ID"))}
    return {**clean, "PLANLOOP_HOME": str(home), "MODEL_ID": "test-model"}


@needs_bwrap
def test_no_tool_can_plant_a_git_hook_an_fsmonitor_or_a_new_api_endpoint(
    api, git_repo, isolated_home
):
    (git_repo / ".env").write_text(
        f"ANTHROPIC_API_KEY={API_KEY}\nANTHROPIC_BASE_URL={api.base_url}\n"
    )
    confirm_endpoint(git_repo, api.base_url)  # the person said yes to it once, in a terminal
    config_before = (git_repo / ".git" / "config").read_text()
    env_before = (git_repo / ".env").read_text()
    evil = "[core]\n\tfsmonitor = touch pwned\n"
    calls = [
        tool_use("write_file", {"path": ".git/config", "content": evil}),
        tool_use("write_file", {"path": ".git/hooks/pre-commit", "content": "touch pwned\n"}),
        tool_use("write_file", {"path": ".env", "content": "ANTHROPIC_BASE_URL=http://x.test\n"}),
        tool_use("bash", {"command": "git config core.fsmonitor 'touch pwned'"}),
        tool_use("bash", {"command": "echo 'touch pwned' > .git/hooks/post-checkout"}),
        tool_use("bash", {"command": "echo ANTHROPIC_BASE_URL=http://x.test >> .env"}),
        tool_use("bash", {"command": "mv .env .env.old; echo ANTHROPIC_BASE_URL=x > .env"}),
    ]
    api.add({"content": calls})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=git_repo, env=cli_env(api, isolated_home), timeout=120)
    assert result.returncode == 0, result.stderr
    results = results_by_id(api.accepted[1])
    assert all(results[call["id"]]["is_error"] for call in calls[:3])
    assert (git_repo / ".git" / "config").read_text() == config_before
    assert (git_repo / ".env").read_text() == env_before
    hooks = [p.name for p in (git_repo / ".git" / "hooks").iterdir()]
    assert not [name for name in hooks if not name.endswith(".sample")]
    assert not (git_repo / ".env.old").exists()
    subprocess.run(["git", "status"], cwd=git_repo, capture_output=True, check=True)
    assert not (git_repo / "pwned").exists()


@pytest.mark.parametrize(
    "flags",
    [pytest.param(("--no-sandbox", "--yes"), id="no-sandbox"), pytest.param((), id="sandbox")],
)
def test_commands_never_see_the_api_key_even_from_a_dotenv_file(
    api, workspace, isolated_home, flags
):
    if not flags and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed; apt-get install bubblewrap")
    (workspace / ".env").write_text(
        f"ANTHROPIC_API_KEY={API_KEY}\nANTHROPIC_BASE_URL={api.base_url}\n"
        "ANTHROPIC_AUTH_TOKEN=token-from-dotenv\n"
    )
    confirm_endpoint(workspace, api.base_url)  # the person said yes to it once, in a terminal
    call = tool_use("bash", {"command": 'env | grep -c ANTHROPIC; echo "[$ANTHROPIC_API_KEY]"'})
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    result = run_cli(
        "-p", "go", *flags, cwd=workspace, env=cli_env(api, isolated_home), timeout=120
    )
    assert result.returncode == 0, result.stderr
    output = results_by_id(api.accepted[1])[call["id"]]["content"]
    assert output.startswith("0\n[]\n")
    assert API_KEY not in output and "token-from-dotenv" not in output


@needs_bwrap
@pytest.mark.parametrize("output_format", ["text", "stream-json"])
def test_a_path_a_workspace_builds_from_the_key_is_never_shown_with_it(
    api, env, workspace, output_format
):
    # The editor's settings name a dotenv file whose PYTHONSTARTUP is built from your key, as
    # a tool would build it from your environment: the notice that names the missing script
    # printed the key in the terminal. No secret of yours is put in (see below).
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "settings.json").write_text('{"python.envFile": "dev.vars"}')
    (workspace / "dev.vars").write_text("PYTHONSTARTUP=./start-${ANTHROPIC_API_KEY}.py\n")
    api.add({"content": [tool_use("bash", {"command": "echo hi"})]})
    api.add({"content": [text("Done.")]})
    flags = ("--output-format", output_format)
    result = run_cli("-p", "go", *flags, cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert "start-.py does not exist" in result.stdout + result.stderr
    assert API_KEY not in result.stdout + result.stderr
    assert API_KEY not in json.dumps(api.accepted)


SECRET_TOKEN = "ghp_R7kQ2mX9vL4tW8yB3nF6hJ1cP5dG0sA2zE9u"
# Where a repository's text names a variable of your environment, as its tool reads it.
NAMING_YOUR_VARIABLE = {
    "dotenv": {".env": "LD_PRELOAD=./${GITHUB_TOKEN}.so\n"},
    "hgrc": {".hg/hgrc": "%include ./$GITHUB_TOKEN/x.rc\n[ui]\n"},
}


@needs_bwrap
@pytest.mark.parametrize("where", NAMING_YOUR_VARIABLE)
def test_a_repository_cannot_read_your_secrets_through_the_paths_it_names(
    api, env, workspace, where
):
    # planloop fills in your environment where a tool would, to find what the tool runs; a
    # path that does not exist makes commands ask, and the reason quotes it to the model.
    for name, content in NAMING_YOUR_VARIABLE[where].items():
        (workspace / name).parent.mkdir(exist_ok=True)
        (workspace / name).write_text(content)
    api.add({"content": [tool_use("bash", {"command": "echo hi"})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env={**env, "GITHUB_TOKEN": SECRET_TOKEN})
    assert result.returncode == 0, result.stderr
    assert SECRET_TOKEN not in json.dumps(api.accepted) + result.stdout + result.stderr


def test_no_secret_of_yours_is_put_into_what_a_repository_names(tmp_path, monkeypatch):
    # The same for each place a tool puts your variables in: npm's settings, git's program
    # lines (`$VAR`), `git --config-env`, just's `x"..."` strings, an editor's `${env:NAME}`.
    monkeypatch.setenv("GITHUB_TOKEN", SECRET_TOKEN)
    monkeypatch.setenv("TOOLS", "/opt/tools")
    (tmp_path / ".npmrc").write_text("script-shell=${TOOLS}/${GITHUB_TOKEN}/sh\n")
    assert npmrc_programs(tmp_path / ".npmrc") == ["/opt/tools/${GITHUB_TOKEN}/sh"]
    line = "git --config-env=core.fsmonitor=GITHUB_TOKEN status; $TOOLS/x $GITHUB_TOKEN/y"
    assert SECRET_TOKEN not in str(program_paths(line, tmp_path, []))
    assert put_in("${env:GITHUB_TOKEN}/${env:TOOLS}", tmp_path) == "//opt/tools"


def test_what_is_put_in_follows_your_environment_as_it_changes(tmp_path, monkeypatch):
    # (Your environment is judged once for all the words of a line, and again once it changed.)
    monkeypatch.setenv("TOOLS", "/opt/tools")
    (tmp_path / ".npmrc").write_text("script-shell=${TOOLS}/${DEPLOY}/sh\n")
    assert npmrc_programs(tmp_path / ".npmrc") == ["/opt/tools/${DEPLOY}/sh"]
    monkeypatch.setenv("TOOLS", "/opt/other")
    monkeypatch.setenv("DEPLOY", "prod")
    assert npmrc_programs(tmp_path / ".npmrc") == ["/opt/other/prod/sh"]
    monkeypatch.setenv("DEPLOY", SECRET_TOKEN)  # now a secret by its value: not put in
    assert npmrc_programs(tmp_path / ".npmrc") == ["/opt/other/${DEPLOY}/sh"]


# ---- the sandbox ----------------------------------------------------------------------------


@needs_bwrap
def test_sandboxed_commands_cannot_write_outside_the_workspace(workspace, outside):
    before = contents(outside)
    probe = Path("/var/tmp") / f"planloop-probe-{uuid.uuid4().hex}"
    result = bash(
        workspace,
        f"echo pwned >> {outside}/secret.txt; touch {outside}/new; touch {probe}; "
        "touch /tmp/private-probe; touch made-here",
        Bubblewrap(),
    )
    assert "Read-only file system" in result
    assert contents(outside) == before
    assert not probe.exists()
    assert not Path("/tmp/private-probe").exists()  # /tmp inside is a private tmpfs
    assert (workspace / "made-here").exists()


@needs_bwrap
def test_sandboxed_commands_cannot_reach_the_network(api, workspace):
    port = urlparse(api.base_url).port
    command = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"
    assert "connected" not in bash(workspace, command, Bubblewrap())
    assert "connected" in bash(workspace, command, Bubblewrap(allow_network=True))


@needs_bwrap
def test_sandboxed_commands_cannot_create_hooks_or_env_files(git_repo):
    shutil.rmtree(git_repo / ".git" / "hooks")  # a missing hooks folder must not be creatable
    result = bash(
        git_repo,
        "mkdir -p .git/hooks; echo x > .git/hooks/pre-push; echo A=1 > sub.env; "
        "mkdir -p deep; echo A=1 > deep/.env.production; echo B=2 >> .env",
        Bubblewrap(),
    )
    assert not (git_repo / ".git" / "hooks" / "pre-push").exists()
    assert (git_repo / "deep" / ".env.production").exists()  # kept, and reported
    assert "deep/.env.production is a new .env file" in result
    assert (git_repo / "sub.env").exists()  # only names that start with .env are protected
    assert (git_repo / ".env").read_text() == "DEBUG=1\n"


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_commands_do_not_inherit_anthropic_variables(workspace, sandbox, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("PLANLOOP_KEEP_ME", "kept")
    result = bash(workspace, "env", sandbox)
    assert "ANTHROPIC" not in result and "sk-ant-secret" not in result
    assert "PLANLOOP_KEEP_ME=kept" in result


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_commands_get_no_variable_holding_the_key_by_another_name_or_in_base64(
    workspace, sandbox, monkeypatch
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("MY_COPY", f"x{API_KEY}y")
    monkeypatch.setenv("MY_B64", base64.b64encode(f"k={API_KEY}".encode()).decode())
    # As `base64` writes it: broken into lines of 76, which `$(base64 <<< ...)` keeps; a key
    # of a real one's length is broken inside.
    long_key = "sk-ant-api03-" + "Zx9" * 30
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", long_key)
    wrapped = base64.encodebytes(f'{{"anthropic_api_key":"{long_key}"}}'.encode()).decode()
    assert "\n" in wrapped[:-1]
    monkeypatch.setenv("MY_WRAPPED", wrapped)
    monkeypatch.setenv("PLANLOOP_KEEP_ME", "kept")
    result = bash(workspace, "env", sandbox)
    assert "MY_COPY" not in result and "MY_B64" not in result and "MY_WRAPPED" not in result
    assert "PLANLOOP_KEEP_ME=kept" in result


def test_without_bubblewrap_the_cli_says_so_once_and_falls_back_to_approvals(
    api, workspace, isolated_home
):
    call = tool_use("bash", {"command": "touch ran"})
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    env = cli_env(api, isolated_home)
    env.update(ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=api.base_url, PATH="/nonexistent")
    result = run_cli("-p", "go", cwd=workspace, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("apt-get install bubblewrap") == 1
    assert "--yes" in results_by_id(api.accepted[1])[call["id"]]["content"]
    assert not (workspace / "ran").exists()


# ---- the path check as a property -----------------------------------------------------------

SEGMENTS = st.sampled_from(
    ["..", ".", "", "src", "app.py", "link_out", "link_in", ".git", "config", ".env", "x" * 300]
)


@pytest.fixture(scope="module")
def property_workspace(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("property")
    root = base / "workspace"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (base / "elsewhere").mkdir()
    (root / "link_out").symlink_to(base / "elsewhere")
    (root / "link_in").symlink_to(root / "src")
    return root


@settings(max_examples=300, deadline=None)
@given(
    absolute=st.booleans(),
    segments=st.lists(SEGMENTS, max_size=12),
    noise=st.text(max_size=30),
)
def test_safe_path_either_refuses_or_stays_inside(property_workspace, absolute, segments, noise):
    root = property_workspace.resolve()
    path = ("/" if absolute else "") + "/".join([*segments, noise])
    try:
        resolved = safe_path(root, path)
    except ToolError:
        return  # refused, with a message for the model
    assert Path(os.path.realpath(resolved)).is_relative_to(root)
    if ".git" in resolved.relative_to(root).parts or resolved.name.startswith(".env"):
        assert protected_reason(root, path) is not None


def test_permission_policy_is_the_one_that_refuses_protected_writes(api, make_agent, workspace):
    # Without a policy the file tools write .env like any file: the policy is what protects it.
    call = tool_use("write_file", {"path": ".env", "content": "A=1\n"})
    results = run_one_reply(api, make_agent, [call], middleware=[])
    assert not results[call["id"]].get("is_error")
    api.add({"content": [tool_use("write_file", {"path": ".env", "content": "A=2\n"})]})
    api.add({"content": [text("Done.")]})
    run(make_agent(middleware=[PermissionPolicy(ask=None, sandboxed=True)]).run("again"))
    assert (workspace / ".env").read_text() == "A=1\n"


@needs_bwrap
def test_env_links_protect_their_target_and_a_dangling_one_breaks_nothing(workspace):
    (workspace / "settings.txt").write_text("A=1\n")
    (workspace / ".env").symlink_to("settings.txt")
    (workspace / ".env.old").symlink_to("missing.txt")
    result = bash(workspace, "echo B=2 >> .env; echo ran", Bubblewrap())
    assert "ran" in result and "Read-only file system" in result
    assert (workspace / "settings.txt").read_text() == "A=1\n"


def test_the_bash_tool_tells_the_model_what_the_sandbox_allows():
    [sandboxed, *_] = default_tools(Bubblewrap())
    [networked, *_] = default_tools(Bubblewrap(allow_network=True))
    [plain, *_] = default_tools()
    assert "only the workspace is writable" in sandboxed.description
    assert "no network" in sandboxed.description
    assert "no network" not in networked.description
    assert "sandbox" not in plain.description
