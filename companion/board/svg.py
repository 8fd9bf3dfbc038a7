"""SVG of a board or a domino face (standard library only)."""

from __future__ import annotations

from xml.sax.saxutils import escape

from .scene import Dot, Label, Poly, Scene, Segment


def _num(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


def to_svg(scene: Scene, scale: float = 40.0) -> str:
    """The scene as an SVG document, ``scale`` pixels per board unit (a tile is 2 x 1 units)."""
    x0, y0, _x1, _y1 = scene.box
    w, h = scene.width, scene.height
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(w * scale)}" height="{_num(h * scale)}" '
           f'viewBox="{_num(x0)} {_num(y0)} {_num(w)} {_num(h)}" font-family="DejaVu Sans, Arial, sans-serif">',
           f'<rect x="{_num(x0)}" y="{_num(y0)}" width="{_num(w)}" height="{_num(h)}" fill="{scene.background}"/>']
    for s in scene.shapes:
        if isinstance(s, Poly):
            pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in s.points)
            attrs = [f'points="{pts}"', f'fill="{s.fill or "none"}"']
            if s.stroke:
                attrs.append(f'stroke="{s.stroke}" stroke-width="{_num(s.width)}" stroke-linejoin="round"')
            if s.dash:
                attrs.append('stroke-dasharray="0.18 0.12"')
            if s.opacity != 1.0:
                attrs.append(f'fill-opacity="{_num(s.opacity)}"')
            out.append(f"<polygon {' '.join(attrs)}/>")
        elif isinstance(s, Dot):
            out.append(f'<circle cx="{_num(s.x)}" cy="{_num(s.y)}" r="{_num(s.r)}" fill="{s.fill}"/>')
        elif isinstance(s, Segment):
            dash = ' stroke-dasharray="0.18 0.12"' if s.dash else ""
            out.append(f'<line x1="{_num(s.x0)}" y1="{_num(s.y0)}" x2="{_num(s.x1)}" y2="{_num(s.y1)}" '
                       f'stroke="{s.stroke}" stroke-width="{_num(s.width)}" stroke-linecap="round"{dash}/>')
        elif isinstance(s, Label):
            weight = ' font-weight="bold"' if s.bold else ""
            out.append(f'<text x="{_num(s.x)}" y="{_num(s.y)}" font-size="{_num(s.size)}" fill="{s.fill}" '
                       f'text-anchor="{s.anchor}"{weight}>{escape(s.text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
