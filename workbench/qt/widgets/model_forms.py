"""The Architecture panel's hyper-parameter forms: one `ConfigForm` per architecture of every
task, in a stack as tall as the form shown (a QStackedWidget takes its tallest page's height,
which left a gap under a short form, and does not follow a form that grows when its Advanced
part opens or a problem message appears under it)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QSizePolicy, QStackedWidget

from workbench.core.config.base import ModelConfig
from workbench.core.config.models import architectures_for
from workbench.core.config.tasks import TASK_CONFIGS
from workbench.qt.widgets.config_form import ConfigForm


class ModelForms(QStackedWidget):
    changed = Signal(object)  # the shown form's config, or None while it is invalid

    def __init__(self) -> None:
        super().__init__()
        self.forms: dict[str, ConfigForm[ModelConfig]] = {}
        for name in TASK_CONFIGS:
            for arch, config_type in architectures_for(name).items():
                if arch in self.forms:
                    continue
                form = ConfigForm(config_type)
                form.changed.connect(self.changed)
                form.advanced.toggled.connect(self.fit)
                self.forms[arch] = form
                self.addWidget(form)

    def show_form(self, arch: str) -> ConfigForm[ModelConfig]:
        form = self.forms[arch]
        self.setCurrentWidget(form)
        for each in self.forms.values():  # the stack takes the height of the shown form only
            policy = QSizePolicy.Policy.Preferred if each is form else QSizePolicy.Policy.Ignored
            each.setSizePolicy(policy, policy)
        self.fit()
        return form

    def fit(self, *_: Any) -> None:
        form = self.currentWidget()
        form.layout().activate()
        self.setFixedHeight(form.sizeHint().height())
