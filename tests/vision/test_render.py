"""The renderer: deterministic from its seed, labels that agree with the pixels and with
chickenfoot.vision.geometry, a valid ultralytics OBB layout, and blank halves / 0-0 common enough."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from PIL import Image

from chickenfoot.vision.geometry import OrientedBox, rectify, split_halves
from chickenfoot.vision.lab.datasets.halves import render_halves
from chickenfoot.vision.lab.datasets.pips import MAX_VALUE, layout
from chickenfoot.vision.lab.datasets.printed import draw_printed_matter, paste_mask, text_mask
from chickenfoot.vision.lab.datasets.render import (
    SceneConfig,
    gray_readable,
    luma,
    make_style,
    readable_pips,
    render_dataset,
    render_scene,
    turn_scene,
)


def _scene(seed: int, **kw: object) -> tuple[Image.Image, list]:
    return render_scene(np.random.default_rng([seed, 0]), SceneConfig(**kw))  # type: ignore[arg-type]


@pytest.mark.parametrize("value", range(MAX_VALUE + 1))
def test_pip_layouts_have_value_pips_inside_the_half(value: int) -> None:
    for variant in range(8):
        pts = layout(value, variant)
        assert len(pts) == value
        assert len(set(pts)) == value  # no two pips on one spot
        assert all(-1.0 <= a <= 1.0 and -1.0 <= c <= 1.0 for a, c in pts)


def test_same_seed_same_image_and_labels() -> None:
    a_img, a_lab = _scene(123)
    b_img, b_lab = _scene(123)
    assert a_img.tobytes() == b_img.tobytes()
    assert a_lab == b_lab
    c_img, _ = _scene(124)
    assert c_img.tobytes() != a_img.tobytes()


def test_dataset_is_deterministic_and_ultralytics_obb_layout(tmp_path: Path) -> None:
    stats = render_dataset(tmp_path / "a", 12, seed=5, val_frac=0.25)
    render_dataset(tmp_path / "b", 12, seed=5, val_frac=0.25)
    data = yaml.safe_load((tmp_path / "a" / "data.yaml").read_text())
    assert data["names"] == {0: "tile"} and data["train"] == "images/train" and data["val"] == "images/val"
    assert Path(data["path"]) == (tmp_path / "a").resolve()
    train = sorted((tmp_path / "a" / "images" / "train").glob("*.jpg"))
    val = sorted((tmp_path / "a" / "images" / "val").glob("*.jpg"))
    assert len(train) == 9 and len(val) == 3
    n_lines = 0
    for img_path in train + val:
        split = img_path.parent.name
        twin = tmp_path / "b" / "images" / split / img_path.name
        assert img_path.read_bytes() == twin.read_bytes()
        label = tmp_path / "a" / "labels" / split / (img_path.stem + ".txt")
        tiles = json.loads((tmp_path / "a" / "tiles" / split / (img_path.stem + ".json")).read_text())
        lines = [ln for ln in label.read_text().splitlines() if ln.strip()]
        assert len(lines) == len(tiles)
        w, h = Image.open(img_path).size
        for ln, t in zip(lines, tiles, strict=True):
            parts = ln.split()
            assert len(parts) == 9 and parts[0] == "0"
            xy = np.array([float(x) for x in parts[1:]]).reshape(4, 2)
            assert ((xy >= 0) & (xy <= 1)).all()
            # the json box is the same tile as the label polygon
            cx, cy, length, width, angle = t["box"]
            assert abs(cx - xy[:, 0].mean() * w) < 1.0 and abs(cy - xy[:, 1].mean() * h) < 1.0
            # length runs from end a to end b; a steep camera may shorten it, never to a square
            assert length >= 0.8 * width > 0 and -math.pi <= angle <= math.pi
            assert t["tile"] == f"{min(t['a'], t['b'])}-{max(t['a'], t['b'])}"
            n_lines += 1
    assert n_lines == stats["tiles"] > 0


def test_box_corners_match_label_quad_and_half_a_end() -> None:
    """Without perspective a tile is an exact rectangle: OrientedBox.corners() must give its quad,
    with half a at corners 0 and 3 (the end at centre - u * length / 2)."""
    seen = 0
    for seed in range(6):
        _img, labels = _scene(seed, perspective=False, photometric=False)
        for t in labels:
            box = t.box()
            assert np.allclose(box.corners(), np.asarray(t.quad), atol=1e-3)
            seen += 1
    assert seen > 10


def test_labelled_values_match_the_pixels(hard_cases: bool = False, printed: bool = False) -> None:
    """Cut tiles with the reader's own geometry: a blank half is plain, its partner with
    many pips is not; so values, half order and rectify/split_halves agree."""
    checked, agree = _blank_halves_plainer(hard_cases=hard_cases, printed=printed)
    assert checked >= 8
    assert agree / checked >= 0.9


def _blank_halves_plainer(**scene: Any) -> tuple[int, int]:
    """Over 40 scenes: tiles with one blank half and 4 or more pips on the other, and how many
    of them show the blank half plainer than the full one, cut as the reader cuts."""
    checked = agree = 0
    for seed in range(40):
        img, labels = _scene(seed, width=640, height=480, tile_px=(90.0, 140.0), perspective=False,
                             photometric=False, **scene)
        for t in labels:
            if (t.a == 0) == (t.b == 0) or max(t.a, t.b) < 4:
                continue
            ha, hb = split_halves(rectify(img, t.box(), size=64, pad=0.0))
            blank, full = (ha, hb) if t.a == 0 else (hb, ha)
            checked += 1
            agree += _busy(blank) < _busy(full)
    return checked, agree


@pytest.mark.parametrize("quarters", [1, 3])
def test_a_turned_scene_keeps_each_label_on_its_tile(quarters: int) -> None:
    """Turned a quarter, every tile is cut from the same pixels as before, half A first."""
    img, labels = _scene(5, width=640, height=480, tile_px=(90.0, 140.0), perspective=False, photometric=False)
    turned, moved = turn_scene(img, labels, quarters)
    assert turned.size == (480, 640) and len(moved) == len(labels) >= 3
    for before, after in zip(labels, moved, strict=True):
        assert (after.a, after.b) == (before.a, before.b)
        a = np.asarray(rectify(img, before.box(), size=64), np.int16)
        b = np.asarray(rectify(turned, after.box(), size=64), np.int16)
        assert np.abs(a - b).mean() < 1  # the same face (a wrong turn is about 100 off)
    with pytest.raises(ValueError, match="1 or 3 quarters"):
        turn_scene(img, labels, 2)


def test_turned_option_turns_training_images_only(tmp_path: Path) -> None:
    render_dataset(tmp_path / "plain", 8, seed=3, val_frac=0.25)
    render_dataset(tmp_path / "turned", 8, seed=3, val_frac=0.25, turned=1.0)
    for img in sorted((tmp_path / "plain" / "images").glob("*/*.jpg")):
        rel = img.relative_to(tmp_path / "plain")
        with Image.open(img) as a, Image.open(tmp_path / "turned" / rel) as b:
            if rel.parts[1] == "val":
                assert img.read_bytes() == (tmp_path / "turned" / rel).read_bytes()
            else:
                assert b.size == a.size[::-1]


def test_tables_option_makes_its_share_of_images_tables_and_leaves_the_rest(tmp_path: Path) -> None:
    """``tables``: the images its own stream picks show a laid-out table (lines of tiles that
    touch end to end); every other image is the one the seed gives without the option. The
    table scene is passed in (the table module draws with the renderer)."""
    render_dataset(tmp_path / "plain", 10, seed=4, val_frac=0.2)
    from chickenfoot.vision.lab.datasets.table import table_scene

    render_dataset(tmp_path / "tables", 10, seed=4, val_frac=0.2, tables=0.5, table_scene=table_scene)
    with pytest.raises(ValueError, match="table_scene"):
        render_dataset(tmp_path / "none", 2, seed=4, tables=0.5)
    picked = [np.random.default_rng([4, i, 2]).random() < 0.5 for i in range(10)]
    assert 0 < sum(picked) < 10
    for i, table in enumerate(picked):
        split = "val" if i >= 8 else "train"
        rel = Path("images") / split / f"4_{i:06d}.jpg"
        same = (tmp_path / "plain" / rel).read_bytes() == (tmp_path / "tables" / rel).read_bytes()
        assert same != table
        if table:
            tiles = json.loads((tmp_path / "tables" / "tiles" / split / f"4_{i:06d}.json").read_text())
            boxes = [OrientedBox(*t["box"]) for t in tiles]
            # in a line of play, some tile's end lies on the next tile's end
            assert any(math.hypot(a.cx - b.cx, a.cy - b.cy) < 0.6 * (a.length + b.length)
                       for k, a in enumerate(boxes) for b in boxes[k + 1:]), tiles


def test_hard_cases_are_deterministic_and_leave_labelled_tiles_readable() -> None:
    """Boneyards, printed backs, stone tops and hands are drawn around the labelled tiles, never
    over them: blank halves stay plain beside full ones, as without the option."""
    a_img, a_lab = _scene(7, hard_cases=True)
    b_img, b_lab = _scene(7, hard_cases=True)
    assert a_img.tobytes() == b_img.tobytes() and a_lab == b_lab
    test_labelled_values_match_the_pixels(hard_cases=True)


def test_hard_cases_option_changes_only_its_own_datasets(tmp_path: Path) -> None:
    render_dataset(tmp_path / "plain", 4, seed=3, val_frac=0.25)
    render_dataset(tmp_path / "plain2", 4, seed=3, val_frac=0.25, hard_cases=False)
    render_dataset(tmp_path / "neg", 4, seed=3, val_frac=0.25, hard_cases=True)
    for img in sorted((tmp_path / "plain" / "images").glob("*/*.jpg")):
        rel = img.relative_to(tmp_path / "plain")
        assert img.read_bytes() == (tmp_path / "plain2" / rel).read_bytes()
        assert img.read_bytes() != (tmp_path / "neg" / rel).read_bytes()


def test_printed_matter_is_deterministic_and_leaves_labelled_tiles_readable() -> None:
    a_img, a_lab = _scene(7, hard_cases=True, printed=True)
    b_img, b_lab = _scene(7, hard_cases=True, printed=True)
    assert a_img.tobytes() == b_img.tobytes() and a_lab == b_lab
    test_labelled_values_match_the_pixels(hard_cases=True, printed=True)


def test_printed_option_changes_only_its_own_datasets(tmp_path: Path) -> None:
    render_dataset(tmp_path / "neg", 6, seed=3, val_frac=0.25, hard_cases=True)
    render_dataset(tmp_path / "neg2", 6, seed=3, val_frac=0.25, hard_cases=True, printed=False)
    render_dataset(tmp_path / "prt", 6, seed=3, val_frac=0.25, hard_cases=True, printed=True)
    differ = 0
    for img in sorted((tmp_path / "neg" / "images").glob("*/*.jpg")):
        rel = img.relative_to(tmp_path / "neg")
        assert img.read_bytes() == (tmp_path / "neg2" / rel).read_bytes()
        differ += img.read_bytes() != (tmp_path / "prt" / rel).read_bytes()
    assert differ >= 3


def test_printed_matter_takes_tiles_out_of_the_labels() -> None:
    """The option spawns its own stream, so a printed scene is its plain twin plus print: sheets
    take room from the scatter and runs of layout tiles lie face down, so it labels fewer tiles."""
    fewer = more = 0
    for seed in range(30):
        _, plain = _scene(seed, hard_cases=True)
        _, prt = _scene(seed, hard_cases=True, printed=True)
        fewer += len(prt) < len(plain)
        more += len(prt) > len(plain)
    assert fewer >= 5 and fewer > 2 * more


def test_printed_text_and_sheets_put_ink_where_they_say() -> None:
    mask = text_mask("DOMINOES", 30, bold=1)
    assert mask.height >= 25 and mask.width > 4 * mask.height and np.asarray(mask).max() == 255
    canvas = Image.new("RGB", (400, 300), (0, 120, 0))
    paste_mask(canvas, mask, (10, 10, 10), 200, 150, math.pi / 2, max_w=100)
    ink = np.argwhere((np.asarray(canvas) < 60).all(axis=2))
    # turned a quarter, shrunk to 100 px: tall and narrow round the centre
    assert abs(ink[:, 0].mean() - 150) < 6 and abs(ink[:, 1].mean() - 200) < 6
    assert 80 <= np.ptp(ink[:, 0]) <= 101 and np.ptp(ink[:, 1]) < 40
    canvas = Image.new("RGB", (600, 600), (0, 0, 0))
    outlines = draw_printed_matter(np.random.default_rng(4), canvas, 3, 60.0)
    assert len(outlines) == 3
    arr = np.asarray(canvas)
    for quad in outlines:
        cx, cy = np.clip(quad.mean(axis=0).round().astype(int), 0, 599)
        assert arr[cy, cx].any()  # the item's middle is covered (no item is pure black: faces are drawn)


def test_readable_pips_keeps_every_pip_clear_of_the_face() -> None:
    changed = 0
    for i in range(400):
        style = make_style(np.random.default_rng([11, i]))
        assert readable_pips(style, 0) is style
        fixed = readable_pips(style, 100)
        assert all(math.dist(c, fixed.body) >= 100 for c in fixed.pip_colours)
        assert math.dist(fixed.divider, fixed.body) >= 100 or fixed.divider == style.divider
        clear = all(math.dist(c, style.body) >= 100 for c in style.pip_colours)
        assert (fixed == style) == (clear and fixed.divider == style.divider)
        changed += fixed != style
        # one colour per value as before: values that shared a colour still share one
        for a in range(len(style.pip_colours)):
            for b in range(a):
                if style.pip_colours[a] == style.pip_colours[b]:
                    assert fixed.pip_colours[a] == fixed.pip_colours[b]
        assert fixed.body == style.body and fixed.aspect == style.aspect
    assert 20 <= changed <= 120  # the faces from the pip palette: about one set in eight


def test_pip_contrast_changes_pip_colours_only() -> None:
    """Same layout and labels with or without the option; only the scenes whose set had
    pips in the face's colour look different."""
    differ = 0
    for seed in range(30):
        a_img, a_lab = _scene(seed, width=320, height=240)
        b_img, b_lab = _scene(seed, width=320, height=240, pip_contrast=100.0)
        assert a_lab == b_lab
        differ += a_img.tobytes() != b_img.tobytes()
    assert 1 <= differ <= 10


def test_gray_readable_keeps_every_pip_and_divider_clear_of_the_face_in_luma() -> None:
    changed = 0
    for i in range(400):
        style = readable_pips(make_style(np.random.default_rng([11, i])), 100)
        assert gray_readable(style, 0) is style
        fixed = gray_readable(style, 60)
        face = luma(fixed.body)
        assert all(abs(luma(c) - face) >= 60 for c in fixed.pip_colours)
        assert abs(luma(fixed.divider) - face) >= 60
        clear = all(abs(luma(c) - face) >= 60 for c in (*style.pip_colours, style.divider))
        assert (fixed == style) == clear
        changed += fixed != style
        for a in range(len(style.pip_colours)):  # one colour per value, as before
            for b in range(a):
                if style.pip_colours[a] == style.pip_colours[b]:
                    assert fixed.pip_colours[a] == fixed.pip_colours[b]
        assert fixed.body == style.body and fixed.back == style.back and fixed.aspect == style.aspect
        assert gray_readable(fixed, 60) == fixed
    assert changed >= 40  # yellow, grey and pale pips on ivory and white are common


def _is_gray(img: Image.Image) -> bool:
    a = np.asarray(img, np.int16)
    return bool(np.array_equal(a[..., 0], a[..., 1]) and np.array_equal(a[..., 1], a[..., 2]))


def test_gray_contrast_redraws_only_grey_photos_that_need_it(tmp_path: Path) -> None:
    """Same draws, same labels; colour photos are untouched, and so is ``rng`` after the scene;
    only a grey photo whose pips would vanish is drawn again with other pip colours."""
    redrawn = gray = 0
    for seed in range(60):
        rng_a, rng_b = np.random.default_rng([seed, 0]), np.random.default_rng([seed, 0])
        kw = {"width": 240, "height": 180, "pip_contrast": 100.0}
        a_img, a_lab = render_scene(rng_a, SceneConfig(**kw))  # type: ignore[arg-type]
        b_img, b_lab = render_scene(rng_b, SceneConfig(**kw, gray_contrast=60.0))  # type: ignore[arg-type]
        assert a_lab == b_lab
        assert rng_a.random() == rng_b.random() and rng_a.spawn(1)[0].random() == rng_b.spawn(1)[0].random()
        assert _is_gray(a_img) == _is_gray(b_img)
        gray += _is_gray(a_img)
        if a_img.tobytes() != b_img.tobytes():
            assert _is_gray(a_img)
            redrawn += 1
    assert gray >= 3 and 1 <= redrawn <= gray
    # the CLI's default asks for it; an explicit 0 renders the shipped models' data
    render_dataset(tmp_path / "a", 2, seed=1, val_frac=0.5, gray_contrast=0.0)
    render_dataset(tmp_path / "b", 2, seed=1, val_frac=0.5)
    for img in sorted((tmp_path / "a" / "images").glob("*/*.jpg")):
        assert img.read_bytes() == (tmp_path / "b" / img.relative_to(tmp_path / "a")).read_bytes()


def _busy(h: Image.Image) -> float:
    return float(np.asarray(h.convert("L"), np.float32)[12:52, 12:52].std())


def test_blank_halves_and_double_blank_are_common(tmp_path: Path) -> None:
    stats = render_dataset(tmp_path / "d", 60, seed=1)
    halves = 2 * stats["tiles"]
    assert stats["blank_halves"] / halves >= 0.05
    assert stats["double_blank"] >= 2


def test_sets_up_to_double_18_render() -> None:
    values: set[int] = set()
    for seed in range(30):
        _img, labels = _scene(seed, max_value=18, uniform_values=True)
        values |= {v for t in labels for v in (t.a, t.b)}
    assert max(values) > 12 and max(values) <= 18


def test_half_crops_dataset(tmp_path: Path) -> None:
    st = render_halves(tmp_path / "h", 120, seed=2, crop_size=64, pad=0.06, max_value=12, val_frac=0.2)
    assert st["halves"] >= 120
    files = list((tmp_path / "h").glob("*/*/*.png"))
    assert len(files) == st["halves"]
    assert {f.parent.parent.name for f in files} == {"train", "val"}
    assert all(0 <= int(f.parent.name) <= 12 for f in files)
    assert Image.open(files[0]).size == (64, 64)
    assert OrientedBox(1, 1, 2, 1, 0).length == 2  # geometry import is the reader's


def test_half_crops_of_small_tiles_are_cut_from_fewer_pixels(tmp_path: Path) -> None:
    # tile_px sets how long the rendered tiles are: halves of 24-30 px tiles are blown up to the
    # crop size from a few pixels, so they hold far less fine detail than halves of big tiles
    def detail(out: Path, tile_px: tuple[float, float]) -> float:
        render_halves(out, 40, seed=3, val_frac=0.0, tile_px=tile_px)
        crops = [np.asarray(Image.open(f).convert("L"), np.float32) for f in sorted(out.glob("train/*/*.png"))]
        return float(np.mean([np.abs(np.diff(c, axis=1)).mean() for c in crops]))

    assert detail(tmp_path / "small", (24.0, 30.0)) < 0.7 * detail(tmp_path / "big", (150.0, 220.0))


def test_one_set_per_photo_keeps_every_tile_in_that_set(tmp_path: Path) -> None:
    """``set_top``: every photo's tiles come from one double-N set, so a set of photos judges a
    reader of big sets on all their values; without it a set is drawn per photo, and the same
    seed renders as before the option existed."""
    render_dataset(tmp_path / "plain", 3, seed=3, val_frac=0.34)
    render_dataset(tmp_path / "again", 3, seed=3, val_frac=0.34, set_top=0)
    for img in sorted((tmp_path / "plain" / "images").glob("*/*.jpg")):
        assert img.read_bytes() == (tmp_path / "again" / img.relative_to(tmp_path / "plain")).read_bytes()
    render_dataset(tmp_path / "d18", 8, seed=3, val_frac=0.25, set_top=18)  # max_value raised to 18
    values = [v for js in (tmp_path / "d18" / "tiles").glob("*/*.json")
              for t in json.loads(js.read_text()) for v in (t["a"], t["b"])]
    assert max(values) <= 18 and sum(v > 12 for v in values) > len(values) / 5
    render_dataset(tmp_path / "d15", 6, seed=3, val_frac=0.34, max_value=18, set_top=15)
    values = [v for js in (tmp_path / "d15" / "tiles").glob("*/*.json")
              for t in json.loads(js.read_text()) for v in (t["a"], t["b"])]
    assert max(values) == 15


def test_blanks_and_back_labels_options(tmp_path: Path) -> None:
    """``blanks`` gives many tiles a blank half (some 0-0) from its own stream, so the scene is
    otherwise its plain twin; ``back_labels`` adds the flat face-down tiles as BACK labels; the
    half-crop set with ``backs`` writes their halves as class x."""
    from chickenfoot.vision.lab.datasets.render import BACK

    for seed in range(6):
        plain_img, plain = _scene(seed, width=320, height=240)
        _img, blank = _scene(seed, width=320, height=240, blanks=1.0)
        assert [t.quad for t in blank] == [t.quad for t in plain]  # same layout, same boxes
        assert all(0 in (t.a, t.b) for t in blank)
        again_img, again = _scene(seed, width=320, height=240)
        assert again_img.tobytes() == plain_img.tobytes() and again == plain
    backs = [t for seed in range(12) for t in _scene(seed, width=320, height=240, hard_cases=True,
                                                     back_labels=True)[1] if t.a == BACK]
    assert backs and all(t.b == BACK for t in backs)
    st = render_halves(tmp_path / "h", 200, seed=3, crop_size=64, pad=0.06, max_value=12, val_frac=0.2,
                       blanks=0.5, backs=0.5)
    files = list((tmp_path / "h").glob("*/*/*.png"))
    assert len(files) == st["halves"] and any(f.parent.name == "x" for f in files)
    zeros = sum(f.parent.name == "0" for f in files) / len(files)
    assert zeros > 2 / 13  # well over the uniform share of blank halves


def test_faces_option_changes_only_its_own_datasets_and_is_deterministic(tmp_path: Path) -> None:
    render_dataset(tmp_path / "plain", 4, seed=3, val_frac=0.25)
    render_dataset(tmp_path / "plain2", 4, seed=3, val_frac=0.25, faces=False, blanks=0.0)
    render_dataset(tmp_path / "faces", 4, seed=3, val_frac=0.25, faces=True, blanks=0.35)
    render_dataset(tmp_path / "faces2", 4, seed=3, val_frac=0.25, faces=True, blanks=0.35)
    differ = 0
    for img in sorted((tmp_path / "plain" / "images").glob("*/*.jpg")):
        rel = img.relative_to(tmp_path / "plain")
        assert img.read_bytes() == (tmp_path / "plain2" / rel).read_bytes()
        assert (tmp_path / "faces" / rel).read_bytes() == (tmp_path / "faces2" / rel).read_bytes()
        differ += img.read_bytes() != (tmp_path / "faces" / rel).read_bytes()
    assert differ >= 3


def test_face_style_draws_every_divider_and_value_coloured_palettes() -> None:
    from chickenfoot.vision.lab.datasets.render import _SET_PALETTES, face_style

    kinds, palettes = set(), 0
    for seed in range(80):
        base = make_style(np.random.default_rng([seed, 1]))
        style = face_style(np.random.default_rng([seed, 2]), base)
        kinds.add("groove" if style.groove else "pin" if style.spinner else "line")
        assert not (style.groove and style.spinner)
        if style.pip_colours != base.pip_colours:
            palettes += 1
            assert sum(base.body) > 330  # light bodies only
            # every value keeps its palette's colour (within the noise), so colours differ by value
            pal = min(_SET_PALETTES, key=lambda p: sum(np.abs(np.subtract(style.pip_colours[v], p[v])).sum()
                                                        for v in range(1, 13)))
            assert all(np.abs(np.subtract(style.pip_colours[v], pal[v])).max() <= 45 for v in range(1, 13))
    assert kinds == {"line", "groove", "pin"}
    assert 10 <= palettes <= 60


def test_faces_leave_labelled_tiles_readable() -> None:
    """With grooves, pins and palettes, a blank half stays plainer than a full one."""
    checked, agree = _blank_halves_plainer(faces=True, blanks=0.5)
    assert checked >= 8 and agree / checked >= 0.9


def test_a_resumed_dataset_keeps_finished_images_and_ends_as_a_whole_run(tmp_path: Path) -> None:
    whole = render_dataset(tmp_path / "whole", 5, seed=3, val_frac=0.2, faces=True)
    render_dataset(tmp_path / "part", 5, seed=3, val_frac=0.2, faces=True)
    stopped = tmp_path / "part" / "tiles" / "train" / "3_000002.json"
    stopped.unlink()  # a run stopped before image 2 was finished
    kept = (tmp_path / "part" / "images" / "train" / "3_000001.jpg").stat().st_mtime_ns
    again = render_dataset(tmp_path / "part", 5, seed=3, val_frac=0.2, faces=True, resume=True)
    assert again == whole
    assert (tmp_path / "part" / "images" / "train" / "3_000001.jpg").stat().st_mtime_ns == kept
    for img in sorted((tmp_path / "whole").glob("*/*/*.*")):
        assert img.read_bytes() == (tmp_path / "part" / img.relative_to(tmp_path / "whole")).read_bytes()


def test_dataset_rendered_in_several_processes_is_the_same_files(tmp_path: Path) -> None:
    from chickenfoot.vision.lab.datasets.table import table_scene

    one = render_dataset(tmp_path / "one", 9, seed=7, val_frac=0.2, turned=0.5, tables=0.3, table_scene=table_scene)
    three = render_dataset(tmp_path / "three", 9, seed=7, val_frac=0.2, turned=0.5, tables=0.3,
                           table_scene=table_scene, jobs=3)
    assert one == three and one["images"] == 9
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file()
                   and p.name != "data.yaml")
    assert len(files) == 27  # an image, its label lines and its tiles for each of 9
    for rel in files:
        assert (tmp_path / "one" / rel).read_bytes() == (tmp_path / "three" / rel).read_bytes(), rel
    with pytest.raises(ValueError, match="jobs"):
        render_dataset(tmp_path / "none", 2, seed=7, jobs=0)
