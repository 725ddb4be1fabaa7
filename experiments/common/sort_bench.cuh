// experiments/common/sort_bench.cuh — the one implementation behind the Onesweep paper's
// throughput figures (Adinets & Merrill, §4): Fig. 9 (uint32 keys), Fig. 10 (uint32 keys +
// uint32 values), Fig. 11 (uint64 keys). Each figure's program (experiments/
// onesweep_fig09_keys32.cu, onesweep_fig10_pairs32.cu, onesweep_fig11_keys64.cu) is
// run_sort_throughput(shape, ...); experiments/sort_headline.cu (the one-screen sort
// table: fixed sizes, every shape) is run_sort_headline(...).
//
// What it measures. Every GPU sort registered for the shape (registry::sorts(): ours and
// the baselines — whatever is registered), in one process, on one stream, at problem sizes
// drawn log-uniformly from [2^min_log2, 2^max_log2] (paper: 1000 sizes from 2^12 to 2^30;
// --sizes N, default by scale), for each Thearling–Smith entropy band q (key = bitwise AND
// of q uniform words; q in {1, 2, 3, 4, 8, 16}, paper Table 1). Keys are generated on the
// GPU by a counter-based generator (onepass/random/counter_hash.hpp: word j of key i is
// hash(i * q + j) of the stream (seed, q); 32-bit keys take the low half), values (pairs)
// are 0..n-1. Ascending sort on all key bits (the paper's setting). Timing: CUDA events
// around one call, warm-up, then >= 5 timed runs, L2 flushed before each (gpu_harness.cuh);
// throughput = n / median seconds (keys/s; the paper's GKey/s is this / 1e9).
//
// In-place entries (registry::sort_entry::in_place: the cub::DoubleBuffer configurations,
// onesweep_db, thrust::sort) get the input copied into the output buffer before every
// run, outside the timed region (timer::measure's prepare step), and sort there.
//
// Check (untimed, once per algorithm, size and band): after timing, the output of one more
// run into a poisoned buffer is checked on the GPU — keys non-decreasing, and the same
// multiset as the input by two order-independent fingerprints (sum of keys and sum of a
// 64-bit hash of keys, mod 2^64); for pairs, keys_out[i] == keys_in[values_out[i]] for
// every i and values increasing within runs of equal keys (stable), and the values' hash
// fingerprint equal to that of 0..n-1. The input is re-fingerprinted after each algorithm
// (unchanged). A wrong output is reported and gets no row.
//
// Sizes that do not fit. Buffers are allocated per size; an allocation failure (input,
// output or an algorithm's temporary storage) skips that size or that algorithm there,
// reported on stderr and in meta.json "skipped".
//
// Output: <out>/<experiment>.csv with columns
//   algorithm,label,shape,q,n,log2_n,reps,seconds_median,seconds_min,seconds_max,keys_per_second
// and <experiment>.meta.json (GPU provenance, sizes, bands, timing protocol, the
// device-to-device copy bandwidth at the largest size measured).
//
// Options (besides --scale, --out-dir, --seed):
//   --sizes N          number of sizes (default: smoke 4, default 64, paper 1000)
//   --min-log2 W       smallest size 2^W (default 12)
//   --max-log2 W       largest size 2^W (default: smoke 16, default and paper 30)
//   --bands q,q,...    entropy bands (default 1,2,3,4,8,16)
//   --algorithms a,b   only these registered GPU sorts (default: all for the shape)
//   --reps N, --warmup N, --warm-l2   timing (default reps: smoke 5, default and paper 7)
// Exit status: 0 when every point was measured or skipped for memory, 1 when an algorithm
// failed (exception or wrong output), 2 for bad arguments, 3 when there is no CUDA device.
#pragma once

#include "onepass/harness/registry.hpp"

namespace onepass::experiments::gpu {

/// The whole program of one Onesweep throughput figure: parses argv, measures, writes the
/// CSV and meta.json; returns the exit status. `experiment` names the outputs, `title` is
/// the --help line.
int run_sort_throughput(registry::sort_shape shape, const char* experiment, const char* title, int argc, char** argv);

/// The sort_headline program: every registered GPU sort of every shape (--shapes) at
/// fixed sizes (--sizes-log2, default 2^12, 2^14, 2^16, 2^18, 2^20, 2^24, 2^28, 2^30; smoke
/// 2^12, 2^16), keys_u32
/// at the bands of --bands (default 1,2,3,4,8,16) and the other shapes at q = 1; timing
/// as above with 7 timed runs by default (smoke 5, paper 9). Same CSV columns and checks
/// as run_sort_throughput; one CSV for all shapes (column `shape`).
int run_sort_headline(const char* experiment, const char* title, int argc, char** argv);

}  // namespace onepass::experiments::gpu
