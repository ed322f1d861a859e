"""The pure core: corpus, tokenizers, models, training, embeddings. Knows nothing of Qt.

Subpackages that need torch or gensim import them lazily or in their own modules, so that
`workbench.core.events`, `workbench.core.jobs`, `workbench.core.config` and `workbench.core.api`
stay importable without either (the Qt room may only touch those).
"""
