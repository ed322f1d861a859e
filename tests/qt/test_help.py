"""Help: every panel explains itself (What is this?), Getting started lists them all, and the
first start welcomes the student once, offering the lessons."""

from __future__ import annotations

from workbench.qt.help import WELCOME_KEY


def test_every_panel_says_what_it_is(window):
    for name, panel in window.panels.items():
        text = panel.whatsThis()
        assert len(text) > 80, f"{name} has no What is this? help"
        assert window.docks[name].whatsThis() == text


def test_getting_started_lists_every_panel(window):
    page = window.show_getting_started()
    text = page.browser.toPlainText()
    assert "Getting started" in text and "Shift+F1" in text
    for name in window.panels:
        title = window.docks[name].windowTitle()
        assert title in text, title
    assert window.show_getting_started() is page  # one page, raised again
    page.close()


def test_the_welcome_comes_once_unless_asked_for(window, settings, qtbot):
    welcome = window.show_welcome()
    assert welcome is not None and welcome.isVisible()
    welcome.again.setChecked(False)
    welcome.help_button.click()  # read Getting started instead
    assert not welcome.isVisible() and window.help_page.isVisible()
    assert settings.value(WELCOME_KEY) in (False, "false")
    assert window.show_welcome() is None  # not again at the next start
    assert window.show_welcome(force=True) is not None  # Help ▸ Welcome… still shows it
    window.welcome.close()
    window.help_page.close()


def test_help_menu_has_getting_started_and_whats_this(window):
    texts = {a.text().replace("&", ""): a for a in window.help_menu.actions()}
    assert texts["Getting started"].shortcut().toString() == "F1"
    assert texts["What is this?"].shortcut().toString() == "Shift+F1"
