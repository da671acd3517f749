"""Install torch into the running Python, only the build this machine needs.

Run with the virtual environment's python before the project itself is installed (the Makefile
does: `python scripts/install_torch.py "torch==2.13.0"`). Standard library only.

The routes (route() decides, command() composes pip's command line, main() runs it):

- cuda: the machine has an NVIDIA GPU (`/dev/nvidia0` exists, or `nvidia-smi -L` lists a GPU):
  torch from the configured index (pip.conf, PIP_INDEX_URL), which on Linux is the CUDA build
  with its NVIDIA wheels and the Triton it was built with.
- cpu: Linux without a GPU: torch from PyTorch's CPU wheel index. On Linux PyPI has only the
  CUDA build: torch 2.13.0 for Python 3.11 on x86_64 brings 29 wheels, 2.7 GB, among them 15
  nvidia-* libraries (2.0 GB) and the Triton torch pins (3.7.1). The CPU build is one 192 MB
  wheel and about 10 MB of pure-Python dependencies and asks for no Triton, so the project's
  own Triton requirement decides which Triton comes next.
- fallback: Linux without a GPU where the CPU index does not answer within PROBE_SECONDS
  (offline mirror, firewall): the configured index, said in one line.
- configured: macOS and Windows, whose torch on PyPI is already the CPU build.

TCLAB_TORCH_BUILD=cpu or =cuda forces a build: cpu skips the GPU check (the CPU index, still
with the fallback), cuda takes the configured index on any machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# The page pip reads first from that index.
PROBE_URL = f"{CPU_INDEX}/torch/"
# Long enough for a slow but working link (a HEAD request: headers only), short enough
# that an unreachable index costs an install no more than this.
PROBE_SECONDS = 3.0
# Quiet like the rest of the install; --no-compile because the Makefile byte-compiles the
# whole environment on every core afterwards.
PIP_INSTALL = ("-m", "pip", "install", "-q", "--no-compile")
FORCE_VARIABLE = "TCLAB_TORCH_BUILD"


@dataclass(frozen=True)
class Route:
    name: str  # "cuda", "cpu", "fallback" or "configured"
    message: str  # one line for the person watching the install


def has_gpu() -> bool:
    """An NVIDIA GPU the driver shows: its device node, or nvidia-smi listing one (a
    container may have either without the other)."""
    if Path("/dev/nvidia0").exists():
        return True
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        proc = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and "GPU" in proc.stdout


def probe(url: str = PROBE_URL, seconds: float = PROBE_SECONDS) -> str | None:
    """None when the index answers within `seconds`, else why not, in a few words."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"),
                                    timeout=seconds):
            return None
    except urllib.error.HTTPError as err:
        return f"HTTP {err.code}"
    except urllib.error.URLError as err:
        return str(err.reason)
    except (OSError, ValueError) as err:
        return str(err) or type(err).__name__


def route(requirement: str, platform: str, force: str, gpu: Callable[[], bool],
          probe: Callable[[], str | None]) -> Route:
    """Which index torch comes from. `force` is TCLAB_TORCH_BUILD ("", "cpu" or "cuda");
    `gpu` and `probe` (has_gpu() and probe() when run) are asked only where they decide."""
    if force not in ("", "cpu", "cuda"):
        raise ValueError(f"{FORCE_VARIABLE}={force!r}: expected cpu or cuda")
    if force == "cuda":
        return Route("cuda", f"{FORCE_VARIABLE}=cuda: {requirement} from the configured index")
    if force == "" and platform != "linux":
        return Route("configured", f"{requirement} from the configured index "
                                   f"(the CPU build on {platform})")
    if force == "" and gpu():
        return Route("cuda", f"an NVIDIA GPU: {requirement} from the configured index "
                             "(the CUDA build)")
    error = probe()
    if error is None:
        return Route("cpu", f"{requirement}, CPU build, from {CPU_INDEX}")
    return Route("fallback", f"{CPU_INDEX} did not answer ({error}): {requirement} from "
                             "the configured index instead (PyPI's torch on Linux is the CUDA "
                             "build)")


def command(python: str, requirement: str, chosen: Route) -> list[str]:
    """pip's command line for `chosen`. The CPU index replaces the configured index for this
    one install (its pages also carry torch's dependencies); pip's find-links and extra
    indexes still apply, and where one of them offers the same torch release without a local
    label, the `+cpu` build is the higher version and wins."""
    index = ["--index-url", CPU_INDEX] if chosen.name == "cpu" else []
    return [python, *PIP_INSTALL, *index, requirement]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: install_torch.py REQUIREMENT   (e.g. 'torch==2.13.0')", file=sys.stderr)
        return 2
    force = os.environ.get(FORCE_VARIABLE, "").strip().lower()
    try:
        chosen = route(args[0], sys.platform, force, has_gpu, probe)
    except ValueError as err:
        print(f"install_torch: {err}", file=sys.stderr)
        return 2
    print(f"install_torch: {chosen.message}", file=sys.stderr, flush=True)
    return subprocess.call(command(sys.executable, args[0], chosen))


if __name__ == "__main__":
    sys.exit(main())
