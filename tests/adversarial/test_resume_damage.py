"""Red-team family 'tensor-level damage on resume' (issue 30, defect 11): a checkpoint edited
tensor by tensor, its hash recomputed so the files check out, is refused on resume with one
message naming what is wrong (not torch's ValueError, RuntimeError or TypeError, at load or
at the first step), and the run folder is left as it was."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest
import torch
from safetensors.torch import load, save

from tests.core.training_fixtures import tiny_request
from workbench.core.jobs import UserFacingError
from workbench.core.training.run_lock import LOCK_NAME
from workbench.core.training_loop.trainer import Trainer


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny stateful run (AdamW, a carried hidden state) with a 'latest' checkpoint."""
    request = tiny_request(tmp_path_factory.mktemp("runs"), max_steps=4, checkpoint_every=4,
                           eval_every=4, sample_every=0, warmup_steps=0)
    trainer = Trainer(request)
    list(trainer.run())
    return request, trainer.run_dir


def _files(run_dir):
    return {p.relative_to(run_dir): p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}


def _damage(run_dir, tensors=None, optimizer=None):
    """Edit the latest checkpoint and recompute its hash; the fallbacks are removed, so a
    resume cannot pass over the damage to an intact older checkpoint."""
    folder = run_dir / "checkpoints"
    manifest = folder / "latest.json"
    meta = json.loads(manifest.read_text())
    weights = folder / meta["weights"]
    saved = load(weights.read_bytes())
    if tensors:
        tensors(saved)
    data = save(saved)
    weights.write_bytes(data)
    meta["weights_sha256"] = hashlib.sha256(data).hexdigest()
    if optimizer:
        optimizer(meta["optimizer"])
    manifest.write_text(json.dumps(meta))
    for other in [folder / "best.json", *folder.glob("step-*.json")]:
        other.unlink(missing_ok=True)


def _each(part, change):
    def edit(tensors):
        for key in [k for k in tensors if part in k]:
            tensors[key] = change(tensors[key])
    return edit


DAMAGE = {
    "empty param_groups": ({"optimizer": lambda o: o.update(param_groups=[])},
                           "0 parameter groups"),
    "a group missing parameters": ({"optimizer": lambda o: o["param_groups"][0].update(
        params=[0])}, "does not list the"),
    "lr as text": ({"optimizer": lambda o: o["param_groups"][0].update(lr="x")},
                   "'lr' = x, not a number"),
    "betas of one value": ({"optimizer": lambda o: o["param_groups"][0].update(betas=[0.9])},
                           "'betas'"),
    "state of an unknown parameter": ({"optimizer": lambda o: o["plain"].update(
        {"99": {}})}, "names parameter 99"),
    "wrong-shaped exp_avg": ({"tensors": _each(".exp_avg", lambda v: torch.zeros(3))},
                             "'exp_avg(_sq)?' of parameter 0 has shape \\(3,\\)"),
    "exp_avg as integers": ({"tensors": _each(".exp_avg_sq", lambda v: v.to(torch.int32))},
                            "holds int32"),
    "NaN in exp_avg_sq": ({"tensors": _each(".exp_avg_sq", lambda v: v * float("nan"))},
                          "not numbers"),
    "exp_avg_sq removed": ({"tensors": lambda t: [t.pop(k) for k in list(t)
                                                  if k.endswith(".exp_avg_sq")]},
                           "parameter 0 lacks exp_avg_sq"),
    "a step of three values": ({"tensors": _each(".step", lambda v: torch.zeros(3))},
                               "has 3 values, not one"),
    "rng.torch as floats": ({"tensors": _each("rng.torch", lambda v: v.float())},
                            "'rng.torch' is float32"),
    "rng.torch cut short": ({"tensors": _each("rng.torch", lambda v: v[:100].clone())},
                            "'rng.torch' has 100 bytes"),
    "rng.torch of two dimensions": ({"tensors": _each("rng.torch",
                                                      lambda v: v.reshape(1, -1))}, "not bytes"),
    "wrong-shaped hidden state": ({"tensors": _each("state.", lambda v: torch.zeros(2, 2))},
                                  "carried hidden state is float32 of shape \\(2, 2\\)"),
    "hidden state as integers": ({"tensors": _each("state.", lambda v: v.long())},
                                 "carried hidden state is int64"),
}


@pytest.mark.parametrize("name", list(DAMAGE))
def test_a_damaged_checkpoint_is_refused_on_resume_and_nothing_is_lost(trained, tmp_path,
                                                                       name):
    import shutil

    request, original = trained
    run_dir = tmp_path / "run"
    shutil.copytree(original, run_dir)
    changes, message = DAMAGE[name]
    _damage(run_dir, **changes)
    before = _files(run_dir)
    with pytest.raises(UserFacingError, match=message):
        Trainer(dataclasses.replace(request, run_dir=run_dir, resume=True,
                                    training=dataclasses.replace(request.training,
                                                                 max_steps=8)))
    after = _files(run_dir)
    assert {k: v for k, v in after.items() if k.name != LOCK_NAME} == {
        k: v for k, v in before.items() if k.name != LOCK_NAME}


def test_an_intact_checkpoint_still_resumes(trained, tmp_path):
    import shutil

    request, original = trained
    run_dir = tmp_path / "run"
    shutil.copytree(original, run_dir)
    trainer = Trainer(dataclasses.replace(request, run_dir=run_dir, resume=True))
    assert trainer.step == 4
    assert trainer.notices == []
    trainer._release_lock()


def test_a_checkpoint_without_optimizer_averages_resumes_with_a_notice(trained, tmp_path):
    """Adam's moments all gone (the tensors removed, the hash recomputed): the run resumes,
    and says that its averages start afresh instead of silently changing its course."""
    import shutil

    request, original = trained
    run_dir = tmp_path / "run"
    shutil.copytree(original, run_dir)
    _damage(run_dir, tensors=lambda t: [t.pop(k) for k in list(t) if k.startswith("optim.")])
    trainer = Trainer(dataclasses.replace(request, run_dir=run_dir, resume=True))
    assert trainer.step == 4
    assert any("keeps no optimizer averages" in n for n in trainer.notices)
    trainer._release_lock()
