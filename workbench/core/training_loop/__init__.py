"""The training loop and what drives it: the trainer (trainer.py, with trainer_state.py), the
request it is built from, a recipe's run from data to events (recipe_run.py), and the test
figure of a finished run (test_scoring.py).

It sits above the tasks, which it trains through their protocol; the pieces tasks themselves
use (batches, checkpoints, budgets, metrics, run folders) are in `workbench.core.training`,
below them.
"""
