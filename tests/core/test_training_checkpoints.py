"""Checkpoints: round trip, atomic files, and clear errors for damaged or mismatched ones."""

from __future__ import annotations

import json

import pytest
import torch
from training_fixtures import build_tiny, tiny_config

from workbench.core.jobs import UserFacingError
from workbench.core.training.checkpoints import (
    load_checkpoint,
    load_weights_into,
    save_checkpoint,
)


def _manifest(folder, kind="latest"):
    return json.loads((folder / f"{kind}.json").read_text())


def _trained(hidden=12):
    torch.manual_seed(0)
    model = build_tiny(tiny_config(vocab_size=10, hidden_size=hidden))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    logits, state = model(torch.randint(0, 10, (2, 5)))
    logits.sum().backward()
    optimizer.step()
    return model, optimizer, state


def test_round_trip_restores_weights_optimizer_state_and_hidden_state(tmp_path):
    model, optimizer, state = _trained()
    save_checkpoint(tmp_path, "latest", model, optimizer, {"step": 7, "best_val": 1.5}, state)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"latest-000007-{_manifest(tmp_path)['weights_sha256'][:12]}.safetensors", "latest.json"]
    saved = load_checkpoint(tmp_path)
    assert saved.step == 7
    fresh, fresh_opt, _ = _trained()
    torch.nn.init.zeros_(fresh.out.weight)
    load_weights_into(fresh, saved)
    for name, tensor in model.state_dict().items():
        assert torch.equal(fresh.state_dict()[name], tensor)
    fresh_opt.load_state_dict(saved.optimizer)
    for a, b in zip(optimizer.state_dict()["state"].values(),
                    fresh_opt.state_dict()["state"].values(), strict=True):
        assert torch.equal(a["exp_avg_sq"], b["exp_avg_sq"]) and torch.equal(a["step"], b["step"])
    assert torch.equal(saved.state[0], state)


def test_truncated_weights_are_rejected_with_a_clear_message(tmp_path):
    model, optimizer, state = _trained()
    save_checkpoint(tmp_path, "latest", model, optimizer, {"step": 1})
    weights = tmp_path / _manifest(tmp_path)["weights"]
    weights.write_bytes(weights.read_bytes()[:-100])
    with pytest.raises(UserFacingError, match="truncated, damaged"):
        load_checkpoint(tmp_path / "latest.json")


def test_corrupted_header_is_rejected_even_when_the_hash_matches(tmp_path):
    model, optimizer, _ = _trained()
    save_checkpoint(tmp_path, "latest", model, optimizer, {"step": 1})
    weights = tmp_path / _manifest(tmp_path)["weights"]
    broken = b"\xff" * 16 + weights.read_bytes()[16:]
    weights.write_bytes(broken)
    meta = json.loads((tmp_path / "latest.json").read_text())
    import hashlib

    meta["weights_sha256"] = hashlib.sha256(broken).hexdigest()
    (tmp_path / "latest.json").write_text(json.dumps(meta))
    with pytest.raises(UserFacingError, match="cannot be read"):
        load_checkpoint(tmp_path)


def test_damaged_metadata_and_missing_files_are_named(tmp_path):
    model, optimizer, _ = _trained()
    save_checkpoint(tmp_path, "latest", model, optimizer, {"step": 1})
    (tmp_path / "latest.json").write_text('{"step": 1, "form')
    with pytest.raises(UserFacingError, match="latest.json is damaged"):
        load_checkpoint(tmp_path)
    save_checkpoint(tmp_path, "latest", model, optimizer, {"step": 1})
    name = _manifest(tmp_path)["weights"]
    (tmp_path / name).unlink()
    with pytest.raises(UserFacingError, match=f"{name} is missing"):
        load_checkpoint(tmp_path)


def test_checkpoint_of_another_model_size_is_refused(tmp_path):
    model, optimizer, _ = _trained(hidden=12)
    save_checkpoint(tmp_path, "best", model, optimizer, {"step": 3})
    other, _, _ = _trained(hidden=20)
    expected = r"'rnn.weight_ih_l0' has shape \(36, 16\), the model expects \(60, 16\)"
    with pytest.raises(UserFacingError, match=expected):
        load_weights_into(other, load_checkpoint(tmp_path / "best.json"))


def test_no_temporary_files_are_left_behind(tmp_path):
    model, optimizer, _ = _trained()
    for _ in range(3):
        save_checkpoint(tmp_path, "latest", model, optimizer, {"step": 1})
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_tied_weights_are_saved_and_stay_tied(tmp_path):
    model, optimizer, _ = _trained()
    model.out.weight = torch.nn.Parameter(torch.randn(10, 12))
    model.embed = torch.nn.Embedding(10, 12)
    model.embed.weight = model.out.weight  # tied, as a transformer with tie_weights
    save_checkpoint(tmp_path, "latest", model, optimizer, {"step": 2})
    fresh, _, _ = _trained()
    fresh.out.weight = torch.nn.Parameter(torch.zeros(10, 12))
    fresh.embed = torch.nn.Embedding(10, 12)
    fresh.embed.weight = fresh.out.weight
    load_weights_into(fresh, load_checkpoint(tmp_path))
    assert torch.equal(fresh.out.weight, model.out.weight)
    assert fresh.embed.weight is fresh.out.weight


def test_a_gpu_runs_fused_optimizer_state_resumes_on_the_cpu_with_the_cpu_optimizer(tmp_path):
    """A GPU run's AdamW is fused; its saved groups say so. Resumed on a CPU, the optimizer
    keeps its own implementation and the saved moments, and steps."""
    from workbench.core.config.training import TrainingConfig
    from workbench.core.training.setup import load_optimizer_state, make_optimizer

    model, optimizer, state = _trained()
    optimizer.param_groups[0]["fused"] = True  # as make_optimizer builds it on CUDA
    save_checkpoint(tmp_path, "latest", model, optimizer, {"step": 3}, state)
    resumed = make_optimizer(model, TrainingConfig())
    load_optimizer_state(resumed, load_checkpoint(tmp_path).optimizer)
    assert not resumed.param_groups[0]["fused"]
    moments = [s["exp_avg"] for s in resumed.state.values()]
    assert moments and all(m.abs().sum() > 0 for m in moments)
    logits, _ = model(torch.randint(0, 10, (2, 5)))
    logits.sum().backward()
    resumed.step()
