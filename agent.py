"""planloop: one loop, a map of tools, and hooks around them.

    user input
        |
        v
    +---------+  reply   +-----------------------+  results   +----------+
    |  model  | -------> | tool_use blocks?      | ---------> | messages |
    +---------+          |  {name: tool} lookup  |            +----------+
        ^                +-----------------------+                 |
        |                        no: the run is done               |
        +----------------------------------------------------------+

Call the model, append its reply, run the tools it asked for, append the results, repeat.
Everything else lives elsewhere and is called by name: tools in `tools/`, policies and
the todo list as middlewares (`middleware/`, `todo/`), the terminal in `cli/`.

    from agent import Agent
    agent = Agent()                         # model and key: environment or ./.env (settings.py)
    answer = await agent.run("add a test for the parser")

`Agent()` is the product, as `python agent.py` runs it: the registered tools, bash in the
sandbox, the todo list, the permission policy and the rest (defaults.py lists them).
`Agent(middleware=[])` is the bare loop of this file and nothing around it.
"""

from __future__ import annotations

if __name__ == "__main__":  # (the installed `planloop` starts in first_fork.main instead)
    # First, before any other import: the key may be in this process's environment, and a
    # process of the same user could read `/proc/<pid>/environ` until it is non-dumpable. A
    # descriptor opened on this process's memory before then stays open: planloop goes on in
    # a child whose memory was never open to anyone (first_fork.py says why and how).
    from first_fork import close_and_fork

    close_and_fork()

import asyncio
import functools
import os
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from conversation import (
    INTERRUPTED,
    append_assistant_content,
    append_user_content,
    close_unanswered_calls,
    end_position,
    end_with_user_turn,
    final_text,
    opens_with_thinking,
    text_block,
    tool_calls,
    tool_result,
    with_repeated_ids_replaced,
    without_spans,
)
from defaults import default_middleware, pick_sandbox
from middleware import (
    AfterToolCallContext,
    AgentContext,
    BeforeToolCallContext,
    CancelSignal,
    Interrupted,
    Middleware,
    MiddlewareStack,
    ShouldStopAfterTurnContext,
    ToolResult,
    TurnLimit,
    until_cancelled,
)
from middleware.permissions import AskFunction
from model import (
    DEFAULT_MODEL,
    ContextOverflow,
    Thinking,
    check_thinking,
    default_thinking,
    import_sdk,
    make_client,
    require_credentials,
    stream_reply,
    thinking_param,
    with_cache_breakpoints,
)
from prompts import load_prompt
from redaction import RequestRedactor
from settings import make_undumpable, read_settings, remember_secrets
from tools import Tool, ToolError, call_handler, default_tools, validate_input
from tools.paths import pin_workspace
from tools.process import output_heard_by

if TYPE_CHECKING:
    from tools.tasks import TaskManager

DEFAULT_MAX_TOKENS = 16_000
# Stop reasons that mean the reply was cut off mid-way: by the output limit, or by a full
# context window. Either way the last block may be incomplete.
CUT_OFF_STOP_REASONS = ("max_tokens", "model_context_window_exceeded")
# A server tool (web search) that runs long pauses the reply (stop_reason pause_turn); each
# paused reply is sent back so the server goes on. More pauses than this in a row stop the run.
MAX_PAUSED_CONTINUATIONS = 10
T = TypeVar("T")


class UI(Protocol):
    """Everything the loop tells a front end, in the order it happens in a turn.

    The loop never prints; cli/render.py shows these events in a terminal, QuietUI drops them.
    """

    def model_started(self) -> None: ...  # a request is on its way; the reply is awaited
    def stream_event(self, event: Any) -> None: ...  # an SDK stream event of the reply
    def stream_restarted(self) -> None: ...  # a broken stream is tried again from the start
    def reply_finished(self, reply: dict) -> None: ...  # the whole reply, with its usage
    def tool_started(self, call: dict) -> None: ...
    def tool_output(self, call: dict, text: str) -> None: ...  # a running command's newest output
    def tool_finished(self, call: dict, result: ToolResult) -> None: ...
    def harness_message(self, text: str) -> None: ...  # text planloop added for the model
    def notice(self, text: str) -> None: ...  # something the user should know


class QuietUI(UI):
    """A UI that shows nothing: the default when the agent runs as a library."""


class Agent:
    """A model, a workspace, a tool map and middlewares; `run` plays one user input.

    With no arguments it is the product: the registered tools (`TOOLS` in tools/__init__.py,
    where a new tool is added so that `python agent.py` has it too) with bash in the sandbox,
    and the middlewares of defaults.py. The common knobs:

        ask            the approval question: async or plain `ask(question) -> (answer, reason)`
                       (middleware/permissions.py); None: what would ask is refused
        allow_all      allow everything that would ask (the CLI's --yes)
        sandbox        True: bubblewrap where it works; False: none; or a sandbox object
        allow_network  let sandboxed commands use the network
        tasks          a TaskManager (tools/tasks.py): bash's run_in_background, task_output,
                       task_stop; its owner delivers the results and shuts it down
        middleware     replaces the product's middlewares: [] is the bare loop of this file,
                       where nothing asks (protected paths go through; outside_sandbox is
                       refused, as nobody approved it)
        more_middleware  yours, run before the product's (a block comes before a question)
        project_instructions  add AGENTS.md (or CLAUDE.md) and the personal one in planloop's
                       home to the system prompt (prompts/project.py); False leaves them out
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        workspace: str | Path | None = None,
        tools: list[Tool] | None = None,
        middleware: list[Middleware] | None = None,
        more_middleware: Sequence[Middleware] = (),
        client: Any = None,
        system_prompt: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        max_turns: int | None = 200,
        ui: UI | None = None,
        checkpoint: Callable[[Agent], None] | None = None,
        ask: AskFunction | None = None,
        allow_all: bool = False,
        sandbox: bool | object = True,
        allow_network: bool = False,
        tasks: TaskManager | None = None,
        thinking: Thinking | None = None,
        project_instructions: bool = True,
    ) -> None:
        self.workspace = Path(workspace or os.getcwd()).resolve()
        pin_workspace(self.workspace)  # this path must lead to this very folder from now on
        # Key, endpoint and model: the environment, then what the workspace's .env may add
        # (settings.py says what and why). With your own client, only the environment.
        self.settings = read_settings(self.workspace if client is None else None)
        self.model = model or self.settings.model or DEFAULT_MODEL
        if client is None:
            require_credentials(self.settings)  # a missing key is reported now, not later
            make_undumpable()  # this process holds the key: no command may read its memory
        elif remember_secrets(*(getattr(client, name, None) for name in ("api_key", "auth_token"))):
            make_undumpable()  # your client's key is hidden and redacted as one read here
        self.client = client  # None: made at the first call, so start-up skips the SDK import
        self.own_client_loop: asyncio.AbstractEventLoop | None = None  # where ours was made
        self.max_tokens = max_tokens
        # "off", "adaptive" or a budget; the default is adaptive where the model has it
        # (model.THINKING_SUPPORT). A change applies from the next input: the API sees a whole
        # tool loop as one "assistant turn" (not a turn of this loop), with one thinking setting.
        self.thinking: Thinking = default_thinking(self.model) if thinking is None else thinking
        check_thinking(self.thinking, max_tokens)
        self.input_thinking: Thinking = "off"  # the setting the current input runs with
        self.ui: UI = ui or QuietUI()
        for notice in self.settings.notices:  # what was ignored in the workspace's .env
            self.ui.notice(notice)
        if model is None and self.settings.model_notice:  # the .env's model is the one used
            self.ui.notice(self.settings.model_notice)
        self.checkpoint = checkpoint  # called whenever the conversation is in a savable state
        self.trace: Any = None  # a wiretrace.Trace records what goes over the wire (--trace)
        self.redact_request = RequestRedactor()  # every request, for this run's key (stream)
        self.messages: list[dict] = []
        self.last_usage: dict | None = None  # the usage of the latest reply
        self.last_stop_reason: str | None = None  # of the latest reply
        # The API's stop_details when the model refused the current input, else None.
        self.refusal: dict | None = None
        self.input_start = [0, 0]  # where the current input began (conversation.end_position)
        self.pauses = 0  # paused replies in a row (stop_reason pause_turn)
        if system_prompt is None:
            system_prompt = load_prompt("system").replace("{workspace}", str(self.workspace))
        self.tools: dict[str, Tool] = {}  # the dispatch map, filled below
        self.context = AgentContext(self.messages, system_prompt, self.tools, self.workspace)
        # Where bash runs; the reason says why there is no sandbox when one was wanted.
        self.sandbox, self.no_sandbox_reason = pick_sandbox(sandbox, allow_network)
        started = getattr(self.sandbox, "started_in", set())
        if hasattr(self.sandbox, "before_command") and self.workspace.resolve() not in started:
            # As the terminal does for the sandbox it makes (or was given: `Agent(sandbox=
            # sandbox, tasks=manager)`): the search for copies of the key, and the watch of
            # what is written before the first command, begin now, once per workspace.
            self.sandbox.before_command(self.workspace, starting=True)
        if middleware is None:  # the product (defaults.py); a list, even [], replaces it
            middleware = default_middleware(
                self,
                ask=ask,
                allow_all=allow_all,
                tasks=tasks,
                project_instructions=project_instructions,
            )
        middleware = [*more_middleware, *middleware]
        if max_turns is not None:
            middleware.append(TurnLimit(max_turns))
        self.hooks = MiddlewareStack(middleware)
        # `TOOLS` (tools/__init__.py) unless `tools` is given, with bash bound to the sandbox.
        all_tools = default_tools(self.sandbox, tasks, tools)
        all_tools += [tool for m in middleware for tool in m.tools]
        self.tools.update({tool.name: tool for tool in all_tools})

    @property
    def extra(self) -> dict:
        """Checkpointed state of the middlewares (the todo list lives under "todos")."""
        return self.context.extra

    @property
    def signal(self) -> asyncio.Event:
        return self.context.signal

    def cancel(self, reason: str | None = None) -> None:
        """Stop the current run (everything since the user's input): the one way every
        interruption goes. `reason` says who stopped it when it was not the user, such as
        "terminated by SIGTERM": the model is then told that, not "Interrupted by the user".

        Ctrl-C, SIGTERM and SIGHUP (cli/signals.py hands them to this method) and any caller
        of `agent.cancel()` do the same thing: set the input's one cancel signal,
        `context.signal`. Everything that waits during the run waits through
        `until_cancelled` (middleware/base.py), which races the wait against that signal and
        cancels the loser: the model stream, each tool (bash ends its command with everything
        it started, tools/process.py; a file tool stops before its rename or says it wrote,
        `off_the_loop` in tools/beneath.py; a task wait simply ends), and the approval
        question (PermissionPolicy awaits `ask` the same way, so the terminal never blocks the
        event loop to read the answer). Then the loop keeps the conversation valid: the
        cancelled call gets the INTERRUPTED result, calls not yet run get it without running,
        `turn_is_last` raises Interrupted, `run` notes it as the stop reason, and
        `close_unanswered_calls` answers anything still open. Each input starts with a fresh
        signal (`start_input`).
        """
        self.context.cancel_reason = reason
        self.signal.set()

    # ---- the loop -------------------------------------------------------------------------

    async def run(self, prompt: str) -> str:
        """Run one user input to the end and return the final text of the model."""
        self.start_input(prompt)
        reply: dict | None = None
        try:
            last_turn = False
            while not last_turn:
                # 1. Call the model. The middlewares shape the request, then judge the reply
                #    before anything runs (after_model_response): a reminder or correction to
                #    add after the results, a stop, or another call first (the finalization guard).
                reply = await self.call_model()
                action = await self.hooks.after_model_response(reply, self.context, self.signal)
                # 2. Append the reply: as received, unless a middleware replaced it in step 1
                #    (TurnAction.response; none of planloop's does). It is saved before any
                #    tool runs or any question is asked.
                reply = action.response
                append_assistant_content(self.messages, reply["content"])
                self.save()
                # 3. Run the tools it asked for; each result is appended as its call finishes.
                results, terminate = await self.run_tools(reply, action.decision)
                # 4. Append what the middlewares injected: after the results, never before.
                self.append_injected(action.inject_messages)
                # 5. Repeat, or stop: the one way out of the loop (exceptions aside).
                last_turn = await self.turn_is_last(reply, action.decision, results, terminate)
        except Interrupted as stop:  # Ctrl-C, SIGTERM or agent.cancel(): see `cancel`
            self.context.stop_reason = stopped_by(self.context) or str(stop)
        finally:
            # Also after a crash: answer any open calls so the next request stays valid.
            close_unanswered_calls(self.messages, interrupted_result(self.context))
            self.save()
        return final_text(reply)

    # ---- the steps the loop calls by name -------------------------------------------------

    def start_input(self, prompt: str) -> None:
        if not prompt.strip():  # the API refuses blank text; fail here, before any request
            raise ValueError("The prompt is empty: give the agent something to do.")
        # A fresh signal per input: a cancel meant for the last run must not stop this one,
        # and the event must belong to the event loop that runs this input.
        self.context.signal = CancelSignal()
        self.context.run_id = uuid.uuid4().hex
        self.context.input_seq += 1
        self.context.turn = 0
        self.context.stop_reason = None
        self.context.cancel_reason = None
        self.refusal = None
        self.pauses = 0
        close_unanswered_calls(self.messages)  # e.g. a session saved by a process that died
        end_refused_spans(self.extra, self.messages)
        self.input_start = end_position(self.messages)
        append_user_content(self.messages, [text_block(prompt)])
        self.input_thinking = self.thinking if opens_with_thinking(self.messages) else "off"
        self.save()  # the input is kept even if the process dies during the model call

    async def call_model(self) -> dict:
        """Let the middlewares shape the request, then stream one reply."""
        self.context.turn += 1
        end_with_user_turn(self.messages, paused=self.last_stop_reason == "pause_turn")
        try:
            reply = await self.stream(await self.request())
        except ContextOverflow as overflow:
            # Too long for the model: the context middleware compacts the next request. Once.
            self.context.overflow = str(overflow)
            reply = await self.stream(await self.request())
        reply["content"] = with_repeated_ids_replaced(reply["content"], self.messages)
        self.last_usage = reply.get("usage")  # saved with the reply, for the session log
        self.last_stop_reason = reply["stop_reason"]
        self.report_stop_reason(reply)
        return reply

    async def request(self) -> dict:
        """The next request, as the middlewares shape it from the messages."""
        sendable = without_spans(self.messages, self.extra.get(REFUSED_INPUTS, []))
        messages = await self.hooks.transform_context(list(sendable), self.signal)
        system = await self.hooks.transform_system_prompt(self.context.system_prompt, self.signal)
        messages = await self.hooks.convert_to_llm(messages)
        system_blocks, messages = with_cache_breakpoints(system, messages)
        request = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": system_blocks,
            "messages": messages,
            "tools": [tool.schema() for tool in self.tools.values()],
        }
        thinking = thinking_param(self.input_thinking)
        if thinking is not None:
            request["thinking"] = thinking
        return request

    async def ask_model(self, system: str, prompt: str) -> str:
        """One model call outside the conversation (compaction uses it): same client, retries."""
        request = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": system,
            "messages": [{"role": "user", "content": [text_block(prompt)]}],
        }
        return final_text(await self.stream(request, QuietUI()))

    async def stream(self, request: dict, listener: UI | None = None) -> dict:
        """Stream one reply (to the UI, unless another listener is given); Ctrl-C stops it.

        The UI hears that a call started and ended (spinner, tokens) even when the text goes
        to another listener, so every call counts in the session's cost.
        """
        # The history may hold this run's key although it was redacted when written: a
        # session saved under another key, now resumed under the one it holds.
        request = self.redact_request(request)
        if self.trace:
            self.trace.request(request)
        if self.client is None:  # (the SDK loads off the loop, which serves Ctrl-C meanwhile)
            await self.until_cancelled(import_sdk())
        self.client = self.client_for_this_loop()
        self.ui.model_started()
        reply = await self.until_cancelled(stream_reply(self.client, request, listener or self.ui))
        if self.trace:
            self.trace.reply(reply)
        self.ui.reply_finished(reply)
        return reply

    def client_for_this_loop(self) -> Any:
        """The client, made at the first call (the SDK is imported then) and again in each new
        event loop: a script may asyncio.run() each input, and the connection the API kept open
        belongs to the loop that opened it. A client you passed in is always yours to keep."""
        loop = asyncio.get_running_loop()
        if self.client is None or (self.own_client_loop and self.own_client_loop is not loop):
            self.client, self.own_client_loop = make_client(self.settings), loop
        return self.client

    async def run_tools(self, reply: dict, decision: str) -> tuple[list[dict], bool]:
        """Run each call in order; return one result block per call and the terminate flag.

        A `stop` or `loop_to_model` decision runs none of them: each gets a "not run" result.
        """
        calls = tool_calls(reply)
        if reply["stop_reason"] == "refusal":
            decision = "stop"  # nothing of a refused reply runs
        if decision in ("stop", "loop_to_model"):
            results = skipped_results(calls, decision)
            append_user_content(self.messages, results)
            self.save()
            return results, False
        results, terminate = [], False
        for call in calls:
            if self.signal.is_set():
                result = ToolResult(interrupted_result(self.context), is_error=True)
            elif reply["stop_reason"] in CUT_OFF_STOP_REASONS and call is reply["content"][-1]:
                result = ToolResult(truncated_call_message(call), is_error=True)
            else:
                self.ui.tool_started(call)
                with output_heard_by(functools.partial(self.ui.tool_output, call)):
                    result, stop = await self.run_tool(reply, call)
                terminate = terminate or stop
                self.ui.tool_finished(call, result)
            results.append(tool_result(call["id"], result.content, result.is_error))
            append_user_content(self.messages, results[-1:])
            self.save()
        return results, terminate

    def append_injected(self, messages: list[dict]) -> None:
        """Add the middlewares' messages (reminders, corrections) to the last user message."""
        for message in messages:
            append_user_content(self.messages, message["content"])
            self.ui.harness_message(final_text(message))
        if messages:
            self.save()

    async def turn_is_last(
        self, reply: dict, decision: str, results: list[dict], terminate: bool
    ) -> bool:
        """Whether this turn ends the run; raises Interrupted if the run was cancelled.

        Another model call follows tool results, a `loop_to_model` decision, or a turn the
        server paused (it goes on where it stopped), unless a middleware stops the run: a
        `stop` decision, a tool result with `terminate`, or should_stop_after_turn.
        """
        if self.signal.is_set():
            raise Interrupted
        if decision == "stop" or terminate or reply["stop_reason"] == "refusal":
            return True
        goes_on = tool_calls(reply) or decision == "loop_to_model"
        if not (goes_on or self.resumes_paused_turn(reply)):
            return True
        turn = ShouldStopAfterTurnContext(self.context, reply, results)
        return await self.hooks.should_stop_after_turn(turn)

    def resumes_paused_turn(self, reply: dict) -> bool:
        """Whether to send a paused reply back so the server goes on; a bounded number of times."""
        self.pauses = self.pauses + 1 if reply["stop_reason"] == "pause_turn" else 0
        if self.pauses > MAX_PAUSED_CONTINUATIONS:
            self.context.stop_reason = (
                f"The server paused its turn {self.pauses} times in a row; stopped there. "
                "Send another input to go on."
            )
        return 0 < self.pauses <= MAX_PAUSED_CONTINUATIONS

    async def run_tool(self, reply: dict, call: dict) -> tuple[ToolResult, bool]:
        """Validate, ask the middlewares, run the handler; every failure becomes an error result."""
        tool = self.tools.get(call["name"])
        if tool is None:
            names = ", ".join(self.tools)
            return ToolResult(f"Unknown tool {call['name']!r}. Use one of: {names}.", True), False
        try:
            args = validate_input(tool, call.get("input"))
        except ToolError as err:
            return ToolResult(str(err), is_error=True), False
        before = BeforeToolCallContext(reply, call, args, self.context)
        verdict = await self.hooks.before_tool_call(before, self.signal)
        if verdict is not None:
            return ToolResult(verdict.reason or f"{tool.name} was blocked.", is_error=True), False
        try:
            result = ToolResult(
                await self.until_cancelled(call_handler(tool, self.workspace, args))
            )
        except Interrupted:
            result = ToolResult(interrupted_result(self.context), is_error=True)
        except ToolError as err:
            result = ToolResult(str(err), is_error=True)
        except Exception as err:  # a bug in a handler must not end the session
            result = ToolResult(f"{tool.name} failed: {type(err).__name__}: {err}", is_error=True)
        after = AfterToolCallContext(reply, call, args, self.context, result, result.is_error)
        return await self.hooks.after_tool_call(after, self.signal)

    async def until_cancelled(self, work: Awaitable[T]) -> T:
        """Await `work` unless the run is cancelled first (see `cancel`)."""
        return await until_cancelled(work, self.signal)

    def report_stop_reason(self, reply: dict) -> None:
        if reply["stop_reason"] == "refusal":
            self.set_aside_refused_input(reply)
        elif reply["stop_reason"] in CUT_OFF_STOP_REASONS:
            limit = f"the output limit ({self.max_tokens} tokens)"
            if reply["stop_reason"] == "model_context_window_exceeded":
                limit = "the end of the model's context window"
            last = reply["content"][-1] if reply["content"] else {}
            cut_call = last.get("type") == "tool_use"  # run_tools answers it with an error
            what = f"; its {last['name']} call was incomplete and was not run" if cut_call else ""
            self.ui.notice(f"The answer was cut off at {limit}{what}.")

    def set_aside_refused_input(self, reply: dict) -> None:
        """Keep the refused input in the messages, but send it no more; tell the person.

        The API's refusal documentation asks for the context to be reset: a refused input
        that is sent again is refused again. Only this input goes, the earlier ones stay.
        """
        self.refusal = reply.get("stop_details") or {"type": "refusal"}
        self.extra.setdefault(REFUSED_INPUTS, []).append([*self.input_start, None])
        self.ui.notice(refusal_notice(self.refusal))

    def save(self) -> None:
        if self.checkpoint is not None:
            self.checkpoint(self)


def stopped_by(context: AgentContext) -> str | None:
    """Why a run that someone other than the user cancelled stopped: "planloop was ..."."""
    return f"planloop was {context.cancel_reason}." if context.cancel_reason else None


def interrupted_result(context: AgentContext) -> str:
    """What the model is told of a call the cancel stopped or never started."""
    if context.cancel_reason is None:
        return INTERRUPTED
    return (
        f"planloop was {context.cancel_reason} before this call finished; it may have run in "
        "part, or not at all."
    )


REFUSED_INPUTS = "refused_inputs"  # extra: spans of messages no longer sent (conversation.py)


def end_refused_spans(extra: dict, messages: list[dict]) -> None:
    """A refused input ends where the next one begins: close its open span there."""
    for span in extra.get(REFUSED_INPUTS, []):
        if span[2] is None:
            span[2] = end_position(messages)


def refusal_notice(details: dict) -> str:
    """One line: that the model refused, why (the API's words), and that the next input is clean."""
    why = details.get("explanation") or ""
    category = details.get("category")
    parts = [why.strip(), f"(category: {category})" if category else ""]
    reason = " ".join(part for part in parts if part)
    reason = f": {reason}." if reason else "."
    return (
        f"The model declined this request{reason} The request is set aside (kept in the session, "
        "no longer sent); your next input starts clean."
    )


def skipped_results(calls: list[dict], decision: str) -> list[dict]:
    why = "the run was stopped" if decision == "stop" else "the agent asked the model again first"
    return [tool_result(c["id"], f"Not run: {why}.", is_error=True) for c in calls]


def truncated_call_message(call: dict) -> str:
    return (
        f"This {call['name']} call was cut off at the output token limit (or a full context "
        "window) before its input was complete, so it was not run. Send it again with a smaller "
        "input (for a large file, write a first part with write_file and add the rest with "
        "edit_file)."
    )


def main() -> None:
    from cli import main as cli_main  # the terminal front end is loaded only when run as a program

    cli_main()


if __name__ == "__main__":
    main()
