"""Pip layouts for domino halves: the board drawing's (:mod:`chickenfoot.board.pips`), so the
rendered training tiles and the app's domino faces share one table."""

from chickenfoot.board.pips import MAX_VALUE, layout, pip_radius, rows_for

__all__ = ["MAX_VALUE", "layout", "pip_radius", "rows_for"]
