"""The bandwidth (or throughput) sweep plot of one exercise and implementation."""

from __future__ import annotations

from pathlib import Path

from grader.lab.manifest import Exercise


def path(ex: Exercise, impl: str, out_dir: Path) -> Path:
    """Where `sweep()` writes the plot of (ex, impl) in `out_dir`."""
    return out_dir / f"{ex.key.replace('/', '_')}_{impl}.png"


def sweep(ex: Exercise, impl: str, rows: list[dict], roof: float | None, out_dir: Path,
          label: str = "yours") -> Path:
    """GB/s against size for the student's kernel, the reference and torch, with the roof (or
    TFLOP/s against FLOPs for a compute-bound exercise, torch being its vendor library).
    Drawn without pyplot's global state: safe in a thread of its own."""
    from matplotlib.figure import Figure

    size = [r["work"] / 2**20 for r in rows]
    unit = ex.rate_unit
    fig = Figure(figsize=(7, 4.2))
    ax = fig.subplots()
    ax.plot(size, [r["gbps"] for r in rows], "o-", label=f"{label} ({impl})")
    if any(r.get("reference_ms") != r.get("student_ms") for r in rows):
        ax.plot(size, [r["reference_gbps"] for r in rows], "s--", label="reference")
    if all("torch_gbps" in r for r in rows):
        ax.plot(size, [r["torch_gbps"] for r in rows], "^:", label=ex.baseline_name)
    if roof and ex.unit == "bytes":
        ax.axhline(roof, color="gray", lw=1, label=f"copy roof {roof:.0f} GB/s")
        ax.set_ylim(0, roof * 1.1)
    ax.set_xscale("log", base=2)
    ax.set_xticks(size, ["×".join(str(v) for v in ex.dims(r["shape"]).values()) for r in rows],
                  rotation=30, fontsize=8)
    ax.minorticks_off()
    moved = "bytes moved" if ex.unit == "bytes" else "FLOPs"
    ax.set_xlabel(f"size ({' × '.join(ex.dim_names)}); log scale of {moved}")
    ax.set_ylabel(unit)
    dtype = rows[0].get("dtype", "") if rows else ""
    ax.set_title(f"{ex.key} — {impl}{f' ({dtype})' if dtype else ''}")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    out_dir.mkdir(parents=True, exist_ok=True)
    where = path(ex, impl, out_dir)
    fig.tight_layout()
    fig.savefig(where, dpi=110)
    return where
