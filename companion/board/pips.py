"""Pip layouts for domino halves, 0 to 18 (the board drawing, the tile picker and the rendered
training photos all use these).

A layout is a list of pip centres in half coordinates: ``along`` runs from the divider
(-1) to the tile's end (+1), ``across`` from one long side (-1) to the other (+1). Values up
to 9 sit on a 3x3 grid; 10-12 on 4 rows x 3 columns, 13-15 on 5 x 3, 16-18 on 6 x 3 (outer
columns full, the rest spread down the middle), as on common double-12/15/18 sets. Sets
differ in details (which diagonal 2 and 3 use, whether 6 runs along or across the tile), so
:func:`layout` takes a variant and the renderer picks one per set.
"""

from __future__ import annotations

MAX_VALUE = 18

# 3x3 grid cells as (row, col), row 0 nearest the divider.
_GRID3: dict[int, list[tuple[int, int]]] = {
    0: [],
    1: [(1, 1)],
    2: [(0, 0), (2, 2)],
    3: [(0, 0), (1, 1), (2, 2)],
    4: [(0, 0), (0, 2), (2, 0), (2, 2)],
    5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)],
    6: [(0, 0), (1, 0), (2, 0), (0, 2), (1, 2), (2, 2)],
    7: [(0, 0), (1, 0), (2, 0), (0, 2), (1, 2), (2, 2), (1, 1)],
    8: [(r, c) for r in range(3) for c in range(3) if (r, c) != (1, 1)],
    9: [(r, c) for r in range(3) for c in range(3)],
}


def rows_for(value: int) -> int:
    """Grid rows (along the tile) a value's layout uses."""
    if value < 0 or value > MAX_VALUE:
        raise ValueError(f"pip value must be 0-{MAX_VALUE}, got {value}")
    if value <= 9:
        return 3
    if value <= 12:
        return 4
    if value <= 15:
        return 5
    return 6


def layout(value: int, variant: int = 0) -> list[tuple[float, float]]:
    """Pip centres ``(along, across)`` in [-1, 1] for one half showing ``value``.

    ``variant`` bit 0 mirrors the diagonal of 2/3, bit 1 turns the 3x3 layouts a quarter
    (6 and 7 then run across the tile instead of along it), bit 2 spreads the middle column of
    10-18 over the whole half (the "ring" look of many double-12 sets: 10 = 4 + 1 + 4 with the
    middle pips at both ends, 11 = 4 + 3 + 4 ends and centre).
    """
    rows = rows_for(value)
    if rows == 3:
        cells = _GRID3[value]
        if variant & 1:
            cells = [(r, 2 - c) for r, c in cells] if value in (2, 3) else cells
        if variant & 2:
            cells = [(c, r) for r, c in cells]
        return [(r - 1.0, c - 1.0) for r, c in cells]
    # Outer columns full, the remainder evenly down the middle column.
    pts: list[tuple[float, float]] = []
    step = 2.0 / (rows - 1)
    for r in range(rows):
        pts.append((-1.0 + r * step, -1.0))
        pts.append((-1.0 + r * step, 1.0))
    mid = value - 2 * rows  # always 2..rows here
    span = 2.0 if variant & 4 else 2.0 * (mid - 1) / (rows - 1)
    for k in range(mid):
        pts.append((-span / 2 + k * span / (mid - 1), 0.0))
    return pts


def pip_radius(value: int) -> float:
    """Pip radius as a fraction of the half's width, smaller for denser layouts."""
    return {3: 0.095, 4: 0.082, 5: 0.07, 6: 0.06}[rows_for(value)]
