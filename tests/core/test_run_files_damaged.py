"""Damaged run folders: a stray byte, an impossible number or a wrongly typed value costs one
line (counted), never the run; run.json with odd values; a folder that cannot be written."""

from __future__ import annotations

import json
import os

import pytest

from workbench.core.jobs import UserFacingError
from workbench.core.training import runs


def _step(step, loss=1.5):
    return json.dumps({"event": "step", "step": step, "loss": loss, "lr": 0.01,
                       "grad_norm": 1.0, "clipped": False, "tokens_seen": step * 10,
                       "tokens_per_s": 100.0, "elapsed_s": 0.1 * step})


def _run(tmp_path, lines: list[bytes], samples: list[bytes] = ()):
    (tmp_path / "metrics.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    (tmp_path / "samples.jsonl").write_bytes(b"".join(line + b"\n" for line in samples))
    return tmp_path


def test_a_non_utf8_byte_costs_its_line_not_the_run(tmp_path):
    bad = _step(2).encode().replace(b'"lr"', b'"l\xff"')
    sample = json.dumps({"step": 1, "text": "ok"}).encode()
    record = runs.read_run(_run(tmp_path, [_step(1).encode(), bad, _step(3).encode()],
                                [sample, b'{"step": 2, "text": "\xfe"}']))
    assert [e.step for e in record.events] == [1, 3]
    assert [s.text for s in record.samples] == ["ok"]
    assert record.skipped_lines == 2


@pytest.mark.parametrize("value", ["-Infinity", "NaN", "Infinity", '"3"', "true", "[1]"])
def test_impossible_or_mistyped_numbers_are_damaged_lines(tmp_path, value):
    bad = _step(2).replace('"loss": 1.5', f'"loss": {value}')
    record = runs.read_run(_run(tmp_path, [_step(1).encode(), bad.encode()]))
    assert [e.step for e in record.events] == [1] and record.skipped_lines == 1


def test_mistyped_step_and_negative_step_are_damaged(tmp_path):
    lines = [_step(1).replace('"step": 1', '"step": "x"'), _step(-100), _step(4)]
    record = runs.read_run(_run(tmp_path, [line.encode() for line in lines]))
    assert [e.step for e in record.events] == [4] and record.skipped_lines == 2


def test_optional_metrics_may_be_missing_but_not_minus_infinity(tmp_path):
    good = json.dumps({"event": "eval", "step": 5, "val_loss": 2.0, "perplexity": float("inf"),
                       "metrics": {"exact_match": float("nan")}})
    bad = json.dumps({"event": "eval", "step": 6, "val_loss": 2.0,
                      "metrics": {"bits": float("-inf")}})
    record = runs.read_run(_run(tmp_path, [good.encode(), bad.encode()]))
    assert [e.step for e in record.events] == [5] and record.skipped_lines == 1


def test_a_last_line_without_newline_is_read(tmp_path):
    (tmp_path / "metrics.jsonl").write_bytes((_step(1) + "\n" + _step(2)).encode())
    assert [e.step for e in runs.read_run(tmp_path).events] == [1, 2]
    (tmp_path / "metrics.jsonl").write_bytes((_step(1) + "\n" + _step(2)[:30]).encode())
    record = runs.read_run(tmp_path)
    assert [e.step for e in record.events] == [1] and record.skipped_lines == 1


def test_resume_rewrite_keeps_lines_with_undecodable_bytes(tmp_path):
    lines = [_step(1).encode(), b'{"event": "step", "step": 2, "\xff": 1}', _step(3).encode()]
    _run(tmp_path, lines)
    runs.truncate_after(tmp_path, 2)
    assert (tmp_path / "metrics.jsonl").read_bytes().splitlines() == lines[:2]


def test_run_json_values_of_the_wrong_type_are_ignored(tmp_path):
    _run(tmp_path, [_step(1).encode()])
    (tmp_path / "run.json").write_text(json.dumps({"name": 42, "colour": ["red"]}))
    record = runs.read_run(tmp_path)
    assert record.name == tmp_path.name and record.settings == {}
    assert runs.run_label(tmp_path) == tmp_path.name


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root writes into read-only folders")
def test_a_read_only_run_cannot_be_renamed_and_says_so(tmp_path):
    _run(tmp_path, [_step(1).encode()])
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(UserFacingError, match="could not be saved"):
            runs.write_settings(tmp_path, name="mine")
    finally:
        tmp_path.chmod(0o755)


def test_an_unwritable_run_json_is_a_user_facing_error(tmp_path):
    _run(tmp_path, [_step(1).encode()])
    (tmp_path / "run.json").mkdir()  # a folder where the file should go: rename fails
    with pytest.raises(UserFacingError, match="could not be saved"):
        runs.write_settings(tmp_path, name="mine")
