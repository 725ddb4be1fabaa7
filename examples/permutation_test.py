"""Two-sample permutation test (difference of means) with onepass.segmented_shuffle, against
scipy.stats.permutation_test on the same data.

Each permutation of the pooled sample is one row of a 2-d array; segmented_shuffle shuffles
every row with its own seed in one call, so B permutations cost one pass over B x n items:
on the CPU (NumPy array, oneTBB) by default, on the GPU with --device cuda (a PyTorch
tensor on the current CUDA device, zero-copy, on torch's current stream; the means and the
count of extreme rows stay on the GPU too). The two p-values estimate the same quantity
from independent random permutations, so they agree within Monte-Carlo error: the script
checks |p_onepass - p_scipy| <= 4 * sqrt(2 p (1 - p) / B) (both estimates have variance
about p (1 - p) / B), and prints both times.

    python3 examples/permutation_test.py [--n 2000] [--permutations 20000] [--batch 2000]
    python3 examples/permutation_test.py --device cuda --n 5000 --permutations 100000 --batch 10000

(run from the repository root with the package installed — `pip install .` — or with
PYTHONPATH at a build of it, e.g. build/python-ext/python after `make test`; --device cuda
needs the CUDA module, a GPU and PyTorch).
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


def onepass_p_value_cuda(a, b, permutations, batch, seed):
    """As onepass_p_value, with the rows shuffled on the GPU: torch tensors in, torch tensors
    out, nothing copied to the host but the final count."""
    import torch
    pooled = torch.as_tensor(np.concatenate([a, b]), device="cuda")
    n_a = len(a)
    observed = abs(float(a.mean() - b.mean()))
    rows_full = pooled.expand(min(batch, permutations), -1).contiguous()  # the input rows, made once
    hits = torch.zeros((), dtype=torch.int64, device="cuda")
    done = 0
    while done < permutations:
        rows = min(batch, permutations - done)
        block = onepass.segmented_shuffle(rows_full[:rows], seed + done)
        diff = block[:, :n_a].mean(dim=1) - block[:, n_a:].mean(dim=1)
        hits += torch.count_nonzero(diff.abs() >= observed * (1 - 1e-12))
        done += rows
    return (int(hits.item()) + 1) / (permutations + 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="observations per sample (default 2000)")
    parser.add_argument("--permutations", type=int, default=20000, help="random permutations (default 20000)")
    parser.add_argument("--batch", type=int, default=2000, help="permutations per segmented_shuffle call")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="where onepass shuffles the rows (cuda: PyTorch tensors on the GPU)")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    a = rng.normal(0.0, 1.0, args.n)
    b = rng.normal(0.08, 1.0, args.n)  # a small shift: p of order 0.01

    if args.device == "cuda":
        import torch
        onepass_p_value_cuda(a, b, min(args.batch, args.permutations), args.batch, args.seed)  # warm-up
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        p_ours = onepass_p_value_cuda(a, b, args.permutations, args.batch, args.seed)
        torch.cuda.synchronize()
        t_ours = time.perf_counter() - t0
        where = "GPU (%s)" % torch.cuda.get_device_name()
    else:
        t0 = time.perf_counter()
        p_ours = onepass_p_value(a, b, args.permutations, args.batch, args.seed)
        t_ours = time.perf_counter() - t0
        where = "CPU"

    t0 = time.perf_counter()
    res = stats.permutation_test((a, b), lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
                                 vectorized=True, n_resamples=args.permutations, alternative="two-sided",
                                 random_state=args.seed + 1, batch=args.batch)
    t_scipy = time.perf_counter() - t0

    p = 0.5 * (p_ours + res.pvalue)
    bound = 4 * math.sqrt(2 * p * (1 - p) / args.permutations)
    agree = abs(p_ours - res.pvalue) <= bound
    print("n = %d per sample, %d permutations" % (args.n, args.permutations))
    print("onepass.segmented_shuffle on the %s: p = %.5f in %.3f s" % (where, p_ours, t_ours))
    print("scipy.stats.permutation_test: p = %.5f in %.2f s" % (res.pvalue, t_scipy))
    print("|difference| = %.5f, Monte-Carlo bound 4 sqrt(2 p (1 - p) / B) = %.5f: %s"
          % (abs(p_ours - res.pvalue), bound, "agree" if agree else "DISAGREE"))
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
