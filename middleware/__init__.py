"""Middleware: add behaviour to the agent loop without editing it.

    from middleware import Middleware

    class Shout(Middleware):
        async def transform_system_prompt(self, system_prompt, *, signal=None):
            return system_prompt + "\nAnswer in capitals."

    Agent(middleware=[Shout()])

`base` holds the seven hooks and their types, `stack` the rules for combining several
middlewares, and `policies` a few ready-made ones.
"""

from middleware.base import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    BeforeToolCallContext,
    BeforeToolCallResult,
    Middleware,
    ShouldStopAfterTurnContext,
    ToolResult,
    TurnAction,
)
from middleware.policies import BashApproval, ToolCallLog, TurnLimit
from middleware.stack import MiddlewareStack

__all__ = [
    "AfterToolCallContext",
    "AfterToolCallResult",
    "AgentContext",
    "BashApproval",
    "BeforeToolCallContext",
    "BeforeToolCallResult",
    "Middleware",
    "MiddlewareStack",
    "ShouldStopAfterTurnContext",
    "ToolCallLog",
    "ToolResult",
    "TurnAction",
    "TurnLimit",
]
