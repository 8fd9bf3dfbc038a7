"""Makes ``app_e2e_helpers`` importable from these tests under ``--import-mode=importlib``
(which, unlike the default mode, does not put test folders on ``sys.path``), and gives the
end-to-end tests their browser."""

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


@pytest.fixture
def browser() -> Iterator[object]:
    """Debian's headless Chromium through Playwright (skips when either is missing)."""
    from app_e2e_helpers import CHROMIUM, CHROMIUM_ARGS, require_browser

    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[object]:
    """The app served (``chickenfoot app --web``) on a fresh scorekeeper file in ``tmp_path``."""
    from app_e2e_helpers import Server, require_browser

    require_browser()
    srv = Server(tmp_path / "matches.json", tmp_path / "app.log")
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[object]:
    """The app served to the network (``--host 0.0.0.0``: the table code asked) on a file
    holding one match, reached here over loopback."""
    from app_e2e_helpers import Server, db_with_a_match

    srv = Server(db_with_a_match(tmp_path), tmp_path / "app.log", host="0.0.0.0")
    try:
        yield srv
    finally:
        srv.stop()
