"""Text generation from snapshots: greedy, sampling, top-k, top-p, beam search."""
