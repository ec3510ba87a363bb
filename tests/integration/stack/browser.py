"""A real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright's Python
package. Playwright never downloads a browser here; tests skip where Chromium is absent."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("MEMHIVE_CHROMIUM", "/usr/bin/chromium")
# As root, on a machine without network: no sandbox, no background connections.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Set to a folder (e.g. docs/img) to save screenshots of the main pages.
SCREENSHOT_DIR = os.environ.get("MEMHIVE_SCREENSHOT_DIR")


def require_chromium() -> None:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM}: `apt-get install chromium` (.ci/run does)")
    pytest.importorskip("playwright.async_api", reason="playwright is a dev dependency")


@asynccontextmanager
async def chromium() -> AsyncIterator[object]:
    from playwright.async_api import async_playwright

    with tempfile.TemporaryDirectory(prefix="memhive-chromium-") as profile:
        async with async_playwright() as playwright:
            context = await playwright.chromium.launch_persistent_context(
                profile,
                executable_path=CHROMIUM,
                headless=True,
                args=CHROMIUM_FLAGS,
                viewport={"width": 1366, "height": 900},
            )
            try:
                yield context
            finally:
                await context.close()


async def screenshot(page, name: str) -> None:
    if SCREENSHOT_DIR:  # Chromium creates the folder
        await page.screenshot(path=f"{SCREENSHOT_DIR}/{name}.png", full_page=True)
