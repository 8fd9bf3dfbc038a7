"""How the board is framed on a screen: readable on a phone (its smallest writing 12 px), in a
window no wider than the screen, centred on the play."""

from __future__ import annotations

import math

from chickenfoot.app.dispute import DisputeBuilder
from chickenfoot.app.views.board import READABLE_PX, SMALLEST_TEXT_UNITS, focus_of, framing, zoomed
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


def _in_window(f, point: tuple[float, float]) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Where the drawing's ``point`` is in the window framed by ``f`` (window pixels)."""
    return point[0] * f.k - f.x, point[1] * f.k - f.y


def test_zooming_in_keeps_the_play_in_the_middle_of_the_window() -> None:
    b = _table()
    b.select("1-9")
    pic = b.picture()
    for width in (330, 240):  # the whole board fits at 360 px; on a narrower screen it pans
        play = focus_of(pic, Tile(1, 9))
        f = framing(pic, width, 520, play)
        first = zoomed(f, pic.size, play, 1.0)
        assert abs(first.x - f.x) <= 1 and abs(first.y - f.y) <= 1  # the first view is the framing's
        centred = 0
        for n in range(1, 6):
            z = 1.6 ** n
            zf = zoomed(f, pic.size, play, z)
            assert zf.k == f.k * z and (zf.width, zf.height) == (f.width, f.height)
            px, py = _in_window(zf, play)
            assert 0 <= px <= zf.width and 0 <= py <= zf.height, (width, z, px, py)
            dw, dh = round(pic.size[0] * f.k) * z, round(pic.size[1] * f.k) * z
            # in the middle, or as near it as the drawing's edge lets the window go
            for pos, corner, full, side in ((px, zf.x, dw, zf.width), (py, zf.y, dh, zf.height)):
                assert abs(pos - side / 2) <= 0.5 or corner in (0.0, full - side), (width, z, pos, corner)
            centred += abs(px - zf.width / 2) <= 0.5 and abs(py - zf.height / 2) <= 0.5
            # a zoom about the window's corner would have put the play elsewhere
            assert (px, py) != _in_window(zoomed(f, pic.size, (0.0, 0.0), z), play)
        assert centred >= 3, f"the 1-9 is centred at only {centred} of 5 zooms at {width} px"


def test_zooming_in_near_the_edge_keeps_the_play_in_view_and_out_shows_it_whole() -> None:
    b = _table()
    pic = b.picture()
    play = focus_of(pic, Tile(7, 7))  # the open foot, near the drawing's right edge
    f = framing(pic, 240, 520, play)
    for z in (1.6, 1.6 ** 2, 1.6 ** 3, 8.0):
        zf = zoomed(f, pic.size, play, z)
        px, py = _in_window(zf, play)
        assert 0 <= px <= zf.width and 0 <= py <= zf.height, (z, px, py)
    out = zoomed(f, pic.size, play, f.whole / f.k)  # zoomed out as far as it goes: the whole drawing
    assert out.x <= 0 and out.y <= 0
    assert pic.size[0] * out.k - out.x <= out.width + 1 and pic.size[1] * out.k - out.y <= out.height + 1


def test_show_the_whole_board_shows_every_tile_in_a_window_of_another_shape() -> None:
    """The viewer keeps its window inside the drawing and the room round it, and stops zooming
    out once the window would leave that room (Flutter's InteractiveViewer: the scale stays at
    least the window's size over the room's, on both sides). With the room whole_margin gives,
    zooming out to Framing.whole fits the drawing in the window on both sides."""
    from chickenfoot.app.views.board import whole_margin

    pic = _table().picture()
    for width, height in ((332, 300), (240, 520), (200, 200), (150, 400)):
        f = framing(pic, width, height)
        assert f.panned, (width, height)
        shown = (round(pic.size[0] * f.k), round(pic.size[1] * f.k))
        mx, my = whole_margin(f, shown)
        z = f.whole / f.k
        # the least scale the viewer allows with that room (Flutter: max(window / room))
        least = max(f.width / (shown[0] + 2 * mx), f.height / (shown[1] + 2 * my))
        assert least <= z + 1e-9
        # and at that zoom the whole drawing is inside the window
        assert shown[0] * z <= f.width + 1 and shown[1] * z <= f.height + 1
        # with no room, the viewer would have stopped short of it on one side
        assert max(f.width / shown[0], f.height / shown[1]) > z + 1e-6 or (mx, my) == (0, 0)


def test_with_nothing_chosen_a_phone_is_shown_the_open_foot_every_play_must_go_on() -> None:
    b = _table()  # the 7-7 is open: the only place a tile may go
    b.add("7-1", "7-7")  # ... and it leaves the new 1 end unplayable too
    pic = b.picture()
    assert b.selected is not None
    b.selected = None
    toes = [pic.to_pixels(m.spot.x, m.spot.y) for m in pic.board.ends if m.end.target == Tile(7, 7)]
    assert len(toes) == 2
    fx, fy = focus_of(pic)
    assert math.isclose(fx, sum(x for x, _ in toes) / 2) and math.isclose(fy, sum(y for _, y in toes) / 2)
    f = framing(pic, 240, 520, (fx, fy))
    assert all(f.x <= x * f.k <= f.x + f.width and f.y <= y * f.k <= f.y + f.height for x, y in toes)
    b.add("7-2", "7-7")
    b.add("7-3", "7-7")  # the foot has its toes: nothing confines play, the hub is the middle again
    pic = b.picture()
    hub = pic.board.piece(Tile(9, 9))
    assert focus_of(pic) == pic.to_pixels(hub.spot.x, hub.spot.y)
