"""The children of `memhive run` as the parent's /readyz and /metrics see them
(`memhive_ports.ServiceProcesses`): each child's own probes, read over loopback at the URL
it announced, with a short timeout so a stuck child makes the parent unready, not slow."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import httpx

from memhive_cli.service_process import ServiceProcess

PROBE_TIMEOUT_S = 2.0


class ProcessTree:
    def __init__(self, children: Sequence[ServiceProcess]) -> None:
        self._children = list(children)

    async def readiness(self) -> dict[str, bool]:
        answers = await self._ask_each("/readyz")
        return {
            child.service: answer is not None and answer.status_code == 200
            for child, answer in zip(self._children, answers, strict=True)
        }

    async def metrics(self) -> dict[str, bytes]:
        answers = await self._ask_each("/metrics")
        return {
            child.service_name: answer.content
            for child, answer in zip(self._children, answers, strict=True)
            if answer is not None and answer.status_code == 200
        }

    async def _ask_each(self, path: str) -> list[httpx.Response | None]:
        async with httpx.AsyncClient(timeout=PROBE_TIMEOUT_S) as http:
            return await asyncio.gather(*(_ask(http, c, path) for c in self._children))


async def _ask(http: httpx.AsyncClient, child: ServiceProcess, path: str) -> httpx.Response | None:
    if child.probe_url is None:  # starting, or started again after a crash
        return None
    try:
        return await http.get(child.probe_url + path)
    except httpx.HTTPError:
        return None
