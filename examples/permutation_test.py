"""Two-sample permutation test (difference of means) with onepass.segmented_shuffle, against
scipy.stats.permutation_test on the same data.

Each permutation of the pooled sample is one row of a 2-d array; segmented_shuffle shuffles
every row with its own seed in one call (CPU, oneTBB), so B permutations cost one pass over
B x n items. The two p-values estimate the same quantity from independent random
permutations, so they agree within Monte-Carlo error: the script checks
|p_onepass - p_scipy| <= 4 * sqrt(2 p (1 - p) / B) (both estimates have variance about
p (1 - p) / B), and prints both times.

    python3 examples/permutation_test.py [--n 2000] [--permutations 20000] [--batch 2000]

(run from the repository root with the package installed — `pip install .` — or with
PYTHONPATH at a build of it, e.g. build/python-ext/python after `make test`).
"""

import argparse
import math
import time

import numpy as np
from scipy import stats

import onepass


def onepass_p_value(a, b, permutations, batch, seed):
    """Two-sided p-value of mean(a) - mean(b) under random relabelling, (1 + hits) / (1 + B)
    as scipy's estimator; permutations in batches of `batch` rows."""
    pooled = np.concatenate([a, b])
    n_a = len(a)
    observed = abs(a.mean() - b.mean())
    hits = 0
    done = 0
    while done < permutations:
        rows = min(batch, permutations - done)
        block = onepass.segmented_shuffle(np.broadcast_to(pooled, (rows, len(pooled))), seed + done)
        diff = block[:, :n_a].mean(axis=1) - block[:, n_a:].mean(axis=1)
        hits += int(np.count_nonzero(np.abs(diff) >= observed * (1 - 1e-12)))
        done += rows
    return (hits + 1) / (permutations + 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="observations per sample (default 2000)")
    parser.add_argument("--permutations", type=int, default=20000, help="random permutations (default 20000)")
    parser.add_argument("--batch", type=int, default=2000, help="permutations per segmented_shuffle call")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    a = rng.normal(0.0, 1.0, args.n)
    b = rng.normal(0.08, 1.0, args.n)  # a small shift: p of order 0.01

    t0 = time.perf_counter()
    p_ours = onepass_p_value(a, b, args.permutations, args.batch, args.seed)
    t_ours = time.perf_counter() - t0

    t0 = time.perf_counter()
    res = stats.permutation_test((a, b), lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
                                 vectorized=True, n_resamples=args.permutations, alternative="two-sided",
                                 random_state=args.seed + 1)
    t_scipy = time.perf_counter() - t0

    p = 0.5 * (p_ours + res.pvalue)
    bound = 4 * math.sqrt(2 * p * (1 - p) / args.permutations)
    agree = abs(p_ours - res.pvalue) <= bound
    print("n = %d per sample, %d permutations" % (args.n, args.permutations))
    print("onepass.segmented_shuffle: p = %.5f in %.2f s" % (p_ours, t_ours))
    print("scipy.stats.permutation_test: p = %.5f in %.2f s" % (res.pvalue, t_scipy))
    print("|difference| = %.5f, Monte-Carlo bound 4 sqrt(2 p (1 - p) / B) = %.5f: %s"
          % (abs(p_ours - res.pvalue), bound, "agree" if agree else "DISAGREE"))
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
