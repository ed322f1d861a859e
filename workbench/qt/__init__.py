"""The Qt room: windows, panels, plots and the job threads. Never imports torch or gensim."""
