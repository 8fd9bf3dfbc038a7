"""The widget kit every screen draws with: text, buttons, cards, dropdowns sized for a phone and
for large text (every target at least 48 px high, every control named for screen readers).

A mixin of :class:`chickenfoot.app.shell.App`: it needs the session's ``page``, its text
``scale`` and its ``guarded`` / ``aguarded`` handler wrappers.
"""

from __future__ import annotations

import base64
import inspect
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import flet as ft

#: A dropdown's room beside its text (its padding and arrow, pixels), and a letter's width in
#: letters' heights (generous: a cut word costs more than a list).
DROPDOWN_CHROME = 60.0
LETTER_WIDTH = 0.56


def image(data: bytes, **kw: Any) -> ft.Image:
    """A picture (PNG or JPEG bytes) as ``ft.Image``, its bytes sent as base64 text.

    Sent as raw bytes, a picture reaches the browser as a view into the larger message that
    carried it. Where the browser has no ``ImageDecoder`` (Chrome on any plain-HTTP address
    other than localhost: every phone joined over the Wi-Fi), Flutter's web engine decodes
    that view's whole buffer instead, fails, and draws nothing: every face, photo and QR
    code was blank on the phones. Decoded from text, the picture owns its buffer."""
    return ft.Image(src=base64.b64encode(data).decode("ascii"), **kw)


def image_bytes(img: ft.Image) -> bytes:
    """The picture an :func:`image` shows, its bytes again (what the tests read back)."""
    return base64.b64decode(img.src)


def fits_dropdown(texts: list[str], width: float, size: float) -> bool:
    """Whether each of ``texts`` shows whole in a dropdown ``width`` px wide at text ``size``."""
    return all(len(t) * LETTER_WIDTH * size <= width - DROPDOWN_CHROME for t in texts)


class Kit:
    """Controls drawn the same way on every screen."""

    page: Any

    @property
    def scale(self) -> float:
        raise NotImplementedError

    def guarded(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        raise NotImplementedError

    def aguarded(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        raise NotImplementedError

    def fs(self, size: float) -> float:
        return round(size * self.scale, 1)

    def text(self, value: str, size: float = 16, bold: bool = False, color: Any = None,
             italic: bool = False, selectable: bool = False) -> ft.Text:
        return ft.Text(value, size=self.fs(size), weight=ft.FontWeight.BOLD if bold else None,
                       color=color, italic=italic, selectable=selectable)

    def warning(self, value: str) -> ft.Control:
        # An icon, not a "⚠" character: the offline fonts have no such glyph.
        return ft.Row([ft.Icon(ft.Icons.WARNING_AMBER, color=ft.Colors.ERROR, size=self.fs(20),
                               semantics_label="Warning"),
                       ft.Container(self.text(value, 16, color=ft.Colors.ERROR), expand=True)],
                      vertical_alignment=ft.CrossAxisAlignment.START)

    def heading(self, value: str) -> ft.Text:
        return self.text(value, 22, bold=True)

    def button(self, label: str, on_click: Callable[..., Any], *, kind: str = "filled",
               icon: Any = None, disabled: bool = False, tooltip: str | None = None,
               compact: bool = False, size: float | None = None, dense: bool = False,
               pad_x: float | None = None, name: str | None = None) -> ft.Control:
        """A labelled button at least 48 px high (a thumb's size); ``compact`` for rows of several
        short ones on a phone (narrower padding), ``pad_x`` narrower still; ``dense`` for a key
        whose place gives its size. ``name``: what screen readers say for it, where the label
        alone does not tell it from its neighbours (a tooltip is not read out on the web). Let
        it hold the label, so a voice naming what it sees still finds the button."""
        cls = {"filled": ft.FilledButton, "outlined": ft.OutlinedButton, "text": ft.TextButton,
               "tonal": ft.FilledTonalButton}[kind]
        pad = ft.Padding.symmetric(horizontal=12, vertical=14) if compact else \
            ft.Padding.symmetric(horizontal=16, vertical=14)
        if pad_x is not None:
            pad = ft.Padding.symmetric(horizontal=pad_x, vertical=14)
        if dense:  # a key sized by its place (the number pad): its label needs the whole height
            pad = ft.Padding.symmetric(horizontal=4, vertical=0)
        return cls(content=ft.Text(label, size=size or self.fs(15 if compact else 16), semantics_label=name),
                   icon=icon,
                   on_click=self.aguarded(on_click) if inspect.iscoroutinefunction(on_click)
                   else self.guarded(on_click), disabled=disabled, tooltip=tooltip,
                   style=ft.ButtonStyle(padding=pad))

    def fitted_size(self, labels: list[str], room: float, size: float) -> float:
        """The text size (at most ``fs(size)``) at which ``labels`` fit side by side on one line
        ``room`` px wide: large text on a phone shrinks a row of buttons a little rather than
        wrapping it onto a second line."""
        return round(max(11.0, min(self.fs(size), room / (0.56 * sum(len(t) for t in labels)))), 1)

    def icon_button(self, icon: Any, label: str, on_click: Callable[..., Any], *,
                    disabled: bool = False) -> ft.Control:
        """An icon button whose name screen readers (and the tests) can read."""
        return ft.IconButton(ft.Icon(icon, semantics_label=label), tooltip=label, disabled=disabled,
                             on_click=self.aguarded(on_click) if inspect.iscoroutinefunction(on_click)
                             else self.guarded(on_click), width=48, height=48)

    def dropdown(self, label: str, value: str | None, options: list[tuple[str, str]],
                 on_select: Callable[..., Any], size: float = 16, inset: float = 0) -> ft.Control:
        """A choice among ``options`` (key, words) as wide as the screen allows (``inset``: what
        its place is narrower by), with a name screen readers say: "Rules preset: Pagat".
        ``on_select(e)`` gets the key chosen as ``e.control.value``.

        A dropdown shows its value on one line and cuts what does not fit ("Placed in the centre
        before the…"): where an option would be cut at this width and text size, the options
        are a list of radio buttons instead, each written whole (wrapped if need be)."""
        shown = dict(options).get(value or "", value or "")
        width = max(200, min((self.page.width or 360) - 28 - inset, 520))
        if not fits_dropdown([t for _, t in options], width, self.fs(size)):
            return self.radio_list(label, value, options, on_select, size)
        return ft.Semantics(label=f"{label}: {shown}", content=ft.Dropdown(
            value=value, label=label, text_size=self.fs(size), width=width,
            options=[ft.DropdownOption(key=k, text=t) for k, t in options],
            on_select=self.guarded(on_select)))

    def radio_list(self, label: str, value: str | None, options: list[tuple[str, str]],
                   on_select: Callable[..., Any], size: float) -> ft.Control:
        """``options`` as radio buttons under ``label``: each row (its button and its words, one
        node for screen readers) is at least a thumb's 48 px high and taps as a whole."""

        def pick(key: str) -> Callable[[Any], Any]:
            return self.guarded(lambda _e: on_select(SimpleNamespace(control=SimpleNamespace(value=key))))

        rows = [ft.MergeSemantics(content=ft.Container(
            ft.Row([ft.Radio(value=k), ft.Container(self.text(t, size), expand=True)], spacing=2,
                   vertical_alignment=ft.CrossAxisAlignment.CENTER),
            on_click=pick(k), border_radius=8, ink=True, padding=ft.Padding.only(right=8, top=4, bottom=4)))
            for k, t in options]
        # The title is its own line of text (a label round the group would swallow it into one
        # node); each radio says whether it is the one chosen.
        return ft.Column([
            self.text(label, size, bold=True),
            ft.RadioGroup(value=value, on_change=self.guarded(on_select), content=ft.Column(rows, spacing=0)),
        ], spacing=2)

    def card(self, *controls: ft.Control, color: Any = None, key: str | None = None) -> ft.Control:
        """A card; ``key`` names it for ``scroll_into_view``."""
        return ft.Container(
            key=ft.ScrollKey(key) if key else None,
            content=ft.Column(list(controls), spacing=8),
            padding=12, border_radius=12, bgcolor=color or ft.Colors.SURFACE_CONTAINER_LOW,
            border=ft.Border.all(1, ft.Colors.OUTLINE_VARIANT))
