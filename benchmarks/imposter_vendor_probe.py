"""Which kernel makes IMPOSTER's training differ between CPU vendors: a probe to run on each CPU.

Under the Makefile's kernel caps, the default profile gives every value equal on Intel (AVX-512)
and AMD (AVX2) machines except IMPOSTER's trained networks. This script fingerprints, in one fresh
process per setting, the operations IMPOSTER's training uses and one small training itself:

- the matrix products of its layers (MKL's SGEMM, at the shapes of a batch), at aligned and
  misaligned memory offsets (MKL's conditional numerical reproducibility without ``STRICT`` holds
  only for aligned operands);
- the element-wise kernels of its losses and activations (exp, log, tanh, sigmoid, softplus,
  log-softmax) and one Adam step;
- a 600-row, one-epoch IMPOSTER fit: the SHA-256 of its four networks' weights;
- how many MKL calls and oneDNN primitives the fit makes (``MKL_VERBOSE``, ``ONEDNN_VERBOSE``), with
  MKL's reproducibility branch.

Settings: the caps alone, then one lever at a time (MKL's ``STRICT`` reproducibility, oneDNN capped
at AVX2, PyTorch's mkldnn disabled, PyTorch's ATen kernels at their portable baseline). Run it on
both machines from the same commit and compare the two CSVs: the first fingerprint that differs
between vendors under the caps names the kernel, and a lever whose fit fingerprints agree is a pin.

    python benchmarks/imposter_vendor_probe.py          # about a minute of CPU time
    diff benchmarks/results/imposter_vendor_probe_<vendor A>.csv \
         benchmarks/results/imposter_vendor_probe_<vendor B>.csv

On an AMD EPYC (AVX2) the probe's fit makes 166 SGEMM calls, all in MKL's ``COMPATIBLE`` branch on one
thread, and no oneDNN primitive, so oneDNN's own dispatch cannot be the cause there.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"

#: the Makefile's kernel caps (see ``ppdp.kernels`` where present)
CAPS = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
    "OPENBLAS_CORETYPE": "Haswell",
    "MKL_CBWR": "COMPATIBLE",
}
#: setting -> variables set on top of the caps ("PPDP_PROBE_NO_MKLDNN" turns torch's mkldnn off)
SETTINGS = {
    "caps": {},
    "mkl_strict": {"MKL_CBWR": "COMPATIBLE,STRICT"},
    "onednn_avx2": {"ONEDNN_MAX_CPU_ISA": "AVX2"},
    "no_mkldnn": {"PPDP_PROBE_NO_MKLDNN": "1"},
    "aten_default": {"ATEN_CPU_CAPABILITY": "default"},
}


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(a.detach().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


def fingerprints(rows: int, epochs: int) -> dict[str, str]:
    """Fingerprints of the operations and of one small fit, in this process."""
    import torch

    if os.environ.get("PPDP_PROBE_NO_MKLDNN"):
        torch.backends.mkldnn.enabled = False
    import numpy as np

    torch.set_num_threads(1)
    torch.manual_seed(0)
    # operands drawn by numpy, so that they are the same bits whatever torch's kernels
    rng = np.random.default_rng(0)

    def randn(*shape):
        return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))

    out: dict[str, str] = {}
    for m, k, n in [(128, 89, 128), (128, 128, 128), (128, 128, 16), (50, 128, 89)]:
        a, b = randn(m, k), randn(k, n)
        out[f"mm_{m}x{k}x{n}"] = _digest(a @ b)
        # the same operands one float past a 64-byte boundary
        shifted = torch.empty(m * k + 1)[1:].view(m, k)
        shifted.copy_(a)
        out[f"mm_{m}x{k}x{n}_misaligned"] = _digest(shifted @ b)
    x = randn(4096) * 4
    out["exp"] = _digest(torch.exp(x))
    out["log"] = _digest(torch.log(x.abs() + 1e-3))
    out["tanh"] = _digest(torch.tanh(x))
    out["sigmoid"] = _digest(torch.sigmoid(x))
    out["softplus"] = _digest(torch.nn.functional.softplus(x))
    out["log_softmax"] = _digest(torch.log_softmax(x.view(64, 64), dim=1))
    layer = torch.nn.Linear(64, 64)
    with torch.no_grad():
        layer.weight.copy_(randn(64, 64) / 8)
        layer.bias.copy_(randn(64) / 8)
    opt = torch.optim.Adam(layer.parameters(), lr=1e-3, betas=(0.5, 0.9))
    layer(x.view(64, 64)).square().mean().backward()
    opt.step()
    out["adam_step"] = _digest(layer.weight)

    from ppdp.experiments.imposter.run import LABEL, PRIVATE, prepare_adult
    from ppdp.mechanisms.imposter import Imposter

    adult = prepare_adult(n_rows=rows, seed=0)
    model = Imposter(private=PRIVATE, label=LABEL, epochs=epochs, progress=False)
    model.fit(adult, random_state=0)
    nets = [model.encoder_, model.generator_, model.d1_, model.d2_]
    out["fit"] = _digest(*(p for net in nets for p in net.state_dict().values()))
    return out


def kernel_calls(env: dict[str, str], rows: int, epochs: int) -> dict[str, str]:
    """MKL calls (by routine and reproducibility branch) and oneDNN primitives of one fit."""
    env = {**env, "MKL_VERBOSE": "1", "ONEDNN_VERBOSE": "1"}
    command = [sys.executable, __file__, "--worker", "--rows", str(rows), "--epochs", str(epochs)]
    text = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    mkl = re.findall(r"^MKL_VERBOSE (\w+)\(.*?CNR:(\S+)", text, flags=re.M)
    calls = {}
    for routine, branch in mkl:
        calls[f"{routine} {branch}"] = calls.get(f"{routine} {branch}", 0) + 1
    onednn = len(re.findall(r"^onednn_verbose.*,exec,", text, flags=re.M))
    return {
        "mkl_calls": "; ".join(f"{k}: {v}" for k, v in sorted(calls.items())) or "none",
        "onednn_primitives": str(onednn),
    }


def main(argv: list[str] | None = None) -> list[dict[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=600, help="Adult rows of the probe's fit")
    parser.add_argument("--epochs", type=int, default=1, help="epochs of the probe's fit")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(fingerprints(args.rows, args.epochs)))
        return []
    base = {k: v for k, v in os.environ.items() if k not in CAPS}
    rows = []
    for setting, extra in SETTINGS.items():
        env = {**base, **CAPS, **extra}
        command = [sys.executable, __file__, "--worker", "--rows", str(args.rows)]
        command += ["--epochs", str(args.epochs)]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        prints = json.loads(done.stdout.strip().splitlines()[-1])
        row = {"setting": setting, **prints}
        if setting == "caps":
            row.update(kernel_calls(env, args.rows, args.epochs))
        rows.append(row)
        print(f"{setting:13} fit {prints['fit']}  mm {prints['mm_128x128x128']}", flush=True)
    from ppdp.report.provenance import cpu_model

    vendor = cpu_model()
    print(
        f"CPU: {vendor}; under the caps: {rows[0]['mkl_calls']}; oneDNN primitives: "
        f"{rows[0]['onednn_primitives']}"
    )
    RESULTS.mkdir(exist_ok=True)
    slug = re.sub(r"[^a-z0-9]+", "_", vendor.lower()).strip("_")[:40]
    target = RESULTS / f"imposter_vendor_probe_{slug}.csv"
    fields = sorted({k for r in rows for k in r} - {"setting"})
    with target.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["setting", *fields])
        writer.writeheader()
        writer.writerows(rows)
    print(
        f"wrote {target.relative_to(Path.cwd()) if target.is_relative_to(Path.cwd()) else target}"
    )
    return rows


if __name__ == "__main__":
    main()
