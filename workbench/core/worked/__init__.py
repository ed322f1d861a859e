"""Worked computations: one number of a model (an attention weight, a gate) computed step by
step in the card's symbols with the real values, and the course's small examples (numpy only,
torch-free, so the Qt room may call it directly: each is a handful of dot products)."""
