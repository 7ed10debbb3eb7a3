"""Scaling of SPPM against the exact convex solver, the certified optimum and the exponential
mechanism.

Synthetic data of the SPPM paper (Sec. 2 / 4.1), |B| = 2^m, squared distortion, the same budget
for every method at a size: ``delta = c |B|`` by default (Fig. 6 keeps the budget proportional to
the size), which on the points 0..|B|-1 is a normalized budget ``c |B| / (|B| - 1)^2`` that vanishes
as |B| grows, where sparse mappings are near-optimal anyway. ``--normalized 0.02,0.005`` runs
budgets fixed on [0, 1] instead: ``delta = b (|B| - 1)^2`` for each ``b``.
``certified`` is :class:`CertifiedMapping` (column generation over a convex master, stopped at a
relative gap of 0.1%; on these points on a line it solves coarse grids of up to 4,096 merged
values first, and reports how many grids it solved and how many masters ran on the full grid);
like the exact solver it stops at the first size that exceeds the cap (or whose master Clarabel
fails to solve).
Each (method, size) runs in a fresh subprocess with a time cap, so that its peak memory (max RSS)
is its own. Writes ``benchmarks/results/sppm_scaling.csv`` and ``sppm_scaling.png``.

Usage::

    nice -n 10 python benchmarks/sppm_scaling.py --min-m 6 --max-m 14 --exact-max-m 10 --cap 1200
    nice -n 10 python benchmarks/sppm_scaling.py --normalized 0.02,0.005 --max-m 12 \
        --out benchmarks/results/sppm_scaling_normalized.csv
    nice -n 10 python benchmarks/sppm_scaling.py --normalized 0.02 --methods sppm,certified,exact \
        --max-m 14 --exact-max-m 10 --cap 900 --out benchmarks/results/sppm_scaling_certified.csv
    python benchmarks/sppm_scaling.py --normalized 0.02 --methods certified,exact \
        --sizes 10,12,14,15,16 --exact-max-m 10 --cap 900 \
        --out benchmarks/results/sppm_scaling_certified_65k.csv

The summary printed at the end gives, per size, the time ratio exact / SPPM, the leakage ratio
SPPM / exact, the growth exponent of each method's time (least-squares slope of log t on log n)
and SPPM's time split (pricing, master LPs, the rest), with its column-generation rounds per
Frank-Wolfe step and its active columns. ``--sizes`` runs the listed exponents ``m`` instead of
``--min-m ... --max-m`` (the exact solver at those up to ``--exact-max-m``). ``--sppm-options`` passes keyword arguments to ``SPPM``
(e.g. ``'{"columns_per_row": 1, "drop_after": null}'``) to compare column-generation settings.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

RESULTS = Path(__file__).resolve().parent / "results"

CHILD = r"""
import json, resource, sys, time
import numpy as np
from ppdp.mechanisms import sppm as S
method, m, delta, steps, variant = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
options = json.loads(sys.argv[6])
p, d = S.synthetic_problem(m)
n = p.shape[1]
t0 = time.perf_counter()
out = {"method": method, "m": m, "n": n, "delta": delta, "normalized": delta / (n - 1) ** 2}
if method == "sppm":
    model = S.SPPM(delta, n_steps=steps, variant=variant, **options).fit(p, d)
    h = model.history_.iloc[1:]
    out.update(leakage=model.leakage_, lower_bound=model.lower_bound_, pricing=model.pricing_seconds_,
               lp=model.lp_seconds_, active=int(model.n_active_), nnz=int(model.mapping_.nnz),
               priced=float(model.priced_entries_), rounds=float(h["lp_rounds"].mean()),
               active_max=int(h["active_set"].max()), dropped=int(h["dropped"].sum()),
               options=json.dumps({k: getattr(model, k) for k in ("active_set", "columns_per_row", "drop_after")}))
elif method == "certified":
    model = S.CertifiedMapping(delta).fit(p, d)
    h = model.history_
    full, coarse = h[h["grid"] == n], h[h["grid"] < n]
    out.update(leakage=model.leakage_, lower_bound=model.lower_bound_, gap=model.gap_,
               relative_gap=model.relative_gap_, rounds=len(h), stop=model.stop_reason_,
               grids=int(h["grid"].nunique()), full_masters=int((full["status"] != "carried").sum()),
               coarse_seconds=float(coarse["seconds"].max()) if len(coarse) else 0.0,
               carried_seconds=float(full.loc[full["status"] == "carried", "bound_seconds"].sum()),
               bound_seconds=float(h["bound_seconds"].sum()),
               active=int(full["active"].max()), master=float(h["master_seconds"].sum()))
elif method == "exact":
    model = S.ExactMapping(delta).fit(p, d)
    out.update(leakage=model.leakage_, status=model.status_, solver=model.solver_used_)
elif method == "expmec":
    model = S.ExponentialMechanism(delta=delta).fit(p, d, mapping=n <= 4096)
    out.update(leakage=model.leakage_, epsilon=model.epsilon_)
out["seconds"] = time.perf_counter() - t0
out["distortion"] = float(model.distortion_)
out["max_rss_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print("RESULT " + json.dumps(out))
"""


def budget(m: int, c: float, normalized: float | None) -> float:
    """``delta`` at |B| = 2^m: ``c |B|``, or ``normalized (|B| - 1)^2`` (a budget on [0, 1])."""
    n = 2**m
    return c * n if normalized is None else normalized * (n - 1) ** 2


def run(method, m, delta, steps, variant, cap, options=None):
    args = [sys.executable, "-c", CHILD, method, str(m), repr(float(delta)), str(steps), variant]
    args.append(json.dumps(options or {}))
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=cap, check=False)
    except subprocess.TimeoutExpired:
        return {"method": method, "m": m, "n": 2**m, "status": f"timeout>{cap}s"}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
    return {"method": method, "m": m, "n": 2**m, "status": f"failed: {tail[0][:200]}"}


def exponent(frame, method):
    sub = frame[(frame["method"] == method) & frame["seconds"].notna() & (frame["n"] >= 256)]
    if len(sub) < 2:
        return float("nan")
    return float(np.polyfit(np.log(sub["n"]), np.log(sub["seconds"]), 1)[0])


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--min-m", type=int, default=6)
    ap.add_argument("--max-m", type=int, default=14)
    ap.add_argument("--exact-max-m", type=int, default=10)
    ap.add_argument(
        "--sizes", default="", help="comma-separated exponents m to run instead of the range"
    )
    ap.add_argument("--c", type=float, default=0.05, help="budget per symbol: delta = c |B|")
    ap.add_argument(
        "--normalized",
        default="",
        help="comma-separated budgets on [0, 1] (delta = b (|B| - 1)^2), run instead of --c",
    )
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--variants", default="vanilla", help="comma-separated SPPM variants")
    ap.add_argument("--cap", type=float, default=1200.0, help="seconds per run")
    ap.add_argument(
        "--methods", default="expmec,sppm,certified,exact", help="comma-separated subset"
    )
    ap.add_argument(
        "--sppm-options",
        default="{}",
        help='SPPM keyword arguments as JSON, e.g. \'{"columns_per_row": 1, "drop_after": null}\'',
    )
    ap.add_argument("--out", default=str(RESULTS / "sppm_scaling.csv"))
    args = ap.parse_args(argv)
    sppm_options = json.loads(args.sppm_options)
    if not isinstance(sppm_options, dict):
        raise ValueError(f"--sppm-options must be a JSON object, got {args.sppm_options!r}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    sizes = (
        sorted({int(m) for m in args.sizes.split(",") if m})
        if args.sizes
        else list(range(args.min_m, args.max_m + 1))
    )
    # phase 1: the fast methods over every size; phase 2: the exact solver up to its limit
    plan = [
        job
        for m in sizes
        for job in [(m, "expmec", "vanilla")]
        + [(m, "sppm", v) for v in args.variants.split(",")]
        + [(m, "certified", "vanilla")]
    ]
    plan += [(m, "exact", "vanilla") for m in sizes if m <= args.exact_max_m]
    wanted = set(args.methods.split(","))
    plan = [job for job in plan if job[1] in wanted]
    budgets = [float(b) for b in args.normalized.split(",") if b] or [None]
    for b in budgets:
        capped = set()  # the solvers that failed or hit the cap: larger sizes would too
        for m, method, variant in plan:
            if method in capped:
                continue
            delta = budget(m, args.c, b)
            res = run(method, m, delta, args.steps, variant, args.cap, sppm_options)
            res["variant"] = variant if method == "sppm" else ""
            res["budget"] = f"c={args.c:g}" if b is None else f"normalized={b:g}"
            rows.append(res)
            if method in ("exact", "certified") and (
                "seconds" not in res or res.get("stop") == "master failed"
            ):
                capped.add(method)
            print(json.dumps(res), flush=True)
            pd.DataFrame(rows).to_csv(out, index=False)
    frame = pd.DataFrame(rows)
    for label, sub in frame.groupby("budget", sort=False):
        print(f"\n=== budget {label} ===")
        summarize(
            sub, out if len(budgets) == 1 else out.with_name(f"{out.stem}_{label}{out.suffix}")
        )


def summarize(frame, out):
    frame = frame.copy()
    frame["label"] = np.where(
        frame["method"] == "sppm", "sppm_" + frame["variant"].fillna(""), frame["method"]
    )
    t = frame.pivot_table(index="n", columns="label", values="seconds")
    lk = frame.pivot_table(index="n", columns="label", values="leakage")
    mem = frame.pivot_table(index="n", columns="label", values="max_rss_gib")
    print("\nseconds\n", t.round(2).to_string())
    print("\nleakage (bits)\n", lk.round(5).to_string())
    print("\npeak RSS (GiB)\n", mem.round(2).to_string())
    cert = frame[frame["method"] == "certified"]
    if "relative_gap" in cert.columns and len(cert):
        cols = ["n", "seconds", "leakage", "lower_bound", "relative_gap", "rounds", "active"]
        cols += [
            c
            for c in (
                "grids",
                "full_masters",
                "coarse_seconds",
                "carried_seconds",
                "master",
                "stop",
                "max_rss_gib",
            )
            if c in cert.columns
        ]
        print("\ncertified optimum\n", cert[cols].round(6).to_string(index=False))
        if "exact" in lk.columns:
            diff = (lk["certified"] - lk["exact"]).dropna()
            print("\ncertified - exact leakage (bits)\n", diff.map("{:.2e}".format).to_string())
    if "exact" in t.columns and "sppm_vanilla" in t.columns:
        print(
            "\nexact / SPPM time\n", (t["exact"] / t["sppm_vanilla"]).dropna().round(2).to_string()
        )
        print(
            "\nSPPM / exact leakage\n",
            (lk["sppm_vanilla"] / lk["exact"]).dropna().round(4).to_string(),
        )
    for label in sorted(t.columns):
        sub = frame[frame["label"] == label].rename(columns={"label": "_"})
        sub = sub.assign(method=label)
        print(f"growth exponent of {label} time (n >= 256): {exponent(sub, label):.2f}")
    sp = frame[frame["method"] == "sppm"]
    if "pricing" in sp.columns:
        cols = ["n", "variant", "seconds", "pricing", "lp"]
        cols += [c for c in ("rounds", "active", "max_rss_gib") if c in sp.columns]
        split = sp[cols].copy()
        split.insert(5, "rest", split["seconds"] - split["pricing"] - split["lp"])
        print("\nSPPM time split (s)\n", split.round(2).to_string(index=False))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from ppdp.compendium.plotting import method_style, use_style

        use_style()
        fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
        for i, label in enumerate(sorted(t.columns)):
            ok = t[label].notna()
            ax[0].loglog(t.index[ok], t[label][ok], label=label, **method_style(i))
            ok = mem[label].notna()
            ax[1].loglog(mem.index[ok], mem[label][ok], label=label, **method_style(i))
        ax[0].set_xlabel("|B|")
        ax[0].set_ylabel("seconds")
        ax[1].set_xlabel("|B|")
        ax[1].set_ylabel("peak RSS (GiB)")
        ax[0].legend()
        fig.savefig(Path(out).with_suffix(".png"))
    except ImportError:
        pass


if __name__ == "__main__":
    main()
