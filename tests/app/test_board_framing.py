"""How the board is framed on a screen: readable on a phone (its smallest writing 12 px), in a
window no wider than the screen, centred on the play."""

from __future__ import annotations

from chickenfoot.app.dispute import DisputeBuilder
from chickenfoot.app.views.board import READABLE_PX, SMALLEST_TEXT_UNITS, focus_of, framing
from chickenfoot.rules import Tile


def _table() -> DisputeBuilder:
    b = DisputeBuilder("double-chicken-foot", 9, hub=9)
    for t in ("9-4", "9-1", "9-7", "9-0", "9-3", "9-8"):
        b.add(t, "9-9")
    b.add("7-7", "9-7")
    return b


def test_a_big_table_on_a_phone_is_shown_readable_in_a_window_centred_on_the_play() -> None:
    b = _table()
    pic = b.picture()
    f = framing(pic, 240, 520, focus_of(pic, Tile(7, 7)))  # a narrow screen: it cannot fit whole
    assert f.k * SMALLEST_TEXT_UNITS * pic.scale >= READABLE_PX  # 12 px writing at first sight
    assert f.panned and f.width <= 240 and f.height <= 520 and f.whole < f.k
    dw, dh = pic.size[0] * f.k, pic.size[1] * f.k
    assert 0 <= f.x <= dw - f.width + 1 and 0 <= f.y <= dh - f.height + 1  # (the window in whole pixels)
    fx, fy = focus_of(pic, Tile(7, 7))
    # the 7-7's open end in the window (in its middle unless the drawing's edge is nearer)
    assert f.x <= fx * f.k <= f.x + f.width and f.y <= fy * f.k <= f.y + f.height


def test_a_table_that_fits_readable_is_shown_whole() -> None:
    pic = _table().picture()
    f = framing(pic, 1100, 640)
    assert not f.panned and (f.x, f.y) == (0, 0)
    assert f.width == round(pic.size[0] * f.k) and f.height == round(pic.size[1] * f.k)
