"""Per-turn time as a user runs it: planloop and a bare streaming loop, side by side.

    python bench/per_turn.py [--turns 100] [--repeat 3] [--long 1000]

Three processes, none sharing a CPU-bound thread with another:

    the fake Messages API    its own process; it notes when each request arrived and when its
                             reply was written
    planloop                 `python agent.py -p ...` in a scratch workspace, as a user runs it
    a bare loop              the smallest streaming SDK loop doing the same task
    a replay                 a bare streaming loop sending planloop's own request bodies again
                             (planloop's are larger: line-numbered file windows, the system
                             prompt and its tools, reminders), so "planloop / replay" is the
                             harness's own time against the same bodies

Each turn the model asks for `read_file` on one small file; the bare loop reads the file itself
and sends its text back. The figure is the gap at the fake between one reply written and the
next request arrived: what the client did in between (read the stream, run the tool, save,
build and send the next request). The fake's own work (validation, streaming) is outside it.

Two measurements:
  --turns   the median gap over a whole run, --repeat times for each loop, and the ratio
  --long    one run of that many turns; the median gap around turn 10, 100 and the last one,
            to show whether planloop's own work grows with the session
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FILE_NAME = "notes.txt"
FILE_TEXT = "".join(f"line {n}: the quick brown fox\n" for n in range(1, 9))
WINDOW = 10  # turns around each reported point


def serve(turns: int, record: str | None) -> None:
    """The fake, in this process: print its address, serve, print the timings when told.

    With `record`, also write what `replay` needs to send the very same requests again: the
    last request, and how many messages each request had (each one's messages are a prefix of
    the last one's: a transcript only grows at its end).
    """
    from fakeapi import FakeMessagesAPI, text, tool_use

    script = [{"content": [tool_use("read_file", {"path": FILE_NAME})]} for _ in range(turns - 1)]
    script.append({"content": [text("done")]})
    with FakeMessagesAPI(script=script, api_key="bench") as api:
        print(api.base_url, flush=True)
        sys.stdin.readline()  # the client has ended
        if record and api.accepted:
            counts = [len(body["messages"]) for body in api.accepted]
            Path(record).write_text(json.dumps({"last": api.accepted[-1], "counts": counts}))
        print(json.dumps({"timings": api.timings, "rejections": api.rejections}), flush=True)


async def replay(base_url: str, recording: str) -> None:
    """planloop's own requests, sent again by a bare streaming loop: the same bodies, no harness.

    The gap at the fake is then what the SDK takes for those bodies; planloop's gap minus this
    one is the harness's own time.
    """
    import anthropic

    client = anthropic.AsyncAnthropic(api_key="bench", base_url=base_url, max_retries=0)
    recorded = json.loads(Path(recording).read_text())
    last = {key: value for key, value in recorded["last"].items() if key != "stream"}
    unmarked = json.loads(
        json.dumps(last["messages"]).replace(', "cache_control": {"type": "ephemeral"}', "")
    )
    for count in recorded["counts"]:
        messages = unmarked[:count]
        final = messages[-1]
        if isinstance(final["content"], list):  # marked for the cache, as planloop marks it
            blocks = [
                *final["content"][:-1],
                {**final["content"][-1], "cache_control": {"type": "ephemeral"}},
            ]
            messages = [*messages[:-1], {**final, "content": blocks}]
        async with client.messages.stream(**{**last, "messages": messages}) as stream:
            async for _event in stream:
                pass
            await stream.get_final_message()


async def bare_loop(base_url: str, turns: int) -> None:
    """The smallest loop that streams each reply, runs the tool and sends the result back."""
    import anthropic

    client = anthropic.AsyncAnthropic(api_key="bench", base_url=base_url, max_retries=0)
    tool = {
        "name": "read_file",
        "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
    messages: list[dict] = [{"role": "user", "content": "Read notes.txt again and again."}]
    for _ in range(turns):
        async with client.messages.stream(
            model="claude-sonnet-4-6", max_tokens=16_000, messages=messages, tools=[tool]
        ) as stream:
            async for _event in stream:
                pass
            reply = await stream.get_final_message()
        content = [block.to_dict(mode="json") for block in reply.content]
        messages.append({"role": "assistant", "content": content})
        results = [
            {
                "type": "tool_result",
                "tool_use_id": block["id"],
                "content": Path(block["input"]["path"]).read_text(),
            }
            for block in content
            if block["type"] == "tool_use"
        ]
        if not results:
            return
        messages.append({"role": "user", "content": results})


RECORDING = Path(tempfile.gettempdir()) / f"planloop-per-turn-{os.getpid()}.json"


def measure(loop: str, turns: int) -> list[float]:
    """One run of `loop` against a fresh fake: the gaps, in ms.

    "planloop" also records its requests, which the next "replay" sends again.
    """
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "work"
        workspace.mkdir()
        (workspace / FILE_NAME).write_text(FILE_TEXT)
        record = ["--record", str(RECORDING)] if loop == "planloop" else []
        fake = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(turns), *record],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        base_url = fake.stdout.readline().strip()
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")},
            "ANTHROPIC_API_KEY": "bench",
            "ANTHROPIC_BASE_URL": base_url,
            "PLANLOOP_HOME": str(Path(tmp) / "home"),
        }
        env.pop("MODEL_ID", None)
        if loop == "planloop":
            prompt = f"Read {FILE_NAME} again and again."
            command = [sys.executable, str(ROOT / "agent.py"), "-p", prompt]
            command += ["--max-turns", str(turns + 10)]
        elif loop == "replay":
            command = [sys.executable, __file__, "--replay", base_url, str(RECORDING)]
        else:
            command = [sys.executable, __file__, "--bare", base_url, str(turns)]
        client = subprocess.run(command, cwd=workspace, env=env, capture_output=True, text=True)
        report = json.loads(fake.communicate("done\n")[0])
    if client.returncode != 0 or report["rejections"]:
        raise SystemExit(
            f"{loop}: exit {client.returncode}, {report['rejections'][:1]}\n{client.stderr[-2000:]}"
        )
    timings = sorted(report["timings"])
    if len(timings) != turns:
        raise SystemExit(f"{loop}: {len(timings)} requests, expected {turns}")
    return [(timings[i + 1][0] - timings[i][1]) * 1000 for i in range(turns - 1)]


LOOPS = ("bare", "planloop", "replay")  # replay sends the requests planloop has just sent


def side_by_side(turns: int, repeat: int) -> None:
    print(f"per turn, {turns} read_file turns, median gap at the fake (ms), {repeat} runs each")
    runs: dict[str, list[float]] = {loop: [] for loop in LOOPS}
    for _ in range(repeat):
        for loop in runs:  # alternate, so a busy moment of the machine hits all three
            runs[loop].append(statistics.median(measure(loop, turns)))
    for loop, medians in runs.items():
        figures = "  ".join(f"{m:6.2f}" for m in medians)
        print(f"  {loop:9} {figures}   median {statistics.median(medians):6.2f}")
    ours = statistics.median(runs["planloop"])
    print(f"  planloop / bare: {ours / statistics.median(runs['bare']):.2f}x")
    same = statistics.median(runs["replay"])
    print(f"  planloop / replay (the same request bodies): {ours / same:.2f}x")


def growth(turns: int) -> None:
    print(f"\none run of {turns} turns: median gap of the {WINDOW} turns up to each point (ms)")
    gaps = {loop: measure(loop, turns) for loop in LOOPS}
    points = [p for p in (10, 100, 1000, turns - 1) if p <= turns - 1]
    print(f"  {'turn':>6} {'bare':>8} {'planloop':>9} {'replay':>8} {'/bare':>7} {'/replay':>8}")
    for point in dict.fromkeys(points):
        window = slice(max(0, point - WINDOW), point)
        bare, ours, same = (statistics.median(gaps[loop][window]) for loop in LOOPS)
        ratios = f"{ours / bare:6.2f}x {ours / same:7.2f}x"
        print(f"  {point:6} {bare:8.2f} {ours:9.2f} {same:8.2f} {ratios}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--long", type=int, default=1000)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--bare", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--replay", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--record", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.record)
    elif args.replay:
        asyncio.run(replay(*args.replay))
    elif args.bare:
        asyncio.run(bare_loop(args.bare[0], int(args.bare[1])))
    else:
        side_by_side(args.turns, args.repeat)
        if args.long:
            growth(args.long)


if __name__ == "__main__":
    main()
