"""Photos of a Chicken Foot table with the layout they show, for judging photo -> layout reading.

A round is played by the rules core's seeded bots and stopped after some plays; its layout is
then laid out as players lay it: the round's double in the middle, its spokes fanned three to a
side ("double chicken foot") or as a plus sign, lines running straight out and turning a corner
when they reach something, each later double crosswise with its toes fanned away from the
centre. A tile that finds no room is left off the photo with every tile played on it, so the
returned truth is exactly the table in the picture (the tiles and what each one is played on).

``python -m chickenfoot.vision.lab.datasets.table --out DIR --count N --seed S`` writes photos and truth files; the
drawing is :func:`chickenfoot.vision.lab.datasets.render.render_scene`'s, so these photos look like its others.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from chickenfoot.rules.bots import make_bot
from chickenfoot.rules.engine import new_round, play_out
from chickenfoot.rules.layout import Layout
from chickenfoot.rules.layout import Placement as Play
from chickenfoot.rules.ruleset import PRESETS, RuleSet, get_rules
from chickenfoot.rules.tiles import Tile
from chickenfoot.vision.lab.datasets.render import (
    Placement,
    SceneConfig,
    TileLabel,
    _Board,
    _try_place,
    render_scene,
)

#: Tile length over the photo's long side in training photos of tables: as big as the reader's
#: table zoom (``table_fine_trigger_px``) makes the tiles of a whole-table photo.
TRAIN_TILE_FRAC = (0.09, 0.22)
#: How far a fanned spoke or toe turns from straight out, at the outside of the fan (radians).
FAN_TURN = 0.75


def round_layout(rules: RuleSet, players: int, seed: int, plays: int | None = None) -> Layout:
    """The table after the first ``plays`` plays of a round the greedy bots play (all: the round's
    end). Seeded: the same arguments give the same table."""
    rng = random.Random(seed)
    k = rng.randrange(len(rules.round_doubles(players)))
    state = play_out(new_round(rules, players, k, rng),
                     [make_bot("greedy", random.Random(seed * 31 + s)) for s in range(players)])
    full = state.layout()
    n = len(full.plays) if plays is None else min(plays, len(full.plays))
    return Layout(full.hub, full.plays[:n], rules=rules.name, set=full.set, ordered=True)


def part_played(rng: np.random.Generator, rules: str | None = None,
                players: int | None = None) -> tuple[RuleSet, Layout]:
    """A preset, a player count and a round drawn from ``rng`` (unless given), and the table
    after a random number of its plays (at least one when it has any)."""
    rs = get_rules(rules or str(rng.choice(sorted(PRESETS))))
    n = players or int(rng.integers(rs.min_players, rs.max_players + 1))
    full = round_layout(rs, n, int(rng.integers(2**31)))
    k = int(rng.integers(1, len(full.plays) + 1)) if full.plays else 0
    return rs, Layout(full.hub, full.plays[:k], rules=rs.name, set=full.set, ordered=True)


def fan(start: np.ndarray, phi: float, side: float, n: int) -> list[tuple[np.ndarray, float, bool]]:
    """``n`` places along a tile side of length ``side`` centred on ``start``, facing ``phi``:
    the middle one straight out, the outer ones nearer the corners and turned away."""
    d = np.array([math.cos(phi), math.sin(phi)])
    perp = np.array([-d[1], d[0]])
    out = []
    for i in range(n):
        t = (i - (n - 1) / 2) / ((n - 1) / 2) if n > 1 else 0.0
        out.append((start + perp * t * side * 0.42, phi + t * FAN_TURN, True))
    return out


@dataclass
class TablePlacer:
    """Lays ``layout`` out on a render board (a ``render_scene`` placer); afterwards ``kept``
    holds the plays that made it onto the photo, in play order."""

    layout: Layout
    spokes: int
    toes: int
    kept: list[Play] = field(default_factory=list)
    max_tiles: int = 60
    #: Largest gap left between touching tiles (in tile lengths) and largest spread of a tile's
    #: angle from square (radians); each table draws its own up to these.
    max_gap: float = 0.04
    max_jitter: float = 0.05
    hub_placed: bool = False

    def __call__(self, rng: np.random.Generator, board: _Board, centre: np.ndarray,
                 ln: float, wd: float) -> list[Placement]:
        out: list[Placement] = []
        theta = rng.uniform(0, 2 * math.pi)
        # the photo is of the table, so its middle is near the hub
        centre = board.region.mean(axis=0) + (centre - board.region.mean(axis=0)) * 0.3
        hub = self.layout.hub
        if not _try_place(board, out, centre[0], centre[1], theta, ln, wd):
            return out
        self.hub_placed = True
        out[-1].a = out[-1].b = hub.low
        out[-1].valued = True
        u = np.array([math.cos(theta), math.sin(theta)])
        v = np.array([-u[1], u[0]])
        if self.spokes == 4:  # a plus sign: one off each side and each end
            slots = [(centre + v * wd / 2, theta + math.pi / 2, False), (centre - v * wd / 2, theta - math.pi / 2, False),
                     (centre + u * ln / 2, theta, False), (centre - u * ln / 2, theta + math.pi, False)]
        else:  # three to a side (one side only for three spokes)
            slots = fan(centre + v * wd / 2, theta + math.pi / 2, ln, 3)
            if self.spokes > 3:
                slots += fan(centre - v * wd / 2, theta - math.pi / 2, ln, self.spokes - 3)
        places: dict[Tile, list[tuple[np.ndarray, float, bool]]] = {hub: slots}
        open_value: dict[Tile, int] = {hub: hub.low}
        gap = ln * rng.uniform(0.0, self.max_gap)
        jitter = rng.uniform(0.0, self.max_jitter)
        for p in self.layout.plays:
            if len(out) >= self.max_tiles:
                break
            free_places = places.get(p.on)
            if not free_places or not p.tile.has(open_value[p.on]):
                continue
            start, phi, fanned = free_places.pop(0)
            v_in = open_value[p.on]
            v_out = p.tile.other(v_in)
            placed = self._lay(rng, board, out, p.tile, start, phi, phi + rng.normal(0.0, jitter), fanned,
                               ln, wd, gap, v_in, v_out, places)
            if not placed:
                continue
            open_value[p.tile] = v_out
            self.kept.append(p)
        return out

    def _lay(self, rng: np.random.Generator, board: _Board, out: list[Placement], tile: Tile,
             start: np.ndarray, square: float, phi: float, fanned: bool, ln: float, wd: float, gap: float,
             v_in: int, v_out: int, places: dict[Tile, list[tuple[np.ndarray, float, bool]]]) -> bool:
        double = tile.is_double
        d = np.array([math.cos(phi), math.sin(phi)])
        perp = np.array([-d[1], d[0]])
        # (inner end, heading, crosswise): where a player puts the tile when the first place is
        # taken: a double slid along its line or laid lengthwise; a line bent a little or turned
        # at the corner of the tile it is played on.
        tries: list[tuple[np.ndarray, float, bool]] = [(start, phi, double)]
        if double:
            tries += [(start + perp * k * ln * 0.3, phi, True) for k in rng.permutation([1.0, -1.0])]
            tries.append((start, phi, False))
        elif not fanned:
            tries += [(start, phi + k * 0.35, False) for k in rng.permutation([1.0, -1.0])]
            for turn in rng.permutation([1.0, -1.0]):
                new = phi + turn * math.pi / 2
                side = np.array([math.cos(new), math.sin(new)])
                tries.append((start - d * wd / 2 + side * wd / 2, new, False))
        for k, (s, ang, across) in enumerate(tries):
            e = np.array([math.cos(ang), math.sin(ang)])
            turned = k >= 3 and not double  # laid along the side: nothing to clear
            for extra in ((0.0, 0.1, 0.2, 0.3, 0.45, 0.6) if fanned else (0.0,)):
                # a tile turned from square to the end it meets would dig a corner into it
                clear = 1.0 if turned else abs(math.sin(ang - square)) * (ln if across else wd) / 2 + 1.0
                reach = (wd / 2 if across else ln / 2) + gap + clear + extra * wd
                c = s + e * reach
                tile_ang = ang + math.pi / 2 if across else ang
                if double and rng.random() < 0.5:
                    tile_ang += math.pi  # a double reads the same either way round
                if not _try_place(board, out, c[0], c[1], tile_ang, ln, wd):
                    continue
                out[-1].a, out[-1].b = v_in, v_out  # half a faces the tile it is played on
                out[-1].valued = True
                far = c + e * (wd / 2 if across else ln / 2)
                places[tile] = fan(far, ang, ln if across else wd * 1.6, self.toes) if double else [(far, ang, False)]
                return True
        return False


@dataclass(frozen=True)
class TableScene:
    """A rendered table: the photo's face-up tiles and the layout they make."""

    labels: tuple[TileLabel, ...]
    truth: Layout
    spokes: int
    toes: int

    def to_json(self) -> dict[str, object]:
        return {"layout": self.truth.to_dict(), "tiles": [t.to_json() for t in self.labels]}


def render_table(seed: int, width: int = 1280, height: int = 960, rules: str | None = None,
                 players: int | None = None, max_gap: float = 0.04,
                 max_jitter: float = 0.05) -> tuple[object, TableScene]:
    """One table photo from ``seed``: preset, players and how far the round has gone are drawn
    from it unless given. ``max_gap``, ``max_jitter``: how loosely the tiles are laid (see
    :class:`TablePlacer`)."""
    for attempt in range(20):  # clutter can take the middle of the table: draw the scene again
        rng = np.random.default_rng([seed, 7177, attempt])
        rs, layout = part_played(rng, rules, players)
        placer = TablePlacer(layout, rs.spokes, rs.toes, max_gap=max_gap, max_jitter=max_jitter)
        # tiles as big as the table in the frame allows: a long round is photographed from further
        k = len(layout.plays)
        hi = 0.09 if k < 15 else 0.07 if k < 30 else 0.055
        cfg = SceneConfig(width=width, height=height, tile_frac=(hi * 0.75, hi), max_value=max(12, layout.set or 12),
                          pip_contrast=100.0)
        img, labels = render_scene(rng, cfg, placer=placer)
        if placer.hub_placed:
            break
    truth = Layout(layout.hub, tuple(placer.kept), rules=rs.name, set=layout.set, ordered=False)
    return img, TableScene(tuple(labels), truth, rs.spokes, rs.toes)


def table_scene(rng: np.random.Generator, cfg: SceneConfig) -> tuple[object, list[TileLabel]]:
    """A training photo of a table (``tables`` in a detector pass, ``render_dataset(tables=F,
    table_scene=table_scene)``): a round of a preset drawn
    from ``rng`` stopped part way and laid out, with tiles as big as ``cfg`` makes them (a
    table bigger than the frame shows part of itself), the rest of ``cfg`` as for any scene."""
    rs, layout = part_played(rng)
    cfg = replace(cfg, max_value=max(cfg.max_value, layout.set or 12), tile_frac=TRAIN_TILE_FRAC)
    placer = TablePlacer(layout, rs.spokes, rs.toes, max_gap=float(rng.uniform(0.04, 0.2)),
                         max_jitter=float(rng.uniform(0.05, 0.12)))
    return render_scene(rng, cfg, placer=placer)


def write_tables(out: Path, count: int, seed: int, rules: str | None = None, max_gap: float = 0.04,
                 max_jitter: float = 0.05) -> dict[str, int]:
    """``count`` table photos (``table_<seed>_<i>.jpg``) with their truth (``.json``: the layout
    and every face-up tile)."""
    out.mkdir(parents=True, exist_ok=True)
    tiles = 0
    for i in range(count):
        img, scene = render_table(seed * 100_000 + i, rules=rules, max_gap=max_gap, max_jitter=max_jitter)
        name = f"table_{seed}_{i:05d}"
        img.save(out / f"{name}.jpg", quality=90)  # type: ignore[attr-defined]
        (out / f"{name}.json").write_text(json.dumps(scene.to_json()))
        tiles += len(scene.labels)
    return {"images": count, "tiles": tiles}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.datasets.table", description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rules", choices=sorted(PRESETS), help="one preset for every photo (default: drawn per photo)")
    ap.add_argument("--max-gap", type=float, default=0.04, metavar="F",
                    help="widest gap between touching tiles, in tile lengths (default %(default)s)")
    ap.add_argument("--max-jitter", type=float, default=0.05, metavar="RAD",
                    help="widest turn of a tile from square, in radians (default %(default)s)")
    args = ap.parse_args(argv)
    t0 = time.time()
    stats = write_tables(args.out, args.count, args.seed, args.rules, args.max_gap, args.max_jitter)
    print(json.dumps({**stats, "seconds": round(time.time() - t0, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
