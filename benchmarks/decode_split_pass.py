"""lab16's flash-decoding split passes at b = 1, s = 32768 (benchmarks/decode_parts.py's shape),
each reference's three times, its launch constants set from the command line: a target for
Nsight Compute, which times a kernel alone and counts its memory traffic.

    ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_requests_op_read.sum,\
lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct -k regex:flash_decode \
        python -m benchmarks.decode_split_pass flash_decode_triton \
        "flash_decode_cuda:BLOCK_TILES=False" flash_decode_cuda

Each argument is a reference module, then after ':' its constants, NAME=VALUE joined by ';'.
`bash scripts/gpu-check.sh probes` runs that line.
"""

import ast
import sys

import torch

from benchmarks.decode_parts import HKV, HQ, B, D, S, reference


def main() -> int:
    if not torch.cuda.is_available():
        print("skipped: needs a GPU")
        return 0
    q = torch.randn(B, HQ, D, dtype=torch.bfloat16, device="cuda")
    k, v = (torch.randn(B, HKV, S, D, dtype=torch.bfloat16, device="cuda") for _ in range(2))
    o = torch.empty_like(q)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for arg in sys.argv[1:]:
        stem, _, constants = arg.partition(":")
        ref = reference(stem)
        for item in filter(None, constants.split(";")):
            name, value = item.split("=", 1)
            assert hasattr(ref, name), f"{stem} has no constant {name}"
            setattr(ref, name, ast.literal_eval(value))
        splits, size = ref.plan(B, HKV, S, sms)
        part = reference("decode_buffers").partials(B, HQ, splits, D, q.device)
        for _ in range(3):
            ref.split_pass(q, k, v, *part, o, size, fused=False)
        torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
