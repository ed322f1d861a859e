#!/usr/bin/env bash
# The device check, in one call (a lent GPU is time-boxed, so everything runs from this script):
#   1. every shipped recipe trains STEPS steps on CUDA through the CLI (a task or model whose
#      tensors end up on two devices fails here, and nowhere in CI, which has no GPU);
#   2. a CUDA run resumes on CUDA, and a SIGTERM mid-run saves the step it reached;
#   3. runs trained on CUDA open where there is no GPU (CUDA_VISIBLE_DEVICES=""): the window's
#      checkpoint loader, `workbench generate`, and a resume on the CPU;
#   4. the trainer's own tests with device "auto", which is CUDA there.
# Usage, on the GPU machine, from the repository root:
#   bash benchmarks/gpu_check.sh OUT_DIR [STEPS]
# Prints one line per check (ok / FAIL) and leaves each command's log in OUT_DIR.
set -u
OUT=${1:?usage: gpu_check.sh OUT_DIR [STEPS]}
STEPS=${2:-150}
DEVICE=${DEVICE:-cuda}  # DEVICE=cpu tries the script itself on a machine without a GPU
PY=${PYTHON:-python3}
RUNS=$(mktemp -d)
export WORKBENCH_RUNS_DIR=$RUNS  # sentiment-finetune starts from the mlm-shakespeare run trained here
mkdir -p "$OUT"
failures=0

check() {  # check NAME COMMAND...: run it with a time limit, log it, print one line
    local name=$1; shift
    local t0=$SECONDS
    timeout 240 "$@" >"$OUT/$name.log" 2>&1
    local rc=$?
    if [ $rc -eq 0 ]; then
        echo "ok    $name ($((SECONDS - t0)) s) $(tail -n 1 "$OUT/$name.log" | cut -c1-110)"
    else
        failures=$((failures + 1))
        echo "FAIL  $name ($((SECONDS - t0)) s, exit $rc): $(tail -n 3 "$OUT/$name.log" | tr '\n' ' ' | cut -c1-300)"
    fi
}

$PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(),
        torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')"

for recipe in resources/recipes/*.toml; do
    name=$(basename "$recipe" .toml)
    check "train-$name" $PY -m workbench train "$recipe" --device "$DEVICE" \
        --max-steps "$STEPS" --out "$RUNS/$name"
done

check resume-cuda $PY -m workbench train --resume "$RUNS/char-lstm" \
    --max-steps $((STEPS + 100))

# SIGTERM after a few seconds of a long run: the CLI saves the step it reached and exits.
$PY -m workbench train resources/recipes/char-transformer.toml --device "$DEVICE" \
    --max-steps 100000 --out "$RUNS/sigterm" >"$OUT/sigterm.log" 2>&1 &
pid=$!
sleep 25
kill -TERM $pid
wait $pid
rc=$?
echo "sigterm: exit $rc; $(tail -n 2 "$OUT/sigterm.log" | tr '\n' ' ' | cut -c1-200)"
saved=$($PY -c "from workbench.core.training.checkpoints import load_resumable
print(load_resumable('$RUNS/sigterm/checkpoints')[0].step)")
echo "sigterm: the latest checkpoint holds step $saved"
check resume-after-sigterm $PY -m workbench train --resume "$RUNS/sigterm" \
    --max-steps $((saved + 50))

# Without a GPU: what a student's laptop does with a run trained on the lab's GPU.
for name in char-lstm dates-additive upos-bilstm sentiment-transformer mlm-shakespeare; do
    check "cpu-open-$name" env CUDA_VISIBLE_DEVICES="" $PY -c "
import sys
from pathlib import Path
from workbench.app.inspection_backend import snapshot_from_checkpoint
s = snapshot_from_checkpoint(Path(sys.argv[1]))
print('opened on the CPU: step', s.step, 'task', s.task.get('kind', s.task), len(s.weights), 'tensors')
" "$RUNS/$name"
done
check cpu-generate env CUDA_VISIBLE_DEVICES="" $PY -m workbench generate \
    "$RUNS/char-lstm" --prompt "ROMEO:" --tokens 60 --seed 1
check cpu-resume env CUDA_VISIBLE_DEVICES="" $PY -m workbench train \
    --resume "$RUNS/dates-additive" --max-steps $((STEPS + 50))

check trainer-tests $PY -m pytest -q -p no:cacheprovider tests/core/test_training_trainer.py \
    tests/core/test_training_checkpoints.py tests/core/test_training_guard.py \
    tests/core/test_training_control.py tests/core/test_seq2seq_task.py \
    tests/core/test_encoder_tasks.py tests/core/test_training_cli.py tests/core/test_training_parts.py

rm -rf "$RUNS"
echo "gpu_check: $failures failed"
exit $((failures > 0))
