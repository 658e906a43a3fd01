"""The texts the model reads, kept as Markdown files so they can be read and measured.

Every word here is paid on every request, so keep them short.
"""

from functools import cache
from pathlib import Path

PROMPTS_DIR = Path(__file__).parent


@cache
def load_prompt(name: str) -> str:
    """The text of prompts/<name>.md, without the trailing newline."""
    return (PROMPTS_DIR / f"{name}.md").read_text(encoding="utf-8").rstrip("\n")
