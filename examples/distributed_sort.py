"""Sort 2^24 random keys per rank over all ranks with onepass.distributed.sort, one GPU per
rank, and print the time of each repetition (the slowest rank's) and the keys per second.

Launch (from the repository root, the onepass package importable with its CUDA module built
with NCCL, e.g. PYTHONPATH=<build>/python):

    torchrun --nproc-per-node 2 examples/distributed_sort.py
    torchrun --nproc-per-node 4 examples/distributed_sort.py --log2-keys 26 --dtype uint64 --values

Afterwards rank r holds keys [r n, (r + 1) n) of the global sorted order (the stable sort of
the concatenation of the ranks' keys, cut into the input counts); the example checks that
each rank's keys are sorted and that the ranks' boundaries are in order. The first call also
creates onepass's own NCCL communicator for the group (once per process group and device);
the warm-up repetition pays for it.
"""

import argparse
import os
import time

import torch
import torch.distributed as dist

from onepass import distributed as od


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log2-keys", type=int, default=24, help="keys per rank: 2^N (default 24)")
    parser.add_argument("--dtype", default="uint32",
                        choices=["uint32", "int32", "float32", "uint64", "int64", "float64"])
    parser.add_argument("--values", action="store_true", help="sort (key, int64 value) pairs")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    rank, size = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", local)
    n = 1 << args.log2_keys
    dtype = getattr(torch, args.dtype)

    gen = torch.Generator(device=device)
    gen.manual_seed(1234 + rank)
    if dtype.is_floating_point:
        keys = torch.randn(n, generator=gen, device=device, dtype=dtype)
    else:
        word = torch.int32 if dtype in (torch.int32, getattr(torch, "uint32", None)) else torch.int64
        info = torch.iinfo(word)
        keys = torch.randint(info.min, info.max, (n,), generator=gen, device=device, dtype=word).view(dtype)
    values = torch.arange(rank * n, (rank + 1) * n, device=device) if args.values else None

    times = []
    for rep in range(args.repeat + 1):
        dist.barrier()
        torch.cuda.synchronize()
        start = time.perf_counter()
        out = od.sort(keys, values)
        torch.cuda.synchronize()
        elapsed = torch.tensor([time.perf_counter() - start], device=device)
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
        if rep:  # the first repetition warms up (and creates the communicator)
            times.append(elapsed.item())
    sorted_keys = out[0] if args.values else out

    # Each rank sorted, and rank r's last key <= rank r+1's first key, compared as int64 (the
    # unsigned orders mapped onto it) or float64 (randn gives no NaN).
    if dtype == getattr(torch, "uint32", None):
        comparable = sorted_keys.view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    elif dtype == getattr(torch, "uint64", None):
        comparable = sorted_keys.view(torch.int64) ^ torch.iinfo(torch.int64).min  # flip the top bit
    else:
        comparable = sorted_keys.to(torch.float64 if dtype.is_floating_point else torch.int64)
    ok = bool((comparable[1:] >= comparable[:-1]).all().item())
    ends = torch.stack([comparable[0], comparable[-1]])
    all_ends = [torch.empty_like(ends) for _ in range(size)]
    dist.all_gather(all_ends, ends)
    for r in range(size - 1):
        ok &= bool((all_ends[r][1] <= all_ends[r + 1][0]).item())
    ok_t = torch.tensor([int(ok)], device=device)
    dist.all_reduce(ok_t, op=dist.ReduceOp.MIN)

    if rank == 0:
        best = min(times)
        total = n * size
        print("onepass.distributed.sort: %d ranks x 2^%d %s keys%s; %s" %
              (size, args.log2_keys, args.dtype, " + int64 values" if args.values else "",
               "order checked" if ok_t.item() else "ORDER WRONG"))
        print("  times (s, slowest rank): %s" % ", ".join("%.4f" % t for t in times))
        print("  best %.4f s: %.2f G keys/s in all, %.2f G keys/s per GPU" % (best, total / best / 1e9,
                                                                             n / best / 1e9))
    dist.barrier()
    dist.destroy_process_group()
    return 0 if ok_t.item() else 1


if __name__ == "__main__":
    raise SystemExit(main())
