"""End to end on a phone (360 px), normal and large text: every tappable node of every screen is
a thumb's size, and a round entered by every way there is (numbers, faces, a photo, went out by
typing 0) never jumps: after each tap the row being worked on stays where it was or is scrolled
into view above the number pad, and no named control lies under the pad or the Save bar.

The real ``chickenfoot app --web`` in headless Debian Chromium (see ``app_e2e_helpers``);
screenshots of every screen go to ``artifacts/e2e/issue-38/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from app_e2e_helpers import Server, Ui, make_match, shots_dir

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
#: Taller than any screen here: nothing scrolls, so no node is clipped by the screen's edge and
#: the size the browser gives is the node's own.
TALL = {"width": 360, "height": 3200}
PHONE = {"width": 360, "height": 780}
THUMB = 48
TAPPABLE = """() => Array.from(document.querySelectorAll('flt-semantics'))
  .filter(e => ['button', 'checkbox', 'radio', 'switch', 'slider', 'textbox', 'combobox', 'tab', 'link',
                'menuitem'].includes(e.getAttribute('role')) || e.hasAttribute('flt-tappable'))
  .map(e => {
    const r = e.getBoundingClientRect();
    return {name: (e.getAttribute('aria-label') || e.innerText || '').trim().slice(0, 60),
            role: e.getAttribute('role') || 'tappable', width: r.width, height: r.height,
            top: r.top, left: r.left};
  }).filter(n => n.width > 0 && n.height > 0)"""


def _small(ui: Ui, screen: str) -> list[str]:
    nodes = ui.page.evaluate(TAPPABLE)
    assert nodes, f"{screen}: no tappable node found"
    return [f"{screen}: {n['role']} {n['name']!r} {n['width']:.0f}x{n['height']:.0f}" for n in nodes
            if n["width"] < THUMB - 0.5 or n["height"] < THUMB - 0.5]


def _settings(tmp_path: Path, large: bool) -> None:
    from companion.app.settings import Settings, SettingsStore

    SettingsStore(tmp_path / "matches-settings.json").save(Settings(large_text=large))


def _visit(ui: Ui, url: str, ready: str | re.Pattern[str]) -> None:
    ui.page.goto(url)
    ui.enable_semantics()
    page = ui.page
    try:
        page.get_by_text(ready).or_(page.get_by_role("button", name=ready)).first.wait_for(
            state="attached", timeout=20_000)
    except Exception:
        ui.shot("FAILED-waiting-for-text")
        raise


@pytest.mark.parametrize("large", [False, True], ids=["normal-text", "large-text"])
def test_every_tappable_node_of_every_screen_is_a_thumbs_size(tmp_path: Path, browser, large: bool) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "matches.json"
    mid = make_match(db, ["Ann", "Bob", "Cy", "Dee"], [({"Bob": 5, "Cy": 7, "Dee": 9}, "Ann")])
    _settings(tmp_path, large)
    srv = Server(db, tmp_path / "app.log")
    text = "large" if large else "normal"
    shots = shots_dir(f"issue-38/sizes-{text}")
    small: list[str] = []
    try:
        ui = Ui(browser.new_page(viewport=TALL), shots)
        ui.open(srv.url)
        screens: list[tuple[str, str, str | re.Pattern[str]]] = [
            ("home", "", "New match"),
            ("new-match", "new", "Start match"),
            ("scoreboard", f"match/{mid}", "Standings"),
            ("round-brief", f"match/{mid}/brief", "Remember"),
            ("round", f"match/{mid}/round", "Ann: … points"),
            ("edit-round", f"match/{mid}/round/1", "Edit round 1"),
            ("history", "history", "Export JSON"),
            ("statistics", "stats", re.compile("^Best match")),
            ("rules", "rules", "Chickie Sixes"),
            ("settings", "settings", "Theme"),
            ("dispute", "dispute", "Read the table from a photo"),
            ("practice", "practice", "Deal"),
        ]
        for name, route, ready in screens:
            _visit(ui, srv.url + route, ready)
            small += _small(ui, name)
            ui.shot(f"{name}-{text}-text")
        # the round's panels: the tile picker and the photo panel
        _visit(ui, f"{srv.url}match/{mid}/round", "Ann: … points")
        ui.click("Tiles", nth=2)
        ui.see("Tiles with a 9:")
        small += _small(ui, "round, tile picker")
        ui.shot(f"round-tiles-{text}-text")
        # the dispute checker with a hub chosen and an open end selected
        _visit(ui, f"{srv.url}dispute", "Read the table from a photo")
        ui.click("9-9")
        small += _small(ui, "dispute, hub chosen")
        ui.shot(f"dispute-hub-{text}-text")
        # a practice round being played
        _visit(ui, f"{srv.url}practice", "Deal")
        ui.click("Deal")
        ui.see(re.compile("Your turn|turn"))
        small += _small(ui, "practice round")
        ui.shot(f"practice-round-{text}-text")
    finally:
        srv.stop()
    assert not small, f"{len(small)} tappable nodes under {THUMB} px:\n" + "\n".join(small)
