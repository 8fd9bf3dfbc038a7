"""The dispute checker's state: the table as it lies, built tap by tap or loaded from a file.

Every judgement comes from the rules core (:func:`check_layout`, :meth:`Report.judge`); this
object only keeps the layout being described, which open end is selected, and the last answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.rules import PRESETS, RuleSet, Tile, get_rules
from companion.rules.errors import InputError
from companion.rules.layout import Layout, OpenEnd, Report, Verdict, check_layout


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
            out.append(f"Open foot: the {self.open_foot} needs {self.toes_needed} more toe"
                       f"{'s' if self.toes_needed != 1 else ''}; every play must go there.")
        if not out:
            out.append("The hub has its spokes and no foot is open: any matching open end is fine.")
        return out


class DisputeBuilder:
    def __init__(self, preset: str = "double-chicken-foot", top: int = 9, hub: int | None = None) -> None:
        self.preset = preset
        self.top = top
        self.layout: Layout | None = None
        self.selected: Tile | None = None  # the open end (its tile) the next tile goes on
        self.last: Verdict | None = None
        if hub is not None:
            self.start(hub)

    @property
    def rules(self) -> RuleSet:
        return get_rules(self.preset)

    def set_rules(self, preset: str, top: int | None = None) -> None:
        if preset not in PRESETS:
            raise DisputeError(f"unknown rules preset {preset!r}")
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
        self.selected, self.last = None, None

    def load(self, text: str, source: str = "layout file") -> None:
        lay = Layout.from_json(text, source)
        if lay.rules is not None and lay.rules not in PRESETS:
            raise DisputeError(f"{source}: unknown rules preset {lay.rules!r}")
        self.preset = lay.rules or self.preset
        rep = check_layout(lay, self.preset)
        self.top = rep.set
        self.layout = Layout(lay.hub, lay.plays, self.preset, self.top, lay.ordered)
        self.selected, self.last = None, None

    def to_json(self) -> str:
        return self._layout().to_json()

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
        return [p.message for p in self.report().problems]

    def lines(self) -> list[str]:
        """The table in words, one play a line, in the order laid."""
        lay = self._layout()
        return [f"{lay.hub} (hub)"] + [f"{p.tile} on {p.on}" for p in lay.plays]

    # --------------------------------------------------------------- acting
    def select(self, target: Tile | str) -> None:
        t = Tile.parse(target)
        if t not in {e.target for e in self.open_ends()}:
            raise DisputeError(f"{t} has no open end to play on")
        self.selected = t

    def ask(self, tile: Tile | str, on: Tile | str | None = None) -> Verdict:
        """"Can ``tile`` go here?": the rules core's verdict for the selected (or given) end."""
        target = Tile.parse(on) if on is not None else self.selected
        if target is None:
            raise DisputeError("tap an open end first, then ask about a tile")
        self.last = self.report().judge(Tile.parse(tile), target)
        return self.last

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
        if not verdict.tile.has(self.report().table.value.get(verdict.on, -1)):
            raise DisputeError(f"{verdict.tile} cannot touch the {verdict.on}: no matching number")
        self.layout = self._layout().with_play(verdict.tile, verdict.on)
        self.selected = verdict.tile  # keep building along the same line / foot
        if self.selected not in {e.target for e in self.open_ends()}:
            self.selected = None
        return verdict

    def undo(self) -> None:
        lay = self._layout()
        if not lay.plays:
            raise DisputeError("only the hub is on the table")
        self.layout = Layout(lay.hub, lay.plays[:-1], lay.rules, lay.set, lay.ordered)
        self.selected, self.last = None, None
