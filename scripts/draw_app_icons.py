"""Draw the web app's icons (a domino tile on the app's green) into the package's data:
``companion/app/web/assets/``, at every size its ``manifest.json`` lists, plus the favicon and
the home-screen icon iOS uses. Run it again after changing the drawing; the PNGs are committed.

    python scripts/draw_app_icons.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parents[1] / "companion" / "app" / "web" / "assets"
GREEN = (46, 125, 50, 255)  # face.THEME_COLOUR
IVORY = (250, 248, 240, 255)
INK = (33, 33, 33, 255)
#: Pip positions on a 3 x 3 grid of one half of the tile (col, row), for 3 and 5.
PIPS = {3: [(0, 0), (1, 1), (2, 2)], 5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)]}


def tile(size: int, scale: float) -> Image.Image:
    """A standing domino, the 3-5, ``scale`` of the square's height, centred on transparency."""
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    h = size * scale
    w = h / 2
    x0, y0 = (size - w) / 2, (size - h) / 2
    line = max(1, round(size / 64))
    d.rounded_rectangle([x0, y0, x0 + w, y0 + h], radius=w * 0.16, fill=IVORY, outline=INK, width=line)
    d.line([x0 + w * 0.14, y0 + h / 2, x0 + w * 0.86, y0 + h / 2], fill=INK, width=line)
    r = w * 0.085
    for half, count in ((0, 3), (1, 5)):
        for col, row in PIPS[count]:
            cx = x0 + w * (0.25 + 0.25 * col)
            cy = y0 + h * half / 2 + h / 2 * (0.25 + 0.25 * row)
            d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=INK)
    return img


def icon(size: int, *, maskable: bool = False, opaque: bool = False) -> Image.Image:
    """The app's icon: the tile on a green rounded square (a full green square when
    ``maskable``: the launcher cuts its own shape, keeping the middle 80%)."""
    big = 1024
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    if maskable or opaque:
        d.rectangle([0, 0, big, big], fill=GREEN)
    else:
        d.rounded_rectangle([0, 0, big - 1, big - 1], radius=big * 0.2, fill=GREEN)
    img.alpha_composite(tile(big, 0.62 if maskable else 0.8))
    out = img.resize((size, size), Image.Resampling.LANCZOS)
    return out.convert("RGB") if opaque or maskable else out


def main() -> None:
    (OUT / "icons").mkdir(parents=True, exist_ok=True)
    drawn = {
        "favicon.png": icon(32),
        "icons/icon-192.png": icon(192),
        "icons/icon-512.png": icon(512),
        "icons/icon-maskable-192.png": icon(192, maskable=True),
        "icons/icon-maskable-512.png": icon(512, maskable=True),
        "icons/apple-touch-icon-192.png": icon(192, opaque=True),
    }
    for name, img in drawn.items():
        img.save(OUT / name, optimize=True)
        print(OUT / name, img.size)


if __name__ == "__main__":
    main()
