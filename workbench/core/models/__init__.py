"""Language-model architectures behind one protocol and one registry (DESIGN.md section 3).

Importing the package registers every family.
"""

from workbench.core.models import recurrent, transformer  # noqa: F401 - registers the builders
from workbench.core.models.base import SequenceModel
from workbench.core.models.registry import build_model, register_builder, registered

__all__ = ["SequenceModel", "build_model", "register_builder", "registered"]
