"""A session as one self-contained HTML page: `python agent.py --view [SESSION]`.

    <id>.jsonl (or the older <id>.json) --+
                                          +--> read_session --> render_page --> <id>.html
    <id>.trace.jsonl, when there is one --+

The page shows a timeline of the model calls. Each call shows the model's text, its tool calls
folded with their results, the reminders and corrections planloop added after the results
(highlighted), and the plan as a checklist whenever todo_write changed it: items a check proved
(✓ checked) apart from those only claimed done, cancelled ones struck through, and what the
plan's record (extra["todo_history"], todo/record.py) says changed. Where planloop cleared old
tool output or compacted the context, the timeline says so before the call that was sent that
way; what planloop itself put into an input (a background task's result, the note after /undo)
is labelled as planloop's, not as the person's. A chart plots tokens, cache reads and the
context size per call, in rows that shrink to the page's width however long the session.

Everything in a session came from a model, a tool or a file, so every value is escaped, the
page runs no script at all (its Content-Security-Policy forbids one), and it loads nothing
from the network: it opens the same with or without a connection.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from session import SESSION_ID, SessionError, planloop_home, read_log, session_files, session_folder
from todo.record import HISTORY_KEY, describe_entry
from wiretrace import read_trace, trace_path

HARNESS_TAG = "<reminder>"  # how planloop marks the text it adds (todo/middleware.py)
# What planloop puts into an input itself, by the tag it starts with: shown as planloop's.
INPUT_TAGS = {
    "task-result": "a background task's result (cli/tasks.py)",
    "undo": "files put back by /undo (cli/undo.py)",
}
CHART_ROW_CALLS = 40  # bars per row of the chart; more calls start another row
MARKS = {"pending": "☐", "in_progress": "◐", "completed": "☑", "cancelled": "☒"}


@dataclass
class SessionLog:
    """What the page needs from a session log (and its trace)."""

    id: str
    path: Path
    workspace: str = ""
    model: str = ""
    messages: list[dict] = field(default_factory=list)
    usages: list[dict | None] = field(default_factory=list)  # one per assistant message
    final_extra: dict = field(default_factory=dict)
    notes: list[tuple[int, str]] = field(default_factory=list)  # (messages before it, text)
    # Context clearing and compaction: (messages before it, kind, headline, details)
    marks: list[tuple[int, str, str, str]] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)  # trace: bodies as sent


# ---- finding and reading -----------------------------------------------------------------------


def find_session(workspace: Path, name: str) -> Path:
    """A session file: a path, an id of this folder's sessions, or "latest"."""
    given = Path(name).expanduser()
    if name != "latest" and given.is_file():
        return given
    if name == "latest":
        logs = session_files(workspace)
        if not logs:
            raise SessionError("There is no saved session for this folder yet.")
        return logs[0][1]
    folder = session_folder(workspace, name) if SESSION_ID.fullmatch(name) else None
    for suffix in (".jsonl", ".json"):
        if folder is not None and (folder / f"{name}{suffix}").is_file():
            return folder / f"{name}{suffix}"
    raise SessionError(f"No session {name!r} for this folder (give an id or a file path).")


def read_session(path: Path) -> SessionLog:
    """Read a JSON Lines session log, or the single-JSON format that came before it."""
    try:
        # A log of planloop's home is read as --resume reads it (never through a link, of
        # another owner, or with a second name); a file you name elsewhere is yours to name.
        ours = path.absolute().parent.resolve().is_relative_to(planloop_home().resolve())
        text = (read_log(path) if ours else path.read_bytes()).decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SessionError(f"Session file {path} cannot be read: {err}") from None
    session_id = path.name.split(".")[0]
    if path.suffix == ".json":
        log = read_single_json(text, path, session_id)
    else:
        log = read_json_lines(text, path, session_id)
    trace_file = trace_path(path, session_id)
    if trace_file.is_file():
        records = read_trace(trace_file)
        log.requests = [r["body"] for r in records if r.get("type") == "request"]
        replies = [r.get("reply") or {} for r in records if r.get("type") == "reply"]
        for index, reply in enumerate(replies[: len(log.usages)]):
            log.usages[index] = log.usages[index] or reply.get("usage")
    return log


def read_single_json(text: str, path: Path, session_id: str) -> SessionLog:
    try:
        data = json.loads(text)
    except ValueError as err:
        raise SessionError(f"Session file {path} is not JSON: {err}") from None
    log = SessionLog(session_id, path, str(data.get("workspace", "")), str(data.get("model", "")))
    for message in data.get("messages", []):
        add_message(log, message, message.get("usage"))
    log.final_extra = data.get("extra") or {}
    return log


def read_json_lines(text: str, path: Path, session_id: str) -> SessionLog:
    """Replay the records in order; unknown types and torn lines are skipped."""
    log = SessionLog(session_id, path)
    context = ContextMarks()
    # Whether the last record was a reply. The loop saves a reply, then the extra its request
    # changed (clearing): such a change is marked before that call, any other where it falls.
    after_reply = False
    # Records end at "\n" alone, as they are written: a U+2028 in a tool call is no line end.
    for line in text.split("\n"):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == "start":
            # The id inside a handed-over file is only shown, and only if it is an id at all.
            recorded_id = record.get("id")
            if isinstance(recorded_id, str) and SESSION_ID.fullmatch(recorded_id):
                log.id = recorded_id
            log.workspace, log.model = (
                str(record.get("workspace", "")),
                str(record.get("model", "")),
            )
        elif kind == "message":
            add_message(log, record.get("message") or {}, record.get("usage"))
        elif kind == "blocks" and log.messages:
            log.messages[-1]["content"].extend(record.get("blocks") or [])
        elif kind == "extra":
            log.final_extra = record.get("extra") or {}
            at = len(log.messages) - 1 if after_reply else len(log.messages)
            marks = context.changes(log.final_extra, log.messages)
            log.marks += [(at, *mark) for mark in marks]
        elif kind == "note":
            log.notes.append((len(log.messages), str(record.get("text", ""))))
        if kind in ("message", "blocks", "extra"):
            last = log.messages[-1] if log.messages else {}
            after_reply = kind != "extra" and last.get("role") == "assistant"
    return log


class ContextMarks:
    """Notices, from one saved `extra` to the next, where middleware/context.py cleared old tool
    output or compacted the conversation."""

    def __init__(self) -> None:
        self.cut = 0
        self.compaction: object = None

    def changes(self, extra: object, messages: list[dict]) -> list[tuple[str, str, str]]:
        """(kind, headline, details) for each change since the last extra. The context keeps
        message indexes; the page counts model calls, so the headline does too."""
        extra = extra if isinstance(extra, dict) else {}
        marks = []
        compaction = extra.get("context_compaction")
        if isinstance(compaction, dict) and compaction != self.compaction:
            upto = calls_before(messages, compaction.get("upto"))
            before = compaction.get("tokens_before")
            size = f" at about {before:,} tokens" if isinstance(before, int) else ""
            marks.append(
                (
                    "compaction",
                    f"planloop compacted the context{size}: from here on, the conversation "
                    f"up to model call {upto} is sent as notes",
                    str(compaction.get("summary", "")),
                )
            )
        self.compaction = compaction
        clearing = extra.get("context_clearing")
        cut = clearing.get("cut") if isinstance(clearing, dict) else 0
        cut = cut if isinstance(cut, int) and not isinstance(cut, bool) else 0
        if cut > self.cut:
            marks.append(
                (
                    "clearing",
                    "planloop cleared old tool output: from here on, the tool results of "
                    f"model calls 1 to {calls_before(messages, cut)} are sent as one-line "
                    "placeholders",
                    "",
                )
            )
        self.cut = cut
        return marks


def calls_before(messages: list[dict], index: object) -> int:
    """How many model calls (assistant messages) come before message `index`."""
    end = index if isinstance(index, int) and not isinstance(index, bool) else 0
    return sum(1 for message in messages[:end] if message.get("role") == "assistant")


def add_message(log: SessionLog, message: dict, usage: dict | None) -> None:
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    log.messages.append({"role": message.get("role"), "content": list(content or [])})
    if message.get("role") == "assistant":
        log.usages.append(usage)


# ---- the page ----------------------------------------------------------------------------------


def write_view(session_file: Path) -> Path:
    """Write the page beside the session log and return its path.

    The page is named after the file, never after anything inside it: a handed-over log
    saying `"id": "../victim/index"` must not choose where the page goes. It is the file's
    name with `.html` for its `.jsonl` or `.json` (`report.2024-05.jsonl` makes
    `report.2024-05.html`), and it replaces only a page this wrote before: any other file of
    that name, or a link, is yours, and is left as it is.
    """
    log = read_session(session_file)
    name = session_file.name
    for suffix in (".jsonl", ".json"):
        name = name.removesuffix(suffix) if name.endswith(suffix) else name
    page = session_file.parent / f"{name}.html"
    if page == session_file:
        raise SessionError(f"{session_file} is not a session log (it would be overwritten).")
    if not _is_ours_or_missing(page):
        raise SessionError(
            f"{page} exists and is not a page --view wrote; it was left as it is. "
            "Move it, or copy the session log elsewhere and view that copy."
        )
    descriptor, temp_name = tempfile.mkstemp(dir=page.parent, prefix=".view-", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as temp:
            temp.write(render_page(log))
        os.replace(temp_name, page)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    return page


def _is_ours_or_missing(page: Path) -> bool:
    """Whether `page` is missing, or a file (not a link) that a --view wrote (PAGE_MARK)."""
    try:
        fd = os.open(page, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    except OSError:
        return False  # a link, or a file this cannot read: not to be replaced
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and PAGE_MARK.encode() in os.read(fd, 4096)
    finally:
        os.close(fd)


def render_page(log: SessionLog) -> str:
    results = {
        block.get("tool_use_id"): block
        for message in log.messages
        if message["role"] == "user"
        for block in message["content"]
        if block.get("type") == "tool_result"
    }
    items: list[str] = []
    call = 0
    plan_shown: list | None = None
    track = PlanTrack(log.final_extra.get(HISTORY_KEY))
    for index, message in enumerate(log.messages):
        items += [render_mark(*mark[1:]) for mark in log.marks if mark[0] == index]
        items += [f'<li class="note">{esc(text)}</li>' for at, text in log.notes if at == index]
        if message["role"] == "assistant":
            usage = log.usages[call] if call < len(log.usages) else None
            request = log.requests[call] if call < len(log.requests) else None
            call += 1
            body, plan = render_call(message["content"], results, plan_shown, track)
            if plan is not None:
                plan_shown = plan
            items.append(
                f'<li class="call" id="call-{call}"><h2>Model call {call}</h2>'
                f"{render_usage(usage, request)}{body}"
            )
            continue
        has_results = any(b.get("type") == "tool_result" for b in message["content"])
        for block in message["content"]:
            if block.get("type") != "text":
                continue
            text = block.get("text", "")
            if text.lstrip().startswith(HARNESS_TAG):
                kind = "correction" if "about to finish" in text else "reminder"
                items.append(
                    f'<li class="added {kind}"><h3>planloop added a {kind}</h3>'
                    f"<pre>{esc(text)}</pre></li>"
                )
            elif has_results:
                items.append(f'<li class="added"><pre>{esc(text)}</pre></li>')
            else:
                items += render_input(text)
    end = len(log.messages)
    items += [render_mark(*mark[1:]) for mark in log.marks if mark[0] >= end]
    items += [f'<li class="note">{esc(t)}</li>' for at, t in log.notes if at >= end]
    final_plan = log.final_extra.get("todos")
    if isinstance(final_plan, list) and final_plan and final_plan != plan_shown:
        items.append(
            f'<li class="plan"><h3>Plan at the end</h3>{render_checklist(final_plan)}</li>'
        )
    if track.entries:
        items.append(f'<li class="plan"><h3>The plan\'s record</h3>{track.render()}</li>')
    title = f"planloop session {log.id}"
    return PAGE.format(
        mark=PAGE_MARK,
        title=esc(title),
        style=STYLE,
        summary=render_summary(log, call),
        chart=render_chart(log.usages),
        setup=render_setup(log.requests),
        timeline="\n".join(items),
    )


def render_input(text: str) -> list[str]:
    """An input's text: what planloop put in it (tagged, at its start) apart from the person's."""
    items = []
    rest = text
    while True:
        stripped = rest.lstrip()
        tag = next((t for t in INPUT_TAGS if stripped.startswith(f"<{t}>")), None)
        closing = stripped.find(f"</{tag}>") if tag else -1
        if tag is None or closing < 0:
            break
        end = closing + len(f"</{tag}>")
        items.append(
            f'<li class="input planloop"><h3>planloop: {esc(INPUT_TAGS[tag])}</h3>'
            f"<pre>{esc(stripped[:end])}</pre></li>"
        )
        rest = stripped[end:]
    if not items:
        rest = text  # the person's alone, as typed
    if rest.strip():
        items.append(
            f'<li class="input"><h3>User</h3><pre>{esc(rest.strip() if items else rest)}</pre></li>'
        )
    return items


def render_mark(kind: str, headline: str, details: str) -> str:
    """Where the context was cleared or compacted, with the compaction's notes folded."""
    notes = (
        f"<details><summary>the notes</summary><pre>{esc(details)}</pre></details>"
        if details
        else ""
    )
    return f'<li class="context {esc(kind)}"><h3>{esc(headline)}</h3>{notes}</li>'


class PlanTrack:
    """Follows the plan's record along the timeline: which write made which version, and which
    completed items a check proved (the model's input alone cannot tell)."""

    def __init__(self, history: object) -> None:
        entries = history if isinstance(history, list) else []
        self.entries = [e for e in entries if isinstance(e, dict)]
        self.by_call = {e.get("tool_use_id"): e for e in self.entries}
        self.verified: set[str] = set()

    def step(self, call_id: object, todos: list) -> tuple[list, dict | None]:
        """The plan a write left, each item marked verified or not, and its record entry."""
        entry = self.by_call.get(call_id)
        for change in (entry or {}).get("changes") or []:
            if isinstance(change, list) and len(change) >= 2:
                if change[-1] == "checked":
                    self.verified.add(change[1])
                elif change[0] in ("status", "cancelled", "dropped"):
                    self.verified.discard(change[1])
        marked = [
            {**item, "verified": item.get("content") in self.verified}
            if isinstance(item, dict) and item.get("status") == "completed"
            else item
            for item in todos
        ]
        return marked, entry

    def render(self) -> str:
        rows = "".join(
            f"<li>v{esc(entry.get('version', '?'))}: {esc('; '.join(describe_entry(entry)))}</li>"
            for entry in self.entries
        )
        return f'<ol class="record">{rows}</ol>'


def render_call(
    content: list[dict], results: dict, plan_shown: list | None, track: PlanTrack | None = None
) -> tuple[str, list]:
    """One assistant message: text, thinking, tool calls with results; and the new plan."""
    track = track or PlanTrack(None)
    parts, plan, shown, entry = [], None, None, None
    for block in content:
        kind = block.get("type")
        if kind == "text" and block.get("text", "").strip():
            parts.append(f'<div class="say"><pre>{esc(block["text"])}</pre></div>')
        elif kind == "thinking":
            parts.append(
                f'<details class="thinking"><summary>thinking</summary>'
                f"<pre>{esc(block.get('thinking', ''))}</pre></details>"
            )
        elif kind == "redacted_thinking":
            parts.append('<div class="thinking">thinking (kept encrypted by the API)</div>')
        elif kind == "server_tool_use":  # web search, code execution: run by the API itself
            query = json.dumps(block.get("input"), ensure_ascii=False)
            parts.append(
                f'<div class="say"><pre>{esc(block.get("name", "?"))} {esc(query)}</pre></div>'
            )
        elif kind == "tool_use":
            result = results.get(block.get("id")) or {}
            parts.append(render_tool(block, result))
            todos = (block.get("input") or {}).get("todos")
            applied = result and not result.get("is_error") and block.get("name") == "todo_write"
            if applied and isinstance(todos, list) and todos != plan_shown:
                plan = todos
                shown, entry = track.step(block.get("id"), todos)
    if plan is not None:
        version = f" (v{esc(entry.get('version', '?'))})" if entry else ""
        changed = f'<p class="changes">{esc("; ".join(describe_entry(entry)))}</p>' if entry else ""
        parts.append(
            f'<div class="plan"><h3>The plan changed{version}</h3>{changed}'
            f"{render_checklist(shown)}</div>"
        )
    return "\n".join(parts), plan


def render_tool(call: dict, result: dict) -> str:
    args = call.get("input") or {}
    headline = args.get("command") or args.get("path") if isinstance(args, dict) else None
    summary = f"{call.get('name', '?')} {headline or ''}".strip()
    output = result.get("content", "(no result)")
    if isinstance(output, list):  # a result may be a list of text blocks
        output = "\n".join(str(part.get("text", "")) for part in output if isinstance(part, dict))
    state = " error" if result.get("is_error") else ""
    return (
        f'<details class="tool{state}"><summary>{esc(summary)}</summary>'
        f'<pre class="args">{esc(json.dumps(args, indent=2, ensure_ascii=False))}</pre>'
        f'<pre class="result">{esc(output)}</pre></details>'
    )


def render_checklist(todos: list) -> str:
    """The plan as a list: ✓ checked apart from claimed, cancelled struck through + reason."""
    rows = []
    for item in todos:
        item = item if isinstance(item, dict) else {}
        status = str(item.get("status", "pending"))
        mark = MARKS.get(status, "?")
        content = esc(item.get("content", ""))
        if status == "cancelled":
            note = f' <span class="proof">cancelled: {esc(item.get("reason", ""))}</span>'
            content = f"<s>{content}</s>"
        elif status == "completed" and item.get("verified"):
            note = ' <span class="proof checked">✓ checked</span>'
        elif status == "completed":
            note = ' <span class="proof claimed">claimed</span>'
        else:
            note = ""
        rows.append(f'<li class="{esc(status)}">{mark} {content}{note}</li>')
    return f'<ul class="checklist">{"".join(rows)}</ul>'


def tokens(usage: dict | None) -> dict[str, int]:
    """The figures of one call; missing fields count as 0."""
    usage = usage or {}

    def number(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    fresh, read = number("input_tokens"), number("cache_read_input_tokens")
    written = number("cache_creation_input_tokens")
    return {
        "input": fresh,
        "cache_read": read,
        "cache_write": written,
        "output": number("output_tokens"),
        "context": fresh + read + written,
    }


def render_usage(usage: dict | None, request: dict | None) -> str:
    if usage is None and request is None:
        return ""
    parts = []
    if usage is not None:
        t = tokens(usage)
        parts.append(
            f"context {t['context']:,} tokens (cache read {t['cache_read']:,}, "
            f"written {t['cache_write']:,}, new {t['input']:,}) · output {t['output']:,}"
        )
    if request is not None:
        marks = json.dumps(request).count('"cache_control"')
        parts.append(f"sent {len(request.get('messages') or [])} messages, {marks} cache marks")
    return f'<p class="usage">{esc(" · ".join(parts))}</p>'


def render_summary(log: SessionLog, calls: int) -> str:
    totals = [tokens(u) for u in log.usages]
    output = sum(t["output"] for t in totals)
    read = sum(t["cache_read"] for t in totals)
    facts = [
        f"workspace {log.workspace}" if log.workspace else "",
        f"model {log.model}" if log.model else "",
        f"{calls} model calls",
        f"{output:,} output tokens, {read:,} read from the cache" if any(log.usages) else "",
        "with a trace of every request" if log.requests else "",
    ]
    return f'<p class="summary">{esc(" · ".join(f for f in facts if f))}</p>'


def render_chart(usages: list[dict | None]) -> str:
    """Stacked bars per call (cache read, cache written, new input, output), inline SVG.

    CHART_ROW_CALLS bars to a row, one scale for all rows: a long session wraps into more rows
    instead of one strip thousands of pixels wide, and each row shrinks to the page's width.
    """
    if not any(usages):
        return '<p class="chart none">No token figures in this session.</p>'
    figures = [tokens(u) for u in usages]
    top = max(max(t["context"] + t["output"] for t in figures), 1)
    bar, gap, height = 18, 6, 120
    width = min(len(figures), CHART_ROW_CALLS) * (bar + gap) + gap
    colours = [("cache_read", "#4c78a8"), ("cache_write", "#9ecae9"), ("input", "#f58518")]
    colours.append(("output", "#54a24b"))
    rows = []
    for first in range(0, len(figures), CHART_ROW_CALLS):
        shapes = []
        for column, figure in enumerate(figures[first : first + CHART_ROW_CALLS]):
            number = first + column + 1
            x, y = gap + column * (bar + gap), height
            for key, colour in colours:
                size = figure[key] * height / top
                y -= size
                shapes.append(
                    f'<rect x="{x}" y="{y:.1f}" width="{bar}" height="{size:.1f}" '
                    f'fill="{colour}"><title>call {number}: {key} {figure[key]:,}</title></rect>'
                )
            shapes.append(
                f'<text x="{x + bar / 2}" y="{height + 12}" text-anchor="middle">{number}</text>'
            )
        rows.append(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 16}" '
            f'viewBox="0 0 {width} {height + 16}" role="img" '
            f'aria-label="tokens per model call, from call {first + 1}">{"".join(shapes)}</svg>'
        )
    legend = " ".join(
        f'<span style="color:{colour}">■</span> {key.replace("_", " ")}' for key, colour in colours
    )
    return (
        f'<figure class="chart">{"".join(rows)}<figcaption>Tokens per model call: the context '
        f"sent (cache read, cache write, new input) topped by the output. {legend}; largest "
        f"{top:,}</figcaption></figure>"
    )


def render_setup(requests: list[dict]) -> str:
    """From the trace: the system prompt and tools of the first request, folded."""
    if not requests:
        return ""
    first = requests[0]
    system = "\n\n".join(
        str(b.get("text", "")) for b in first.get("system") or [] if isinstance(b, dict)
    )
    tools = "\n".join(
        f"{t.get('name')}: {t.get('description', '')}"
        for t in first.get("tools") or []
        if isinstance(t, dict)
    )
    return (
        '<details class="setup"><summary>What the model was given: system prompt and tools '
        f"(from the trace)</summary><h3>System prompt</h3><pre>{esc(system)}</pre>"
        f"<h3>Tools</h3><pre>{esc(tools)}</pre></details>"
    )


def esc(value: object) -> str:
    return escape(str(value), quote=True)


STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
pre { white-space: pre-wrap; word-break: break-word; margin: .3em 0; font-size: 13px; }
ol.timeline { list-style: none; padding: 0; border-left: 3px solid #ccc; }
ol.timeline > li { margin: .6em 0 .6em 1em; padding: .4em .8em; border-radius: 6px; }
li.input { background: #eef3fb; }
li.call { background: #f7f7f7; }
li.call h2 { font-size: 15px; margin: 0 0 .2em; }
li h3 { font-size: 13px; margin: 0; }
li.added { background: #fff3c4; border-left: 5px solid #e0a800; }
li.correction { background: #ffe0d6; border-left-color: #d9480f; }
li.note { color: #666; font-style: italic; }
p.usage, p.summary { color: #555; margin: .2em 0; }
details.tool { margin: .3em 0; background: #fff; border: 1px solid #ddd; padding: .2em .5em; }
details.tool.error summary { color: #b00020; }
details summary { cursor: pointer; font-family: monospace; }
pre.result { background: #fafafa; border-top: 1px dashed #ccc; }
ul.checklist { list-style: none; padding-left: .5em; margin: .2em 0; }
ul.checklist li.completed { color: #2b8a3e; }
ul.checklist li.in_progress { color: #b7791f; font-weight: bold; }
ul.checklist li.cancelled { color: #888; }
span.proof { font-size: .85em; color: #666; }
span.proof.checked { color: #2b8a3e; font-weight: bold; }
p.changes, ol.record { font-size: .9em; color: #444; margin: .2em 0; }
div.plan, li.plan { background: #eefbea; padding: .3em .6em; border-radius: 6px; }
figure.chart { margin: 1em 0; }
figure.chart svg { display: block; max-width: 100%; height: auto; margin-bottom: .4em; }
figure.chart text { font-size: 10px; fill: #555; }
li.input.planloop { background: #f1ecfb; border-left: 5px solid #7048e8; }
li.context { background: #e7f5ff; border-left: 5px solid #1c7ed6; }
li.context h3 { font-weight: normal; }
"""

# Marks a page --view wrote, which the next --view of the same log may replace (no other file).
PAGE_MARK = '<meta name="generator" content="planloop --view">'
PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
{mark}
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<h1>{title}</h1>
{summary}
{chart}
{setup}
<ol class="timeline">
{timeline}
</ol>
</body>
</html>
"""
