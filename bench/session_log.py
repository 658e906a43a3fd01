"""What saving a session costs as it grows: the old whole-file save next to the append-only log.

    python bench/session_log.py [--steps 1000] [--result-kb 4]

A step is one assistant reply with a tool call plus its ~4 KB tool result (what a `read_file`
returns). Both ways of saving run in this one process, on the same messages, in a temporary
PLANLOOP_HOME:

  whole file   the format before the log: the whole session as one JSON document, written
               to a temporary file, fsynced and renamed over the old one, once per step
  append log   session.Session.sync after the reply and after the result (what the loop
               does), each writing only the new records; fsync once at the end of a run

Printed: milliseconds to save one step at step 10, 100 and 1,000 (median of 5 steps), and the
time to resume (load) the 1,000-step session in each format. Target: the log's cost at step
1,000 within 1.5x of its cost at step 10.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fakeapi import tool_use  # noqa: E402
from session import Session, read_legacy, sessions_dir  # noqa: E402

CHECKPOINTS = (10, 100, 1000)
SAMPLES = 5


class Holder:
    """The parts of an Agent a Session reads and writes."""

    def __init__(self) -> None:
        self.model = "bench-model"
        self.messages: list[dict] = []
        self.extra: dict = {"todos": None}
        self.last_usage = {"input_tokens": 1000, "output_tokens": 50}


def step_messages(number: int, result_bytes: int) -> tuple[dict, dict]:
    call = tool_use("read_file", {"path": f"src/module_{number}.py"})
    body = (f"line {number}: " + "x" * 70 + "\n") * (result_bytes // 80)
    reply = {"role": "assistant", "content": [{"type": "text", "text": "Reading."}, call]}
    result = {"type": "tool_result", "tool_use_id": call["id"], "content": body}
    return reply, {"role": "user", "content": [result]}


def whole_file_save(path: Path, holder: Holder) -> None:
    """The old save: everything, every step, atomically and durably."""
    data = {"version": 1, "messages": holder.messages, "extra": holder.extra}
    temp = path.with_suffix(".tmp")
    with open(temp, "wb") as file:
        file.write(json.dumps(data, ensure_ascii=False).encode("utf-8"))
        file.flush()
        os.fsync(file.fileno())
    os.replace(temp, path)


def bench(steps: int, result_kb: int) -> None:
    workspace = Path(tempfile.mkdtemp(prefix="planloop-bench-"))
    os.environ["PLANLOOP_HOME"] = str(workspace / "home")
    holder = Holder()
    session = Session(workspace)
    whole = sessions_dir(workspace) / "20000101-000000-0000.json"
    holder.messages.append({"role": "user", "content": [{"type": "text", "text": "go"}]})
    session.save(holder)
    log_ms: dict[int, list[float]] = {n: [] for n in CHECKPOINTS}
    whole_ms: dict[int, list[float]] = {n: [] for n in CHECKPOINTS}
    wanted = {n - i: n for n in CHECKPOINTS if n <= steps for i in range(SAMPLES)}
    for number in range(1, steps + 1):
        reply, result = step_messages(number, result_kb * 1024)
        started = time.perf_counter()
        holder.messages.append(reply)
        session.save(holder)  # the reply, before the tool runs
        holder.messages.append(result)
        holder.extra["steps"] = number
        session.save(holder)  # the result, and the changed extra
        elapsed = time.perf_counter() - started
        if number in wanted:
            log_ms[wanted[number]].append(elapsed * 1000)
    session.close()
    # The old save in a second pass, so its 5 MB writes do not slow the log's steps above.
    everything = holder.messages
    for number, checkpoint in wanted.items():
        holder.messages = everything[: 1 + 2 * number]
        started = time.perf_counter()
        whole_file_save(whole, holder)
        whole_ms[checkpoint].append((time.perf_counter() - started) * 1000)
    holder.messages = everything
    whole_file_save(whole, holder)

    size_mb = session.path.stat().st_size / 1e6
    print(f"{steps} steps of ~{result_kb} KB results; log {size_mb:.1f} MB, median of {SAMPLES}")
    print(f"{'step':>6}  {'whole file ms/step':>18}  {'append log ms/step':>18}")
    for n in CHECKPOINTS:
        if log_ms[n]:
            old, new = statistics.median(whole_ms[n]), statistics.median(log_ms[n])
            print(f"{n:>6}  {old:>18.2f}  {new:>18.2f}")
    first, last = (statistics.median(log_ms[n]) for n in (CHECKPOINTS[0], CHECKPOINTS[-1]))
    if log_ms[CHECKPOINTS[-1]]:
        print(f"append log: step {CHECKPOINTS[-1]} costs {last / first:.2f}x step 10 (target 1.5x)")

    started = time.perf_counter()
    resumed = Holder()
    Session(workspace, session.id).load_into(resumed)
    log_load = time.perf_counter() - started
    assert resumed.messages == holder.messages
    started = time.perf_counter()
    read_legacy(whole)
    whole_load = time.perf_counter() - started
    print(
        f"resume {steps} steps: whole file {whole_load * 1000:.0f} ms, log {log_load * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--result-kb", type=int, default=4)
    args = parser.parse_args()
    bench(args.steps, args.result_kb)


if __name__ == "__main__":
    main()
