"""The terminal front end of planloop.

    python agent.py                 interactive: streamed answers, live checklist, approvals
    python agent.py -p "TASK"       headless: progress on stderr, the answer on stdout
    python agent.py --resume [ID]   go on with a saved session of this folder

`app` reads the flags and builds the agent, `prompt` runs the interactive session, and
`render` decides what the user sees. Only this package prints.
"""

from cli.app import main, run_cli

__all__ = ["main", "run_cli"]
