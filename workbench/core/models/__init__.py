"""Language-model architectures behind one protocol and one registry (DESIGN.md section 3).

Importing the package registers every family.
"""

from workbench.core.models import (  # noqa: F401 - registers the builders and encoders
    recurrent,
    recurrent_encoder,
    seq2seq_rnn,
    seq2seq_transformer,
    series_model,
    task_models,
    transformer,
    transformer_encoder,
)
from workbench.core.models.base import SequenceModel
from workbench.core.models.encoder import build_encoder, encoder_architectures
from workbench.core.models.registry import build_model, register_builder, registered

__all__ = ["SequenceModel", "build_encoder", "build_model", "encoder_architectures",
           "register_builder", "registered"]
