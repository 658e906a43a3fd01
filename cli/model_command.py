"""/model: show the model, or switch to another one from the next input on.

    /model                    claude-sonnet-4-6 · thinking adaptive · context window 200K
    /model claude-haiku-4-5   the next input goes to claude-haiku-4-5 (thinking: off)

Any name is accepted (a new model need not wait for planloop to know it); a name the API
does not know is refused there, with the one-line error of model.py. What must stay valid is
the request: the thinking setting follows the new model through THINKING_SUPPORT (model.py).
A setting that was the old model's default becomes the new one's; a chosen one is kept unless
the new model cannot take it ("adaptive" where it is not known, a budget for a model not
known to think), and then the default is used and said. The context window follows the model
too, unless --context-window set it.

The choice is kept in the session (`extra["model"]`), so `--resume` continues with it; a
`--model` flag given to `--resume` wins, and becomes the session's choice.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from middleware.context import context_window, find_context_manager, short_tokens
from model import default_thinking, thinking_support
from session import SessionError

if TYPE_CHECKING:
    from agent import Agent
    from cli.render import TerminalUI

MODEL_KEY = "model"  # in agent.extra: the model chosen with /model
MODEL_NAME_MAX = 200


def switch_model(agent: Agent, ui: TerminalUI, line: str) -> None:
    """/model [NAME]: without a name, what the next input uses; with one, switch to it."""
    words = line.split()[1:]
    if not words:
        ui.print_line(describe_model(agent), "dim")
        return
    name = words[0]
    if len(words) > 1 or not valid_model_name(name):
        ui.notice("Give one model id, e.g. /model claude-sonnet-4-6 (no spaces).")
        return
    old_thinking = agent.thinking
    use_model(agent, name)
    agent.extra[MODEL_KEY] = name
    checkpoint = agent.checkpoint
    if checkpoint is not None:
        checkpoint(agent)  # saved now, so --resume continues with it even before the next input
        session = getattr(checkpoint, "session", None)
        if session is not None:  # a line on the session page's timeline (--view)
            with contextlib.suppress(SessionError):
                session.note(f"The model is {name} from here on (/model).")
    ui.print_line(f"The next input goes to {describe_model(agent)}.", "dim")
    if agent.thinking != old_thinking and old_thinking != "off":
        ui.notice(
            f"Thinking {old_thinking} does not fit {name}; it is {agent.thinking} now "
            "(--thinking sets it when planloop starts)."
        )
    if thinking_support(name) is None:
        ui.print_line(
            f"planloop does not know {name}: thinking stays off, and the API says if the "
            "name is wrong.",
            "dim",
        )


def use_model(agent: Agent, name: str) -> None:
    """Point the agent at another model: thinking and the context window follow it."""
    was_default = agent.thinking == default_thinking(agent.model)
    agent.thinking = thinking_for(name, agent.thinking, was_default)
    manager = find_context_manager(agent)
    if manager is not None and manager.window == context_window(agent.model):
        manager.window = context_window(name)  # a window set by --context-window stays
    agent.model = name


def thinking_for(model: str, thinking: str | int, was_default: bool) -> str | int:
    """The thinking setting to keep for `model`: one the API accepts for it."""
    support = thinking_support(model)
    if was_default:
        return default_thinking(model)
    if thinking == "adaptive" and support != "adaptive":
        return default_thinking(model)
    if isinstance(thinking, int) and support is None:
        return "off"
    return thinking


def continue_with_saved_model(agent: Agent, model_flag: str | None) -> None:
    """After --resume: go on with the model the session switched to, unless --model says."""
    saved = agent.extra.get(MODEL_KEY)
    if not isinstance(saved, str) or not valid_model_name(saved):
        return
    if model_flag:
        agent.extra[MODEL_KEY] = agent.model  # the flag is the newest choice
    elif saved != agent.model:
        use_model(agent, saved)


def describe_model(agent: Agent) -> str:
    manager = find_context_manager(agent)
    window = f" · context window {short_tokens(manager.window)}" if manager else ""
    return f"{agent.model} · thinking {agent.thinking}{window}"


def valid_model_name(name: str) -> bool:
    """A model id is one printable word; what the API knows is for the API to say."""
    return 0 < len(name) <= MODEL_NAME_MAX and name.isprintable() and not name.isspace()
