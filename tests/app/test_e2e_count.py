"""End to end at a phone's width (360 px): a hand counted from a real photo outside any match,
in the real ``chickenfoot app --web`` in headless Debian Chromium, from the home screen.

The photo is a real phone photo of six double-12 tiles (``../shared/realdata``, skipped when
absent); three of them are not in the double-9 set the default rules deal to four, so the count
says which set they fit and counts them as that set on a tap. What the photo reads as is asked of
the shipped reader in this process: the screen must show exactly that (how good the reading is
belongs to the reader's evaluation).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from app_e2e_helpers import Server, Ui, shots_dir

from chickenfoot.vision.lab.realdata import realdata_root

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PHONE = {"width": 360, "height": 780}
#: Six double-12 tiles in a column on green felt (1-12, 2-6, 2-10, 2-11, 3-3, 7-8).
PHOTO = realdata_root() / "danb-dev-ui__DominoCounter" / "images" / "test-images_dom1__fb0d8c2d.jpg"


def test_a_hand_is_counted_from_a_photo_at_phone_width(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    from chickenfoot.vision.config import MODELS_DIR

    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("no shipped reader models (models/reader.json)")
    if not PHOTO.exists():
        pytest.skip(f"real photo missing: {PHOTO} (the shared realdata folder)")
    from chickenfoot.app.hand_count import HandCount
    from chickenfoot.app.photo_review import from_reading, read_top
    from chickenfoot.app.settings import Settings
    from chickenfoot.vision.reader import Reader

    st = Settings()
    hc = HandCount(st.default_preset, dict(st.default_options))
    rules, top = hc.rules, hc.top
    reader = Reader.from_models_dir()
    wide = read_top(top, reader.readable_top(None))
    review = from_reading(rules, top, reader.read(PHOTO, rules, wide), None, wide)
    assert review.outside and review.fits == 12  # what this test is about: tiles beyond double-9

    shots = shots_dir("count")
    srv = Server(tmp_path / "matches.json", tmp_path / "app.log")
    try:
        page = browser.new_page(viewport=PHONE)
        ui = Ui(page, shots)
        ui.open(srv.url)
        ui.click("Count a hand from a photo")
        ui.choose_file("Choose photo", PHOTO)
        ui.see(f"Penalty from this photo: {review.headline()}")
        ui.see(f"Tiles {', '.join(f'{i + 1} ({review.items[i].tile})' for i in review.outside)} are not in the "
               f"double-{top} set chosen; the tiles read fit a double-12 set.", timeout=10_000)
        ui.scroll_to(f"Penalty from this photo: {review.headline()}", 0.3)
        ui.shot("count-double-12-tiles-in-a-double-9-count-360px")
        ui.click("Count it as double-12")
        as12 = dataclasses.replace(review, top=12)
        assert not as12.outside
        ui.see(f"Penalty from this photo: {as12.headline()}")
        assert ui.count("Count it as double-12") == 0
        ui.scroll_to(f"Penalty from this photo: {as12.headline()}", 0.3)
        ui.shot("count-as-double-12-360px")
        ui.click("Count another hand")
        ui.see("Choose photo")
        assert ui.count(f"Penalty from this photo: {as12.headline()}") == 0
        assert srv.proc.poll() is None
        print(f"\ncount of {PHOTO.name}: {as12.headline()} (labels: 67 points)")
    finally:
        srv.stop()
