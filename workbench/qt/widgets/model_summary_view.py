"""What a model costs and computes, for the Architecture panel: its parameter counts, memory
and FLOPs, the layer table, the block diagram and the equation card of one `ModelSummary`.

The table is as tall as its rows and, when its columns are wider than the panel, the
horizontal scroll bar under them (a fixed height without it hid the Total row behind the bar
in a narrow dock); the panel itself scrolls, so the diagram and card stay below the table.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.base import ModelConfig
from workbench.core.config.models import TransformerConfig
from workbench.core.config.seq2seq import RnnSeq2seqConfig, TransformerSeq2seqConfig
from workbench.core.config.summary import ModelSummary, human_bytes, human_count
from workbench.core.recurrent_cells import CELLS, CellKind
from workbench.qt.widgets.architecture_cards import architecture_card
from workbench.qt.widgets.block_diagram import BlockDiagram
from workbench.qt.widgets.cell_figure import CellFigure
from workbench.qt.widgets.multihead_figure import MultiHeadFigure
from workbench.qt.widgets.seq2seq_cards import seq2seq_card
from workbench.qt.widgets.seq2seq_figure import Seq2seqFigure
from workbench.qt.widgets.transformer_block_figure import (
    Part,
    TransformerBlockFigure,
    block_parts,
)

_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
COLUMNS = ("Layer", "Type", "Output shape", "Param # (torch)", "Param # (Keras)", "Note")


class LayerTable(QTableWidget):
    """The layer table, always as tall as its rows and the scroll bar it needs."""

    def __init__(self) -> None:
        super().__init__(0, len(COLUMNS), objectName="architecture-table")
        self.setHorizontalHeaderLabels(COLUMNS)
        self.verticalHeader().hide()
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.horizontalHeader().setStretchLastSection(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)

    def fill(self, summary: ModelSummary) -> None:
        rows = [(r.name, r.kind, r.output_shape, r.params, r.keras_params, r.note)
                for r in summary.rows]
        rows.append(("Total", "", "", summary.total_params, summary.keras_params,
                     "tied weights counted once"))
        self.setRowCount(len(rows))
        for i, values in enumerate(rows):
            for j, value in enumerate(values):
                item = QTableWidgetItem(f"{value:,}" if isinstance(value, int) else value)
                if isinstance(value, int):
                    item.setTextAlignment(_RIGHT)
                if i == len(rows) - 1:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.setItem(i, j, item)
        self.resizeColumnsToContents()
        self.horizontalHeader().setSectionResizeMode(len(COLUMNS) - 1,
                                                     QHeaderView.ResizeMode.Stretch)
        self.resizeRowsToContents()
        self.fit_height()

    def fit_height(self) -> None:
        height = self.horizontalHeader().sizeHint().height() + 2 * self.frameWidth()
        height += sum(self.rowHeight(i) for i in range(self.rowCount()))
        if self.horizontalHeader().length() > self.viewport().width():  # it scrolls sideways
            height += self.horizontalScrollBar().sizeHint().height()
        if self.height() != height:
            self.setFixedHeight(height)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.fit_height()  # narrower: the scroll bar appears under the rows, not over Total


class ModelSummaryView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.updating = QLabel("", objectName="architecture-updating")
        self.updating.setStyleSheet("color: #8a4b00; font-weight: bold")
        self.stats = QLabel("Describing…", wordWrap=True, objectName="architecture-stats")
        self.stats.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = LayerTable()
        self.diagram = BlockDiagram()
        self.block = TransformerBlockFigure()  # inside one block, for transformers
        self.block.hide()
        self.cell = CellFigure()  # inside one cell, for the LSTM family
        self.cell.hide()
        self.heads = MultiHeadFigure()  # inside the attention, for transformers
        self.heads.hide()
        self.seq2seq = Seq2seqFigure()  # an RNN encoder-decoder, with or without attention
        self.seq2seq.hide()
        self.card = QLabel(wordWrap=True, objectName="equation-card")
        self.card.setTextFormat(Qt.TextFormat.RichText)
        self.card.setAlignment(Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.addWidget(self.updating)
        layout.addWidget(self.stats)
        layout.addWidget(self.table)
        layout.addWidget(QLabel("<b>Block diagram</b>"))
        layout.addWidget(self.diagram)
        layout.addWidget(self.block)
        layout.addWidget(self.cell)
        layout.addWidget(self.heads)
        layout.addWidget(self.seq2seq)
        layout.addWidget(self.card)
        layout.addStretch(1)

    def show_summary(self, summary: ModelSummary, config: ModelConfig | None) -> None:
        """`summary` of `config` (the config as counted: an encoder task's whole model)."""
        self.stats.setText(stats_html(summary))
        self.table.fill(summary)
        self.diagram.set_summary(summary)
        self.block.show_block(*block_of(config))
        self.cell.show_cell(cell_of(config))
        self.heads.show_heads(*heads_of(config))
        self.seq2seq.show_model(config.attention if isinstance(config, RnnSeq2seqConfig)
                                else "")
        if isinstance(config, (RnnSeq2seqConfig, TransformerSeq2seqConfig)):
            self.card.setText(seq2seq_card(config))
            return
        if config is not None:  # an encoder with a head: the encoder's card
            config = config.encoder_config() or config
        self.card.setText(architecture_card(summary, config))

    def set_stale(self, stale: bool) -> None:
        """Greyed and saying so while it shows other settings than the form's."""
        self.setEnabled(not stale)
        self.updating.setText("Updating for the new settings…" if stale else "")


def block_of(config: ModelConfig | None) -> tuple[list[Part], str]:
    """The parts of one block of a transformer `config` (an encoder task's encoder, a
    translator's decoder) and the figure's heading; none for other models."""
    if isinstance(config, TransformerSeq2seqConfig):
        return (block_parts(config.d_model, config.num_heads, config.d_ff,
                            config.norm_placement == "pre", True, cross=True),
                f"A decoder block (×{config.decoder_layers}); an encoder block "
                f"(×{config.encoder_layers}) has no mask and no cross-attention")
    inner = config.encoder_config() if config is not None else None
    config = inner or config
    if not isinstance(config, TransformerConfig):
        return [], ""
    return (block_parts(config.d_model, config.num_heads, config.d_ff,
                        config.norm_placement == "pre", config.causal_mask,
                        activation=config.activation),
            f"Inside one block (×{config.num_layers}), {config.norm_placement}-LN; dashed: "
            "the residual stream")


def heads_of(config: ModelConfig | None) -> tuple[int, int, bool]:
    """(d_model, heads, causal) of a transformer `config` (an encoder task's encoder, a
    translator's decoder); (0, 0, False) for other models."""
    if isinstance(config, TransformerSeq2seqConfig):
        return config.d_model, config.num_heads, True
    inner = config.encoder_config() if config is not None else None
    config = inner or config
    if isinstance(config, TransformerConfig):
        return config.d_model, config.num_heads, config.causal_mask
    return 0, 0, False


def cell_of(config: ModelConfig | None) -> CellKind | None:
    """The recurrent cell of `config` (an encoder task's encoder too), or None."""
    inner = config.encoder_config() if config is not None else None
    arch = str((inner or config).arch) if config is not None else ""
    return CELLS.get(arch)


def stats_html(s: ModelSummary) -> str:
    keras = (f"Keras convention: <b>{s.keras_params:,}</b> ({s.bias_difference:,} fewer: one bias "
             "per gate)" if s.bias_difference else "Keras convention: the same count")
    return (
        f"<b>{s.title}</b>: <b>{s.total_params:,}</b> parameters in torch. {keras}.<br>"
        f"Memory for a training step (B = {s.batch_size}, T = {s.seq_len}, float32): weights "
        f"{human_bytes(s.param_bytes)} + gradients and Adam moments "
        f"{human_bytes(s.training_state_bytes)} + activations ≈ "
        f"{human_bytes(s.activation_bytes)} = <b>{human_bytes(s.training_bytes)}</b>.<br>"
        f"FLOPs per token: {human_count(s.flops_per_token)} forward, "
        f"≈ {human_count(3 * s.flops_per_token)} for a training step (forward + backward)."
    )
