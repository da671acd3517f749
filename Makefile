# Two commands on a fresh machine: `make run` (check the reference solutions) and `make test`.
# Both create .venv/ on first use. Python 3.10+ with venv and a C++ compiler are all they need.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# torch 2.13.0, the build scripts/install_torch.py picks (below); pycuda and nvcc come with the
# conda route (environment.yml) on a GPU machine.
TORCH ?= torch==2.13.0
STAMP := $(VENV)/.installed

.PHONY: run test quick lint release lab gpu-check clean

# torch first, only the build this machine needs (scripts/install_torch.py): the CUDA build
# from the configured index with an NVIDIA GPU; without one on Linux the CPU build from
# PyTorch's CPU index (one line says so where that index does not answer and the configured
# index serves instead); TCLAB_TORCH_BUILD=cpu or =cuda forces one. The CPU build asks for no
# Triton: pyproject.toml's requirement picks it in the next line.
# Byte-compiled by compileall on every core: pip compiles on one (53 s of the install on a
# 2-core machine, 28 s this way). A few files ship for other Pythons and do not compile, as
# under pip, so compileall's exit status is not the install's.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/python scripts/install_torch.py "$(TORCH)"
	$(BIN)/pip install -q --no-compile -e ".[dev]"
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib > /dev/null || true
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/tclab check --submission solutions

test: $(STAMP)
	$(BIN)/tclab release --check
	$(BIN)/ruff check grader tests benchmarks reference scripts
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup --submission solutions

# The contributors' inner loop (under 3 minutes on 2 cores): unit tests of the judge, the
# manifest, the wire, the CUDA CPU backend, the import rules and the install route, and one
# control per lab.
quick: $(STAMP)
	$(BIN)/ruff check grader tests benchmarks reference scripts
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup -m quick --submission solutions

lint: $(STAMP)
	$(BIN)/ruff check grader tests benchmarks reference scripts

release: $(STAMP)
	$(BIN)/tclab release

# JupyterLab on the student's working copy, workspace/ (ignored by git): made from exercises/
# on first use, a lab released later added, a file there never written over.
# Jupyter refuses root without --allow-root (containers, CI machines).
lab: $(STAMP)
	$(BIN)/python -m grader.lab.workspace && \
	    $(BIN)/jupyter lab workspace/ $$([ "$$(id -u)" = 0 ] && echo --allow-root)

# The whole GPU check in one call (tests, tclab check, benchmarks); logs and plots under $OUT.
gpu-check:
	bash scripts/gpu-check.sh

clean:
	rm -rf $(VENV) results .pytest_cache
