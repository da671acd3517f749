#!/usr/bin/env bash
# The whole GPU check in one call. Logs, results.json and plots go to $OUT (default
# results/gpu). Extra wheels (pycuda, jupytext, ...) are installed from .whl/ when present.
#
#   bash scripts/gpu-check.sh [STEP ...]     default: every step, in this order
#
# steps: pytest (the test suite with GPU tests), check (tclab check on the solutions),
#        corpus (GPU negative controls), repro (perf verdicts repeated 20x),
#        course (nbgrader autograde on the GPU), tune (reference launch-constant sweep)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-results/gpu}
steps=${*:-pytest check corpus repro course tune}
mkdir -p "$OUT"
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl 2>&1 | tail -2
  export PYTHONPATH=/tmp/site:${PYTHONPATH:-} PATH=/tmp/site/bin:$PATH  # nbgrader runs alembic from PATH
fi
export PYTHONPATH=$PWD:${PYTHONPATH:-} PYTHONUNBUFFERED=1 TCLAB_CACHE=${TCLAB_CACHE:-/tmp/tclab-cache}
export TCLAB_DEVICE=gpu MPLBACKEND=Agg
has() { [[ " $steps " == *" $1 "* ]]; }
step() { echo; echo "=== $* ($(date +%T))"; }
{
  step "device"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  python3 -c "import pycuda; print('pycuda', pycuda.VERSION_TEXT)" || echo "pycuda missing: CUDA checks will fail"
  if has pytest; then
    step "pytest, GPU tests included"
    timeout 420 python3 -m pytest -q -m "gpu or not gpu" -p no:cacheprovider \
      --submission solutions --ignore tests/test_corpus.py --ignore tests/test_browser.py \
      --ignore tests/test_course.py ${PYTEST_TARGETS:-tests} 2>&1 | tail -25
  fi
  if has check; then
    step "tclab check --submission solutions --device gpu"
    time python3 -m grader.cli check --submission solutions --device gpu \
      --results "$OUT/results.json" --plots "$OUT" -v
  fi
  if has corpus; then
    step "negative controls that need a GPU (tests/corpus, device: gpu)"
    timeout 400 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_corpus.py \
      ${CORPUS_ARGS:-} 2>&1 | tail -15
  fi
  if has repro; then
    step "perf verdicts repeated"
    timeout 400 python3 benchmarks/reproducibility.py -n 20 --out "$OUT" ${REPRO_ARGS:-}
  fi
  if has course; then
    step "nbgrader autograde on the GPU"
    timeout 400 python3 -m pytest -q -s -p no:cacheprovider -m gpu tests/test_course_gpu.py 2>&1 | tail -30
  fi
  if has tune; then
    step "reference sweep"
    python3 benchmarks/tune_references.py --json "$OUT/tune.json"
  fi
} 2>&1 | tee "$OUT/summary.log"
