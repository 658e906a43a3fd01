"""Middleware: add behaviour to the agent loop without editing it.

    from middleware import Middleware

    class Shout(Middleware):
        async def transform_system_prompt(self, system_prompt, *, signal=None):
            return system_prompt + "\nAnswer in capitals."

    Agent(middleware=[Shout()])

`base` holds the seven hooks and their types, `stack` the rules for combining several
middlewares, `permissions` the one permission policy (what asks, what is refused),
`stale_writes` the guard against overwriting changes the model has not seen, and `policies`
a few small ready-made ones.
"""

from middleware.base import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    BeforeToolCallContext,
    BeforeToolCallResult,
    CancelSignal,
    Interrupted,
    Middleware,
    ShouldStopAfterTurnContext,
    ToolResult,
    TurnAction,
    until_cancelled,
)
from middleware.permissions import Approval, PermissionPolicy, Rule
from middleware.policies import ToolCallLog, TurnLimit
from middleware.stack import MiddlewareStack
from middleware.stale_writes import StaleWriteGuard

__all__ = [
    "AfterToolCallContext",
    "AfterToolCallResult",
    "AgentContext",
    "Approval",
    "BeforeToolCallContext",
    "BeforeToolCallResult",
    "CancelSignal",
    "Interrupted",
    "Middleware",
    "MiddlewareStack",
    "PermissionPolicy",
    "Rule",
    "ShouldStopAfterTurnContext",
    "StaleWriteGuard",
    "ToolCallLog",
    "ToolResult",
    "TurnAction",
    "TurnLimit",
    "until_cancelled",
]
