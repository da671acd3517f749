"""Memory and barrier checking on a GPU: one launch under compute-sanitizer memcheck (and, for
CUDA C, one under synccheck); `decide()` reads the report. (Without a GPU the CPU backend does
both jobs inside the correctness check: an out-of-bounds read, a divergent __syncthreads() or a
shuffle naming absent lanes raises there.)"""

from __future__ import annotations

import re

from grader.judge.verdict import Outcome, Verdict, skipped, status_of
from grader.lab.manifest import Exercise

SANITIZER = "compute-sanitizer"
EXIT_CODE = 86  # --error-exitcode: the sanitizer found an error
FLAGS = ["--print-limit", "3", "--error-exitcode", str(EXIT_CODE)]
TOOLS = {"triton": ("memcheck",), "cuda": ("memcheck", "synccheck")}
# A read just past a small input usually lands in the next live allocation, which memcheck
# cannot tell from a legal read; a padding buffer after every allocation makes it an error.
# 1 MiB covers a block of 1024 threads reading up to 256 float4s past the end.
PADDING = ["--padding", str(1 << 20)]


def flags(tool: str, check: str = "memcheck") -> list[str]:
    """FLAGS for `check`, with memcheck's padding where this compute-sanitizer has it."""
    import subprocess

    try:
        text = subprocess.run([tool, "--help"], capture_output=True, text=True,
                              timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        text = ""
    padding = PADDING if check == "memcheck" and "--padding" in text else []
    return ["--tool", check, *FLAGS, *padding]
# The caching allocator off: each tensor is its own allocation, so a read past an input is
# outside every allocation, which is what memcheck can see.
ENV = {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}
_ERROR = re.compile(r"=+ (Invalid __\w+__ (?:read|write) of size \d+ bytes|"
                    r"Out-of-range \w+ access|Program hit \w+.*|Barrier error detected.*|"
                    r"Invalid arguments.*)")
_AT = re.compile(r"=+\s+at (?:0x[0-9a-f]+ in )?([\w:<>, ]+?)(?:\+0x[0-9a-f]+)?(?: in |$)")


def decide(ex: Exercise, impl: str, dtype: str, shape: dict, outcome: Outcome,
           check: str = "memcheck") -> Verdict:
    base = {"check": "memcheck", "exercise": ex.key, "impl": impl, "dtype": dtype,
            "device": "gpu", "seconds": outcome.seconds, "unsandboxed": outcome.unsandboxed}
    where = ex.describe(shape, dtype)
    errors = _ERROR.findall(outcome.output)
    if errors or outcome.returncode == EXIT_CODE:
        at = _AT.findall(outcome.output)
        kernel = at[0].strip() if at else ex.impls[impl].kernel
        first = errors[0].strip() if errors else "memory error"
        barrier = check == "synccheck"
        advice = (": every thread of a block must reach the same __syncthreads(), and a warp "
                  "call's mask may name only lanes that call it" if barrier else "")
        return Verdict(status="exception" if barrier else "memory_error",
                       reason=f"{SANITIZER} {check}: {first} in {kernel} on [{where}]{advice}",
                       details=outcome.output, **base)
    if outcome.error is not None:
        last = outcome.error.message.strip().splitlines()[-1:] or [outcome.error.kind]
        return Verdict(status=status_of(outcome.error.kind), reason=f"under {SANITIZER}: {last[0]}",
                       details=outcome.error.message, **base)
    if outcome.timed_out:
        return Verdict(status="timeout", reason=f"under {SANITIZER}: killed after "
                       f"{outcome.timeout:g} s on [{where}]", **base)
    return Verdict(status="pass", reason=f"{check}: nothing found on [{where}]", **base)


def no_sanitizer(ex: Exercise, impl: str, dtype: str) -> Verdict:
    """Memcheck where this machine has no compute-sanitizer: skipped, and said so."""
    return skipped("memcheck", f"skipped: {SANITIZER} not found", ex.key, impl, dtype, "gpu")
