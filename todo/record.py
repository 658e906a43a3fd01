"""The record of a plan: one compact entry per accepted todo_write, kept in `extra`.

    {"version": 3, "tool_use_id": "toolu_…",
     "changes": [["added", "Write the parser", "pending"],
                 ["status", "Run the tests", "in_progress", "completed", "checked"],
                 ["cancelled", "Port to Windows", "out of scope"],
                 ["dropped", "Read the spec"]]}

Each change is a short list (kind, item, details) rather than the whole list, so a long
session's record stays small. `describe` turns a change into the line `/todos --history` and
the `--view` page show.
"""

from __future__ import annotations

HISTORY_KEY = "todo_history"
MAX_ENTRIES = 200  # the oldest entries go first; the version keeps counting


def changes(old: list[dict], new: list[dict]) -> list[list]:
    """What changed from `old` to `new`, item by item (matched by their content)."""
    before = {item["content"]: item for item in old}
    after = {item["content"] for item in new}
    found: list[list] = []
    for item in new:
        content, status = item["content"], item["status"]
        prior = before.get(content)
        if status == "cancelled":
            if prior is None or prior["status"] != "cancelled":
                found.append(["cancelled", content, item.get("reason", "")])
        elif prior is None:
            found.append(["added", content, status, *proof(item)])
        elif prior["status"] != status or bool(prior.get("verified")) != bool(item.get("verified")):
            found.append(["status", content, prior["status"], status, *proof(item)])
    found += [["dropped", item["content"]] for item in old if item["content"] not in after]
    return found


def proof(item: dict) -> list[str]:
    """'checked' for a completed item a check proved, 'claimed' for one without proof."""
    if item["status"] != "completed":
        return []
    return ["checked" if item.get("verified") else "claimed"]


def append_entry(extra: dict, old: list[dict], new: list[dict], tool_use_id: str) -> dict:
    """Add the entry for an accepted write to `extra`'s record and return it."""
    history = extra.get(HISTORY_KEY)
    history = history if isinstance(history, list) else []
    version = (history[-1].get("version", len(history)) if history else 0) + 1
    entry = {"version": version, "tool_use_id": tool_use_id, "changes": changes(old, new)}
    extra[HISTORY_KEY] = [*history, entry][-MAX_ENTRIES:]
    return entry


def describe(change: list) -> str:
    """One change as a line of text, e.g. 'Run the tests: in_progress → completed (✓ checked)'."""
    kind, content, *details = [str(part) for part in change] + ["?", ""][len(change) :]
    proof_note = {"checked": " (✓ checked)", "claimed": " (claimed)"}
    if kind == "added":
        status, *rest = details or ["?"]
        return f"+ {content} [{status}]{proof_note.get(rest[0], '') if rest else ''}"
    if kind == "status" and len(details) >= 2:
        rest = proof_note.get(details[2], "") if len(details) > 2 else ""
        return f"{content}: {details[0]} → {details[1]}{rest}"
    if kind == "cancelled":
        return f"✗ {content} cancelled: {details[0] if details else ''}"
    if kind == "dropped":
        return f"- {content}"
    return f"{kind} {content}"


def describe_entry(entry: dict) -> list[str]:
    """An entry as lines: 'v3' and one line per change ('no change' when the list was resent)."""
    lines = [describe(change) for change in entry.get("changes") or [] if isinstance(change, list)]
    return lines or ["(resent unchanged)"]
