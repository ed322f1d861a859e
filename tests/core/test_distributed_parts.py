"""The pieces of distributed training that need no second process: reading torchrun's
environment, cutting a batch into rank shards, the launcher's messages, the stop signals."""

from __future__ import annotations

import json
import os
import signal
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from workbench.core.cpu_threads import split_threads
from workbench.core.distributed.context import StopSignals, shard_batch
from workbench.core.distributed.env import torchrun_env
from workbench.core.distributed.launch import failure_message, resume_hint, torchrun_args
from workbench.core.jobs import UserFacingError

TORCHRUN = {"RANK": "1", "WORLD_SIZE": "4", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2",
            "MASTER_ADDR": "node0", "MASTER_PORT": "29500"}


def test_torchrun_environment_is_read_or_refused_clearly():
    assert torchrun_env({}) is None
    env = torchrun_env(TORCHRUN)
    assert (env.rank, env.world_size, env.local_rank, env.local_world_size) == (1, 4, 1, 2)
    assert not env.is_writer and torchrun_env({**TORCHRUN, "RANK": "0"}).is_writer
    with pytest.raises(UserFacingError, match="not started by torchrun"):
        torchrun_env({"WORLD_SIZE": "2"})
    with pytest.raises(UserFacingError, match="inconsistent"):
        torchrun_env({**TORCHRUN, "RANK": "4"})


@dataclass
class Batch:  # the shape of core.tasks.base.Batch
    arrays: dict
    tokens: int
    fresh: bool = True


def test_ranks_share_a_global_batch_row_by_row():
    x = np.arange(8 * 3).reshape(8, 3)
    batch = Batch({"inputs": x, "targets": x + 1, "note": "kept"}, tokens=24, fresh=False)
    parts = [shard_batch(batch, rank, 4) for rank in range(4)]
    assert np.array_equal(np.concatenate([p.arrays["inputs"] for p in parts]), x)
    assert np.array_equal(parts[2].arrays["targets"], x[4:6] + 1)
    assert parts[1].arrays["note"] == "kept" and parts[1].tokens == 24 and not parts[1].fresh
    with pytest.raises(UserFacingError, match="cannot share evenly"):
        shard_batch(batch, 0, 3)
    with pytest.raises(UserFacingError, match="disagree"):
        shard_batch(Batch({"a": x, "b": x[:4]}, 1), 0, 2)


def test_auto_threads_are_shared_between_the_ranks_of_a_node():
    assert split_threads(16, 4) == 4 and split_threads(2, 2) == 1 and split_threads(2, 4) == 1


def test_launcher_arguments_and_messages(tmp_path):
    args = torchrun_args(2, ["r.toml", "--out", "x"])
    # the ranks meet at 127.0.0.1, not at the machine's name (which may not resolve)
    assert args[:3] == ["--standalone", "--nproc-per-node=2", "--local-addr=127.0.0.1"]
    assert args[3:] == ["--module", "workbench", "train", "r.toml", "--out", "x"]
    # the installed app has no Python for -m: each rank is its own program (checked in the
    # .deb by packaging/check_fresh_debian.py)
    frozen = torchrun_args(2, ["r.toml"], frozen=True)
    assert frozen[3:] == ["--no-python", sys.executable, "train", "r.toml"]
    assert "No checkpoint was written yet" in resume_hint(tmp_path, 2)
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "latest.json").write_text(json.dumps({"step": 40}))
    text = failure_message(1, -signal.SIGKILL, 4242, tmp_path, 2)
    assert "rank 1 (pid 4242) was killed by SIGKILL" in text
    assert "latest checkpoint (step 40)" in text
    assert f"workbench train --nproc 2 --resume {tmp_path}" in text
    assert "exited with status 1" in failure_message(0, 1, 7, tmp_path, 2)


def test_stop_signals_set_a_flag_instead_of_interrupting():
    signals = StopSignals()
    signals.install()
    try:
        os.kill(os.getpid(), signal.SIGINT)  # would raise KeyboardInterrupt without it
        assert signals.requested.wait(5)
    finally:
        signals.restore()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    orphan = StopSignals()
    assert not orphan.stop_wanted
    orphan.parent = -1  # the launcher that started this rank is gone
    assert orphan.stop_wanted


def test_a_rank_resumes_the_carried_state_of_its_own_rows():
    """Under torchrun the task's batch is the global one (2 ranks × 8 = 16) and a rank's carried
    state has its own 8 rows: resuming a 2-rank run refused every rank's state as damaged."""
    import torch

    from workbench.core.config.models import GruConfig
    from workbench.core.models import build_model
    from workbench.core.tasks.language_model import LanguageModelTask
    from workbench.core.training.checkpoints import flatten_state

    model = build_model(GruConfig(hidden_size=16, embedding_size=16, vocab_size=10))
    saved = flatten_state(model.init_state(8))  # what one rank of batch 8 saved
    state = LanguageModelTask.restore_carry(None, model, saved, torch.device("cpu"), 8)
    assert [tuple(t.shape) for t in flatten_state(state)] == [(1, 8, 16)]
    with pytest.raises(UserFacingError, match=r"shape \(1, 8, 16\), this model's \(1, 16, 16\)"):
        LanguageModelTask.restore_carry(None, model, saved, torch.device("cpu"), 16)
