"""End to end: `python agent.py` as a subprocess, through the real SDK, to the strict fake API."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import spawn
from conftest import API_KEY, results_by_id, run_cli, wait_for_file
from test_hostile_pass4 import needs_bwrap

from fakeapi import text, tool_use
from session import read_session

AGENT = Path(__file__).resolve().parent.parent / "agent.py"


def saved_sessions(home: Path) -> list[Path]:
    return sorted((home / "sessions").glob("*/*.jsonl"))


def test_headless_multi_step_file_and_shell_task(api, env, workspace):
    plan = {
        "todos": [
            {"content": "Write the script", "status": "in_progress"},
            {"content": "Run it", "status": "pending"},
        ]
    }
    done = {
        "todos": [
            {"content": "Write the script", "status": "completed"},
            {"content": "Run it", "status": "completed"},
        ]
    }
    script = "print('hello from planloop')\n"
    api.add({"content": [text("I'll plan first."), tool_use("todo_write", plan)]})
    api.add({"content": [tool_use("write_file", {"path": "hello.py", "content": script})]})
    api.add(
        {
            "content": [
                tool_use(
                    "edit_file", {"path": "hello.py", "old_text": "hello", "new_text": "greetings"}
                )
            ]
        }
    )
    api.add({"content": [tool_use("bash", {"command": "python3 hello.py > out.txt"})]})
    api.add({"content": [tool_use("read_file", {"path": "out.txt"}), tool_use("todo_write", done)]})
    api.add({"content": [text("The script prints a greeting.")]})
    result = run_cli("-p", "write and run a greeting script", "--yes", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The script prints a greeting.\n"
    assert (workspace / "out.txt").read_text() == "greetings from planloop\n"
    read_result = list(results_by_id(api.accepted[5]).values())[0]
    assert "greetings from planloop" in read_result["content"]
    assert "[x] Run it" in result.stderr  # the checklist went to stderr as it changed
    assert "I'll plan first." in result.stderr  # progress text, shown once
    assert "The script prints a greeting." not in result.stderr
    assert len(api.accepted) == 6
    assert api.headers[0]["authorization"] == f"Bearer {API_KEY}"


def test_headless_bash_without_sandbox_or_yes_is_refused_with_how_to_allow_it(api, env, workspace):
    call = tool_use("bash", {"command": "touch should-not-exist"})
    api.add({"content": [call]})
    api.add({"content": [text("I could not run it.")]})
    result = run_cli("-p", "touch a file", "--no-sandbox", cwd=workspace, env=env)
    assert result.returncode == 0
    assert not (workspace / "should-not-exist").exists()
    refusal = results_by_id(api.accepted[1])[call["id"]]
    assert refusal["is_error"] is True and "--yes" in refusal["content"]


def test_missing_key_is_one_line_and_non_zero(env, workspace):
    env = {k: v for k, v in env.items() if not k.startswith("ANTHROPIC_")}
    result = run_cli("-p", "hi", cwd=workspace, env=env)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "ANTHROPIC_API_KEY" in result.stderr


def test_key_from_dotenv_file_in_the_workspace(api, env, workspace):
    env = {k: v for k, v in env.items() if k != "ANTHROPIC_API_KEY"}
    (workspace / ".env").write_text(f"ANTHROPIC_API_KEY={API_KEY}\nMODEL_ID=from-dotenv\n")
    env["MODEL_ID"] = "from-environment"  # variables already set win over .env
    api.add({"content": [text("hi")]})
    result = run_cli("-p", "hi", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert api.accepted[0]["model"] == "from-environment"


def test_auth_token_alone_is_sent_as_a_bearer_token(api, env, workspace):
    env = {k: v for k, v in env.items() if k != "ANTHROPIC_API_KEY"}
    env["ANTHROPIC_AUTH_TOKEN"] = API_KEY  # what gateways and compatible providers use
    api.add({"content": [text("hi")]})
    result = run_cli("-p", "hi", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert api.headers[0]["authorization"] == f"Bearer {API_KEY}"


def test_a_dotenv_file_that_is_not_utf8_is_one_line(env, workspace):
    (workspace / ".env").write_bytes(b"ANTHROPIC_API_KEY=\xff\n")
    result = run_cli("-p", "hi", cwd=workspace, env=env)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert ".env" in result.stderr and "UTF-8" in result.stderr


def test_a_folder_whose_path_is_not_utf8_is_refused_in_one_line_before_a_session(
    api, env, workspace, isolated_home
):
    # The path goes into the prompt, the log and each request: refused at once, not halfway.
    odd = Path(os.fsdecode(bytes(workspace) + b"/clone\n\xff"))
    odd.mkdir()
    result = run_cli("-p", "hi", cwd=odd, env=env)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "not valid UTF-8" in result.stderr and "clone\\n\\xff" in result.stderr
    assert not api.requests
    assert not list(isolated_home.rglob("*.lock")) and not list(isolated_home.rglob("*.jsonl"))


def test_model_flag_overrides_the_environment(api, env, workspace):
    api.add({"content": [text("hi")]})
    run_cli("-p", "hi", "--model", "claude-opus-4-1", cwd=workspace, env=env)
    assert api.accepted[0]["model"] == "claude-opus-4-1"


@pytest.mark.parametrize(
    "args", [["--bogus"], ["--max-turns", "zero"], ["--max-turns", "0"], ["-p", "   "]]
)
def test_bad_flags_are_one_line_and_exit_2(env, workspace, args):
    result = run_cli(*args, cwd=workspace, env=env)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("planloop: ")
    assert "Traceback" not in result.stderr


def test_unreachable_endpoint_is_one_line(env, workspace):
    env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"  # nothing listens on the discard port
    result = run_cli("-p", "hi", cwd=workspace, env=env)
    assert result.returncode == 1
    session_line, error_line = result.stderr.splitlines()  # the id comes first, then one line
    assert session_line.startswith("session ")
    assert "Cannot reach the API at http://127.0.0.1:9" in error_line
    assert "Traceback" not in result.stderr


def test_api_error_is_one_line_and_the_session_is_saved(api, env, workspace, isolated_home):
    api.add({"content": [tool_use("bash", {"command": "echo step one"})]})
    api.add({"status": 401, "error": {"type": "authentication_error", "message": "invalid key"}})
    result = run_cli("-p", "do it", "--yes", cwd=workspace, env=env)
    assert result.returncode == 1
    assert "The API rejected the key (invalid key)" in result.stderr
    [error_line] = [line for line in result.stderr.splitlines() if line.startswith("planloop:")]
    assert error_line == result.stderr.splitlines()[-1] and "--resume" in error_line
    [session] = saved_sessions(isolated_home)
    messages = read_session(session)[0]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]


def test_a_session_folder_that_cannot_be_written_is_reported_once_and_the_run_goes_on(
    api, env, workspace, tmp_path
):
    not_a_folder = tmp_path / "home-file"
    not_a_folder.write_text("")
    env["PLANLOOP_HOME"] = str(not_a_folder)
    api.add({"content": [tool_use("write_file", {"path": "a.txt", "content": "one"})]})
    api.add({"content": [tool_use("write_file", {"path": "b.txt", "content": "two"})]})
    api.add({"content": [text("Both written.")]})
    result = run_cli("-p", "write two files", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Both written.\n"
    assert (workspace / "b.txt").read_text() == "two"
    assert result.stderr.count("Cannot save the session") == 1
    assert "PLANLOOP_HOME" in result.stderr and "Traceback" not in result.stderr


def test_headless_progress_never_shows_text_from_a_stream_that_failed(api, env, workspace):
    overloaded = {"type": "overloaded_error", "message": "Overloaded"}
    api.add({"mid_stream_error": overloaded, "content": [text("Half a thought")]})
    api.add({"content": [text("Let me look."), tool_use("read_file", {"path": "."})]})
    api.add({"content": [text("Nothing here.")]})
    result = run_cli("-p", "look around", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert "Let me look." in result.stderr and "retrying" in result.stderr
    assert "Half a thought" not in result.stderr + result.stdout
    assert result.stdout == "Nothing here.\n"


def test_resume_continues_the_saved_conversation_and_plan(api, env, workspace, isolated_home):
    plan = {"todos": [{"content": "Only step", "status": "in_progress"}]}
    api.add({"content": [tool_use("todo_write", plan)]})
    api.add({"content": [text("First part done.")]})
    api.add({"content": [text("Still on it.")]})  # the guard's forced turn
    assert run_cli("-p", "start", cwd=workspace, env=env).returncode == 0
    api.add({"content": [text("Picking up where we left off.")]})
    api.add({"content": [text("ok")]})
    result = run_cli("-p", "continue", "--resume", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    resumed = api.accepted[3]["messages"]
    assert resumed[0]["content"][0]["text"] == "start"
    assert resumed[-1]["content"][-1]["text"] == "continue"
    [session] = saved_sessions(isolated_home)
    assert read_session(session)[1]["todos"] == plan["todos"]


def test_resume_of_an_unknown_session_is_one_line(env, workspace):
    result = run_cli("-p", "x", "--resume", "nope", cwd=workspace, env=env)
    assert result.returncode == 1 and "No session 'nope'" in result.stderr


def test_turn_limit_exits_3_with_a_clear_message(api, env, workspace):
    for _ in range(2):
        api.add({"content": [tool_use("read_file", {"path": "."})]})
    result = run_cli("-p", "loop", "--max-turns", "2", cwd=workspace, env=env)
    assert result.returncode == 3
    assert "Stopped after 2 model calls" in result.stderr


@pytest.mark.real_exec
def test_ctrl_c_during_a_model_call_in_headless_exits_130_and_saves_the_prompt(
    api, env, workspace, isolated_home
):
    process_ended = threading.Event()

    def held_reply(body):
        # Held until planloop has exited, so the reply can never beat the Ctrl-C.
        process_ended.wait(timeout=30)
        return {"content": [text("too late")]}

    api.add(held_reply)
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "think hard"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    while not api.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    try:
        stdout, stderr = proc.communicate(timeout=20)
    finally:
        process_ended.set()
    assert proc.returncode == 130, stderr
    assert stdout == "" and "Interrupted by the user" in stderr and "Traceback" not in stderr
    [session] = saved_sessions(isolated_home)
    messages = read_session(session)[0]
    assert messages == [{"role": "user", "content": [{"type": "text", "text": "think hard"}]}]


@pytest.mark.real_exec
def test_ctrl_c_in_headless_kills_the_command_and_saves_a_valid_session(
    api, env, workspace, isolated_home
):
    command = "touch started && sleep 30 && touch finished"
    api.add({"content": [tool_use("bash", {"command": command})]})
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "wait", "--yes"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_file(workspace / "started")
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 130, stderr
    assert "Interrupted by the user" in stderr and "Traceback" not in stderr
    assert not (workspace / "finished").exists()
    [session] = saved_sessions(isolated_home)
    last = read_session(session)[0][-1]
    assert last["role"] == "user" and last["content"][0]["is_error"] is True


def test_headless_shows_escapes_as_symbols_and_ends_with_the_token_totals(api, env, workspace):
    (workspace / "evil.txt").write_text("\x1b]52;c;cGF3bmVk\x07 clipboard\n")
    api.add({"content": [text("Reading\x1b[2J."), tool_use("read_file", {"path": "evil.txt"})]})
    api.add({"content": [text("Answer \x1b]0;title\x07.")], "usage": {"output_tokens": 9}})
    result = run_cli("-p", "read it", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Answer ␛]0;title␇.\n"
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "Reading␛[2J." in result.stderr and "␛]52;c;cGF3bmVk␇ clipboard" in result.stderr
    *_, totals, closing = result.stderr.strip().splitlines()
    assert totals.startswith("session total: 2 model calls") and "--resume" in closing


def test_headless_prints_the_session_id_at_the_start_and_at_the_end(api, env, workspace):
    api.add({"content": [text("hi")]})
    result = run_cli("-p", "hi", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    first, *_, last = result.stderr.splitlines()
    session_id = first.removeprefix("session ")
    assert session_id != first and f"--resume {session_id}" in last


@pytest.mark.real_exec
def test_sigterm_in_headless_kills_the_command_saves_and_exits_143(
    api, env, workspace, isolated_home
):
    command = "touch started && sleep 30 && touch finished"
    api.add({"content": [text("Working on it."), tool_use("bash", {"command": command})]})
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "wait", "--yes"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_file(workspace / "started")
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 143, stderr
    assert stdout == ""  # "Working on it." is no answer
    assert "ended by SIGTERM" in stderr and "--resume" in stderr and "Traceback" not in stderr
    assert not (workspace / "finished").exists()
    [session] = saved_sessions(isolated_home)
    last = read_session(session)[0][-1]
    assert last["role"] == "user" and last["content"][0]["is_error"] is True


@pytest.mark.real_exec
def test_ctrl_c_in_headless_prints_no_partial_answer(api, env, workspace):
    command = "touch started && sleep 30"
    api.add({"content": [text("Let me check."), tool_use("bash", {"command": command})]})
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "wait", "--yes"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_file(workspace / "started")
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 130, stderr
    assert stdout == "" and "Let me check." in stderr


def test_json_output_is_one_object_with_answer_session_usage_and_plan(api, env, workspace):
    plan = {"todos": [{"content": "Say hello", "status": "completed"}]}
    api.add({"content": [tool_use("todo_write", plan)], "usage": {"output_tokens": 7}})
    api.add({"content": [text("Hello.")], "usage": {"output_tokens": 3}})
    result = run_cli("-p", "greet", "--output-format", "json", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["answer"] == "Hello."
    assert summary["session_id"] in result.stderr
    assert summary["stop_reason"] == "end_turn" and summary["message"] == "done."
    assert summary["turns"] == 2
    assert summary["usage"]["output_tokens"] == 10 and summary["usage"]["input_tokens"] > 0
    assert summary["plan"] == plan["todos"]


@pytest.mark.parametrize("args", [["--help"], ["--bogus"]])
def test_help_and_flag_errors_never_load_the_sdk(args, workspace):
    code = (  # (told at exit: planloop ends with its status, after the atexit clean-up)
        "import atexit, sys, agent\n"
        "said = lambda: print('sdk loaded' if 'anthropic' in sys.modules else 'sdk not loaded')\n"
        "atexit.register(said)\n"
        f"sys.argv = ['agent.py', *{args!r}]\n"
        "agent.main()\n"
    )
    # A real exec, not spawn.run: the warm parent has the SDK imported already.
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=AGENT.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.splitlines()[-1] == "sdk not loaded", result.stderr


def test_interactive_mode_reads_piped_prompts_a_line_at_a_time(api, env, workspace):
    api.add({"content": [text("First answer.")]})
    api.add({"content": [text("Second answer.")]})
    result = run_cli(cwd=workspace, env=env, stdin="one\n/nonsense\ntwo\n")
    assert result.returncode == 0, result.stderr
    assert "First answer." in result.stdout and "Second answer." in result.stdout
    assert "Unknown command /nonsense" in result.stdout
    assert [m["content"][-1]["text"] for m in api.accepted[1]["messages"][::2]] == ["one", "two"]


def test_a_tool_added_to_the_registry_is_offered_by_python_agent_py(api, env, workspace):
    (workspace / "essay.txt").write_text("one two three four")
    call = tool_use("word_count", {"path": "essay.txt"})
    api.add({"content": [call]})
    api.add({"content": [text("Four words.")]})
    # What adding WORD_COUNT to TOOLS in tools/__init__.py does, then `python agent.py -p`.
    register_and_run = (
        f"import runpy, sys; sys.path.insert(0, {str(AGENT.parent)!r}); "
        "import tools; from examples.word_count import WORD_COUNT; tools.TOOLS.append(WORD_COUNT); "
        f"sys.argv = ['agent.py', '-p', 'count the words', '--yes']; "
        f"runpy.run_path({str(AGENT)!r}, run_name='__main__')"
    )
    result = subprocess.run(
        [sys.executable, "-c", register_and_run],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "word_count" in [t["name"] for t in api.accepted[0]["tools"]]
    assert results_by_id(api.accepted[1])[call["id"]]["content"] == "4 words"


# Holds `import anthropic` up (as a start-up key search reading a big home once did) while the
# module runs, under its own lock only, until a line comes on a FIFO; says when it has begun.
SLOW_SDK_IMPORT = """
import importlib.machinery, os, sys
class Slow:
    def find_spec(self, name, path=None, target=None):
        if name != "anthropic" or not os.environ.get("SDK_HELD_AT"):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module
        def held(module):
            open(os.environ["SDK_HELD_AT"] + ".begun", "w").close()
            with open(os.environ["SDK_HELD_AT"]) as fifo:
                fifo.read()
            run(module)
        spec.loader.exec_module = held
        return spec
sys.meta_path.insert(0, Slow())
"""


@pytest.mark.real_exec
def test_sigterm_to_the_whole_process_group_ends_the_run_once_and_cleanly(
    api, env, workspace, isolated_home
):
    # A service manager or `kill -TERM -- -PGID` signals every process of the group: planloop's
    # waiting process passes its copy on too, so planloop gets SIGTERM twice. Three tries, as
    # the second copy lands at a different moment of the ending each time.
    for attempt in range(3):
        api.add({"content": [tool_use("bash", {"command": f"touch started{attempt}; sleep 30"})]})
        proc = spawn.Popen(
            [sys.executable, str(AGENT), "-p", "wait"],
            cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True,
        )  # fmt: skip
        wait_for_file(workspace / f"started{attempt}")
        os.killpg(proc.pid, signal.SIGTERM)
        _, stderr = proc.communicate(timeout=30)
        assert proc.returncode == 143, stderr
        assert "ended by SIGTERM" in stderr and "--resume" in stderr
        assert "Traceback" not in stderr and "is closed" not in stderr, stderr


@pytest.mark.real_exec
def test_sigterm_while_the_sdk_still_loads_ends_planloop_at_once(
    api, env, workspace, tmp_path, isolated_home
):
    api.add({"content": [text("hi")]})
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(SLOW_SDK_IMPORT)
    held_at = tmp_path / "sdk"
    os.mkfifo(held_at)
    env = {**env, "PYTHONPATH": str(tmp_path / "site"), "SDK_HELD_AT": str(held_at)}
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "hi"],
        cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for_file(Path(f"{held_at}.begun"))  # (begun at start, in the background)
        first = proc.stderr.readline()  # the run has begun: its first call waits for the SDK
        assert first.startswith("session "), first
        proc.send_signal(signal.SIGTERM)
        # Ended while the import is still held: nothing waited for it.
        _, stderr = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(OSError):  # (lets a planloop that did wait go on, and end)
            os.close(os.open(held_at, os.O_WRONLY | os.O_NONBLOCK))  # (no reader: ENXIO)
    assert proc.returncode == 143, stderr
    # (The SIGTERM may come while the loop is made: nothing is left half made.)
    assert "ended by SIGTERM" in stderr and "Exception ignored" not in stderr
    assert "Traceback" not in stderr
    assert api.accepted == []  # no model call was made


@pytest.mark.parametrize(
    "made",
    [
        # A folder-open task whose command is a long run of braces: read in time quadratic in
        # its length (about 24 s here), with the signals waiting.
        '{"version": "2.0.0", "tasks": [{"label": "x", "type": "shell", "command": "'
        + "{" * 60_000
        + '", "runOptions": {"runOn": "folderOpen"}}]}',
        # `sh -e` (or a keyword) a thousand times over: each one looked over the rest.
        '{"version": "2.0.0", "tasks": [{"label": "x", "type": "shell", "command": "'
        + "{ " * 30_000
        + '", "runOptions": {"runOn": "folderOpen"}}]}',
    ],
    ids=["braces", "keywords"],
)
@needs_bwrap
def test_a_command_line_built_to_be_slow_to_read_does_not_hold_off_sigterm(
    api, env, workspace, made
):
    # A sandboxed command writes the settings (a new .vscode/ is allowed and reported); the looks
    # after it, and before the next command, read them while SIGTERM comes. planloop must end at
    # once, as SIGTERM ends it.
    (workspace / "tasks.json").write_text(made)
    command = "mkdir -p .vscode && mv tasks.json .vscode/ && touch made"
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [tool_use("bash", {"command": "sleep 30"})]})  # (if the look was quick)
    api.add({"content": [text("done")]})
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "go"],
        cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    wait_for_file(workspace / "made")
    proc.send_signal(signal.SIGTERM)
    try:
        _, stderr = proc.communicate(timeout=15)  # (it ends in a fraction of a second)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("planloop went on reading for seconds after SIGTERM")
    assert proc.returncode == 143, stderr
    assert "ended by SIGTERM" in stderr
