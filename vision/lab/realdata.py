"""The labelled real photos in ``../shared/realdata``, each with how its labels are scored (see
each folder's MANIFEST.md)."""

from __future__ import annotations

import csv
import math
import os
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from chickenfoot.rules import Tile
from chickenfoot.vision.geometry import OrientedBox


def realdata_root() -> Path:
    """The labelled real photos: ``$CHICKENFOOT_REALDATA`` if set, else ``shared/realdata``
    beside the checkout."""
    given = os.environ.get("CHICKENFOOT_REALDATA")
    return Path(given) if given else Path(__file__).resolve().parents[3] / "shared" / "realdata"


@dataclass
class Sample:
    """One labelled image and how to score it."""

    source: str
    path: Path
    kind: str  # "boxes-oriented" | "boxes-aabb" | "list" | "poses" | "tile-crop" | "tile-crop-loose"
    tiles: list[tuple[int, int]] = field(default_factory=list)  # true halves per tile
    boxes: list[Any] = field(default_factory=list)  # OrientedBox or (x0, y0, x1, y1)
    poses: list[tuple[str, tuple[float, float, float, float]]] = field(default_factory=list)
    play_area: bool = False  # JackRoache webcam frame: score only the play area
    rel: str = ""  # path relative to the realdata folder (for exclusions)
    #: The labelled part of the photo where labels cover only part of it (Ruxi12: the playing
    #: grid's corners, clockwise from top left, in the photo's pixels); None: the whole photo.
    grid: tuple[tuple[float, float], ...] | None = None

    @property
    def sets(self) -> int:
        """The sets in play, as a table would tell the reader: the most copies of one labelled
        tile; 0 (no limit) where the labels cover only part of the photo."""
        return 0 if self.grid is not None else sets_in(self.tiles)

    def labelled_part(self, size: tuple[int, int]) -> Callable[[OrientedBox], bool] | None:
        """Whether a find (its box in the pixels of a photo of ``size``) lies in the part of
        the photo the labels cover; None where they cover all of it."""
        if self.grid is not None:
            grid = self.grid
            return lambda box: in_grid(box, grid)
        if self.play_area:
            return lambda box: in_play_area(box, size)
        return None


def sets_in(tiles: Iterable[tuple[int, int]]) -> int:
    """How many sets these tiles come from: the most copies of one tile (at least 1)."""
    return max(Counter(tuple(sorted(t)) for t in tiles).values(), default=1)


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _tiles(text: str) -> list[tuple[int, int]]:
    out = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        t = Tile.parse(part)
        out.append((t.low, t.high))
    return out


def real_samples(root: Path) -> Iterator[Sample]:
    """Every labelled real image, per folder format."""
    yield from _ruxi12(root / RUXI12)
    for folder in ("JackRoache__METR4202-2016", "danb-dev-ui__DominoCounter"):
        base = root / folder
        if not (base / "labels_tiles.csv").exists():
            continue
        for row in _csv(base / "labels_tiles.csv"):
            yield Sample(folder, base / row["file"], "list", _tiles(row["tiles"]),
                         play_area="play-area tiles only" in row.get("uncertain_tiles", ""),
                         rel=f"{folder}/{row['file']}")

    base = root / "TAK1EDD1NE__domino-tile-recognition"
    if (base / "boxes_tiles.csv").exists():
        by_file: dict[str, dict[int, str]] = {}
        for row in _csv(base / "boxes_tiles.csv"):
            by_file.setdefault(row["file"], {})[int(row["label_line"])] = row["tile"]
        for file, tiles in sorted(by_file.items()):
            img = base / file
            label = img.parent.parent / "labels" / (img.stem + ".txt")
            with Image.open(img) as im:
                w, h = im.size
            lines = [ln.split() for ln in label.read_text().splitlines() if ln.strip()]
            gt, boxes = [], []
            for k, parts in enumerate(lines):
                cx, cy, bw, bh = (float(x) for x in parts[1:5])
                t = Tile.parse(tiles[k])
                gt.append((t.low, t.high))
                boxes.append(((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h))
            yield Sample(base.name, img, "boxes-aabb", gt, boxes, rel=f"{base.name}/{file}")

    base = root / "jeremyarde__domino-counter"
    if (base / "tiles_from_halves.csv").exists():
        per: dict[str, list[dict[str, str]]] = {}
        for row in _csv(base / "tiles_from_halves.csv"):
            per.setdefault(row["image"], []).append(row)
        for image, rows in sorted(per.items()):
            gt = [(int(r["a_read"]), int(r["b_read"])) for r in rows]
            boxes = [tuple(float(r[k]) for k in ("x0", "y0", "x1", "y1")) for r in rows]
            yield Sample(base.name, base / "labelbox_photos" / image, "boxes-aabb", gt, boxes,
                         rel=f"{base.name}/labelbox_photos/{image}")
        for row in _csv(base / "tile_crops" / "labels.csv"):
            if row.get("usable", "1") != "1":
                continue
            yield Sample(f"{base.name} tile crops", base / "tile_crops" / row["file"], "tile-crop",
                         [(int(row["a_top"]), int(row["b_bottom"]))],
                         rel=f"{base.name}/tile_crops/{row['file']}")

    base = root / "Funallingus__METR4202_PROJECT_REPOSITORY"
    if (base / "labels_tiles.csv").exists():
        for row in _csv(base / "labels_tiles.csv"):
            yield Sample(f"{base.name} tile crops", base / row["file"], "tile-crop-loose",
                         _tiles(row["tiles"]), rel=f"{base.name}/{row['file']}")

    base = root / "karthikVenkataramana__Domino-Detection" / "images_classes"
    for xml in sorted(base.glob("*/*.xml")) if base.exists() else []:
        tree = ET.parse(xml).getroot()
        poses = []
        for obj in tree.iter("object"):
            bb = obj.find("bndbox")
            if bb is None:
                continue
            box = tuple(float(bb.findtext(k, "0")) for k in ("xmin", "ymin", "xmax", "ymax"))
            poses.append((obj.findtext("name", "").strip(), box))
        img = xml.with_suffix(".jpg")
        if img.exists():
            yield Sample("karthikVenkataramana__Domino-Detection", img, "poses", poses=poses,
                         rel=str(img.relative_to(root)))


RUXI12 = "Ruxi12__Double-Double-Domino"
#: How far outside its playing grid a find's centre may lie and still be scored as on the grid:
#: half a cell (a grid is 15 cells). A tile's centre lies at least half a cell inside the grid,
#: and the printed dominoes of the score track more than a cell and a half outside it.
GRID_MARGIN_CELLS = 0.5
GRID_CELLS = 15


def _ruxi12(base: Path) -> Iterator[Sample]:
    """Ruxi12: oriented boxes with which end holds which value (``boxes.csv``), on the playing
    grid only (``grid_corners.csv`` per game; the photo ``photos/G_MM.jpg`` is of game G)."""
    if not (base / "boxes.csv").exists():
        return
    grids = {row["game"]: tuple((float(row[f"{c}_x"]), float(row[f"{c}_y"]))
                                for c in ("top_left", "top_right", "bottom_right", "bottom_left"))
             for row in _csv(base / "grid_corners.csv")}
    per: dict[str, list[dict[str, str]]] = {}
    for row in _csv(base / "labels_tiles.csv"):
        per.setdefault(row["file"], [])
    for row in _csv(base / "boxes.csv"):
        per.setdefault(row["file"], []).append(row)
    for file, rows in sorted(per.items()):
        tiles, boxes = [], []
        for r in rows:
            cx, cy, length, width, deg = (float(r[k]) for k in ("cx", "cy", "length", "width", "angle_deg"))
            box = OrientedBox(cx, cy, length, width, math.radians(deg))
            u, _ = box.axes()
            # half A lies at the box's -length/2 end: the end whose centre is behind the middle
            end_1_first = (float(r["end_1_x"]) - box.cx) * u[0] + (float(r["end_1_y"]) - box.cy) * u[1] < 0
            p1, p2 = int(r["pips_1"]), int(r["pips_2"])
            tiles.append((p1, p2) if end_1_first else (p2, p1))
            boxes.append(box)
        game = Path(file).stem.split("_")[0]
        yield Sample(base.name, base / file, "boxes-oriented", tiles, boxes, rel=f"{base.name}/{file}",
                     grid=grids[game])


def in_grid(box: OrientedBox, grid: tuple[tuple[float, float], ...],
            margin_cells: float = GRID_MARGIN_CELLS) -> bool:
    """Whether a find's centre lies on the playing grid ``grid`` (four corners, in order),
    widened by ``margin_cells`` of its cells on every side."""
    pts = [complex(x, y) for x, y in grid]
    centre = sum(pts) / len(pts)
    side = sum(abs(pts[k] - pts[k - 1]) for k in range(len(pts))) / len(pts)
    margin = margin_cells * side / GRID_CELLS
    p = complex(box.cx, box.cy)
    for k in range(len(pts)):
        a, b = pts[k - 1], pts[k]
        edge = b - a
        # the signed distance of p from edge a->b, positive towards the grid's centre
        inward = ((centre - a) / edge).imag > 0
        dist = ((p - a) / edge).imag * abs(edge)
        if (dist if inward else -dist) < -margin:
            return False
    return True


def source_of(rel: str) -> str:
    """The source folder of a path relative to the realdata folder."""
    return rel.split("/", 1)[0]


def half_crop_samples(root: Path) -> list[tuple[Path, int, str]]:
    base = root / "jeremyarde__domino-counter" / "half_crops"
    if not (base / "labels.csv").exists():
        return []
    return [(base / r["file"], int(r["pips"]), f"{base.relative_to(root)}/{r['file']}")
            for r in _csv(base / "labels.csv")]


def in_play_area(box: OrientedBox, size: tuple[int, int]) -> bool:
    """JackRoache webcam frames: the labelled play area (MANIFEST: the tin sits top-centre at
    ~18-25% of the height, loose unread tiles at the far right edge up to ~50%)."""
    x, y = box.cx / size[0], box.cy / size[1]
    return y >= 0.47 and not (x > 0.66 and y < 0.52)


