"""A real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright's Python
package. Playwright never downloads a browser here; tests skip where Chromium is absent.

Every page a test opens is watched for Content-Security-Policy violations (Chromium logs
each one to the console): `chromium()` fails the test on any, so a page that needs an
inline script or style to work is caught where it is drawn."""

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
CSP_VIOLATION = "violates the following Content Security Policy directive"
PHONE = {"width": 390, "height": 844}  # a narrow phone, in CSS pixels


def require_chromium() -> None:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM}: `apt-get install chromium` (.ci/run does)")
    pytest.importorskip("playwright.async_api", reason="playwright is a dev dependency")


class CspViolations(AssertionError):
    """A page refused something its own Content-Security-Policy forbids."""


@asynccontextmanager
async def chromium(viewport: dict[str, int] | None = None) -> AsyncIterator[object]:
    """A browser context; leaving it fails with CspViolations if any page logged one."""
    from playwright.async_api import async_playwright

    with tempfile.TemporaryDirectory(prefix="memhive-chromium-") as profile:
        async with async_playwright() as playwright:
            context = await playwright.chromium.launch_persistent_context(
                profile,
                executable_path=CHROMIUM,
                headless=True,
                args=CHROMIUM_FLAGS,
                viewport=viewport or {"width": 1366, "height": 900},
            )
            violations: list[str] = []
            context.on(
                "console",
                lambda m: violations.append(m.text) if CSP_VIOLATION in m.text else None,
            )
            try:
                yield context
            finally:
                await context.close()
            if violations:
                raise CspViolations("\n".join(violations))


async def page_width_overflow(page) -> int:
    """How many CSS pixels the document is wider than the viewport (0: no sideways scroll)."""
    return await page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


async def screenshot(page, name: str) -> None:
    if SCREENSHOT_DIR:  # Chromium creates the folder
        await page.screenshot(path=f"{SCREENSHOT_DIR}/{name}.png", full_page=True)
