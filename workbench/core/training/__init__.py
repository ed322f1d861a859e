"""Training language models: the trainer job, schedules, checkpoints, runs and recipes."""
