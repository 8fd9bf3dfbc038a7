"""Count a hand: a photo of the tiles left in one hand, read and reviewed as on the round
screen (the same photo panel), its points the result. No match, nothing stored."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import flet as ft

from chickenfoot.app.hand_count import SEAT, HandCount
from chickenfoot.app.views import Screen
from chickenfoot.app.views.scoring import photo_panel, seat_key
from chickenfoot.rules import Tile
from chickenfoot.rules.tiles import SETS

if TYPE_CHECKING:
    from chickenfoot.app.round_entry import RoundEntry
    from chickenfoot.app.shell import App


class _Count:
    """The hand counted, answering the photo panel as the round screen does for one hand."""

    standalone = True

    def __init__(self, app: App, hc: HandCount) -> None:
        self.app, self.hc = app, hc

    @property
    def st(self) -> HandCount:
        return self.hc

    @property
    def content(self) -> Any:
        return self.hc.content

    @property
    def entry(self) -> RoundEntry:
        return self.hc.content.entry

    def change(self, fn: Any, redraw: bool | None) -> None:
        fn(self.hc.content)
        if redraw is not None:
            self.app.render()

    def tell(self, message: str) -> None:
        self.app.snack(message)

    def keep_photo(self, data: bytes) -> None:
        """Nothing is kept: the photo lives in the review while the app runs."""

    def photo_title(self, i: int) -> str:
        return "Photo of the hand"

    def set_top(self, top: int) -> None:
        self.hc.set_top(top)
        self.app.render()


class CountScreen(Screen):
    """A photo of one hand and the points it counts, outside any match."""

    @property
    def count(self) -> HandCount:
        return self.session.hand_count()

    def set_top(self, e: Any) -> None:
        self.count.set_top(int(e.control.value))
        self.app.render()

    def again(self, _: Any) -> None:
        self.count.clear()
        self.app.render()

    def view(self) -> tuple[str, list[Any], str | None]:
        app, hc = self.app, self.count
        zero = hc.rules.tile_penalty(Tile(0, 0))
        body: list[Any] = [
            app.text("Photograph the tiles left in a hand, face up, from above: the reader counts their "
                     "points. A tile it is not sure of is asked about, and left out until you say.", 16),
            app.dropdown("Set", str(hc.top), [(str(t), f"Double-{t}") for t in SETS], self.set_top),
            app.text(f"Counted under the rules of {hc.rules.title} (the 0-0 counts {zero}); the default rules "
                     "are chosen in Settings.", 14, italic=True),
        ]
        body.append(ft.Container(photo_panel(app, _Count(app, hc), SEAT), key=ft.ScrollKey(seat_key(SEAT))))
        if hc.review is not None:
            body.append(app.button("Count another hand", self.again, kind="outlined",
                                   icon=ft.Icons.RESTART_ALT))
        return "Count a hand", body, "/"
