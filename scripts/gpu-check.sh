#!/usr/bin/env bash
# The whole GPU check in one call: GPU tests, `tclab check` on the solutions, the reference
# sweep. Logs, results.json and plots go to $OUT (default results/gpu). Extra wheels (pycuda,
# jupytext, ...) are installed from .whl/ when it is there.
#   bash scripts/gpu-check.sh [full|quick|tune]   quick: tclab check only; tune: + reference sweep
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-results/gpu}
mode=${1:-full}
mkdir -p "$OUT"
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl 2>&1 | tail -2
  export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export PYTHONPATH=$PWD:${PYTHONPATH:-} PYTHONUNBUFFERED=1 TCLAB_CACHE=${TCLAB_CACHE:-/tmp/tclab-cache}
export TCLAB_DEVICE=gpu MPLBACKEND=Agg
log="$OUT/summary.log"
step() { echo; echo "=== $* ($(date +%T))"; }
{
  step "device"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  if [ "$mode" = full ]; then
    step "pytest (gpu tests included)"
    timeout 420 python3 -m pytest -q -m "gpu or not gpu" -p no:cacheprovider --submission solutions \
      --ignore tests/test_corpus.py --ignore tests/test_browser.py --ignore tests/test_course.py tests 2>&1 | tail -25
  fi
  step "tclab check --submission solutions --device gpu"
  time python3 -m grader.cli check --submission solutions --device gpu --results "$OUT/results.json" --plots "$OUT" -v
  if [ "$mode" = full ]; then
    step "negative controls on the GPU (tests/corpus)"
    timeout 400 python3 -m pytest -q -p no:cacheprovider -m "gpu or not gpu" tests/test_corpus.py 2>&1 | tail -15
  fi
  if [ "$mode" != quick ]; then
    step "reference sweep"
    python3 benchmarks/tune_references.py --json "$OUT/tune.json"
  fi
} 2>&1 | tee "$log"
