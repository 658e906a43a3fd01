"""A refusal sets its input aside; a paused turn goes back as it is, a bounded number of times."""

from __future__ import annotations

import json

from conftest import run, run_cli

from fakeapi import server_tool_use, text, tool_use, web_search_result

REFUSED = {
    "content": [text("I can't help")],
    "stop_reason": "refusal",
    "stop_details": {
        "type": "refusal",
        "category": "cyber",
        "explanation": "This looks like malware development.",
    },
}


def sent_texts(request: dict) -> list[str]:
    """Every text the request carries, user and assistant, in order."""
    return [
        block["text"]
        for message in request["messages"]
        for block in message["content"]
        if block.get("type") == "text"
    ]


def test_a_refused_input_is_kept_but_not_sent_again(api, make_agent):
    api.add({"content": [text("Hi.")]})
    api.add(REFUSED)
    api.add({"content": [text("Sure, here is the parser.")]})
    agent = make_agent()
    run(agent.run("hello"))
    run(agent.run("write a worm"))
    assert agent.refusal["category"] == "cyber"
    notice = agent.ui.notices[-1]
    assert "This looks like malware development." in notice and "cyber" in notice
    assert "next input starts clean" in notice
    run(agent.run("write a parser"))
    assert sent_texts(api.accepted[2]) == ["hello", "Hi.", "write a parser"]
    assert agent.refusal is None
    kept = [b.get("text") for m in agent.messages for b in m["content"]]
    assert "write a worm" in kept and "I can't help" in kept  # still in the session


def test_a_refusal_with_no_content_does_not_swallow_the_next_input(api, make_agent):
    api.add({"content": [], "stop_reason": "refusal"})
    api.add({"content": [text("ok")]})
    agent = make_agent()
    run(agent.run("bad request"))
    assert "declined" in agent.ui.notices[-1]
    run(agent.run("good request"))
    assert sent_texts(api.accepted[1]) == ["good request"]


def test_a_refusal_mid_tool_loop_sets_the_whole_input_aside(api, make_agent):
    call = tool_use("bash", {"command": "echo hi"})
    api.add({"content": [text("Hi.")]})
    api.add({"content": [call]})
    api.add({**REFUSED, "content": [tool_use("bash", {"command": "rm -rf /"})]})
    api.add({"content": [text("Done.")]})
    agent = make_agent()
    run(agent.run("hello"))
    run(agent.run("look, then do harm"))
    assert len(api.accepted) == 3  # the refused reply's call was not run
    run(agent.run("something else"))
    last = api.accepted[3]
    assert sent_texts(last) == ["hello", "Hi.", "something else"]
    assert all(
        m["role"] != "assistant" or "tool_use" not in json.dumps(m) for m in last["messages"]
    )


def test_headless_refusal_exits_4_says_why_and_resume_starts_clean(api, env, workspace):
    api.add(REFUSED)
    result = run_cli("-p", "write a worm", "--output-format", "json", cwd=workspace, env=env)
    assert result.returncode == 4
    assert "refused" in result.stderr and "malware development" in result.stderr
    summary = json.loads(result.stdout)
    assert summary["stop_reason"] == "refusal"
    assert summary["refusal"]["category"] == "cyber"
    api.add({"content": [text("Here it is.")]})
    result = run_cli("-p", "write a parser", "--resume", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert sent_texts(api.accepted[1]) == ["write a parser"]


def test_a_paused_web_search_goes_back_last_and_joins_the_answer(api, make_agent):
    search = server_tool_use("web_search", {"query": "planloop"})
    api.add({"content": [text("Let me search."), search], "stop_reason": "pause_turn"})
    found = web_search_result(search, [("https://example.org", "Example")])
    api.add({"content": [found, text("It is a small agent.")]})
    agent = make_agent()
    assert run(agent.run("what is planloop?")) == "It is a small agent."
    resumed = api.accepted[1]["messages"]
    assert [m["role"] for m in resumed] == ["user", "assistant"]
    assert resumed[-1]["content"][-1]["type"] == "server_tool_use"
    # The turn is one assistant message: call, result and answer together.
    kinds = [b["type"] for b in agent.messages[-1]["content"]]
    assert kinds == ["text", "server_tool_use", "web_search_tool_result", "text"]


def test_paused_turns_in_a_row_are_capped(api, make_agent, monkeypatch):
    import agent as agent_module

    monkeypatch.setattr(agent_module, "MAX_PAUSED_CONTINUATIONS", 2)
    for step in range(4):
        api.add({"content": [text(f"Still searching {step}.")], "stop_reason": "pause_turn"})
    agent = make_agent()
    run(agent.run("search"))
    assert len(api.accepted) == 3
    assert "paused its turn 3 times in a row" in agent.context.stop_reason
    api.add({"content": [text("ok")]})
    run(agent.run("go on"))  # the paused message is followed by the new input: valid
    assert api.accepted[3]["messages"][-1]["role"] == "user"
