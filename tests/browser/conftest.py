"""Browser tests: a real Chromium (Debian's package) driven by Playwright against the live test server."""

import os
from pathlib import Path

import pytest
from django.core.servers.basehttp import WSGIServer
from django.db import connection
from django.test.testcases import LiveServerThread

from tests.config.conftest import personas_and_ids  # noqa: F401 (someone of each persona and every id, for crawls)

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class OneRequestAtATimeServer(WSGIServer):
    """The live server without threads: requests are served by the server's thread, which has the test
    database's connections (LiveServerThread.run), one after another; Django closes each response's
    connection when its server has no threads, so a browser's next request never waits on a kept one."""

    def __init__(self, *args, connections_override=None, **kwargs):
        super().__init__(*args, **kwargs)


if connection.vendor == "sqlite":
    # The test database is in memory, and the live server's threads share its one connection: two requests at
    # once (a page and the suggestions it asks for) used it together, and both hung for good.
    LiveServerThread.server_class = OneRequestAtATimeServer


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)
            # The live server reads committed data, so these tests commit and end with a flush.
            item.add_marker(pytest.mark.django_db(transaction=True))


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test module: Playwright's event loop must not outlive the browser tests."""
    if not CHROMIUM.exists():
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail("REQUIRE_BROWSER is set but /usr/bin/chromium is missing")
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread while it is open; the
    # ORM calls the tests make meanwhile are still synchronous and safe.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            yield instance
            instance.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


def _tab_without_policy_violations(context):
    """A tab that fails its test when the browser refused anything under the Content-Security-Policy:
    every browser test then also proves that its pages work with the policy production sends."""
    context.set_default_timeout(10_000)
    tab = context.new_page()
    refused = []
    tab.on("console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else 0)
    yield tab
    context.close()
    assert not refused, f"the browser refused under the Content-Security-Policy: {refused}"


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    yield from _tab_without_policy_violations(context)


@pytest.fixture
def phone(browser, live_server):
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    yield from _tab_without_policy_violations(context)
