"""Piped input for a headless run: `git diff | planloop -p "review this"`.

    stdin a terminal ─────────────> the prompt as given (nothing is read)
    stdin a pipe or a file ──read──> the prompt, a blank line, <stdin>…</stdin>

Stdin that is not a terminal is read to its end, as `cat`, `grep` or `jq` would: planloop
waits for the command before it in the pipe. So an open pipe that never ends (a CI runner's
stdin, a `while read` loop) keeps it waiting; give such a run `< /dev/null`. If nothing has
come after a few seconds, stderr says so once, and the reading goes on.

At most PIPED_LIMIT bytes are kept: a larger input is cut there, and both the person (on
stderr) and the model (a line after the block) are told. The rest is not read at all, so
`yes | planloop -p …` does not wait forever.
"""

from __future__ import annotations

import codecs
import select
import sys
from collections.abc import Callable
from typing import BinaryIO

from redaction import cut_bytes_redacted, longest_secret_bytes

PIPED_LIMIT = 200 * 1024  # bytes: about 50K tokens, a quarter of a 200K context window
QUIET_PIPE_SECONDS = 3.0  # then one line on stderr, in case stdin was left open by mistake


def with_piped_input(prompt: str, stdin: BinaryIO | None, tell_user: Callable[[str], None]) -> str:
    """The prompt with what was piped in appended; the prompt alone for a terminal or nothing."""
    if stdin is None or stdin.isatty():
        return prompt
    wait_for_first_byte(stdin, tell_user)
    # A secret's length more than is kept: one that starts before the cut is read whole, and
    # redacted before the cut, which would otherwise keep its start.
    extra = longest_secret_bytes()
    data = stdin.read(PIPED_LIMIT + 1 + extra)
    cut = len(data) > PIPED_LIMIT
    kept = cut_bytes_redacted(data, PIPED_LIMIT, whole=len(data) <= PIPED_LIMIT + extra)
    # A cut can fall inside a UTF-8 character: the incremental decoder leaves that half out.
    text = codecs.getincrementaldecoder("utf-8")(errors="replace").decode(kept)
    if not text.strip():
        return prompt
    block = f"{prompt}\n\n<stdin>\n{text.rstrip()}\n</stdin>"
    if not cut:
        return block
    tell_user(
        f"The piped input is longer than {PIPED_LIMIT:,} bytes; only its first "
        f"{PIPED_LIMIT:,} go to the model."
    )
    return (
        f"{block}\n[planloop cut the piped input above at {PIPED_LIMIT:,} bytes; "
        "the rest was not read.]"
    )


def wait_for_first_byte(stdin: BinaryIO, tell_user: Callable[[str], None]) -> None:
    """Wait until stdin has data or ends; say once that planloop waits if that takes long."""
    try:
        ready, _, _ = select.select([stdin], [], [], QUIET_PIPE_SECONDS)
    except (OSError, ValueError):  # not a descriptor select can watch: just read
        return
    if not ready:
        tell_user("Waiting for piped input on stdin to end (run with < /dev/null to send none).")


def stdin_bytes() -> BinaryIO | None:
    """sys.stdin's bytes, or None when there is no stdin at all (closed by the caller)."""
    return getattr(sys.stdin, "buffer", None)
