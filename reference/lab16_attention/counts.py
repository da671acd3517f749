"""The fused combine's counts, one per KV head (flash_decode_cuda.py's FUSED_COMBINE,
flash_decode_triton.py's): zeroed once per device and kept across calls, since the last
program of each KV head sets its count back to zero."""

import torch


class Counts:
    """One launcher's counts (each launcher its own: two never share a count)."""

    def __init__(self):
        self.per_device: dict = {}

    def get(self, n: int, device) -> torch.Tensor:
        """At least n zeroed counts on `device`."""
        have = self.per_device.get(str(device))
        if have is None or have.numel() < n:
            have = torch.zeros(max(n, 1024), dtype=torch.int32, device=device)
            self.per_device[str(device)] = have
        return have
