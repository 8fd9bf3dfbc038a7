"""The dispute checker's state: the table as it lies, built tap by tap, loaded from a file or
read from a photo of the table.

Every judgement comes from the rules core (:func:`check_layout`, :meth:`Report.judge`); this
object only keeps the layout being described, which open end is selected, and the last answer.
A photo is read by :mod:`chickenfoot.vision` (:func:`chickenfoot.vision.table.read_table` turns the reader's tiles into a
layout); the builder keeps that reading so the screen can show the photo with the layout drawn.

Taking tiles back. A photo (or a layout file with ``"ordered": false``) does not say in which
order the tiles were played, so "the last tile" means nothing there: :meth:`DisputeBuilder.undo`
takes back only tiles added by hand since, newest first, and refuses (with a reason) once only
the photo's tiles are left, rather than silently dropping whichever photo tile happens to be
listed last. A photo tile is fixed by name instead: :meth:`~DisputeBuilder.correct` (a misread:
same place, other tile) or :meth:`~DisputeBuilder.remove` (a tile that is not in play; only
one with nothing played on it). Tiles added after a photo keep the layout unordered, so the
rules core keeps to its order-free checks.
"""

from __future__ import annotations

import io
import statistics
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from chickenfoot.board.scene import LIGHT, Palette
from chickenfoot.rules import PRESETS, RuleSet, Tile, get_rules
from chickenfoot.rules.errors import InputError
from chickenfoot.rules.layout import (
    END_TAKEN,
    FOOT_INCOMPLETE,
    HUB_INCOMPLETE,
    NO_MATCH,
    Layout,
    OpenEnd,
    Report,
    Verdict,
    check_layout,
    resolve_rules,
)
from chickenfoot.rules.ruleset import changed_options
from chickenfoot.rules.tiles import check_in_set

if TYPE_CHECKING:
    from PIL import Image

    from chickenfoot.board import Picture
    from chickenfoot.vision.table import TableReading

#: Longest table text a device keeps and gives back (characters): a whole double-18 table is
#: under 20,000.
KEPT_MAX = 64_000
#: Longest side of the annotated photo the screen shows (pixels).
PHOTO_MAX_SIDE = 1024
#: Table shown round the tiles read, in the longest tile's lengths (see DisputeBuilder.photo_crop).
PHOTO_CROP_PAD = 0.6
#: The labels on the photo are drawn this many pixels tall on a phone, where the photo is shown
#: PHONE_PHOTO_WIDTH pixels wide (a 360 px screen less its padding).
PHOTO_LABEL_PX = 13.0
PHONE_PHOTO_WIDTH = 332.0


#: Verdicts of a tile that can still lie where it was asked about (it shows the number there):
#: "it is on the table anyway" keeps it, a problem of the table.
FORCEABLE = frozenset({END_TAKEN, HUB_INCOMPLETE, FOOT_INCOMPLETE})


class DisputeError(InputError):
    """A dispute-builder action that cannot be done (no open end chosen, no hub yet)."""


@dataclass(frozen=True, slots=True)
class TableNeeds:
    """What the table still needs, in words."""

    spokes_needed: int
    open_foot: Tile | None
    toes_needed: int

    def sentences(self, hub: Tile) -> list[str]:
        out = []
        if self.spokes_needed:
            out.append(f"The {hub} still needs {self.spokes_needed} spoke"
                       f"{'s' if self.spokes_needed != 1 else ''} before anything else.")
        if self.open_foot is not None:
            # a wrong table can have a foot open while the hub is short: the hub comes first
            after = "; it comes after the hub's spokes" if self.spokes_needed else "; every play must go there"
            out.append(f"Open foot: the {self.open_foot} needs {self.toes_needed} more toe"
                       f"{'s' if self.toes_needed != 1 else ''}{after}.")
        if not out:
            out.append("The hub has its spokes and no foot is open: any matching open end is fine.")
        return out


@dataclass
class TablePhoto:
    """A photo the table was read from: what the reader saw and how it became the layout."""

    name: str
    table: TableReading
    #: The decoded photo (upright, at the reader's working size) to draw the layout on.
    image: Image.Image = field(repr=False)
    #: Tiles corrected by hand since: the tile now on the table -> the tile as read.
    renamed: dict[Tile, Tile] = field(default_factory=dict)
    #: Tiles taken off the table by hand since (as they were on the table then).
    removed: list[Tile] = field(default_factory=list)
    _jpeg: tuple[Any, bytes] | None = field(default=None, repr=False)

    @property
    def tiles_read(self) -> int:
        return len(self.table.reading.tiles)

    def read_as(self, tile: Tile) -> Tile:
        return self.renamed.get(tile, tile)


class DisputeBuilder:
    def __init__(self, preset: str = "double-chicken-foot", top: int = 9, hub: int | None = None) -> None:
        self.preset = preset
        self.top = top
        self.layout: Layout | None = None
        self.selected: Tile | None = None  # the open end (its tile) the next tile goes on
        self.last: Verdict | None = None
        #: The hub the player named (chose, or a loaded file's): a photo is read around it.
        #: None when the hub was guessed from a photo, so the next photo guesses afresh.
        self.named_hub: Tile | None = None
        #: The photo the table was read from, while the table is still that photo's.
        self.photo: TablePhoto | None = None
        #: How many plays (the first ones) came from a photo or an unordered file: ``undo`` does
        #: not take those back (their order is unknown); ``correct``/``remove`` fix them by name.
        self.fixed = 0
        #: A match's own rules (its options included), used while ``preset`` is theirs.
        self.match_rules: RuleSet | None = None
        self._picture: tuple[Any, Picture] | None = None
        self._png: tuple[Picture, bytes] | None = None
        #: The colours the board is drawn in (the screen's theme: see ``App.board_palette``).
        self.palette: Palette = LIGHT
        if hub is not None:
            self.start(hub)

    @classmethod
    def for_round(cls, rules: RuleSet, top: int, hub: int) -> DisputeBuilder:
        """A table for a round of a match: its rules with their options, its set, its double."""
        b = cls(rules.name, top, hub)
        b.match_rules = rules
        return b

    @property
    def rules(self) -> RuleSet:
        if self.match_rules is not None and self.match_rules.name == self.preset:
            return self.match_rules
        return get_rules(self.preset)

    def set_rules(self, preset: str, top: int | None = None) -> None:
        """Judge by ``preset`` (and the double-``top`` set, if given). Rules that play one set
        (Chickie Sixes: double-6) bring it, unless ``top`` is given; a table with tiles that
        set does not hold keeps its rules, with the reason."""
        if preset not in PRESETS:
            raise DisputeError(f"unknown rules preset {preset!r}")
        fixed = get_rules(preset).set
        if top is None and fixed is not None and fixed != self.top:
            lay = self.layout
            outside = [] if lay is None else [t for t in lay.tiles() if not t.in_set(fixed)]
            if outside:
                raise DisputeError(
                    f"{PRESETS[preset].title} is played with a double-{fixed} set, and the "
                    f"{', '.join(map(str, outside[:3]))}{' ...' if len(outside) > 3 else ''} on this table "
                    f"{'is' if len(outside) == 1 else 'are'} not in it: start a new table for it")
            top = fixed
        self.preset = preset
        if top is not None:
            self.top = top
        if self.layout is not None:
            self.layout = Layout(self.layout.hub, self.layout.plays, preset, self.top, self.layout.ordered)
        self.last = None

    def start(self, hub: int) -> None:
        """Begin a new table with the double ``hub`` in the centre."""
        if not 0 <= hub <= self.top:
            raise DisputeError(f"the hub must be a double from 0-0 to {self.top}-{self.top}")
        self.layout = Layout.build(Tile(hub, hub), rules=self.preset, set=self.top)
        self.named_hub = Tile(hub, hub)
        self.photo, self.fixed = None, 0
        self.selected, self.last = None, None

    def clear(self) -> None:
        """No table at all (a new one is started, loaded or read next)."""
        self.layout, self.named_hub, self.photo, self.fixed = None, None, None, 0
        self.selected, self.last = None, None

    def load(self, text: str, source: str = "layout file") -> None:
        lay = Layout.from_json(text, source)
        if lay.rules is not None and lay.rules not in PRESETS:
            raise DisputeError(f"{source}: unknown rules preset {lay.rules!r}")
        self.preset = lay.rules or self.preset
        if lay.options:  # the file's own options (spokes=4, ...) come with its preset
            self.match_rules = resolve_rules(lay)
        rep = check_layout(lay, self.rules)
        self.top = rep.set
        self.layout = Layout(lay.hub, lay.plays, self.preset, self.top, lay.ordered)
        self.named_hub = lay.hub
        self.photo, self.fixed = None, 0 if lay.ordered else len(lay.plays)
        self.selected, self.last = None, None

    def read_photo(self, data: bytes, reader: Any, name: str = "photo") -> TableReading:
        """Read the table from a photo (encoded bytes) with ``reader`` (a :class:`chickenfoot.vision.reader.Reader`)
        and hold that layout, unordered. The hub is the one the player named, if any (else
        guessed from the photo); the rules and set are the builder's. Slow (the reader runs):
        call it from a worker thread. A file that is not a usable image (ImageError), a photo
        with no double (TableError) or no reader (ModelError) raises, and the table held
        before stays as it was."""
        from chickenfoot.vision.images import load_image
        from chickenfoot.vision.table import read_table_photo

        preset, top, hub = self.preset, self.top, self.named_hub
        rules = self.rules
        loaded = load_image(data, reader.config.decode_max_side, name=name)
        table = read_table_photo(reader, loaded, rules, top, hub=hub, set=top)
        lay = Layout(table.layout.hub, table.layout.plays, preset, top, ordered=False)
        check_layout(lay, rules)  # anything the rules core cannot take fails here, not later
        # Only now, with everything read, does the table change.
        self.layout = lay
        self.photo = TablePhoto(name, table, loaded.image)
        self.fixed = len(lay.plays)
        self.selected, self.last = None, None
        return table

    def to_json(self) -> str:
        """The layout file, with the options of its rules that differ from the preset's."""
        lay = self._layout()
        return replace(lay, options=tuple(changed_options(self.rules).items())).to_json()

    def kept(self) -> str:
        """The table as a device keeps it between sessions ("" for none): its layout file (rules,
        options, set, whether its order is known), without the photo or the question asked."""
        return "" if self.layout is None else self.to_json()

    def restore(self, text: Any) -> bool:
        """Bring back a table :meth:`kept` on the device, when none is laid here. What comes back
        from a device is read as any layout file from outside is; anything else is left unread
        (False)."""
        if self.layout is not None or not isinstance(text, str) or not text or len(text) > KEPT_MAX:
            return False
        try:
            self.load(text, "the table kept on this device")
        except InputError:
            return False
        return True

    # --------------------------------------------------------------- reading
    def _layout(self) -> Layout:
        if self.layout is None:
            raise DisputeError("choose the starting double (the hub) first")
        return self.layout

    def report(self) -> Report:
        return check_layout(self._layout(), self.rules)

    def open_ends(self) -> list[OpenEnd]:
        return self.report().open_ends()

    def needs(self) -> TableNeeds:
        rep = self.report()
        short = rep.table.short
        foot = rep.open_foot
        return TableNeeds(short.get(rep.table.hub, 0), foot, short.get(foot, 0) if foot else 0)

    def problems(self) -> list[str]:
        """The rules core's problems with the table, each said once, each naming its tile ("7-8
        on the 9-4: the 9-9 still needs 5 more spokes ...") unless its sentence starts with it."""
        rep = self.report()
        show = rep.table.show
        out = []
        for p in rep.problems:
            said = p.message
            if p.tile is not None and p.on is not None and not said.startswith((str(p.tile), show(p.tile))):
                said = f"{show(p.tile)} on the {show(p.on)}: {said[0].lower()}{said[1:]}"
            out.append(said)
        return list(dict.fromkeys(out))

    def photo_notes(self) -> list[str]:
        """What the player should check on the photo: the table reading's warnings (hub guessed
        or not found, unsure tiles, tiles left out, tiles found by looking again), tiles outside
        the set (misread?) and corrections made by hand since. The reader's own warnings are
        about scoring a hand (possible tiles to count, face-down tiles) and are left out."""
        ph = self.photo
        if ph is None:
            return []
        out = list(ph.table.warnings)
        from chickenfoot.vision.table import set_warning

        odd = set_warning(self.report())
        if odd:
            out.append(odd)
        out += [f"corrected by hand: {new} (read as {old})" for new, old in ph.renamed.items()]
        if ph.removed:
            out.append("removed by hand: " + ", ".join(map(str, ph.removed)))
        # Each said once: the reading and the set check can both name the same tile, and a
        # problem the rules core lists already is not repeated under the photo.
        said = {p.casefold().rstrip(".") for p in self.problems()}
        return [n for n in dict.fromkeys(out) if n.casefold().rstrip(".") not in said]

    def photo_problem_tiles(self) -> list[int]:
        """The photo's tiles (indices into the reading) that the rules core's problems are about."""
        ph = self.photo
        return [] if ph is None else ph.table.problem_tiles(self.report(), ph.read_as)

    def photo_jpeg(self) -> bytes:
        """The photo with the layout read from it drawn on (JPEG: a photo, a fifth of a PNG's
        bytes to send to a phone): joints, the hub, and the tiles the rules core finds a problem
        with in red. Redrawn only when those change."""
        ph = self.photo
        if ph is None:
            raise DisputeError("no photo of the table has been read")
        from chickenfoot.vision.draw import annotate_table
        from chickenfoot.vision.table import verdict_word

        problems = self.photo_problem_tiles()
        verdict = verdict_word(self.report())
        key = (tuple(problems), verdict)
        if ph._jpeg is None or ph._jpeg[0] != key:
            box = self.photo_crop()
            img = annotate_table(ph.image, ph.table, problems, verdict,
                                 font_px=self.photo_label_px(box)).crop(box)
            scale = min(1.0, PHOTO_MAX_SIDE / max(img.size))
            if scale < 1.0:
                img = img.resize((round(img.width * scale), round(img.height * scale)))
            buf = io.BytesIO()
            img.convert("RGB").save(buf, format="JPEG", quality=85)
            ph._jpeg = (key, buf.getvalue())
        return ph._jpeg[1]

    def photo_crop(self) -> tuple[int, int, int, int]:
        """The part of the photo the screen shows (left, top, right, bottom in the photo's
        pixels): the tiles read, with a tile's length of table round them. A phone shows the
        photo a screen wide: cut to the table, the labels drawn on the tiles are drawn large
        enough to read, where the whole photo shrinks them to a few pixels."""
        ph = self.photo
        if ph is None:
            raise DisputeError("no photo of the table has been read")
        w, h = ph.image.size
        tiles = ph.table.tiles
        if not tiles:
            return 0, 0, w, h
        ow, oh = ph.table.reading.image_size
        sx, sy = w / ow, h / oh
        xs = [float(x) * sx for t in tiles for x, _ in t.box.corners()]
        ys = [float(y) * sy for t in tiles for _, y in t.box.corners()]
        pad = PHOTO_CROP_PAD * max(t.box.length for t in tiles) * max(sx, sy)
        left, top = max(0, int(min(xs) - pad)), max(0, int(min(ys) - pad))
        right, bottom = min(w, int(max(xs) + pad + 1)), min(h, int(max(ys) + pad + 1))
        return (left, top, right, bottom) if right - left > 1 and bottom - top > 1 else (0, 0, w, h)

    def photo_label_px(self, box: tuple[int, int, int, int]) -> int | None:
        """The size the photo's labels are drawn at (pixels of the photo) when it is cut to
        ``box``: :data:`PHOTO_LABEL_PX` on a phone, where the cut photo is shown
        :data:`PHONE_PHOTO_WIDTH` wide, but never over half a tile's length (a label stays on
        its own tile: a table spread over the whole photo is zoomed into instead)."""
        ph = self.photo
        if ph is None or not ph.table.tiles:
            return None
        ow, oh = ph.table.reading.image_size
        w, h = ph.image.size
        tile = statistics.median(t.box.length for t in ph.table.tiles) * (w / ow + h / oh) / 2
        return max(1, round(min(PHOTO_LABEL_PX * (box[2] - box[0]) / PHONE_PHOTO_WIDTH, tile / 2)))

    def picture(self) -> Picture:
        """The table drawn as a board (the judged play, if any, in place, in its verdict's
        colour; the verdict's words are the sheet's, under the board, where a board framed on
        the play on a phone never cuts them). Laid out again only when the table or the
        question changes."""
        from chickenfoot import board

        lay = self._layout()
        # The last question, unless its tile has been laid since (then it is on the table).
        last = self.last
        play = None if last is None or last.tile in lay.tiles() else (last.tile, last.on)
        key = (lay, self.rules, self.top, play, self.palette)
        if self._picture is None or self._picture[0] != key:
            self._picture = (key, board.picture(board.from_report(self.report(), play), palette=self.palette,
                                                     caption=False))
        return self._picture[1]

    def board_png(self) -> bytes:
        """:meth:`picture` as PNG bytes (kept with the picture)."""
        pic = self.picture()
        if self._png is None or self._png[0] is not pic:
            self._png = (pic, pic.png())
        return self._png[1]

    def end_at(self, px: float, py: float, reach_px: float = 14.0) -> Tile:
        """The open end (its tile) drawn at image pixel ``(px, py)``; a tap beside every open
        end is refused."""
        mark = self.picture().end_at(px, py, reach_px)
        if mark is None:
            raise DisputeError("that is not an open end: tap a dashed place on the board")
        return mark.end.target

    def lines(self) -> list[str]:
        """The table in words, one play a line, in the order laid."""
        lay = self._layout()
        return [f"{lay.hub} (hub)"] + [f"{p.tile} on {p.on}" for p in lay.plays]

    def tile_choices(self, suit: int) -> list[tuple[Tile, bool]]:
        """The tiles with a ``suit`` half, the other half from highest to 0, each with whether it
        is on the table already (a set has one of each, so it cannot be played again)."""
        if not 0 <= suit <= self.top:
            raise DisputeError(f"there is no suit {suit} in a double-{self.top} set")
        lay = self.layout
        laid = set() if lay is None else {lay.hub, *(p.tile for p in lay.plays)}
        return [(t, t in laid) for o in range(self.top, -1, -1) for t in [Tile(suit, o)]]

    def suit_for(self, shown: int | None) -> int:
        """The suit whose faces the picker shows: ``shown`` (the player's choice) if it is in
        the set, else the number the chosen open end needs, else the set's highest."""
        if shown is not None and 0 <= shown <= self.top:
            return shown
        if self.selected is not None and self.layout is not None:
            value = next((e.value for e in self.open_ends() if e.target == self.selected), None)
            if value is not None and 0 <= value <= self.top:
                return value
        return self.top

    # --------------------------------------------------------------- acting
    def select(self, target: Tile | str) -> None:
        """Choose the open end on ``target``. A tile just judged on another end is judged on
        this one: the verdict shown is always about the end chosen."""
        t = Tile.parse(target)
        if t not in {e.target for e in self.open_ends()}:
            raise DisputeError(f"{t} has no open end to play on")
        self.selected = t
        last = self.last
        if last is not None and last.on != t:
            self.last = None if last.tile in self._layout().tiles() else self.report().judge(last.tile, t)

    def ask(self, tile: Tile | str, on: Tile | str | None = None) -> Verdict:
        """"Can ``tile`` go here?": the rules core's verdict for the selected (or given) end."""
        target = Tile.parse(on) if on is not None else self.selected
        if target is None:
            raise DisputeError("tap an open end first, then ask about a tile")
        if not str(tile).strip():
            raise DisputeError("choose the tile first: tap its face, or type it like 4-7")
        self.last = self.report().judge(Tile.parse(tile), target)
        return self.last

    @property
    def can_force(self) -> bool:
        """Whether the tile last judged not legal can still be laid where it was asked about
        ("it is on the table anyway"): it breaks a rule of turn or room, but it does touch a
        matching number (a tile that shows no such number cannot lie there at all)."""
        v = self.last
        return v is not None and v.code in FORCEABLE and v.tile.has(self.report().table.value.get(v.on, -1))

    def where_can(self, tile: Tile | str) -> list[Verdict]:
        """Every open end ``tile`` could legally go on right now."""
        rep = self.report()
        t = Tile.parse(tile)
        return [v for e in rep.open_ends() if (v := rep.judge(t, e.target)).legal]

    def add(self, tile: Tile | str, on: Tile | str | None = None, *, force: bool = False) -> Verdict:
        """Lay a tile on the selected (or given) end. An illegal play is refused unless
        ``force`` (the table shows it anyway); then it is kept and reported as a problem."""
        verdict = self.ask(tile, on)
        if not verdict.legal and not force:
            return verdict
        if not verdict.legal and not self.can_force:
            if verdict.code in (*FORCEABLE, NO_MATCH):
                raise DisputeError(f"{verdict.tile} cannot touch the {verdict.on}: no matching number")
            raise DisputeError(verdict.message)  # not in the set, laid already
        self.layout = self._layout().with_play(verdict.tile, verdict.on)
        # The question is answered by the tile on the table: no verdict is left to show.
        self.last = None
        # Where the next tile most likely goes: around the same double while it still needs
        # spokes or toes (a hub is built spoke after spoke), else along the line just extended.
        ends = {e.target: e for e in self.open_ends()}
        same = ends.get(verdict.on)
        if same is not None and same.kind != "line" and same.slots > 0:
            self.selected = verdict.on
        else:
            self.selected = verdict.tile if verdict.tile in ends else None
        return verdict

    def end_name(self, target: Tile) -> str:
        """How the chips and the board name the open end on ``target`` ("5-1" as it lies)."""
        for e in self.open_ends():
            if e.target == target:
                return e.label or str(e.target)
        return str(target)

    @property
    def undoable(self) -> Tile | None:
        """The tile :meth:`undo` would take back (the newest added by hand), or None."""
        if self.layout is None or len(self.layout.plays) <= self.fixed:
            return None
        return self.layout.plays[-1].tile

    def undo(self) -> None:
        """Take back the newest tile added by hand. Tiles from a photo or an unordered file are
        not taken back this way (which came last is unknown): see :meth:`correct`, :meth:`remove`."""
        lay = self._layout()
        if not lay.plays:
            raise DisputeError("only the hub is on the table")
        if len(lay.plays) <= self.fixed:
            where = "read from the photo" if self.photo is not None else "from the layout file"
            raise DisputeError(f"the tiles {where} are in no known order, so there is no last one to "
                               "take back: correct or remove a tile by name instead")
        self.layout = Layout(lay.hub, lay.plays[:-1], lay.rules, lay.set, lay.ordered)
        self.selected, self.last = None, None

    def _on_table(self, tile: Tile | str) -> Tile:
        t = Tile.parse(tile)
        if t not in self._layout().tiles():
            raise DisputeError(f"there is no {t} on the table")
        return t

    def correct(self, tile: Tile | str, really: Tile | str) -> None:
        """A misread: the ``tile`` on the table is really ``really`` (same place, same joins)."""
        lay = self._layout()
        old = self._on_table(tile)
        new = Tile.parse(really)
        try:
            check_in_set(new, self.top)
        except InputError as exc:
            raise DisputeError(str(exc)) from None
        if new == old:
            return
        if new in lay.tiles():
            raise DisputeError(f"{new} is already on the table; every tile is unique in a set")
        if old == lay.hub and not new.is_double:
            raise DisputeError(f"the hub must be a double, not {new}")

        def swap(t: Tile) -> Tile:
            return new if t == old else t

        plays = tuple(replace(p, tile=swap(p.tile), on=swap(p.on)) for p in lay.plays)
        self.layout = Layout(swap(lay.hub), plays, lay.rules, lay.set, lay.ordered)
        if self.photo is not None:
            was = self.photo.renamed.pop(old, old)
            if was != new:
                self.photo.renamed[new] = was
        if old == self.named_hub:
            self.named_hub = new
        self.selected, self.last = None, None

    def remove(self, tile: Tile | str) -> None:
        """Take ``tile`` off the table (not in play, or a false read). Only a tile with nothing
        played on it: remove those first, or correct the tile instead."""
        lay = self._layout()
        t = self._on_table(tile)
        if t == lay.hub:
            raise DisputeError("the hub cannot be removed: start a new table instead")
        on_it = [p.tile for p in lay.plays if p.on == t]
        if on_it:
            raise DisputeError(f"{', '.join(map(str, on_it))} {'is' if len(on_it) == 1 else 'are'} played on "
                               f"the {t}: remove {'it' if len(on_it) == 1 else 'them'} first, or correct "
                               f"the {t} instead")
        i = next(k for k, p in enumerate(lay.plays) if p.tile == t)
        self.layout = Layout(lay.hub, lay.plays[:i] + lay.plays[i + 1:], lay.rules, lay.set, lay.ordered)
        if i < self.fixed:
            self.fixed -= 1
            if self.photo is not None:
                self.photo.removed.append(t)
        self.selected, self.last = None, None
