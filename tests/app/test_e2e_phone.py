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
from typing import Any

import pytest
from app_e2e_helpers import SEAT_MODES, Server, Ui, make_match, shots_dir

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


def _settled(ui: Ui, script: str, *args: Any) -> Any:
    """``script``'s result once the layout has settled (two readings 0.3 s apart agree, within
    5 s): a redraw still moving, or a screen still growing into its width, is not measured."""
    last = ui.page.evaluate(script, *args)
    for _ in range(16):
        ui.page.wait_for_timeout(300)
        now = ui.page.evaluate(script, *args)
        if now == last:
            break
        last = now
    return last


def _small(ui: Ui, screen: str) -> list[str]:
    nodes = _settled(ui, TAPPABLE)
    assert nodes, f"{screen}: no tappable node found"
    return [f"{screen}: {n['role']} {n['name']!r} {n['width']:.0f}x{n['height']:.0f}" for n in nodes
            if n["width"] < THUMB - 0.5 or n["height"] < THUMB - 0.5]


def _measure(ui: Ui, screen: str, shot: str) -> list[str]:
    """The screen's tappable nodes under a thumb's size, measured on the tall page (nothing
    clipped), then a screenshot as a phone shows it, from its top."""
    small = _small(ui, screen)
    ui.page.set_viewport_size(PHONE)
    ui.shot(shot)
    ui.page.set_viewport_size(TALL)
    return small


def _settings(tmp_path: Path, large: bool) -> None:
    from chickenfoot.app.settings import Settings, SettingsStore

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
            ("history", "history", "Export and import"),
            ("statistics", "stats", re.compile("^Average points a round")),
            ("rules", "rules", "Chickie Sixes"),
            ("settings", "settings", "Theme"),
            ("dispute", "dispute", "Read the table from a photo"),
            ("practice", "practice", "Deal"),
        ]
        for name, route, ready in screens:
            _visit(ui, srv.url + route, ready)
            small += _measure(ui, name, f"{name}-{text}-text-360x780")
        # the round's panels: the tile picker and the photo panel
        _visit(ui, f"{srv.url}match/{mid}/round", "Ann: … points")
        ui.click(SEAT_MODES["Tiles"], nth=2)
        ui.see("Tiles with a 9:")
        small += _measure(ui, "round, tile picker", f"round-tiles-{text}-text-360x780")
        # the dispute checker with a hub chosen and an open end selected
        _visit(ui, f"{srv.url}dispute", "Read the table from a photo")
        ui.click("9-9")
        small += _measure(ui, "dispute, hub chosen", f"dispute-hub-{text}-text-360x780")
        # a practice round being played
        _visit(ui, f"{srv.url}practice", "Deal")
        ui.click("Deal")
        ui.see(re.compile("Your turn|turn"))
        small += _measure(ui, "practice round", f"practice-round-{text}-text-360x780")
    finally:
        srv.stop()
    assert not small, f"{len(small)} tappable nodes under {THUMB} px:\n" + "\n".join(small)


# ------------------------------------------------------------------ a round, every way
#: Every tappable node's box, whether it lies inside the fixed bottom part (the pad and Save),
#: and that part's top edge.
LAYOUT = """(footer) => {
  const all = Array.from(document.querySelectorAll('flt-semantics'));
  const edge = all.find(e => (e.getAttribute('aria-label') || e.innerText || '').trim() === footer);
  const barTop = edge ? edge.getBoundingClientRect().top : window.innerHeight;
  const roles = ['button', 'checkbox', 'radio', 'switch', 'slider', 'textbox', 'combobox', 'tab', 'link', 'menuitem'];
  const nodes = all.filter(e => roles.includes(e.getAttribute('role')))
    .map(e => { const r = e.getBoundingClientRect();
      return {name: (e.getAttribute('aria-label') || e.innerText || '').trim().slice(0, 50),
              inBar: r.top >= barTop - 0.5, top: r.top, bottom: r.bottom, height: r.height}; })
    .filter(n => n.height > 0);
  return {found: !!edge, barTop, nodes};
}"""
APP_BAR = 56


class Watch:
    """Taps on the round screen; after each, the row being worked on has not moved, or it is
    wholly in view between the app bar and the pad, and no control lies under the pad or Save."""

    def __init__(self, ui: Ui, tag: str) -> None:
        from chickenfoot.app.shell import FOOTER_LABEL

        self.ui, self.tag, self.footer, self.taps, self.scrolled = ui, tag, FOOTER_LABEL, 0, 0

    def layout(self) -> dict[str, Any]:
        return dict(self.ui.page.evaluate(LAYOUT, self.footer))

    def reveal(self, loc: Any) -> None:
        """Scroll the list with the wheel, as a person would, until ``loc`` is wholly in view."""
        for _ in range(12):
            box, bar = loc.bounding_box(), self.layout()["barTop"]
            assert box is not None
            # a control the list clips away at the bar's edge has a box of no height there
            clipped = box["height"] < 1
            if not clipped and box["y"] >= APP_BAR and box["y"] + box["height"] <= bar:
                return
            low = clipped or box["y"] + box["height"] > bar
            if clipped:
                box = {**box, "height": THUMB}
            self.ui.page.mouse.move(PHONE["width"] - 8, (APP_BAR + bar) / 2)
            self.ui.page.mouse.wheel(0, (box["y"] + box["height"] - bar + 24) if low else (box["y"] - APP_BAR - 24))
            self.ui.page.wait_for_timeout(300)
        raise AssertionError(f"{self.tag}: cannot scroll {loc} into view")

    def row(self, seat: int) -> dict[str, float] | None:
        """The box of seat ``seat``'s row, by its first button (Went out)."""
        loc = self.ui.button(SEAT_MODES["Went out"]).nth(seat)
        return loc.bounding_box() if loc.count() else None

    def settled_row(self, seat: int) -> dict[str, float] | None:
        """Seat ``seat``'s row once the redraw has settled (two readings 0.3 s apart agree, within
        9 s): on a loaded machine the browser can still be rebuilding the page after the tap's wait."""
        last = self.row(seat)
        for _ in range(30):
            self.ui.page.wait_for_timeout(300)
            now = self.row(seat)
            if now is not None and now == last:
                break
            last = now
        return last

    def check(self, seat: int, before: dict[str, float] | None, what: str) -> None:
        lay = _settled(self.ui, LAYOUT, self.footer)
        assert lay["found"], f"{self.tag}, after {what}: the pad/Save bar is not on the screen"
        bar = lay["barTop"]
        # A control of the list either ends above the bar or is wholly scrolled out below its
        # edge (the list is clipped there, nothing of it is drawn or tappable under the bar);
        # one that starts above the edge and goes on under the bar is partly hidden by it.
        under = [f"{n['name']!r} {n['top']:.0f}..{n['bottom']:.0f}" for n in lay["nodes"]
                 if n["top"] < bar - 0.5 and n["bottom"] > bar + 0.5]
        assert not under, f"{self.tag}, after {what}: under the pad/Save (top {bar:.0f}): {under}"
        after = self.settled_row(seat)
        assert after is not None, f"{self.tag}, after {what}: row {seat} is gone"
        unchanged = before is not None and abs(after["y"] - before["y"]) <= 1
        in_view = after["y"] >= APP_BAR - 0.5 and after["y"] + after["height"] <= bar + 0.5 \
            and after["height"] >= THUMB - 0.5
        assert unchanged or in_view, (f"{self.tag}, after {what}: row {seat} jumped from {before} to {after} "
                                      f"(pad/Save from {bar:.0f})")
        self.scrolled += not unchanged

    def opened(self, player: str, seats: int) -> None:
        """The screen as it opens: each row's ways in (Went out, Number, Tiles, Photo) share one
        line, and the active row (``player``'s: name and buttons) is wholly in view above the pad."""
        from chickenfoot.app.views.scoring import MODES

        bar = self.layout()["barTop"]
        for seat in range(seats):
            boxes = [self.ui.button(SEAT_MODES[m]).nth(seat).bounding_box() for m in MODES]
            assert all(boxes), f"{self.tag}: row {seat} lacks one of {MODES}"
            tops = {round(b["y"]) for b in boxes}
            assert max(tops) - min(tops) <= 1, f"{self.tag}: row {seat}'s buttons wrap: {boxes}"
        name = self.ui.page.get_by_text(player, exact=True).first.bounding_box()
        assert name is not None, f"{self.tag}: {player}'s name is not on the screen"
        first = [name, *(self.ui.button(SEAT_MODES[m]).nth(0).bounding_box() for m in MODES)]
        top, bottom = min(b["y"] for b in first), max(b["y"] + b["height"] for b in first)
        assert top >= APP_BAR - 0.5 and bottom <= bar + 0.5, \
            f"{self.tag}: {player}'s row ({top:.0f}..{bottom:.0f}) opens not wholly above the pad (from {bar:.0f})"
        print(f"{self.tag}: {player}'s row opens at {top:.0f}..{bottom:.0f} px, the pad from {bar:.0f} px")

    def tap(self, name: str | re.Pattern[str], seat: int, nth: int = 0, then: int | None = None,
            chooser: Path | None = None, bar: bool = False) -> None:
        """Tap ``name`` while working on seat ``seat``'s row (``then``: the row worked on after
        it); ``bar``: a key of the pad or Save, else a control of the list."""
        loc = self.ui.button(name).nth(nth)
        loc.wait_for(state="attached", timeout=20_000)
        if not bar:
            self.reveal(loc)
        before = self.row(then if then is not None else seat)
        box = loc.bounding_box()
        bar_key, bar = bar, self.layout()["barTop"]
        assert box is not None
        label = name.pattern if isinstance(name, re.Pattern) else name
        assert (box["y"] >= bar - 0.5) if bar_key else (box["y"] + box["height"] <= bar + 0.5), \
            f"{self.tag}: {label!r} is {'not in' if bar_key else 'partly under'} the pad/Save: {box}, bar from {bar}"
        assert box["y"] >= APP_BAR - 0.5 and box["y"] + box["height"] <= PHONE["height"] + 0.5, \
            f"{self.tag}: {label!r} is not wholly on the screen: {box}"
        if chooser is not None:
            with self.ui.page.expect_file_chooser(timeout=20_000) as fc:
                loc.click()
            fc.value.set_files(str(chooser))
        else:
            loc.click()
        self.taps += 1
        self.ui.page.wait_for_timeout(700)  # the redraw and a scroll to the row (200 ms)
        self.check(then if then is not None else seat, before, f"tapping {label!r}")



def _finds_photo() -> Path:
    from chickenfoot.vision.config import MODELS_DIR
    from chickenfoot.vision.lab.realdata import realdata_root

    photo = realdata_root() / "jeremyarde__domino-counter" / "labelbox_photos" / "20210227_190416.jpg"
    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("no shipped reader models (models/reader.json)")
    if not photo.exists():
        pytest.skip(f"real photo missing: {photo} (the shared realdata folder)")
    return photo


@pytest.mark.parametrize("large", [False, True], ids=["normal-text", "large-text"])
def test_a_round_by_every_entry_way_never_jumps_at_360px(tmp_path: Path, browser, large: bool) -> None:  # type: ignore[no-untyped-def]
    from chickenfoot.app.photo_review import from_reading, read_top
    from chickenfoot.rules import Tile
    from chickenfoot.rules.words import count
    from chickenfoot.storage import Repository
    from chickenfoot.vision.reader import Reader

    photo = _finds_photo()
    db = tmp_path / "matches.json"
    mid = make_match(db, ["Ann", "Bob", "Cy", "Dee"])
    with Repository.open(db) as repo:
        m = repo.get(mid)
    rules, top = m.rules, m.set_top
    reader = Reader.from_models_dir()
    wide = read_top(top, reader.readable_top(None))
    finds = from_reading(rules, top, reader.read(photo, rules, wide), None, wide)
    on_table = Tile(top, top)
    assert finds.unsure_finds, "this photo has unsure finds (what this test is about)"
    assert on_table not in finds.tiles and not finds.outside
    # Bob's hand by faces: two tiles of the 9 suit the photo does not hold
    bob = [t for t in (Tile(2, 9), Tile(6, 9), Tile(1, 9), Tile(8, 9)) if t not in finds.tiles][:2]
    # the unsure find counted: one that reads as a tile of this set, held by nobody else
    count_k = next(k for k in finds.unsure_finds
                   if finds.items[k].tile.high <= top and finds.items[k].tile not in (*finds.tiles, *bob, on_table))
    counted = finds.items[count_k].tile

    _settings(tmp_path, large)
    srv = Server(db, tmp_path / "app.log")
    text = "large" if large else "normal"
    ui = Ui(browser.new_page(viewport=PHONE), shots_dir(f"issue-38/round-{text}"))
    w = Watch(ui, f"{text} text")
    try:
        ui.open(f"{srv.url}match/{mid}/round")
        ui.see("Ann: … points")
        ui.shot(f"round-opened-{text}")
        _settled(ui, LAYOUT, w.footer)
        w.opened("Ann", 4)
        # Ann by numbers: 12
        w.tap("1", 0, bar=True)
        w.tap("2", 0, bar=True)
        ui.shot(f"ann-12-{text}")
        w.tap("Next: Bob", 0, then=1, bar=True)
        ui.see("12 points")
        # Bob by faces: a suit (the 9s are shown first), then two tiles
        w.tap(SEAT_MODES["Tiles"], 1, nth=1)
        ui.see("Tiles with a 9:")
        ui.shot(f"bob-tile-picker-{text}")
        for t in bob:
            w.tap(str(t), 1)
        ui.see(f"{rules.penalty(bob)} points ({', '.join(str(t) for t in bob)})")
        w.tap("Done with this hand", 1, then=2, bar=True)  # in the fixed part, over Save
        # Cy by a photo: Photo opens the file dialog at once (one tap)
        w.tap(SEAT_MODES["Photo"], 2, nth=2, chooser=photo)
        ui.page.get_by_text(f"Penalty from this photo: {finds.headline()}").first.wait_for(state="attached",
                                                                                           timeout=60_000)
        w.check(2, None, "reading the photo")
        n = len(finds.unsure_finds)
        shown = f"{n} unsure finds: show" if n > 1 else "1 unsure find: show"
        ui.shot(f"cy-photo-read-{text}")
        w.tap(shown, 2)
        ui.see(re.compile(r"unsure finds? shown in grey: hide$"))
        ui.shot(f"cy-unsure-finds-shown-{text}")
        w.tap(f"Count it as {counted}", 2)  # on the find's own row, with its crop
        finds.accept(count_k)
        cy = finds.penalty
        ui.see(f"Penalty from this photo: {finds.headline()}")
        if finds.to_check:  # tiles still to check: Use asks first, and the answer leaves them out
            w.tap(finds.use_label(), 2)
            w.tap(f"Use {count(cy, 'point')}", 2, then=3)
        else:
            w.tap(finds.use_label(), 2, then=3)
        ui.see(f"{cy} points (")
        # Dee went out, typed as 0
        w.tap(SEAT_MODES["Number"], 3, nth=3)
        w.tap("0", 3, bar=True)
        ui.shot(f"dee-typed-0-{text}")
        w.tap("Done", 3, bar=True)
        ui.see("went out: 0")
        ui.see("Every hand is in: ready to save")
        ui.shot(f"ready-to-save-{text}")
        ui.click("Save round 1")
        ui.see("Standings")
        ui.shot(f"saved-{text}")
        with Repository.open(db) as repo:
            rnd = repo.get(mid).rounds[0]
        assert rnd.out == 3 and list(rnd.penalties) == [12, rules.penalty(bob), cy, 0], rnd
        assert list(rnd.tiles[1]) == bob and Tile(*sorted((counted.low, counted.high))) in rnd.tiles[2]
        print(f"{text} text: {w.taps} taps checked, the row scrolled into view after {w.scrolled} of them")
    finally:
        srv.stop()
