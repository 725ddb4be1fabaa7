"""A toy distributed training loop over a 10^9-sample index space with
onepass.data.DistributedShuffleSampler: stopped mid-epoch, resumed on another number of
ranks, and the global order of the samples continues exactly where it stopped.

torch.utils.data.DistributedSampler would hold torch.randperm(10^9) (8 GB) on every rank
and give another order for another world size; this sampler computes each index alone
(cycle walking over the VariablePhilox bijection), in O(1) memory, and rank r of P reads
global positions r, r + P, r + 2P, ... of one order that does not depend on P.

Launch lines (from the repository root, the onepass package importable, e.g.
PYTHONPATH=build/python-ext/python; NCCL when every rank has a GPU of its own, else gloo on
the CPU): two ranks for 30 steps, then three for 20, then one for 10, each resuming from the
checkpoint of the run before, then the check.

    torchrun --nproc-per-node 2 examples/train_sampler.py --steps 30 --save /tmp/ts/state1.pt --record /tmp/ts --tag run1
    torchrun --nproc-per-node 3 examples/train_sampler.py --steps 20 --resume /tmp/ts/state1.pt \
        --save /tmp/ts/state2.pt --record /tmp/ts --tag run2
    torchrun --nproc-per-node 1 examples/train_sampler.py --steps 10 --resume /tmp/ts/state2.pt --record /tmp/ts --tag run3
    python examples/train_sampler.py --check /tmp/ts run1 run2 run3

Each rank writes the indices it trained on to DIR/TAG.rankR.npy and rank 0 writes
DIR/TAG.json (world size, epoch, first global position). --check interleaves the ranks of
each run (rank r's k-th index is global position start + k * P + r), chains the runs, and
compares them with onepass.data.epoch_indices: the same global order, whatever P was.
Needs torch (not part of CI). Run so on two H100s (2026-11-26): run1 over NCCL, run2 over
gloo (3 ranks, 2 GPUs), run3 over NCCL; the check passed for global positions [0, 33280).
"""

import argparse
import itertools
import json
import os
import sys

import numpy as np

from onepass.data import DistributedShuffleSampler, epoch_indices

NUM_SAMPLES = 10 ** 9
FEATURES = 16


class IndexSpace:
    """A dataset of NUM_SAMPLES samples that are only their indices (features are made
    from the index on the device, below)."""

    def __len__(self):
        return NUM_SAMPLES

    def __getitem__(self, index):
        return index


def features_of(index, device):
    """Synthetic features and a target that depend on the sample index alone."""
    import torch
    i = index.to(device=device, dtype=torch.float64)
    freq = torch.arange(1, FEATURES + 1, device=device, dtype=torch.float64) * 1e-7
    x = torch.sin(i[:, None] * freq).float()
    y = (x @ torch.linspace(-1, 1, FEATURES, device=device) + 0.1 * torch.cos(i * 1e-3).float())[:, None]
    return x, y


def train(args):
    import torch
    import torch.distributed as dist
    from torch.utils.data import DataLoader

    world = int(os.environ.get("WORLD_SIZE", "1"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", str(world)))
    use_cuda = torch.cuda.is_available() and torch.cuda.device_count() >= local_world
    device = torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")
    if use_cuda:
        torch.cuda.set_device(device)
    if use_cuda:
        dist.init_process_group("nccl", device_id=device)
    else:
        dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()

    # The five lines: the sampler instead of DistributedSampler (num_replicas and rank come
    # from torch.distributed), set_epoch, and its state in the checkpoint.
    sampler = DistributedShuffleSampler(IndexSpace(), seed=args.seed)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(FEATURES, 1).to(device),
                                                      device_ids=[local_rank] if use_cuda else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    epoch = 0
    if args.resume:
        checkpoint = torch.load(args.resume, map_location=device)
        model.module.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        sampler.load_state_dict(checkpoint["sampler"])
        epoch = checkpoint["sampler"]["epoch"]
    sampler.set_epoch(epoch)
    start = sampler.state_dict()["global_position"]
    loader = DataLoader(IndexSpace(), batch_size=args.batch_size, sampler=sampler)
    if rank == 0:
        print("world size %d, backend %s, epoch %d, starting at global position %d, %d indices left per rank"
              % (world, dist.get_backend(), epoch, start, len(sampler)), flush=True)

    seen = []
    # islice, not enumerate + break: a break after the loop asked for one batch more would
    # count that batch as consumed.
    for step, index in enumerate(itertools.islice(loader, args.steps)):
        x, y = features_of(index, device)
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        seen.append(index.numpy())
        if rank == 0 and (step % 10 == 0 or step == args.steps - 1):
            print("step %d loss %.5f" % (step, loss.item()), flush=True)

    state = sampler.state_dict()
    states = [None] * world
    dist.all_gather_object(states, state)
    assert all(s == state for s in states), "ranks disagree on the sampler state: %s" % states
    if args.record:
        os.makedirs(args.record, exist_ok=True)
        np.save(os.path.join(args.record, "%s.rank%d.npy" % (args.tag, rank)),
                np.concatenate(seen) if seen else np.zeros(0, np.int64))
        if rank == 0:
            with open(os.path.join(args.record, args.tag + ".json"), "w") as f:
                json.dump({"world_size": world, "epoch": epoch, "start": start, "seed": args.seed,
                           "end": state["global_position"]}, f)
    if args.save and rank == 0:
        os.makedirs(os.path.dirname(os.path.abspath(args.save)), exist_ok=True)
        torch.save({"model": model.module.state_dict(), "optimizer": optimizer.state_dict(), "sampler": state},
                   args.save)
        print("saved at global position %d -> %s" % (state["global_position"], args.save), flush=True)
    dist.barrier()
    dist.destroy_process_group()


def check(log, tags):
    """Each run's ranks interleaved equal epoch_indices over its positions; runs chain."""
    position = None
    for tag in tags:
        with open(os.path.join(log, tag + ".json")) as f:
            meta = json.load(f)
        p = meta["world_size"]
        per_rank = [np.load(os.path.join(log, "%s.rank%d.npy" % (tag, r))) for r in range(p)]
        count = len(per_rank[0])
        assert all(len(a) == count for a in per_rank), "%s: ranks consumed different counts" % tag
        merged = np.stack(per_rank, axis=1).reshape(-1)  # global position start + k * P + r
        want = epoch_indices(NUM_SAMPLES, meta["seed"], meta["epoch"], meta["start"], meta["start"] + count * p)
        assert np.array_equal(merged, want), "%s: not the global order" % tag
        assert position is None or meta["start"] == position, "%s starts at %d, the run before ended at %d" % (
            tag, meta["start"], position)
        assert meta["end"] == meta["start"] + count * p
        print("%s: %d rank(s), global positions [%d, %d) of epoch %d: the global order" % (
            tag, p, meta["start"], meta["end"], meta["epoch"]))
        position = meta["end"]
    print("ok: %d runs continue one global order" % len(tags))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--save", help="checkpoint to write at the end (rank 0)")
    parser.add_argument("--resume", help="checkpoint to resume from")
    parser.add_argument("--record", help="directory for the indices each rank trained on")
    parser.add_argument("--tag", default="run")
    parser.add_argument("--check", nargs="+", metavar=("LOG", "TAG"), help="verify runs TAG... in LOG, in order")
    args = parser.parse_args()
    if args.check:
        if len(args.check) < 2:
            parser.error("--check LOG TAG [TAG ...]")
        check(args.check[0], args.check[1:])
    else:
        train(args)


if __name__ == "__main__":
    sys.exit(main())
