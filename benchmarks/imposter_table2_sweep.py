"""Can any IMPOSTER setting meet Table 2's bound at the paper's income accuracy?

IMPOSTER's Table 2 states that for every theta, XGBoost predicts gender on the synthetic data
(Setting B) with accuracy below 67% and F1 below 46%, while income stays predictable (Table 1:
82.3%). The default profile trains 15 epochs with the library's network width and lambda = 1 and
finds up to 73% gender accuracy. This script repeats Table 2 (every theta of the paper) over a
grid of training lengths, network widths and privacy weights lambda, once per seed (a seed redraws
the split, the network's initialization and training, and the release), and reports for each
setting the largest gender accuracy and F1 over theta and the smallest income accuracy over theta
(the income accuracy the bound must be met at), each as its mean over the seeds with a 95%
t-interval, then the settings on the Pareto front of the means and whether any of them meets the
bound with income kept, read two ways: within ``--income-tolerance`` points of Table 1's 82.3% at
every theta, or (Table 2's text: income "slightly lower than those on setting A under the same
theta") within that many points of Setting A's income accuracy at each theta. A setting meets the
bound on its means (``meets_table2``) or on the upper ends of its intervals
(``meets_table2_interval``, which needs at least two seeds).

Writes ``benchmarks/results/imposter_table2_sweep.csv`` (one row per seed, setting and theta),
``imposter_table2_sweep_summary.csv`` (one row per setting) and ``imposter_table2_sweep.png`` (the
Pareto plane, and the income drop below Setting A, with the intervals); the rows so far are kept
after every setting in ``imposter_table2_sweep.rows<rows>.seed<seed>.partial.csv``, from which a
rerun resumes. One seed on all of UCI Adult takes about 45 minutes on a free core (a 50-epoch
setting 4-10 minutes); ``--rows`` and ``--epochs`` shrink it for a check.

Usage::

    nice -n 10 python benchmarks/imposter_table2_sweep.py --seeds 0 1 2
    python benchmarks/imposter_table2_sweep.py --rows 2000 --epochs 1 --hidden 32 --lambdas 1
"""

from __future__ import annotations

import argparse
import itertools
import os
import time
from pathlib import Path

import pandas as pd

from ppdp.experiments import imposter as ex
from ppdp.experiments.common import mean_halfwidth, with_parameters

RESULTS = Path(__file__).resolve().parent / "results"
GENDER_ACCURACY, GENDER_F1, INCOME_ACCURACY = 67.0, 46.0, 82.3
#: Setting A's scores (real data), recorded beside Setting B's for each theta
SETTING_A = ("gender_accuracy_a", "income_accuracy_a")
SETTING = ["epochs", "hidden", "lam"]
#: each setting's worst case over theta, summarized over seeds
WORST = {
    "gender_accuracy_max": ("gender_accuracy", "max"),
    "gender_f1_max": ("gender_f1", "max"),
    "income_accuracy_min": ("income_accuracy", "min"),
    "income_drop_max": ("income_drop", "max"),
}


def sweep(df, thetas, epochs, hidden, lambdas, seed, partial: Path | None = None) -> pd.DataFrame:
    """One row per (epochs, hidden, lambda, theta): Setting B's gender and income scores (%).

    With ``partial``, the rows so far are written there after every setting, and the settings
    already in it are read back instead of trained again: an interrupted sweep resumes."""
    rows = []
    done = pd.read_csv(partial) if partial is not None and partial.exists() else None
    for n_epochs, width, lam in itertools.product(epochs, hidden, lambdas):
        if done is not None:
            hit = done[
                (done["epochs"] == n_epochs)
                & (done["hidden"] == width)
                & (done["lam"] == lam)
                & done["theta"].isin([float(t) for t in thetas])
            ]
            # rows written before Setting A was recorded are trained again
            complete = set(SETTING_A) <= set(hit.columns)
            complete = complete and hit[list(SETTING_A)].notna().all(axis=None)
            if len(hit) == len(thetas) and complete:
                rows += hit.to_dict("records")
                continue
        t0 = time.perf_counter()
        frame = ex.run.run_table2(
            df,
            thetas=thetas,
            seeds=(seed,),
            lam=lam,
            imposter_params={"epochs": n_epochs, "hidden": width, "progress": False},
        )
        seconds = time.perf_counter() - t0
        scores = with_parameters(frame, ("theta", "setting", "target"))
        for theta, block in scores.groupby("theta"):

            def score(setting, target, metric, block=block):
                hit = block[
                    (block["setting"] == setting)
                    & (block["target"] == target)
                    & (block["metric"] == metric)
                ]
                return 100 * float(hit["value"].mean())

            rows.append(
                dict(
                    epochs=n_epochs,
                    hidden=width,
                    lam=lam,
                    theta=float(theta),
                    gender_accuracy=score("B", ex.run.PRIVATE, "accuracy"),
                    gender_f1=score("B", ex.run.PRIVATE, "f1"),
                    income_accuracy=score("B", ex.run.LABEL, "accuracy"),
                    gender_accuracy_a=score("A", ex.run.PRIVATE, "accuracy"),
                    income_accuracy_a=score("A", ex.run.LABEL, "accuracy"),
                    seconds=seconds,
                )
            )
            print(rows[-1], flush=True)
        if partial is not None:
            # read again: another process may have written other settings of this seed meanwhile
            now = pd.read_csv(partial) if partial.exists() else None
            # written whole, then renamed: an interrupted write leaves the previous file intact
            scratch = partial.with_name(f"{partial.name}.{os.getpid()}.tmp")
            kept_with(now, rows).to_csv(scratch, index=False)
            scratch.replace(partial)
    return pd.DataFrame(rows)


def kept_with(done: pd.DataFrame | None, rows: list[dict]) -> pd.DataFrame:
    """The partial file's new content: ``rows``, and every row of ``done`` they do not replace.

    Rows of settings outside this run's grid (an earlier ``--epochs 15``, say, when this run has
    ``--epochs 50``, or another process's over other settings of the seed) and settings of the
    grid not reached yet stay: rewriting the file with this run's rows alone would lose them."""
    new = pd.DataFrame(rows)
    if done is None or done.empty:
        return new

    def key(frame):
        return list(zip(*(frame[c].astype(float) for c in [*SETTING, "theta"]), strict=True))

    replaced = set(key(new)) if len(new) else set()
    old = done[[k not in replaced for k in key(done)]]
    return pd.concat([old, new], ignore_index=True)


def summarize(frame: pd.DataFrame, tolerance: float) -> pd.DataFrame:
    """Per setting: the worst case over theta, whether it meets Table 2, and the Pareto front.

    Each seed's worst case over theta comes first; each measure is then the mean over the seeds
    (column ``<measure>``) with its 95% t-interval (``<measure>_low``, ``<measure>_high``; nan
    with one seed) and ``n_seeds``. A frame without a ``seed`` column is one seed.
    """
    frame = frame.assign(income_drop=frame["income_accuracy_a"] - frame["income_accuracy"])
    if "seed" not in frame:
        frame = frame.assign(seed=0)
    worst = frame.groupby([*SETTING, "seed"]).agg(**WORST).reset_index()
    grouped = worst.groupby(SETTING)[list(WORST)]
    per = grouped.mean()
    std, count = grouped.std(ddof=1), grouped.count()
    for measure in WORST:
        half = mean_halfwidth(std[measure], count[measure], distribution="t")
        per[f"{measure}_low"] = per[measure] - half
        per[f"{measure}_high"] = per[measure] + half
    per["n_seeds"] = grouped.size()
    per = per.reset_index()
    per["meets_table2"] = (per["gender_accuracy_max"] < GENDER_ACCURACY) & (
        per["gender_f1_max"] < GENDER_F1
    )
    # the whole interval under the bound: false with one seed (no interval), as in the report
    per["meets_table2_interval"] = (per["gender_accuracy_max_high"] < GENDER_ACCURACY) & (
        per["gender_f1_max_high"] < GENDER_F1
    )
    # two readings of "income kept": Table 1's 82.3% at every theta, or (Table 2's text) "slightly
    # lower than on Setting A under the same theta", here at most `tolerance` points lower
    per["income_kept"] = per["income_accuracy_min"] >= INCOME_ACCURACY - tolerance
    per["income_kept_vs_a"] = per["income_drop_max"] <= tolerance
    # Pareto: no other setting has lower (or equal) gender accuracy and higher (or equal) income
    dominated = [
        (
            (per["gender_accuracy_max"] <= row.gender_accuracy_max)
            & (per["income_accuracy_min"] >= row.income_accuracy_min)
            & (
                (per["gender_accuracy_max"] < row.gender_accuracy_max)
                | (per["income_accuracy_min"] > row.income_accuracy_min)
            )
        ).any()
        for row in per.itertuples()
    ]
    per["pareto"] = ~pd.Series(dominated, index=per.index)
    return per.sort_values("gender_accuracy_max")


def plot(per: pd.DataFrame, path: Path) -> None:
    """Two planes, one per reading of "income kept": the smallest income accuracy over theta
    (against Table 1's 82.3%), and the largest drop below Setting A at the same theta."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    front = per[per["pareto"]].sort_values("gender_accuracy_max")

    def spread(measure):
        """Error-bar lengths below and above the mean (none with one seed)."""
        low = (per[measure] - per[f"{measure}_low"]).fillna(0)
        high = (per[f"{measure}_high"] - per[measure]).fillna(0)
        return [low.to_numpy(), high.to_numpy()]

    for ax, measure in ((left, "income_accuracy_min"), (right, "income_drop_max")):
        ax.errorbar(
            per["gender_accuracy_max"],
            per[measure],
            xerr=spread("gender_accuracy_max"),
            yerr=spread(measure),
            fmt="none",
            ecolor="0.75",
            elinewidth=0.8,
        )
    left.scatter(
        per["gender_accuracy_max"], per["income_accuracy_min"], color="0.6", label="setting"
    )
    left.plot(
        front["gender_accuracy_max"], front["income_accuracy_min"], "o-", color="C0", label="Pareto"
    )
    left.axhline(INCOME_ACCURACY, color="C2", linestyle=":", label="Table 1: income 82.3%")
    left.set_ylabel("smallest income accuracy over theta (%)")
    n = per["n_seeds"].max()
    fig.suptitle(f"mean over {n} seed{'s' if n > 1 else ''}, 95% t-intervals", fontsize=9)
    right.scatter(per["gender_accuracy_max"], per["income_drop_max"], color="C0")
    for row in per.itertuples():
        right.annotate(
            f"{row.epochs}ep/{row.hidden}/lam {row.lam:g}",
            (row.gender_accuracy_max, row.income_drop_max),
            fontsize=6,
            xytext=(3, 2),
            textcoords="offset points",
        )
    right.axhline(0, color="0.5", linewidth=0.8)
    right.axhline(1, color="C2", linestyle=":", label="1 point below Setting A")
    right.set_ylabel("income drop below Setting A, worst theta (points)")
    right.legend(fontsize=8)
    for ax in (left, right):
        ax.axvline(GENDER_ACCURACY, color="C3", linestyle="--", label="Table 2: gender < 67%")
        ax.set_xlabel("largest gender accuracy over theta, Setting B (%)")
    left.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=None, help="rows of Adult (default: all)")
    parser.add_argument("--thetas", type=float, nargs="+", default=[0.005, 0.01, 0.05, 0.1])
    parser.add_argument("--epochs", type=int, nargs="+", default=[15, 50])
    parser.add_argument("--hidden", type=int, nargs="+", default=[128, 256])
    parser.add_argument("--lambdas", type=float, nargs="+", default=[1.0, 5.0, 20.0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--income-tolerance", type=float, default=1.0)
    args = parser.parse_args(argv)
    if len(set(args.seeds)) != len(args.seeds):
        parser.error(f"--seeds repeats a seed: {args.seeds}")
    RESULTS.mkdir(exist_ok=True)
    frames = []
    for seed in args.seeds:
        df = ex.run.prepare_adult(args.rows, seed)
        partial = RESULTS / f"imposter_table2_sweep.rows{args.rows}.seed{seed}.partial.csv"
        one = sweep(df, args.thetas, args.epochs, args.hidden, args.lambdas, seed, partial)
        frames.append(one.assign(seed=seed))
    frame = pd.concat(frames, ignore_index=True)
    frame.to_csv(RESULTS / "imposter_table2_sweep.csv", index=False)
    per = summarize(frame, args.income_tolerance)
    per.to_csv(RESULTS / "imposter_table2_sweep_summary.csv", index=False)
    plot(per, RESULTS / "imposter_table2_sweep.png")
    print(per.round(2).to_string(index=False))
    both = per[per["meets_table2"] & per["income_kept"]]
    print(
        f"{len(both)} of {len(per)} settings meet Table 2's bound with income accuracy within "
        f"{args.income_tolerance} points of {INCOME_ACCURACY}% at every theta"
    )
    both_a = per[per["meets_table2"] & per["income_kept_vs_a"]]
    print(
        f"{len(both_a)} of {len(per)} settings meet Table 2's bound with income accuracy within "
        f"{args.income_tolerance} points of Setting A's at the same theta"
    )
    whole = per[per["meets_table2_interval"]]
    print(
        f"{len(whole)} of {len(per)} settings meet Table 2's bound with the whole interval over "
        f"{len(args.seeds)} seed(s)"
    )
    return frame


if __name__ == "__main__":
    main()
