"""Time from ``chickenfoot app --web`` to a served page (target: under 3 s on this machine).

Each run starts a fresh server process on a free port with an empty temporary scorekeeper
file and polls until:

* ``page``: the app's HTML page answers 200 (what a phone's browser first loads), and
* ``engine``: the Flutter engine files (``main.dart.js``, CanvasKit wasm) are served too,
  i.e. a browser could start drawing with no internet.

With ``--browser`` it also times, in headless Debian Chromium, how long until the home screen's
"New match" button is on screen (includes the browser compiling CanvasKit; informational).

    python benchmarks/bench_app_start.py [--runs 5] [--browser]
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 3.0


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> bytes | None:
    with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=2) as r:
        if r.status == 200:
            return r.read()
    return None


def one_run(browser: bool) -> dict[str, float]:
    port = _port()
    url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "chickenfoot", "app", "--web", "--port", str(port), "--db",
             str(Path(tmp) / "matches.json")],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            out: dict[str, float] = {}
            while time.perf_counter() - t0 < 60:
                if proc.poll() is not None:
                    raise RuntimeError("the app exited before serving")
                if _get(url) is not None:
                    out["page"] = time.perf_counter() - t0
                    break
                time.sleep(0.02)
            else:
                raise RuntimeError("no page within 60 s")
            assert _get(url + "main.dart.js"), "main.dart.js not served"
            assert _get(url + "canvaskit/canvaskit.wasm"), "CanvasKit not served locally"
            out["engine"] = time.perf_counter() - t0
            if browser:
                out["home_screen"] = _browser_time(url, t0)
            return out
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


def _browser_time(url: str, t0: float) -> float:
    from playwright.sync_api import sync_playwright

    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
        page = b.new_page()
        page.goto(url)
        page.wait_for_selector("flt-semantics-placeholder", state="attached", timeout=60_000)
        page.evaluate("() => document.querySelector('flt-semantics-placeholder').click()")
        page.get_by_role("button", name="New match").wait_for(timeout=60_000)
        took = time.perf_counter() - t0
        b.close()
        return took


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--browser", action="store_true", help="also time the home screen in Chromium")
    args = ap.parse_args(argv)
    runs = [one_run(args.browser) for _ in range(args.runs)]
    print(f"chickenfoot app --web start-up, {args.runs} runs (seconds from launch):")
    for key in runs[0]:
        vals = [r[key] for r in runs]
        print(f"  {key:12s} median {statistics.median(vals):.2f}  min {min(vals):.2f}  max {max(vals):.2f}")
    med = statistics.median(r["page"] for r in runs)
    verdict = "meets" if med < TARGET_S else "MISSES"
    print(f"served page median {med:.2f} s: {verdict} the {TARGET_S:.0f} s target")
    return 0 if med < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
