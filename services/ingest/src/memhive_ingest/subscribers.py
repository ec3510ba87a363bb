"""Thin subscribers: decode the wire message, route it to its use case.

Within one batch, commands for the same memory run in arrival order and different
memories run concurrently, so a save and a forget of one memory never race.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence

from google.protobuf.message import Message
from memhive.v1 import commands_pb2, edges_pb2, events_pb2
from memhive_contracts import subjects
from memhive_contracts.codec import decode
from memhive_ports.poison import Poison
from nats.aio.msg import Msg

from memhive_ingest.access_counts import AccessCounter

CommandHandler = Callable[[str, Message], Awaitable[None]]


class CommandRouter:
    def __init__(self, routes: dict[str, tuple[type[Message], CommandHandler]]) -> None:
        self._routes = routes  # subject prefix -> (message type, handler)

    async def handle_batch(self, msgs: Sequence[Msg]) -> None:
        lanes: dict[str, list[tuple[str, Message, CommandHandler]]] = defaultdict(list)
        for msg in msgs:
            prefix, workspace_id = msg.subject.rsplit(".", 1)
            if prefix not in self._routes:
                raise Poison(f"no handler for subject {msg.subject}")
            message_type, handler = self._routes[prefix]
            command = decode(msg.data, message_type)
            lanes[_ordering_key(command)].append((workspace_id, command, handler))
        await asyncio.gather(*(_in_order(items) for items in lanes.values()))


async def _in_order(items: list[tuple[str, Message, CommandHandler]]) -> None:
    for workspace_id, command, handler in items:
        await handler(workspace_id, command)


def _ordering_key(command: Message) -> str:
    memory = getattr(command, "memory", None)
    return (
        getattr(command, "memory_id", "")
        or (memory.id if memory is not None else "")
        or (_first_src(command))
    )


def _first_src(command: Message) -> str:
    # A save with supersedes is followed by a link from the new memory: same lane, in order.
    edges = getattr(command, "edges", None)
    return edges[0].src_id if edges else ""


class ActivitySubscriber:
    """Folds recall events at most once per `window_s`: after a batch that did not fill
    `batch_size` it waits out the rest of the window, so the recalls made meanwhile come
    in the next fetch, together (a memory recalled often costs one write per window, not
    one per recall). A full batch means a backlog: the next is taken at once. The counts
    lag by at most the window; its messages are acked after it. When a batch fails, the
    consumer retries each of its messages alone: those retries do not wait."""

    def __init__(
        self,
        counter: AccessCounter,
        batch_size: int,
        window_s: float,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._counter, self._batch_size, self._window_s = counter, batch_size, window_s
        self._sleep = sleep
        self._retries_left = 0  # single-message retries of a failed batch still to come

    async def handle_batch(self, msgs: Sequence[Msg]) -> None:
        began, retry = time.monotonic(), self._retries_left > 0
        self._retries_left = max(0, self._retries_left - 1)
        try:
            await self._counter([decode(m.data, events_pb2.MemoriesRecalled) for m in msgs])
        except Exception:
            if len(msgs) > 1:
                self._retries_left = len(msgs)
            raise
        if not retry and len(msgs) < self._batch_size:
            await self._sleep(max(0.0, self._window_s - (time.monotonic() - began)))


def command_routes(
    save: CommandHandler,
    forget: CommandHandler,
    link: CommandHandler | None = None,
    update: CommandHandler | None = None,
    purge: CommandHandler | None = None,
) -> dict:
    routes = {
        subjects.SAVE_MEMORY: (commands_pb2.SaveMemory, save),
        subjects.FORGET_MEMORY: (commands_pb2.ForgetMemory, forget),
    }
    if link is not None:
        routes[subjects.LINK_MEMORIES] = (edges_pb2.LinkMemories, link)
    if update is not None:
        routes[subjects.UPDATE_MEMORY] = (commands_pb2.UpdateMemory, update)
    if purge is not None:
        routes[subjects.PURGE_MEMORY] = (commands_pb2.PurgeMemory, purge)
    return routes
