from pathlib import Path

from tools import Tool, safe_path


def count_words(workspace: Path, path: str) -> str:
    text = safe_path(workspace, path).read_text(encoding="utf-8", errors="replace")
    return f"{len(text.split())} words"


WORD_COUNT = Tool(
    name="word_count",
    description="Count the words in a text file of the workspace.",
    input_schema={
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
    handler=count_words,
)
