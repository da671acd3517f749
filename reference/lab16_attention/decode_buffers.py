"""What lab16's two flash-decoding launchers (flash_decode_triton.py, flash_decode_cuda.py)
allocate alike: the splits' float32 partials, and counts per KV head (the fused combine's; the
CUDA launcher's CLAIM_TILES adds one more a head), zeroed once per device and kept across calls,
since the last program of each KV head sets its counts back to zero."""

import torch


def partials(b: int, hq: int, splits: int, d: int, device) -> tuple:
    """part_o [b, hq, splits, d] (each split's sum of p . v), part_m and part_l [b, hq, splits]
    (its max and its sum of p), float32; the split pass writes every element."""
    return (torch.empty((b, hq, splits, d), dtype=torch.float32, device=device),
            *(torch.empty((b, hq, splits), dtype=torch.float32, device=device) for _ in range(2)))


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
