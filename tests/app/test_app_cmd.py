"""``chickenfoot app``: falls back to the web app without a display, serves offline."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from app_e2e_helpers import ROOT, free_port

from chickenfoot.cli.app_cmd import desktop_unavailable
from chickenfoot.cli.main import build_parser


def test_parser_knows_the_app_command():
    args = build_parser().parse_args(["app", "--web", "--port", "0", "--host", "0.0.0.0", "--db", "x.json"])
    assert (args.web, args.port, args.host, args.db) == (True, 0, "0.0.0.0", "x.json")


def test_no_display_means_no_desktop_window(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if sys.platform.startswith("linux"):
        assert desktop_unavailable() == "no display"


def _serve(args: list[str], tmp_path: Path, *, db: bool = True, **extra_env: str) -> tuple[str, bytes]:
    """Run ``chickenfoot app ARGS`` (on ``tmp_path/m.json``, or with ``db=False`` on the default
    file) until its page is served; its output and the page."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "CHICKENFOOT_DB")}
    log = tmp_path / "out.log"
    where = ["--db", str(tmp_path / "m.json")] if db else []
    with open(log, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "chickenfoot", "app", *args, "--port", str(port), *where],
                                cwd=ROOT, env=env | extra_env, stdout=fh, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            body = b""
            while time.monotonic() < deadline and not body:
                assert proc.poll() is None, log.read_text()
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                        body = r.read()
                        # the engine comes from the installed package, not a CDN
                        with urllib.request.urlopen(f"http://127.0.0.1:{port}/canvaskit/canvaskit.wasm",
                                                    timeout=5) as w:
                            assert w.status == 200 and len(w.read()) > 1_000_000
                except OSError:
                    time.sleep(0.2)
        finally:
            proc.terminate()
            proc.wait(10)
    return log.read_text(), body


def test_app_without_display_says_so_and_serves_the_web_app(tmp_path):
    out, body = _serve([], tmp_path)
    assert "desktop window cannot open here (no display); serving the web app instead" in out
    assert "serving at http://127.0.0.1:" in out
    assert b"<html" in body.lower()


def test_app_on_a_fresh_machine_serves_on_the_default_file(tmp_path):
    """The README's first command: no --db, no $CHICKENFOOT_DB, no user data folder yet."""
    data = tmp_path / "fresh-data"
    out, body = _serve(["--web"], tmp_path, db=False, XDG_DATA_HOME=str(data))
    assert f"scorekeeper file {data / 'chickenfoot' / 'matches.json'}" in out, out
    assert b"<html" in body.lower()


def test_web_app_page_loads_nothing_from_a_cdn(tmp_path):
    _, body = _serve(["--web"], tmp_path)
    text = body.decode("utf-8", "replace")
    assert "gstatic.com" not in text and "unpkg.com" not in text and "jsdelivr" not in text
