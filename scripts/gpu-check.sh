#!/usr/bin/env bash
# The whole GPU check, in steps that each fit a 10-minute call (each is stopped after STEP_LIMIT
# seconds, default 560). Every step writes its full log to $OUT/<step>.log (default OUT=results/gpu) and prints its last lines; the script exits
# non-zero if any step failed. Extra wheels (pycuda, nbgrader, ...) are installed from .whl/
# when present. A GPU machine without network needs jupytext's among them (the labs are
# jupytext files: check, tune and notebooks read them through it); from a machine with one:
#   python -m pip download -d .whl --only-binary=:all: --python-version 3.12 \
#     --platform manylinux2014_x86_64 --platform any jupytext
#
#   bash scripts/gpu-check.sh [STEP ...]     default: every step, in this order
#
# steps: check   tclab check on the labs' solutions (every dtype; GB/s, ratios, plots);
#                LABS="lab01 lab07" limits it
#        corpus  every control of tests/corpus, on the GPU, CORPUS_WORKERS (default 8) at a
#                time: the verdicts of those not graded on speed, and the hidden cases and
#                memcheck of those whose one flaw is speed (the notebook/grader parity test
#                is left to the CPU suite); CORPUS_K="..." narrows it (pytest -k);
#                TCLAB_CORPUS_SHARD=1/2 (then 2/2) runs half the controls: with sixteen labs
#                (238 controls) one call holds only half of this step
#        corpus-timed  the controls graded on speed, one at a time, nothing else on the GPU
#                (a slow control on its public cases only: the corpus step did the rest);
#                TCLAB_CORPUS_SHARD=1/2 (then 2/2) runs half of them
#        labs    every lab's solutions graded for correctness on the GPU (its own shapes: large
#                ones, 64-bit offsets), memcheck included, LABS_WORKERS (default 8) at a time;
#                LABS_K="lab02 or lab07" narrows it (pytest -k)
#        notebooks  every lab's solution notebook executed headless on the GPU, as a student's
#                JupyterLab runs it (bench cells included; a grade cell must write nothing to
#                stderr), NOTEBOOKS_WORKERS (default 4) at a time; NOTEBOOKS_K narrows it
#        pytest  the rest of the test suite with its GPU tests (CUDA backend through pycuda)
#        course  nbgrader autograde on the GPU (perf partial credit)
#        autograde  autograde throughput: AUTOGRADE_N (default 6; on an H200 the first takes
#                about 50 s, each later one 24-27 s: up to about 18 fit one call) solutions
#                of each of AUTOGRADE_LABS (default lab01; one
#                lab per call) through `tclab course autograde`, AUTOGRADE_GPUS (default 1;
#                "1 2" compares) GPUs; AUTOGRADE_BASELINE=N also grades N of them through
#                plain `nbgrader autograde`, one after another
#        profile the profile judge's GPU tests (ncu on the controls and lab01's solution), then
#                the advice each perf control and solution gets, and its cost
#                (benchmarks/profile_feedback.py PROFILE_ARGS, default "--only controls":
#                the solutions, "--only solutions", fit a call of their own); PROFILE_K
#                narrows the tests (pytest -k)
#        repro   perf verdicts repeated (reproducibility), inside the sandbox
#        repro-open  the same with the sandbox off (TCLAB_SANDBOX=0), to compare
#        tune    the references' launch-constant sweep and their table against torch, the roof,
#                the labs' targets and solutions; TUNE_LABS="lab03 lab04" limits it,
#                TUNE_ARGS=--no-sweep times the constants checked in; TUNE_ARGS="--only
#                attention_cuda.D64_TILES=1,2" sweeps only that (repeatable)
#        probes  which kernel torch's fused attention (lab16's baseline) is on this GPU, beside
#                each fused backend forced (benchmarks/sdpa_backends.py); what a plain read
#                reaches at flash_decode's sizes (benchmarks/read_sizes.py); each
#                flash_decode reference's call and its split pass alone at b = 1, plan by
#                plan (benchmarks/decode_parts.py); when each block of the CUDA one starts,
#                ends its loop and combines (benchmarks/decode_timeline.py); each split pass's
#                time and L2 traffic under Nsight Compute (benchmarks/decode_split_pass.py)
#        patterns  memory patterns for a 16-bit relu against torch's kernel (lab03's target),
#                table and plot (benchmarks/memory_patterns.py)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-results/gpu}
steps=${*:-check corpus corpus-timed labs notebooks pytest course autograde profile repro repro-open tune probes patterns}
mkdir -p "$OUT"
if [ -d .whl ]; then  # once per machine (the stamp): two checks may run side by side
  [ /tmp/site/.installed -nt .whl ] || { python3 -m pip install -q --no-index --no-deps \
    --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl > "$OUT/install.log" 2>&1 \
    && touch /tmp/site/.installed || tail -5 "$OUT/install.log"; }
  export PYTHONPATH=/tmp/site:${PYTHONPATH:-} PATH=/tmp/site/bin:$PATH  # nbgrader runs alembic from PATH
  export JUPYTER_PATH=/tmp/site/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}  # nbconvert's templates
fi
export PYTHONPATH=$PWD:${PYTHONPATH:-} PYTHONUNBUFFERED=1 TCLAB_CACHE=${TCLAB_CACHE:-/tmp/tclab-cache}
export TCLAB_DEVICE=gpu MPLBACKEND=Agg
failed=()
run() {  # run STEP LIMIT COMMAND...: full log to $OUT/STEP.log, its tail here
  local name=$1 limit=${STEP_LIMIT:-$2}; shift 2
  echo; echo "=== $name ($(date +%T)): $*"
  local start=$SECONDS
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  tail -n "${TAIL:-25}" "$OUT/$name.log"
  echo "=== $name: exit $rc after $((SECONDS - start)) s (full log: $OUT/$name.log)"
  [ "$rc" = 0 ] || failed+=("$name")
}
has() { [[ " $steps " == *" $1 "* ]]; }
{
  echo "=== device"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  python3 -c "import pycuda; print('pycuda', pycuda.VERSION_TEXT)" || echo "pycuda missing: CUDA checks will fail"
  python3 -c "import jupytext" || echo "jupytext missing: check, tune and notebooks cannot read the labs"
  has check && run check 560 python3 -m grader.cli check ${LABS:-} --submission solutions \
    --device gpu --results "$OUT/results.json" --plots "$OUT" -v
  corpus=(python3 -m pytest -v -rfE -p no:cacheprovider tests/test_corpus.py
          -k "(verdict or slow_control) and (${CORPUS_K:-corpus})")
  has corpus && run corpus 560 "${corpus[@]}" -m "(gpu or not gpu) and not timed" \
    -n "${CORPUS_WORKERS:-8}" --dist loadgroup
  has corpus-timed && run corpus-timed 560 "${corpus[@]}" -m "(gpu or not gpu) and timed"
  has labs && run labs 560 python3 -m pytest -v -rfE -p no:cacheprovider -m "gpu or not gpu" \
    --submission solutions tests/test_labs.py -n "${LABS_WORKERS:-8}" -k "${LABS_K:-lab}"
  has notebooks && run notebooks 560 python3 -m pytest -q -rfE -p no:cacheprovider \
    -m "gpu or not gpu" tests/test_notebooks_run.py -n "${NOTEBOOKS_WORKERS:-4}" \
    -k "solution_notebook_runs and (${NOTEBOOKS_K:-lab})"
  has pytest && run pytest 560 python3 -m pytest -q -rfE -p no:cacheprovider -m "gpu or not gpu" \
    --submission solutions --ignore tests/test_corpus.py --ignore tests/test_labs.py --ignore tests/test_browser.py \
    --ignore tests/test_course.py --ignore tests/test_course_gpu.py \
    --ignore tests/test_notebooks_run.py --ignore tests/test_scaffold.py ${PYTEST_TARGETS:-tests}
  has course && run course 560 python3 -m pytest -q -rfE -s -p no:cacheprovider -m gpu \
    tests/test_course_gpu.py
  if has autograde; then
    for lab in ${AUTOGRADE_LABS:-lab01}; do
      run "autograde-$lab" 560 python3 benchmarks/autograde_bench.py "$lab" -n "${AUTOGRADE_N:-6}" \
        --gpus ${AUTOGRADE_GPUS:-1} --out "$OUT"
      [ -n "${AUTOGRADE_BASELINE:-}" ] && run "autograde-$lab-baseline" 560 python3 \
        benchmarks/autograde_bench.py "$lab" -n "$AUTOGRADE_BASELINE" --mode nbgrader --out "$OUT"
    done
  fi
  has profile && run profile-tests 300 python3 -m pytest -v -rfE -p no:cacheprovider -m gpu \
    tests/test_profile.py -k "${PROFILE_K:-profile}"
  has profile && run profile 560 python3 benchmarks/profile_feedback.py --out "$OUT" \
    ${PROFILE_ARGS:---only controls}
  # REPRO_ARGS: labs and options (--impl); every lab at once does not fit one call
  has repro && run repro 560 python3 benchmarks/reproducibility.py -n 20 --out "$OUT" \
    ${REPRO_ARGS:-lab01 lab07}
  has repro-open && TCLAB_SANDBOX=0 run repro-open 560 python3 benchmarks/reproducibility.py -n 20 \
    --out "$OUT/open" ${REPRO_ARGS:-lab01 lab07}
  has tune && run tune 560 python3 benchmarks/tune_references.py ${TUNE_LABS:-} ${TUNE_ARGS:-} --json "$OUT/tune.json" \
    --md "$OUT/tune.md"
  has probes && run sdpa 120 python3 -m benchmarks.sdpa_backends
  has probes && run read-sizes 120 python3 -m benchmarks.read_sizes
  has probes && run decode-parts 240 python3 -m benchmarks.decode_parts
  has probes && run decode-timeline 120 python3 -m benchmarks.decode_timeline
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)  # where the CUDA toolkit puts it
  has probes && run decode-split-pass 180 "$ncu" --metrics gpu__time_duration.sum,dram__bytes_read.sum,\
lts__t_requests_op_read.sum,lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct \
    -k regex:flash_decode python3 -m benchmarks.decode_split_pass \
    flash_decode_triton "flash_decode_cuda:BLOCK_TILES=False" flash_decode_cuda
  has patterns && run patterns 300 python3 benchmarks/memory_patterns.py --out "$OUT"
  echo
  if [ ${#failed[@]} = 0 ]; then echo "gpu-check: every step passed"; else echo "gpu-check: FAILED: ${failed[*]}"; fi
} 2>&1 | tee "$OUT/summary.log"
grep -q "every step passed" "$OUT/summary.log"
