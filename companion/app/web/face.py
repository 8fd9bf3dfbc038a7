"""The app's own face on a phone: the web app's manifest, its icons and the favicon, served
from this package's data (``assets/``, drawn by ``scripts/draw_app_icons.py``) in place of Flet's.

Only the fixed addresses in :data:`FILES` are answered, each from a file chosen here: no part of
a client's path is ever used to find a file.
"""

from __future__ import annotations

import functools
from importlib import resources

#: The browser's colour for the app (its title bar, the splash on a phone's home screen).
THEME_COLOUR = "#2E7D32"
#: Address served -> the file under ``assets/`` it is, and its type.
FILES = {
    "/manifest.json": ("manifest.json", "application/manifest+json"),
    "/favicon.png": ("favicon.png", "image/png"),
    "/icons/icon-192.png": ("icons/icon-192.png", "image/png"),
    "/icons/icon-512.png": ("icons/icon-512.png", "image/png"),
    "/icons/icon-maskable-192.png": ("icons/icon-maskable-192.png", "image/png"),
    "/icons/icon-maskable-512.png": ("icons/icon-maskable-512.png", "image/png"),
    "/icons/apple-touch-icon-192.png": ("icons/apple-touch-icon-192.png", "image/png"),
    # the picture shown while the app loads (Flet's animated logo otherwise)
    "/icons/loading-animation.png": ("icons/icon-512.png", "image/png"),
}


def file(path: str) -> tuple[bytes, str] | None:
    """The bytes and type served at ``path`` when it is one of :data:`FILES`, else None."""
    entry = FILES.get(path)
    return None if entry is None else (_read(entry[0]), entry[1])


@functools.cache
def _read(name: str) -> bytes:
    return resources.files(__package__).joinpath("assets", *name.split("/")).read_bytes()
