"""append_file: a new tool that writes files, and gets every protection write_file has.

    python examples/append_file.py "add the line 'ship it' to notes.txt"

runs an agent in the current folder with the default tools plus append_file, headless (nobody
to ask, so protected files are refused), against the endpoint and key in the environment, and
prints the answer.

What makes the tool safe is two lines: `writes="path"` tells the permission policy and the
stale-write guard which input is the path it writes, and `update_file` reaches that file the
careful way write_file does (tools/beneath.py), so a write to `.git/config` is refused and a
path never leads out of the workspace, even while another process swaps folders for links.
"""

import asyncio
import sys
from pathlib import Path

# Run from a checkout without installing: the project root holds agent.py and tools/.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent import Agent  # noqa: E402
from tools import TOOLS, Tool  # noqa: E402
from tools.files import in_thread, update_file  # noqa: E402


def append_file(workspace: Path, path: str, text: str, *, stop=None) -> str:
    existed = update_file(
        "append_file", workspace, path, lambda old: (old or b"") + text.encode("utf-8"), stop=stop
    )
    return f"Appended {len(text)} characters to {path}{'' if existed else ' (new file)'}."


APPEND_FILE = Tool(
    name="append_file",
    description="Add text at the end of a file in the workspace; the file is made if missing.",
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the workspace."},
            "text": {"type": "string", "description": "The text to add, as it should appear."},
        },
        "required": ["path", "text"],
        "additionalProperties": False,
    },
    handler=in_thread(append_file),  # file work off the event loop, so Ctrl-C is served
    writes="path",  # the permission policy and the stale-write guard read this
)


def main() -> int:
    if len(sys.argv) != 2 or not sys.argv[1].strip():
        print('usage: python examples/append_file.py "PROMPT"', file=sys.stderr)
        return 2
    try:
        # The product with one more tool: the sandbox, the permission policy, the stale-write
        # guard and the todo list all come from Agent() itself. Headless: no person to ask, so
        # protected writes (append_file's too) and unsandboxed bash are refused.
        agent = Agent(tools=[*TOOLS, APPEND_FILE])
        print(asyncio.run(agent.run(sys.argv[1])))
    except Exception as error:  # a missing key, an API error: one line, not a traceback
        print(f"append_file example: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
