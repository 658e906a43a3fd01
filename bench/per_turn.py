"""Per-turn time as a user runs it: planloop and a bare streaming loop, side by side.

The two target measurements (planloop's time per turn within 1.2x of a bare loop's):

    nice python bench/per_turn.py --turns 100 --repeat 5 --long 0       at 100 turns
    nice python bench/per_turn.py --turns 0 --long 1000 --long-repeat 3   at turn 1,000

With no arguments it runs both, 3 rounds of 100 turns and 1 round of 1,000. Each ends with
its ratios in plain words ("AT 100 TURNS", "AT TURN 999"): planloop / bare and planloop /
replay, the median of the rounds' ratios and their range. Single runs swing by 2x on a busy
machine: read the medians, use several rounds and a quiet machine (the load average is
printed before and after).

The processes, none sharing a CPU-bound thread with another:

    the fake Messages API    its own process per run; it notes when each request arrived
                             and when its reply was written
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
Beside each gap the fake notes the client's CPU time in it (from /proc, all the client's
threads): wall time over CPU time is waiting, for the CPU or for a thread, which a busy
machine inflates and CPU time does not. The fake keeps the connection between requests, as
the real API does, so no loop pays for a new one each turn.

The loops run in rounds, one after the other, the order turning by one place each round (the
replay sends the bodies of the latest planloop run), so a busy moment hits every loop alike;
the ratios are taken within each round. With --together the three loops of a round run at
the same time instead (each with its own fake): the same moment for all three, but they
compete for the CPUs.

    --turns N --repeat R        R rounds of N turns: each run's median gap, and the ratios
    --long N --long-repeat R    R rounds of one N-turn run per loop: the median gap of the
                                10 turns up to turn 10, 100, 1,000 and the last, to show
                                whether planloop's own work grows with the session
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FILE_NAME = "notes.txt"
# A key of a real key's length: a short one (under redaction.MIN_SECRET_CHARS) is no secret to
# planloop, and the work a real key costs (redaction, the search for copies) would be left out.
API_KEY = "sk-ant-api03-" + "bench" * 18
FILE_TEXT = "".join(f"line {n}: the quick brown fox\n" for n in range(1, 9))
WINDOW = 10  # turns around each reported point


class ClientClock:
    """The fake's clock: each stamp also notes the client's CPU time (ns, all its threads).

    The client's pid arrives in a file once it has started. CPU time in a gap is what the
    client itself spent there; the rest of the gap's wall time it waited (for the CPU, a
    thread, the disk), so the two tell apart "planloop does more" and "planloop waits more".
    """

    def __init__(self, pid_file: str) -> None:
        self.pid_file = Path(pid_file)
        self.pid = ""
        self.cpu_at: dict[float, int] = {}

    def __call__(self) -> float:
        import time

        now = time.perf_counter()
        self.cpu_at[now] = self.client_cpu()
        return now

    def client_cpu(self) -> int:
        if not self.pid:
            self.pid = self.pid_file.read_text().strip() if self.pid_file.exists() else ""
        total = 0
        for task in Path(f"/proc/{self.pid}/task").glob("*/schedstat"):
            with contextlib.suppress(OSError, ValueError, IndexError):  # a thread that ended
                total += int(task.read_text().split()[0])
        return total


def serve(turns: int, record: str | None, pid_file: str) -> None:
    """The fake, in this process: print its address, serve, print the timings when told.

    With `record`, also write what `replay` needs to send the very same requests again: the
    last request, and how many messages each request had (each one's messages are a prefix of
    the last one's: a transcript only grows at its end).
    """
    from fakeapi import FakeMessagesAPI, text, tool_use

    script = [{"content": [tool_use("read_file", {"path": FILE_NAME})]} for _ in range(turns - 1)]
    script.append({"content": [text("done")]})
    clock = ClientClock(pid_file)
    with FakeMessagesAPI(script=script, api_key=API_KEY, clock=clock, keep_alive=True) as api:
        print(api.base_url, flush=True)
        sys.stdin.readline()  # the client has ended
        if record and api.accepted:
            counts = [len(body["messages"]) for body in api.accepted]
            Path(record).write_text(json.dumps({"last": api.accepted[-1], "counts": counts}))
        stamps = [[t, clock.cpu_at[t]] for pair in sorted(api.timings) for t in pair]
        print(json.dumps({"stamps": stamps, "rejections": api.rejections}), flush=True)


async def replay(base_url: str, recording: str) -> None:
    """planloop's own requests, sent again by a bare streaming loop: the same bodies, no harness.

    The gap at the fake is then what the SDK takes for those bodies; planloop's gap minus this
    one is the harness's own time.
    """
    import anthropic

    client = anthropic.AsyncAnthropic(api_key=API_KEY, base_url=base_url, max_retries=0)
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

    client = anthropic.AsyncAnthropic(api_key=API_KEY, base_url=base_url, max_retries=0)
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


RECORDINGS = Path(tempfile.gettempdir()) / f"planloop-per-turn-{os.getpid()}"


def measure(loop: str, turns: int, recording: Path) -> dict[str, list[float]]:
    """One run of `loop` against a fresh fake: each gap's wall time and client CPU, in ms.

    "planloop" records its requests in `recording`; "replay" sends those again.
    """
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "work"
        workspace.mkdir()
        (workspace / FILE_NAME).write_text(FILE_TEXT)
        pid_file = Path(tmp) / "client.pid"
        record = ["--record", str(recording)] if loop == "planloop" else []
        fake = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(turns), "--pid-file", str(pid_file), *record],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        base_url = fake.stdout.readline().strip()
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")},
            "ANTHROPIC_API_KEY": API_KEY,
            "ANTHROPIC_BASE_URL": base_url,
            "PLANLOOP_HOME": str(Path(tmp) / "home"),
        }
        env.pop("MODEL_ID", None)
        if loop == "planloop":
            prompt = f"Read {FILE_NAME} again and again."
            command = [sys.executable, str(ROOT / "agent.py"), "-p", prompt]
            command += ["--max-turns", str(turns + 10)]
        elif loop == "replay":
            command = [sys.executable, __file__, "--replay", base_url, str(recording)]
        else:
            command = [sys.executable, __file__, "--bare", base_url, str(turns)]
        pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
        client = subprocess.Popen(command, cwd=workspace, env=env, **pipes)
        # The fake reads it until it is there; the first gap starts only at the first answer.
        pid_file.write_text(str(client.pid))
        _, stderr = client.communicate()
        report = json.loads(fake.communicate("done\n")[0])
    if client.returncode != 0 or report["rejections"]:
        raise SystemExit(
            f"{loop}: exit {client.returncode}, {report['rejections'][:1]}\n{stderr[-2000:]}"
        )
    stamps = report["stamps"]
    if len(stamps) != 2 * turns:
        raise SystemExit(f"{loop}: {len(stamps) // 2} requests, expected {turns}")
    # Stamps in order: request 1 arrived, answered, request 2 arrived, ...; a gap runs from
    # one answer to the next arrival.
    gaps = [(stamps[i], stamps[i + 1]) for i in range(1, 2 * turns - 1, 2)]
    return {
        "wall": [(end[0] - start[0]) * 1000 for start, end in gaps],
        "cpu": [(end[1] - start[1]) / 1e6 for start, end in gaps],
    }


LOOPS = ("bare", "planloop", "replay")
Round = dict[str, dict[str, list[float]]]  # each loop's gaps in one round: "wall" and "cpu"


def rounds(turns: int, repeat: int, together: bool) -> list[Round]:
    """`repeat` rounds of one run of each loop.

    One after the other, the order turns by one place each round (bare, planloop, replay;
    then planloop, replay, bare; ...); the replay sends the latest planloop run's bodies.
    `together`: the three at once, the replay sending those of the round before.
    """
    RECORDINGS.mkdir(exist_ok=True)
    latest = RECORDINGS / f"{turns}.json"
    if together and not latest.exists():
        measure("planloop", turns, latest)  # bodies for the first round's replay
    results = []
    for number in range(repeat):
        if together:
            fresh = RECORDINGS / f"{turns}-new.json"
            with ThreadPoolExecutor(len(LOOPS)) as pool:
                runs = {
                    loop: pool.submit(measure, loop, turns, fresh if loop == "planloop" else latest)
                    for loop in LOOPS
                }
                results.append({loop: run.result() for loop, run in runs.items()})
            fresh.replace(latest)
        else:
            order = LOOPS[number % 3 :] + LOOPS[: number % 3]
            results.append({loop: measure(loop, turns, latest) for loop in order})
        print(f"  round {number + 1} of {repeat} done ({load()})", file=sys.stderr, flush=True)
    return results


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} CPUs"


def ratios(per_round: list[dict[str, float]]) -> tuple[str, str]:
    """planloop / bare and planloop / replay: the median of the rounds' ratios, and the range."""
    shown = []
    for other in ("bare", "replay"):
        each = [r["planloop"] / r[other] for r in per_round]
        shown.append(f"{statistics.median(each):.2f}x (rounds {min(each):.2f}–{max(each):.2f}x)")
    return shown[0], shown[1]


def table(per_round: list[dict[str, float]], label: str) -> None:
    for number, medians in enumerate(per_round, 1):
        figures = " ".join(f"{medians[loop]:9.2f}" for loop in LOOPS)
        own = medians["planloop"]
        print(f"  {label}{number:<3} {figures} {own / medians['bare']:9.2f}x "
              f"{own / medians['replay']:9.2f}x")  # fmt: skip


KINDS = {
    "wall": "median gap at the fake (ms)",
    "cpu": "the client's CPU time in the median gap (ms): what it did, not what it waited for",
}


def side_by_side(turns: int, repeat: int, together: bool) -> None:
    how = "the three loops together" if together else "one loop at a time"
    print(f"per turn, {turns} read_file turns, {repeat} rounds, {how}")
    print(f"  before: {load()}")
    runs = rounds(turns, repeat, together)
    print(f"  after: {load()}")
    for kind, title in KINDS.items():
        per_round = [{loop: statistics.median(run[loop][kind]) for loop in LOOPS} for run in runs]
        print(f"\n{title}")
        print(f"  {'':9} {'bare':>9} {'planloop':>9} {'replay':>9} {'/bare':>10} {'/replay':>10}")
        table(per_round, "round ")
        middle = {loop: statistics.median(r[loop] for r in per_round) for loop in LOOPS}
        print("  median   " + " ".join(f"{middle[loop]:9.2f}" for loop in LOOPS))
        to_bare, to_replay = ratios(per_round)
        target = " (target: at most 1.2x)" if kind == "wall" else ""
        print(f"AT {turns} TURNS, {kind}{target}")
        print(f"  planloop / bare:   {to_bare}")
        print(f"  planloop / replay: {to_replay}   (the same request bodies as planloop's)")


def growth(turns: int, repeat: int, together: bool) -> None:
    how = "the three loops together" if together else "one loop at a time"
    print(f"\none run of {turns} turns per loop, {repeat} rounds, {how}: the median of the")
    print(f"{WINDOW} turns up to each point; the ratios are the median of the rounds' ratios")
    print(f"  before: {load()}")
    runs = rounds(turns, repeat, together)
    print(f"  after: {load()}")
    points = list(dict.fromkeys(p for p in (10, 100, 1000, turns - 1) if p <= turns - 1))
    for kind, title in KINDS.items():
        print(f"\n{title}")
        print(f"  {'turn':>6} {'bare':>9} {'planloop':>9} {'replay':>9}   /bare, /replay")
        at_point = {}
        for point in points:
            window = slice(max(0, point - WINDOW), point)
            per_round = [
                {loop: statistics.median(run[loop][kind][window]) for loop in LOOPS} for run in runs
            ]
            at_point[point] = per_round
            middle = [statistics.median(r[loop] for r in per_round) for loop in LOOPS]
            to_bare, to_replay = ratios(per_round)
            figures = " ".join(f"{m:9.2f}" for m in middle)
            print(f"  {point:6} {figures}   {to_bare}, {to_replay}")
        last = points[-1]
        to_bare, to_replay = ratios(at_point[last])
        target = " (target: at most 1.2x)" if kind == "wall" else ""
        print(f"AT TURN {last}, {kind}{target}")
        print(f"  planloop / bare:   {to_bare}")
        print(f"  planloop / replay: {to_replay}   (the same request bodies as planloop's)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=100, help="turns of each run (0: skip)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of --turns runs")
    parser.add_argument("--long", type=int, default=1000, help="turns of the long run (0: skip)")
    parser.add_argument("--long-repeat", type=int, default=1, help="rounds of --long runs")
    parser.add_argument("--together", action="store_true", help="run a round's loops at once")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--bare", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--replay", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--record", help=argparse.SUPPRESS)
    parser.add_argument("--pid-file", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.record, args.pid_file)
    elif args.replay:
        asyncio.run(replay(*args.replay))
    elif args.bare:
        asyncio.run(bare_loop(args.bare[0], int(args.bare[1])))
    else:
        try:
            if args.turns:
                side_by_side(args.turns, args.repeat, args.together)
            if args.long:
                growth(args.long, args.long_repeat, args.together)
        finally:
            shutil.rmtree(RECORDINGS, ignore_errors=True)


if __name__ == "__main__":
    main()
