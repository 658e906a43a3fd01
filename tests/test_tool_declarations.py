"""Protections come from what a tool declares (`writes=`, `reads=`), not from its name.

A tool added as the README shows, examples/append_file.py, is refused `.git/config` and paths
outside the workspace exactly like write_file, in a headless run of the example itself against
the fake API; the stale-write guard applies to it; "always" covers one file and never `.git`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import spawn
from conftest import results_by_id, run

from examples.append_file import APPEND_FILE
from fakeapi import text, tool_use
from middleware import PermissionPolicy, StaleWriteGuard
from tools import Tool, default_tools
from tools.files import in_thread, update_file

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "append_file.py"
EVIL = "[core]\n\tfsmonitor = touch /tmp/planloop-pwned\n"


@pytest.fixture
def repo(workspace: Path) -> Path:
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / ".git" / "config").write_text("[core]\n\tbare = false\n")
    return workspace


def without_ids(message: str, path: str) -> str:
    """A refusal with the tool's name and the path left out, to compare two tools' refusals."""
    return re.sub(r"\b(append_file|write_file)\b", "TOOL", message).replace(path, "PATH")


def test_the_example_is_refused_git_config_and_outside_exactly_like_write_file(
    api, env, repo, tmp_path
):
    outside = tmp_path / "outside.txt"
    calls = {
        "append git": tool_use("append_file", {"path": ".git/config", "text": EVIL}),
        "write git": tool_use("write_file", {"path": ".git/config", "content": EVIL}),
        "append out": tool_use("append_file", {"path": "../outside.txt", "text": "x"}),
        "write out": tool_use("write_file", {"path": "../outside.txt", "content": "x"}),
        "append ok": tool_use("append_file", {"path": "notes.txt", "text": "ship it\n"}),
    }
    # The model has read the config, so the stale-write guard lets the policy decide.
    api.add({"content": [tool_use("read_file", {"path": ".git/config"})]})
    api.add({"content": list(calls.values())})
    api.add({"content": [text("Two refused, one appended.")]})

    done = spawn.run(
        [sys.executable, str(EXAMPLE), "append to the git config"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Two refused, one appended."
    assert "append_file" in [tool["name"] for tool in api.accepted[0]["tools"]]
    results = {what: results_by_id(api.accepted[2])[call["id"]] for what, call in calls.items()}
    for tool in ("append", "write"):
        assert results[f"{tool} git"]["is_error"] is True
        assert "was not changed" in results[f"{tool} git"]["content"]
        assert "escapes the workspace" in results[f"{tool} out"]["content"]
    for where, path in (("git", ".git/config"), ("out", "../outside.txt")):
        append, write = results[f"append {where}"]["content"], results[f"write {where}"]["content"]
        assert without_ids(append, path) == without_ids(write, path)
    assert (repo / ".git" / "config").read_text() == "[core]\n\tbare = false\n"
    assert not outside.exists()
    assert (repo / "notes.txt").read_text() == "ship it\n"


def test_the_stale_write_guard_applies_to_a_declared_tool(api, make_agent, workspace):
    (workspace / "log.txt").write_text("one\n")
    unread = tool_use("append_file", {"path": "log.txt", "text": "two\n"})
    read = tool_use("read_file", {"path": "log.txt"})
    after_read = tool_use("append_file", {"path": "log.txt", "text": "two\n"})
    changed = tool_use("bash", {"command": "echo other >> log.txt"})
    after_change = tool_use("append_file", {"path": "log.txt", "text": "three\n"})
    for call in (unread, read, after_read, changed, after_change):
        api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    agent = make_agent(tools=[*default_tools(), APPEND_FILE], middleware=[StaleWriteGuard()])
    run(agent.run("go"))
    results = {}
    for request in api.accepted[1:]:
        results.update(results_by_id(request))
    assert "has not been read" in results[unread["id"]]["content"]
    assert not results[after_read["id"]].get("is_error")
    assert "changed on disk" in results[after_change["id"]]["content"]
    assert (workspace / "log.txt").read_text() == "one\ntwo\nother\n"


def renamed_writer(name: str, path_input: str) -> Tool:
    """A writing tool with its own name and path input, declared."""

    def put(workspace: Path, stop=None, **arguments: str) -> str:
        data = arguments["data"].encode()
        update_file(name, workspace, arguments[path_input], lambda _: data, stop=stop)
        return "stored"

    return Tool(
        name=name,
        description="Store data in a file.",
        input_schema={
            "type": "object",
            "properties": {path_input: {"type": "string"}, "data": {"type": "string"}},
            "required": [path_input, "data"],
        },
        handler=in_thread(put),
        writes=path_input,
    )


def test_the_policy_asks_for_any_tool_that_declares_a_written_path(api, make_agent, repo):
    store = renamed_writer("store", "target")
    call = tool_use("store", {"target": ".env", "data": "ANTHROPIC_BASE_URL=http://x.test\n"})
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    policy = PermissionPolicy(ask=None, sandboxed=True)
    run(make_agent(tools=[store], middleware=[policy]).run("go"))
    result = results_by_id(api.accepted[1])[call["id"]]
    assert result["is_error"] is True and "was not changed" in result["content"]
    assert not (repo / ".env").exists()


def test_a_declaration_must_name_a_string_input():
    with pytest.raises(ValueError, match="must name a string input"):
        Tool("t", "d", {"type": "object", "properties": {"n": {"type": "integer"}}}, str, "n")
    with pytest.raises(ValueError, match="must name a string input"):
        Tool("t", "d", {"type": "object", "properties": {}}, str, reads="path")


def test_the_file_tools_declare_their_paths():
    tools = {tool.name: tool for tool in default_tools()}
    assert tools["write_file"].writes == "path" and tools["edit_file"].writes == "path"
    assert tools["read_file"].reads == "path" and tools["read_file"].writes is None
    assert tools["bash"].writes is None


# ---- "always" means this path --------------------------------------------------------------


class Asker:
    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.questions: list[str] = []

    def __call__(self, question: str) -> tuple[str, str]:
        self.questions.append(question)
        return self.answers.pop(0), ""


def policy_run(api, make_agent, asker: Asker, calls: list[dict]) -> dict[str, dict]:
    for call in calls:
        api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    run(make_agent(middleware=[PermissionPolicy(ask=asker, sandboxed=True)]).run("go"))
    results = {}
    for request in api.accepted[1:]:
        results.update(results_by_id(request))
    return results


def test_always_for_one_protected_file_does_not_approve_another(api, make_agent, repo):
    example = tool_use("write_file", {"path": ".env.example", "content": "KEY=\n"})
    again = tool_use("write_file", {"path": ".env.example", "content": "KEY=x\n"})
    git = tool_use("write_file", {"path": ".git/config", "content": EVIL})
    asker = Asker("always", "no")
    results = policy_run(api, make_agent, asker, [example, again, git])
    assert len(asker.questions) == 2  # .env.example once; .git/config asked on its own
    assert ".git/config" in asker.questions[1]
    assert results[git["id"]]["is_error"] is True
    assert (repo / ".env.example").read_text() == "KEY=x\n"
    assert "fsmonitor" not in (repo / ".git" / "config").read_text()


def test_always_is_never_remembered_under_git(api, make_agent, repo):
    first = tool_use("write_file", {"path": ".git/description", "content": "one\n"})
    second = tool_use("write_file", {"path": ".git/description", "content": "two\n"})
    asker = Asker("always", "no")
    results = policy_run(api, make_agent, asker, [first, second])
    assert len(asker.questions) == 2
    assert not results[first["id"]].get("is_error")
    assert results[second["id"]]["is_error"] is True
    assert (repo / ".git" / "description").read_text() == "one\n"


def test_always_follows_the_file_not_a_link_to_it(api, make_agent, repo):
    """'Always' for .env.local is for that file: a link named otherwise that leads to .git is
    asked about, and one that leads to .env.local is not."""
    (repo / "alias").symlink_to(".env.local")
    (repo / "sneaky").symlink_to(".git/config")
    first = tool_use("write_file", {"path": ".env.local", "content": "A=1\n"})
    via_alias = tool_use("write_file", {"path": "alias", "content": "A=2\n"})
    via_sneaky = tool_use("write_file", {"path": "sneaky", "content": EVIL})
    asker = Asker("always", "no")
    results = policy_run(api, make_agent, asker, [first, via_alias, via_sneaky])
    assert len(asker.questions) == 2
    assert ".git/config" in asker.questions[1]  # the question says where the link leads
    assert not results[via_alias["id"]].get("is_error")
    assert (repo / ".env.local").read_text() == "A=2\n"
    assert "fsmonitor" not in (repo / ".git" / "config").read_text()


# ---- the README's writing tool -------------------------------------------------------------


def readme_block_with(marker: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", readme, re.DOTALL | re.MULTILINE)
    [block] = [block for block in blocks if marker in block]
    return block


def test_the_readme_writing_tool_is_protected_as_it_declares(api, make_agent, repo):
    namespace: dict = {}
    exec(compile(readme_block_with('writes="path"'), "<README.md>", "exec"), namespace)
    tool = namespace["APPEND_FILE"]
    (repo / "log.txt").write_text("one\n")
    calls = [
        tool_use("read_file", {"path": "log.txt"}),
        tool_use("read_file", {"path": ".git/config"}),  # so the policy is what refuses it
        tool_use("append_file", {"path": "log.txt", "text": "two\n"}),
        tool_use("append_file", {"path": ".git/config", "text": EVIL}),
    ]
    for call in calls:
        api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    middleware = [StaleWriteGuard(), PermissionPolicy(ask=None, sandboxed=True)]
    run(make_agent(tools=[*default_tools(), tool], middleware=middleware).run("go"))
    git_result = results_by_id(api.accepted[4])[calls[3]["id"]]
    assert (repo / "log.txt").read_text() == "one\ntwo\n"
    assert git_result["is_error"] is True and "was not changed" in git_result["content"]
    assert "fsmonitor" not in (repo / ".git" / "config").read_text()
