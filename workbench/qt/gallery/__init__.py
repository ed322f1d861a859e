"""The panel gallery: one panel of the window at a time, over the fake backend's canned data.

    python -m workbench.qt.gallery                 # the names
    python -m workbench.qt.gallery attention       # that panel in a window of its own
    python -m workbench.qt.gallery attention --screenshot out.png --size 900x600

Each entry builds the panel on its own controller over `FakeBackend` (the same fake the Qt
tests use, so what a test asserts is what the gallery shows) and stages it: opens a snapshot,
replays a recorded run or asks a question, as a user would. A contributor works on one panel
without training a model; the guide's panel pictures are made from it (scripts/doc_screenshots.py).
No torch is imported: the fake backend answers with hand-made traces.
"""
