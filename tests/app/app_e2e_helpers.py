"""Start the real web app and drive it in Debian's Chromium through Playwright."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("CHICKENFOOT_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "artifacts" / "e2e"
#: A round entry's four ways in, by their label: each seat's button is named for its player
#: (``Went out: Ann``, ``Number: Ann's points``, ...; ", chosen" on the one in use), so these
#: match every seat's, in the seats' order.
SEAT_MODES = {label: re.compile(rf"^{label}: .+?(, chosen)?$") for label in ("Went out", "Number", "Tiles", "Photo")}


def suit(value: int) -> re.Pattern[str]:
    """The tile picker's suit button for ``value`` ("Tiles with a 3", ", shown" on the one shown)."""
    return re.compile(rf"^Tiles with an? {value}(, shown)?$")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def require_browser() -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: run scripts/install-browser.sh (Debian's chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("playwright is not installed (pip install -e '.[test]')")


#: Flet's first WebSocket message: register a new session on the home route.
REGISTER = [1, {"session_id": "", "page_name": "", "page": {"route": "/", "web": True, "width": 800,
                                                              "height": 600}}]


def db_with_a_match(tmp_path: Path) -> Path:
    """A scorekeeper file holding one match of Zelda and Yann (the home screen names them)."""
    from chickenfoot.storage import Repository

    db = tmp_path / "matches.json"
    with Repository.open(db) as repo:
        repo.create_match(["Zelda", "Yann"], "double-chicken-foot")
    return db


def open_home(port: int, timeout: float = 10) -> bool:
    """Open a session over the app's WebSocket as a browser of this server would; whether the
    home screen (the match of :func:`db_with_a_match`) arrived within ``timeout`` seconds."""
    import contextlib

    import msgpack
    from websockets.sync.client import connect

    with connect(f"ws://127.0.0.1:{port}/ws", additional_headers={"Origin": f"http://127.0.0.1:{port}"}) as ws:
        ws.send(b"\x00" + msgpack.packb(REGISTER))
        got = b""
        end = time.monotonic() + timeout
        while b"Zelda" not in got and time.monotonic() < end:
            with contextlib.suppress(TimeoutError):
                got += ws.recv(timeout=0.5)
        return b"Zelda" in got


def http_request(port: int, path: str, *, source: str = "127.0.0.1", method: str = "GET",
                 headers: dict[str, str] | None = None, body: bytes | str | None = None,
                 timeout: float = 10) -> tuple[int, dict[str, str], bytes]:
    """One plain HTTP request to this machine's ``port`` from the loopback address ``source``:
    the status, the headers (lower-case names) and the body."""
    import http.client

    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


def send_code(port: int, code: str, *, source: str = "127.0.0.1") -> tuple[int, dict[str, str], bytes]:
    """The join page's form sent with ``code``, as the page sends it (opened from the QR code's
    address, it sends itself): a POST from the table's own origin."""
    return http_request(port, "/join", source=source, method="POST", body=f"code={code}",
                        headers={"Content-Type": "application/x-www-form-urlencoded",
                                 "Origin": f"http://127.0.0.1:{port}"})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``chickenfoot app --web`` as a child process on a free port with its own DB file.

    Served beyond loopback (``host="0.0.0.0"``), ``code`` is the table code it printed."""

    def __init__(self, db: Path, log: Path, env: dict[str, str] | None = None,
                 host: str = "127.0.0.1", port: int | None = None, extra: list[str] | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log = log
        self.code: str | None = None
        self.qr_url: str | None = None
        self._fh = open(log, "w")  # noqa: SIM115 - closed in stop()
        full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chickenfoot", "app", "--web", "--port", str(self.port),
             "--host", host, "--db", str(db), *(extra or [])],
            cwd=ROOT, stdout=self._fh, stderr=subprocess.STDOUT, env=full_env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"app exited early:\n{log.read_text()}")
            said = log.read_text()
            found = re.search(r"table code: (\d+)", said)
            self.code = found.group(1) if found else None
            qr = re.search(r"scan this QR code to join.*\((http://\S+/join\?key=[\w-]+)\):", said)
            self.qr_url = qr.group(1) if qr else None
            try:
                with urllib.request.urlopen(self.url, timeout=2) as r:
                    if r.status == 200:
                        return
            except urllib.error.HTTPError as exc:  # the "join this table" page
                if exc.code == 403 and self.code and self.qr_url:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"app did not serve {self.url} within 60 s:\n{log.read_text()}")

    @property
    def join_url(self) -> str:
        """The address the QR code printed at start holds (its key in it), on this machine's
        loopback address."""
        assert self.qr_url is not None, "served without a code"
        return self.url + "join?" + self.qr_url.split("/join?", 1)[1]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._fh.close()


class Ui:
    """Thin helpers over a Playwright page showing the Flutter app with semantics on."""

    def __init__(self, page, shots: Path) -> None:  # type: ignore[no-untyped-def]
        self.page = page
        self.shots = shots
        self.n = 0

    def open(self, url: str) -> None:
        self.page.goto(url)
        self.ready()

    def ready(self) -> None:
        """Wait for the app to be drawn (after opening it, or after a page that leads to it)."""
        self.page.wait_for_selector("flt-semantics-placeholder, flt-semantics", state="attached",
                                    timeout=60_000)
        self.enable_semantics()

    def enable_semantics(self) -> None:
        # Flutter web keeps its accessibility tree off until this hidden button is "clicked"
        # (what a screen reader does); with it on, controls are queryable by role and name. On a
        # loaded machine the page may take seconds to start: click once the button is there.
        self.page.wait_for_selector("flt-semantics-placeholder, flt-semantics", state="attached",
                                    timeout=60_000)
        self.page.wait_for_timeout(500)
        self.page.evaluate(
            "() => { const e = document.querySelector('flt-semantics-placeholder');"
            " if (e) e.click(); }")
        self.page.locator("flt-semantics").first.wait_for(state="attached", timeout=30_000)

    def button(self, name: str | re.Pattern[str], exact: bool = True):  # type: ignore[no-untyped-def]
        if isinstance(name, re.Pattern):
            return self.page.get_by_role("button", name=name)
        return self.page.get_by_role("button", name=name, exact=exact)

    def click(self, name: str | re.Pattern[str], exact: bool = True, nth: int = 0) -> None:
        loc = self.button(name, exact)
        try:
            loc.nth(nth).wait_for(state="visible", timeout=20_000)
        except Exception:
            self.shot("FAILED-waiting-for-button")
            raise
        self.steady(loc.nth(nth))
        loc.nth(nth).click()
        self.page.wait_for_timeout(250)

    def steady(self, loc: Any, timeout_s: float = 5.0) -> None:
        """Wait until ``loc`` stops moving (two readings 0.2 s apart agree within 1 px): after a
        redraw Flutter may still lay out or scroll, and a click aimed mid-move lands on whatever
        is drawn there then (a suit button's tap taken by the face that slid under it)."""
        end = time.monotonic() + timeout_s
        last = loc.bounding_box()
        while time.monotonic() < end:
            self.page.wait_for_timeout(200)
            box = loc.bounding_box()
            if box and last and all(abs(box[k] - last[k]) <= 1 for k in ("x", "y", "width", "height")):
                return
            last = box

    def type_into(self, label: str, text: str, submit: bool = True, clear: bool = False) -> None:
        box = self.page.get_by_role("textbox", name=label)
        box.first.wait_for(timeout=20_000)
        box.first.click()
        self.page.wait_for_timeout(300)
        if clear:  # Flutter keeps its own text state: select all and delete, like a person
            self.page.keyboard.press("Control+A")
            self.page.keyboard.press("Backspace")
            self.page.wait_for_timeout(150)
        self.page.keyboard.type(text, delay=20)
        if submit:
            self.page.keyboard.press("Enter")
        self.page.wait_for_timeout(300)

    def choose_file(self, button: str, path: Path) -> None:
        """Tap ``button`` and give the file dialog it opens ``path``, as a person picking it."""
        with self.page.expect_file_chooser(timeout=20_000) as fc:
            self.click(button)
        fc.value.set_files(str(path))

    def tab_to(self, name: str, limit: int = 30) -> None:
        """Press Tab until the control named ``name`` has the keyboard focus."""
        for _ in range(limit):
            self.page.keyboard.press("Tab")
            self.page.wait_for_timeout(120)
            focused = self.page.evaluate(
                "() => document.activeElement ? (document.activeElement.innerText || '') : ''")
            if focused.strip() == name:
                return
        raise AssertionError(f"{name!r} not reachable with Tab in {limit} presses")

    def see(self, text: str | re.Pattern[str], timeout: float = 20_000) -> None:
        try:
            self.page.get_by_text(text).first.wait_for(state="attached", timeout=timeout)
        except Exception:
            self.shot("FAILED-waiting-for-text")  # what the screen showed instead
            raise

    def scroll_to(self, text: str | re.Pattern[str], top: float = 0.25) -> None:
        """Scroll the page with the mouse wheel (at the right edge, off any zoomable picture)
        until ``text`` shows about ``top`` of the way down the screen (for a screenshot)."""
        loc = self.page.get_by_text(text).first
        loc.wait_for(state="attached", timeout=20_000)
        size = self.page.viewport_size or {"width": 360, "height": 780}
        want = size["height"] * top
        for _ in range(25):
            box = loc.bounding_box()
            if box is None:
                break
            dy = box["y"] - want
            if abs(dy) < 40:
                break
            self.page.mouse.move(size["width"] - 24, size["height"] / 2)
            self.page.mouse.wheel(0, max(-500.0, min(500.0, dy)))
            self.page.wait_for_timeout(250)

    def count(self, text: str | re.Pattern[str]) -> int:
        return self.page.get_by_text(text).count()

    def shot(self, name: str) -> Path:
        self.n += 1
        path = self.shots / f"{self.n:02d}-{name}.png"
        # Flutter paints on the next frames: give it a moment (a resize needs longer).
        self.page.wait_for_timeout(700)
        self.page.screenshot(path=str(path))
        return path


def shots_dir(name: str, prefix: str = "") -> Path:
    """``artifacts/e2e/NAME``, emptied of an earlier run's screenshots whose names start with
    ``prefix`` (those of another case of the same test stay)."""
    d = ARTIFACTS / name
    d.mkdir(parents=True, exist_ok=True)
    for old in d.glob(f"{prefix}*.png"):
        old.unlink()
    return d


# ------------------------------------------------------------------ the board drawing
#: The drawing of the table (dispute checker, practice): its semantics node, and its label.
BOARD_LABEL = 'flt-semantics-img[aria-label^="The table drawn as a board"]'
BOARD = f"flt-semantics:has(> {BOARD_LABEL})"


def wheel(ui: Ui, dy: float) -> None:
    """Scroll the page with the mouse wheel at its right margin (beside the board: a wheel over
    the board zooms it), near its top (a sheet fixed at the bottom, as tall as half the
    screen with a verdict, does not scroll the page)."""
    vp = ui.page.viewport_size
    ui.page.mouse.move(vp["width"] - 6, 100)
    ui.page.mouse.wheel(0, dy)
    ui.page.wait_for_timeout(600)


def board_box(ui: Ui, pic: Any, selected: Any = None, max_height: float | None = None) -> dict[str, Any]:
    """The drawing's window on the screen, scrolled wholly into view first (the browser gives the
    visible part only: a box shorter than the window is cut off by the app bar or the bottom).
    ``box["framing"]`` says how the drawing is shown in it (the window is as wide as the drawing
    or as the screen allows: the framing follows from its width), ``selected`` the open end
    the window is centred on."""
    from chickenfoot.app.views.board import MAX_HEIGHT, focus_of, framing

    loc = ui.page.locator(BOARD).first
    loc.wait_for(state="attached", timeout=20_000)
    vp = ui.page.viewport_size
    for _ in range(6):
        box = loc.bounding_box()
        assert box and box["width"] > 100, box
        f = framing(pic, box["width"] - 2, max_height or MAX_HEIGHT, focus_of(pic, selected))
        full = f.height + 2
        whole = box["height"] >= full - 2
        if whole and box["y"] >= 55 and box["y"] + box["height"] <= vp["height"] + 1:
            return {**box, "framing": f}
        if whole:  # wholly drawn but off the screen: bring its top below the app bar
            wheel(ui, box["y"] - 70)
        else:  # cut off at the top or at the bottom
            cut = full - box["height"] + 30
            wheel(ui, -cut if box["y"] < vp["height"] / 2 else cut)
    ui.shot("FAILED-board-out-of-view")
    raise AssertionError(f"the board does not come wholly into view: {box}, {full} px high")


def board_point(box: dict[str, Any], px: float, py: float) -> tuple[float, float]:
    """Where the drawing's pixel (``px``, ``py``) is on the screen, in ``box`` (see board_box);
    it must be inside the window."""
    f = box["framing"]
    x, y = box["x"] + 1 + px * f.k - f.x, box["y"] + 1 + py * f.k - f.y
    assert box["x"] < x < box["x"] + box["width"] and box["y"] < y < box["y"] + box["height"], \
        f"({px}, {py}) of the drawing is outside its window: {x}, {y} in {box}"
    return x, y


def reveal(ui: Ui, loc: Any) -> None:
    """Scroll the page (wheel at its right margin) until ``loc`` is well inside the screen: a
    click on a text field the page has not scrolled to lands on whatever is drawn there."""
    vp = ui.page.viewport_size
    for _ in range(6):
        loc.wait_for(state="attached", timeout=20_000)
        box = loc.bounding_box()
        if box and box["y"] >= 70 and box["y"] + box["height"] <= vp["height"] - 20:
            return
        wheel(ui, (box["y"] if box else 0) - vp["height"] / 2)
    raise AssertionError(f"cannot scroll {loc} into view")


def make_match(db: Path, players: list[str], rounds: Sequence[tuple[dict[str, int], str]] = ()) -> str:
    """A match stored in ``db`` with ``rounds`` of (penalties, who went out); its id."""
    from chickenfoot.storage import Repository

    with Repository.open(db) as repo:
        m = repo.create_match(players)
        for penalties, out in rounds:
            repo.add_round(m.id, penalties=penalties, out=out)
        return m.id
