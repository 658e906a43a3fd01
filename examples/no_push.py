from middleware import BeforeToolCallResult, Middleware


class NoPush(Middleware):
    """Refuse bash commands that push to a remote; everything else runs as usual."""

    async def before_tool_call(self, ctx, *, signal=None):
        if ctx.tool_call["name"] == "bash" and "git push" in ctx.args["command"]:
            return BeforeToolCallResult(
                block=True, reason="Pushing is not allowed here; commit locally instead."
            )
        return None
