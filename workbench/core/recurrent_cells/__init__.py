"""The recurrent cells, one file each (elman.py, lstm.py, gru.py, peephole.py), registered
here: the models, the trace, the worked computations, the activation budget and the window's
gate lists and equation cards all read `CELLS`. A new cell is one file and one line below."""

from __future__ import annotations

from workbench.core.recurrent_cells import elman, gru, lstm, peephole
from workbench.core.recurrent_cells.kind import CellKind

CELLS: dict[str, CellKind] = {cell.name: cell for cell in (elman.CELL, lstm.CELL, gru.CELL,
                                                            peephole.CELL)}


def cell_kind(name: str) -> CellKind:
    """The cell called `name` (a model config's arch, a decoder's `cell`)."""
    try:
        return CELLS[name]
    except KeyError:
        raise ValueError(f"Unknown recurrent cell '{name}'. Cells: {', '.join(CELLS)}") from None


__all__ = ["CELLS", "CellKind", "cell_kind"]
