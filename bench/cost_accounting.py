"""Where the CPU of a recall and of a save goes, process by process, and what a save puts
on the bus: `python -m bench.cost_accounting [memories]` (default 2,000) on a fresh
`memhive run` with every service on.

- Recall: one client recalling in sequence (`load_latency.recall_latency`); CPU per recall of the memhive process (the
  gateway, embed, the link classifier and bulletin, with the lanes), the ingest child,
  nats-server and the client itself, from /proc.
- Save: 16 clients saving with `wait=indexed` and `force`
  (`load_latency.gateway_throughput`); the same accounting per save, beside the CPU of one
  pass of the stack's encoder (measured here, on the same notes) and the stack's CPU
  without it: the encoder's half and the stack's half of a save's cost.
- One client saving in sequence with each `wait` (`load_latency.sequential_saves`).
- The floor (`bench.stack_floor`): what each part of a save costs at the least, measured
  alone with the same libraries, so the save's stack is held against it.
- Bus: one client saving in sequence with the default `wait` (indexed) while a bus-admin
  subscriber counts every message per save, by subject (ids folded away) and, for record
  reads and writes, by the service whose inbox asked.

`--rounds N` saves, then measures the pass, N times over, and holds each round's saves to the
pass measured beside it: this machine's speed drifts from minute to minute, and a pass and
the stack's Python do not drift alike. The rounds share the saves of one (at least 200
each). The round with the median ratio is the one shown, every round's ratio beside it.
`make bench` takes 3 rounds.

`MEMHIVE_BENCH_STACK_PYTHON` runs the stack with another checkout's interpreter (an A/B
against a baseline; `bench.running_stack`). `--saves-only` leaves recall and the floor out
and saves a third as much: for alternating A/B runs on a busy machine. `--checked` saves the
16 clients' notes without `force`: each is checked for near-duplicates, as an agent's
default save is.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import re
import statistics
import time

from memhive_adapters.runtime.lane_builders import build_embedder
from memhive_contracts import streams, subjects
from memhive_settings import MemhiveSettings

from bench import stack_floor
from bench.corpus import base_sentences, default_encoder
from bench.load_latency import (
    BASES,
    QUERIES,
    WARM_UP,
    bulk_load,
    fresh_notes,
    gateway_throughput,
    recall_latency,
    sequential_saves,
    wait_for_hnsw_builds,
)
from bench.process_cpu import CpuMeter
from bench.running_stack import RunningStack, running_stack

SAVES, CLIENTS = 1_000, 16
FLOOR_SAVES = 2_000
TRAFFIC_SAVES = 100
ENCODER_PASSES = 200
MIN_ROUND_SAVES = 200
WAITS = ("accepted", "persisted", "indexed")


async def recall_costs(stack: RunningStack, bases: list[str]) -> dict:
    async with stack.client() as client:
        with CpuMeter(stack.pid) as meter:
            latency = await recall_latency(client, bases)
    return {"p50_ms": latency["p50"], "cpu_ms": meter.per_operation_ms(QUERIES + WARM_UP)}


async def save_costs(stack: RunningStack, saves: int = SAVES, *, force: bool = True) -> dict:
    with CpuMeter(stack.pid) as meter:
        per_s = await gateway_throughput(stack, saves, CLIENTS, force=force)
    return {"per_s": per_s, "cpu_ms": meter.per_operation_ms(saves)}


async def save_rounds(
    stack: RunningStack, rounds: int, saves: int, *, force: bool = True
) -> list[dict]:
    """Each round: `saves` from 16 clients, then the encoder's pass; its save's cost in passes."""
    measured = []
    for _ in range(rounds):
        save = await save_costs(stack, saves, force=force)
        one_pass = await encoder_pass_ms(stack)
        measured.append(
            save | {"pass_ms": one_pass, "passes": save["cpu_ms"]["total (stack)"] / one_pass}
        )
    return measured


def median_round(measured: list[dict]) -> dict:
    return sorted(measured, key=lambda r: r["passes"])[(len(measured) - 1) // 2]


async def encoder_pass_ms(stack: RunningStack, passes: int = ENCODER_PASSES) -> float:
    """CPU of one pass of the stack's default encoder over one note, median, in this
    process (as the stack runs it, on a worker thread; its graph cached in the stack's data
    dir). One thread, as every pass but a lone caller's runs: the unit a save's cost is
    counted in (`embed` would take the lone session here, every pass being alone)."""
    embedder = build_embedder(MemhiveSettings(data_dir=stack.data_dir))
    samples = []
    for body in fresh_notes(passes + 10):
        began = time.process_time()
        (await asyncio.to_thread(embedder.embed_sync, [body])).tolist()
        samples.append((time.process_time() - began) * 1000)
    return statistics.median(samples[10:])


async def sequential_rates(stack: RunningStack, count: int = 200) -> dict[str, float]:
    async with stack.client() as client:
        return {wait: (await sequential_saves(client, wait, count))["per_s"] for wait in WAITS}


# nats-server publishes an advisory only where someone listens (`publishAdvisory` checks for
# interest): this counter's subscription to ">" is the only listener, so the advisories it
# sees (an API audit for each MSG.GET that finds nothing, each CONSUMER.INFO) are listed
# but not counted as the stack's traffic.
ADVISORIES = "$JS.EVENT.ADVISORY."
# An open pull request's heartbeat: every 2 s while its consumer has nothing to deliver,
# so it counts idle time (the 3 s after the saves, the consumers a save never reaches),
# not saves; listed, not counted.
HEARTBEAT_STATUS = "100"
IDLE_HEARTBEAT = " (an idle heartbeat)"
SHOWN_PER_SAVE = 0.05  # smaller classes are summed in one row (and in the total)

_FOLDS = (
    (re.compile(r"_INBOX[^.]*\..*"), "<inbox>"),
    (re.compile(r"\$JS\.ACK\..*"), "$JS.ACK.<consumer>"),
    (re.compile(r"\$KV\.([a-z_]+)\..*"), r"$KV.\1.<key>"),
    (re.compile(r"(CONSUMER\.(?:MSG\.NEXT|INFO)\.[A-Za-z_]+)\..*"), r"\1.<durable>"),
)


def subject_class(subject: str, reply: str | None) -> str:
    folded = subject
    for pattern, replacement in _FOLDS:
        folded = pattern.sub(replacement, folded)
    if reply and ("MSG.GET" in subject or "DIRECT.GET" in subject or subject.startswith("$KV.")):
        folded += f" (by {reply.split('.')[0].removeprefix('_INBOX_') or 'client'})"
    return folded


def reply_kind(msg) -> str:
    """What a message to an inbox answers (a reply names no subject of its own)."""
    if not msg.subject.startswith("_INBOX"):
        return ""
    headers = msg.headers or {}
    asker = msg.subject.split(".")[0].removeprefix("_INBOX_") or "client"
    if "Nats-Stream" in headers:
        return f" (a record, direct get of {headers['Nats-Stream']}, to {asker})"
    if headers.get("Status") == HEARTBEAT_STATUS:
        return IDLE_HEARTBEAT
    if headers.get("Status") or not msg.data:
        return " (a status: end of a direct get, a pull's timeout)"
    if msg.data.startswith(b'{"stream"'):
        return " (PubAck)"
    if b"stream_msg_get_response" in msg.data[:80]:
        return f" (a record, MSG.GET, to {asker})"
    return " (other)"


async def bus_traffic(stack: RunningStack) -> tuple[dict[str, float], float]:
    """Messages per save by class, and the link classifier's LinkMemories commands per save
    (what a forced save of a near-duplicate sets off afterwards)."""
    nc = await stack.bus()
    counts: collections.Counter[str] = collections.Counter()
    links: set[str] = set()  # the link classifier's LinkMemories commands, by message id
    counting = False

    async def count(msg) -> None:
        if counting:
            counts[subject_class(msg.subject, msg.reply) + reply_kind(msg)] += 1
            if msg.subject.startswith(subjects.LINK_MEMORIES):
                links.add((msg.headers or {}).get(streams.MSG_ID_HEADER, ""))

    await nc.subscribe(">", cb=count)
    async with stack.client() as client:
        for body in fresh_notes(20):  # warm up
            await client.save("observation", body, force=True)
        # Past the bulletin's quiet period (2 s): its refresh of what earlier phases saved
        # happens before the count, not inside it (it read ~200 records there, 2 per save).
        await asyncio.sleep(4)
        counting = True
        for body in fresh_notes(TRAFFIC_SAVES):
            await client.save("observation", body, force=True, wait="indexed")
        await asyncio.sleep(3)  # what the save set off after its answer (links, bulletins)
        counting = False
    await nc.close()
    return {k: v / TRAFFIC_SAVES for k, v in counts.most_common()}, len(links) / TRAFFIC_SAVES


async def run(
    stack: RunningStack,
    size: int,
    *,
    saves_only: bool = False,
    checked: bool = False,
    rounds: int = 1,
) -> dict:
    bases = base_sentences(BASES)
    encoder = default_encoder()  # the lanes' own vectors: the load embeds nothing again
    await bulk_load(stack, size, 0, bases, encoder.embed_sync(bases), encoder.model_name)
    await wait_for_hnsw_builds(stack)
    share = 3 if saves_only else 1
    recall = {"p50_ms": 0.0, "cpu_ms": {}} if saves_only else await recall_costs(stack, bases)
    # The rounds share the saves one round made, so the store holds as many for what
    # follows (the sequential saves, the bus's count) whatever the rounds.
    each = max(SAVES // share // rounds, MIN_ROUND_SAVES)
    measured = await save_rounds(stack, rounds, each, force=not checked)
    save = median_round(measured)
    encoder_pass = save["pass_ms"]
    sequential = await sequential_rates(stack, 200 // share)
    bus, links = await bus_traffic(stack)
    report = {
        "size": size,
        "recall": recall,
        "save": save,
        "encoder_pass_ms": encoder_pass,
        "rounds": [r["passes"] for r in measured],
        "sequential": sequential,
        "bus": bus,
        "links": links,
    }
    if not saves_only:  # the parts alone, beside the stack idle: what the save is held to
        report["floor"] = await asyncio.to_thread(stack_floor.measure, FLOOR_SAVES)
    return report


async def section(stack: RunningStack, size: int = 2_000) -> str:
    """`make bench`'s section: the accounting on a fresh stack of `size` memories."""
    return render(await run(stack, size, rounds=3))


def render(report: dict) -> str:
    recall, save = report["recall"], report["save"]
    lines = [
        f"{report['size']:,} memories. Recall p50 {recall['p50_ms']:.1f} ms (one client); "
        f"{save['per_s']:.0f} saves/s ({CLIENTS} clients, wait=indexed).",
        "",
        "| process | CPU per recall (ms) | CPU per save (ms) |",
        "|---|---:|---:|",
    ]
    for name in dict.fromkeys([*recall["cpu_ms"], *save["cpu_ms"]]):
        r, s = recall["cpu_ms"].get(name, 0.0), save["cpu_ms"].get(name, 0.0)
        lines.append(f"| {name} | {r:.1f} | {s:.1f} |")
    if "encoder_pass_ms" in report:
        one_pass, stack = report["encoder_pass_ms"], save["cpu_ms"]["total (stack)"]
        lines += [
            "",
            f"One encoder pass: {one_pass:.1f} ms of CPU. A save: {stack / one_pass:.2f} passes; "
            f"the stack without its pass {stack - one_pass:.1f} ms "
            f"({(stack - one_pass) / one_pass:.2f} passes).",
        ]
    if len(report.get("rounds", [])) > 1:
        each = ", ".join(f"{r:.2f}" for r in report["rounds"])
        lines += [
            "",
            f"{len(report['rounds'])} rounds, each held to the pass measured beside it: {each} "
            "passes a save; the median round is shown.",
        ]
    if "floor" in report:
        one_pass, floor = report["encoder_pass_ms"], stack_floor.total(report["floor"])
        lines += [
            "",
            "The stack's floor (`bench.stack_floor`: each part alone, with the same libraries, "
            "measured in this run), against which the save's stack is held:",
            "",
            stack_floor.render(report["floor"], one_pass),
            "",
            f"memhive's own code adds {save['cpu_ms']['total (stack)'] - one_pass - floor:.1f} ms "
            "of CPU a save above that floor.",
        ]
    if "sequential" in report:
        rates = ", ".join(f"{w} {r:.0f}/s" for w, r in report["sequential"].items())
        lines += ["", f"One client in sequence: {rates}."]
    bus, links = report["bus"], report.get("links", 0.0)
    advisories = sum(n for subject, n in bus.items() if subject.startswith(ADVISORIES))
    idle = sum(n for subject, n in bus.items() if subject.endswith(IDLE_HEARTBEAT))
    counted = sum(bus.values()) - advisories - idle
    lines += [
        "",
        f"Bus messages per save: {counted:.1f} (advisories, sent only because this counter "
        f"listens, not counted: {advisories:.2f}; idle heartbeats, sent by the clock while "
        f"a consumer has nothing, not counted: {idle:.2f}). Among them, what "
        f"{links:.2f} `LinkMemories` commands of the link classifier per save set off (a "
        "forced save of a near-duplicate is linked to it afterwards).",
        "",
        "| messages per save | subject |",
        "|---:|---|",
    ]
    shown = {subject: n for subject, n in bus.items() if n >= SHOWN_PER_SAVE}
    lines += [f"| {n:.2f} | `{subject}` |" for subject, n in shown.items()]
    if len(shown) < len(bus):
        rest = sum(bus.values()) - sum(shown.values())
        lines.append(f"| {rest:.2f} | {len(bus) - len(shown)} smaller classes |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cost_accounting")
    parser.add_argument("size", nargs="?", type=int, default=2_000, help="memories loaded first")
    parser.add_argument("--saves-only", action="store_true")
    parser.add_argument("--checked", action="store_true")
    parser.add_argument("--rounds", type=int, default=1, choices=range(1, 21), metavar="1-20")
    args = parser.parse_args()
    with running_stack() as stack:
        report = asyncio.run(
            run(
                stack,
                args.size,
                saves_only=args.saves_only,
                checked=args.checked,
                rounds=args.rounds,
            )
        )
        print(render(report))


if __name__ == "__main__":
    main()
