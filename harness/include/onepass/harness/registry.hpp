// onepass/harness/registry.hpp — one registry of algorithms per family (shuffles,
// segmented shuffles, sorts, Gaussian generators), filled by static registration objects
// (one file per algorithm: harness/src/ for the library's own, baselines/ for the peers),
// read by the experiments, the tests and the `onepass` command-line tool. Nothing lists
// algorithms by hand twice. Part of the harness (harness/, target onepass_harness): not
// installed, and the library (lib/) never includes it.
//
// Entries are built with named fields: each entry type has a constructor taking its key
// (name and device; sorts also the shape), and every other field is assigned by name, e.g.
//   shuffle_entry e{"variable_philox", device::cpu};
//   e.label = "VarPhilox";
//   e.uses_rounds = true;
// (the constructor makes the types non-aggregates, so a positional list of fields does
// not compile).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/error.hpp"

namespace onepass::registry {

/// Where an algorithm runs.
enum class device { cpu, gpu };

/// "cpu" or "gpu".
const char* to_string(device d);

/// Parameters every shuffle takes; an algorithm ignores what it does not use.
struct shuffle_params {
  std::uint64_t seed = 0;  ///< any 64-bit value; the same seed gives the same output for deterministic algorithms
  unsigned rounds = bijection::default_rounds;  ///< Feistel rounds for VariablePhilox, in [1, 64]
};

/// Uniform signature of the shuffle family: writes a permutation of in[0, n) to
/// out[0, n) (uint64 elements, out-of-place, not overlapping). Throws
/// onepass::error on bad arguments.
using shuffle_fn = std::function<void(const std::uint64_t* in, std::uint64_t* out, std::size_t n,
                                      const shuffle_params& params)>;

/// Signature of the GPU shuffles: d_in, d_out are device pointers to n uint64
/// elements (not overlapping); CUB's two-phase temporary storage: called with
/// temp == nullptr it only sets temp_bytes, otherwise temp must point to at least
/// temp_bytes bytes of device memory. `stream` is a cudaStream_t (void* here so
/// this header needs no CUDA). Work is enqueued on the stream, not waited for.
using gpu_shuffle_fn = std::function<void(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in,
                                          std::uint64_t* d_out, std::size_t n, const shuffle_params& params,
                                          void* stream)>;

/// What the registry knows about one shuffle algorithm.
struct shuffle_entry {
  shuffle_entry() = default;
  /// An entry for (name, where) with every other field at its default; set them by name.
  shuffle_entry(std::string entry_name, device entry_where) : name(std::move(entry_name)), where(entry_where) {}
  /// The same with its label and one-line description.
  shuffle_entry(std::string entry_name, device entry_where, std::string entry_label, std::string entry_description)
      : name(std::move(entry_name)),
        where(entry_where),
        label(std::move(entry_label)),
        description(std::move(entry_description)) {}

  std::string name;         ///< stable identifier, e.g. "variable_philox"
  device where = device::cpu;
  std::string label;        ///< column label in the paper's tables, e.g. "VarPhilox"
  std::string description;  ///< one line
  shuffle_fn run;               ///< CPU entries: host pointers
  bool permutes = true;         ///< false for the random-gather upper bound (not a permutation)
  bool uses_rounds = false;     ///< true when params.rounds changes the output
  bool uniform = true;          ///< false where the §5 tests are expected to fail (LCG)
  bool deterministic = true;    ///< false when the output depends on thread timing
  gpu_shuffle_fn gpu_run;       ///< GPU entries: device pointers, stream, temporary storage
};

/// Registers `entry`; throws onepass::error if (name, device) is already taken.
/// A CPU and a GPU entry may share a name (e.g. "variable_philox").
void add_shuffle(shuffle_entry entry);

/// All registered shuffles, sorted by (device, name).
std::vector<shuffle_entry> shuffles();

/// True when a shuffle is registered under `name` for device `where`.
bool contains_shuffle(const std::string& name, device where = device::cpu);

/// The shuffle registered under `name` for device `where`; throws onepass::error
/// listing the known names when there is none.
const shuffle_entry& find_shuffle(const std::string& name, device where = device::cpu);

/// Static registration helper: `static const registrar r{make_entry()};` (make_entry
/// returning a shuffle_entry built by name).
struct registrar {
  explicit registrar(shuffle_entry entry) { add_shuffle(std::move(entry)); }
};

/// The random gather through a precomputed index array (the second form of the
/// random-gather upper bound of Mitchell et al., "Bandwidth-Optimal Random Shuffling for
/// GPUs", Table 1), which a shuffle entry cannot carry: its index array is filled before
/// timing, not by the timed call. The GPU gather baseline provides it
/// (baselines/gpu/gather.cu); the experiments reach it here, not through the baseline.
struct gpu_index_gather {
  /// Fills d_idx[0, n) (device memory) with the indices the GPU "gather" shuffle computes
  /// for `seed`, so that `gather` through them returns exactly that entry's output.
  /// `stream` is a cudaStream_t; enqueued, not waited for. Throws onepass::error for a null
  /// d_idx with n > 0 or n above the gather's limit.
  std::function<void(std::uint64_t* d_idx, std::size_t n, std::uint64_t seed, void* stream)> fill_indices;
  /// d_out[i] = d_in[d_idx[i]], i < n (device memory; every index < n, not checked; d_out
  /// overlapping neither d_in nor d_idx). Enqueued on `stream`, not waited for. Throws
  /// onepass::error on null pointers with n > 0 or overlapping d_in / d_out.
  std::function<void(const std::uint64_t* d_idx, const std::uint64_t* d_in, std::uint64_t* d_out, std::size_t n,
                     void* stream)>
      gather;
};

/// Registers the index-array gather; throws onepass::error when one is registered already
/// or a function is empty.
void set_gpu_index_gather(gpu_index_gather gather);

/// True when an index-array gather is registered (a CUDA build linking onepass_baselines).
bool has_gpu_index_gather();

/// The registered index-array gather; throws onepass::error when none is.
const gpu_index_gather& find_gpu_index_gather();

// ----------------------------------------------------------------------------
// The segmented-shuffle family: many independent shuffles in one call.

/// Parameters of a segmented shuffle; an algorithm ignores what it does not use.
struct segmented_params {
  std::uint64_t seed = 0;          ///< any 64-bit value
  unsigned rounds = bijection::default_rounds;  ///< Feistel rounds for VariablePhilox-based entries, in [1, 64]
  std::size_t uniform_length = 0;  ///< > 0: every segment has this length (the offsets say the same)
};

/// Signature of the GPU segmented shuffles: d_in, d_out are device pointers to
/// num_items uint64 elements (not overlapping); segment s is [d_offsets[s],
/// d_offsets[s + 1]) (device memory, num_segments + 1 monotone values from 0 to
/// num_items); each segment of the output holds a permutation of the same segment of
/// the input. CUB's two-phase temporary storage as gpu_shuffle_fn (temp == nullptr:
/// size query only); `stream` is a cudaStream_t. Throws onepass::error on bad arguments.
using gpu_segmented_fn = std::function<void(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in,
                                            std::uint64_t* d_out, std::size_t num_items, const std::int64_t* d_offsets,
                                            std::size_t num_segments, const segmented_params& params, void* stream)>;

/// What the registry knows about one segmented shuffle.
struct segmented_entry {
  segmented_entry() = default;
  /// An entry for (name, where) with every other field at its default; set them by name.
  segmented_entry(std::string entry_name, device entry_where) : name(std::move(entry_name)), where(entry_where) {}

  std::string name;          ///< stable identifier, e.g. "segmented_shuffle", "cub_segmented_sort"
  device where = device::gpu;
  std::string label;         ///< legend label
  std::string description;   ///< one line
  /// True when segment s of the output is the single shuffle of segment s with seed
  /// shuffle::segment_seed(params.seed, s) and params.rounds (the library's definition).
  bool library_definition = false;
  std::size_t max_segments = 0;  ///< > 0: refuses (and the experiments skip) more segments than this
  gpu_segmented_fn gpu_run;
  bool needs_uniform = false;    ///< true: takes only params.uniform_length > 0 (the experiments skip ragged cases)
};

/// Registers `entry`; throws onepass::error if (device, name) is taken.
void add_segmented(segmented_entry entry);

/// All registered segmented shuffles, ordered by (device, name).
std::vector<segmented_entry> segmented_shuffles();

/// The segmented shuffle registered under (name, where); throws onepass::error listing
/// the known names when there is none.
const segmented_entry& find_segmented(const std::string& name, device where = device::gpu);

/// Static registration helper: `static const segmented_registrar r{make_entry()};`.
struct segmented_registrar {
  explicit segmented_registrar(segmented_entry entry) { add_segmented(std::move(entry)); }
};

// ----------------------------------------------------------------------------
// The sort family (Onesweep paper's experiments: Figs. 9-11, Table 2).

/// THE list of key/value layouts the sort experiments time (Onesweep paper Figs. 9, 10,
/// 11, the sort_headline table); nothing else lists them. One line per shape:
///   X(shape name, key type, value type (void: keys only), in sort_headline's default set)
/// From it derive: the enum sort_shape, all_sort_shapes, to_string, parse_sort_shape,
/// shape_types, key_bytes / value_bytes (sizeof of the types), for_each_sort_shape and
/// visit_sort_shape. The sort adapters (registry/{cpu,gpu}_sort_adapter) register a sort
/// for every shape its Impl supports (all unless the Impl declares `supports`), the
/// experiments (sort_bench) dispatch through visit_sort_shape, and figures/sort_results.py
/// keeps the names and figure labels in one list checked against this one
/// (tests/python/test_sort_shapes.py). Key types: those of sort/key_traits.hpp
/// (uint32, int32, float, uint64, int64, double); value types 4 or 8 bytes.
// clang-format off
#define ONEPASS_SORT_SHAPES(X)                                                                         \
  X(keys_u32,      std::uint32_t, void,          true)  /* Fig. 9 */                                   \
  X(pairs_u32_u32, std::uint32_t, std::uint32_t, true)  /* Fig. 10 */                                  \
  X(keys_u64,      std::uint64_t, void,          true)  /* Fig. 11 */                                  \
  X(pairs_u64_u64, std::uint64_t, std::uint64_t, true)  /* sort_headline */                            \
  X(keys_f32,      float,         void,          true)  /* sort_headline; order: sort/key_traits.hpp */ \
  X(keys_i64,      std::int64_t,  void,          false) /* signed 64-bit keys (sort_headline --shapes) */
// clang-format on

/// Key/value layouts of the sort family, in ONEPASS_SORT_SHAPES order.
enum class sort_shape {
#define ONEPASS_SORT_SHAPE_ENUM(shape_name, key_type, value_type, headline) shape_name,
  ONEPASS_SORT_SHAPES(ONEPASS_SORT_SHAPE_ENUM)
#undef ONEPASS_SORT_SHAPE_ENUM
};

/// Every sort_shape, in declaration order.
inline constexpr sort_shape all_sort_shapes[] = {
#define ONEPASS_SORT_SHAPE_LIST(shape_name, key_type, value_type, headline) sort_shape::shape_name,
    ONEPASS_SORT_SHAPES(ONEPASS_SORT_SHAPE_LIST)
#undef ONEPASS_SORT_SHAPE_LIST
};

/// Number of sort shapes.
inline constexpr std::size_t sort_shape_count = sizeof(all_sort_shapes) / sizeof(all_sort_shapes[0]);

/// Key and value types of a shape (value = void for keys-only shapes), its name and
/// whether sort_headline times it by default.
template <sort_shape Shape>
struct shape_types;
#define ONEPASS_SORT_SHAPE_TYPES(shape_name, key_type, value_type, headline) \
  template <>                                                                \
  struct shape_types<sort_shape::shape_name> {                               \
    using key = key_type;                                                    \
    using value = value_type;                                                \
    static constexpr const char* name = #shape_name;                         \
    static constexpr bool headline_default = headline;                       \
  };
ONEPASS_SORT_SHAPES(ONEPASS_SORT_SHAPE_TYPES)
#undef ONEPASS_SORT_SHAPE_TYPES

/// A compile-time shape as for_each_sort_shape and visit_sort_shape pass it: `shape` the
/// enum value, `key` and `value` its types (value = void for keys-only shapes).
template <sort_shape Shape>
struct sort_shape_tag {
  static constexpr sort_shape shape = Shape;
  using key = typename shape_types<Shape>::key;
  using value = typename shape_types<Shape>::value;
  static constexpr bool has_values = !std::is_void_v<value>;
};

/// Calls fn(sort_shape_tag<S>{}) for every S of all_sort_shapes, in that order (code
/// templated on the shape: the sort adapters, the tests).
template <class Fn>
void for_each_sort_shape(Fn&& fn) {
#define ONEPASS_SORT_SHAPE_CALL(shape_name, key_type, value_type, headline) fn(sort_shape_tag<sort_shape::shape_name>{});
  ONEPASS_SORT_SHAPES(ONEPASS_SORT_SHAPE_CALL)
#undef ONEPASS_SORT_SHAPE_CALL
}

/// Returns fn(sort_shape_tag<S>{}) for the S equal to the run-time `shape` (fn returns the
/// same type for every shape). Throws onepass::error naming `shape` for a value outside
/// the enum.
template <class Fn>
decltype(auto) visit_sort_shape(sort_shape shape, Fn&& fn) {
  switch (shape) {
#define ONEPASS_SORT_SHAPE_CASE(shape_name, key_type, value_type, headline) \
  case sort_shape::shape_name:                                              \
    return fn(sort_shape_tag<sort_shape::shape_name>{});
    ONEPASS_SORT_SHAPES(ONEPASS_SORT_SHAPE_CASE)
#undef ONEPASS_SORT_SHAPE_CASE
  }
  throw error("onepass::registry::visit_sort_shape: shape: " + std::to_string(static_cast<int>(shape)) +
              " is not a sort_shape (0 to " + std::to_string(sort_shape_count - 1) + ")");
}

/// The shape's name as in ONEPASS_SORT_SHAPES ("keys_u32", ..., "keys_i64"); "unknown"
/// for a value outside the enum.
const char* to_string(sort_shape shape);

/// The shape named `name` (a name of ONEPASS_SORT_SHAPES, exactly); throws
/// onepass::error naming `name` and listing the known names when there is none.
sort_shape parse_sort_shape(const std::string& name);

/// The names of all_sort_shapes joined by `separator`, in order (usage messages).
std::string sort_shape_names(const std::string& separator = ", ");

/// True for the shapes sort_headline times when not given --shapes (the recorded table).
bool headline_default(sort_shape shape);

/// Bytes of one key / one value of a shape (sizeof the shape's types; value: 0 for
/// keys-only shapes). Throw onepass::error for a value outside the enum.
std::size_t key_bytes(sort_shape shape);
std::size_t value_bytes(sort_shape shape);

namespace detail {
template <class Impl, class = void>
struct declares_shapes : std::false_type {};
template <class Impl>
struct declares_shapes<Impl, std::void_t<decltype(Impl::supports(sort_shape::keys_u32))>> : std::true_type {};
}  // namespace detail

/// True when the sort implementation Impl (the Impl of registry/{cpu,gpu}_sort_adapter)
/// takes shape S: Impl::supports(S) where Impl declares `static constexpr bool
/// supports(sort_shape)`, else true (every shape). The adapters register, and instantiate,
/// Impl only for these shapes, so a new shape in ONEPASS_SORT_SHAPES reaches every sort
/// that does not opt out.
template <class Impl, sort_shape S>
constexpr bool implementation_supports() {
  if constexpr (detail::declares_shapes<Impl>::value)
    return Impl::supports(S);
  else
    return true;
}

/// Parameters every sort takes; an algorithm that cannot honour one throws onepass::error.
struct sort_params {
  unsigned begin_bit = 0;   ///< least significant key bit sorted on, < end_bit
  unsigned end_bit = 0;     ///< one past the most significant bit; 0 means the key's width
  bool descending = false;  ///< reverse order (still stable)
};

/// Signature of the GPU sorts: sorts n keys (the shape's key type) from d_keys_in
/// into d_keys_out, ascending in the key's radix order (sort/key_traits.hpp: unsigned
/// order for integers; for float, -0.0 and +0.0 may be kept apart, as ours, or treated
/// as equal, as CUB) unless params.descending, stable;
/// for pairs shapes d_values_in is permuted alongside into d_values_out (both nullptr
/// for keys-only shapes). Inputs are not modified; outputs do not overlap inputs.
/// CUB's two-phase temporary storage: temp == nullptr only sets temp_bytes.
/// `stream` is a cudaStream_t. Work is enqueued on the stream, not waited for.
/// Returns the name of the algorithm the call ran where the entry chooses one per call
/// (onepass_sort: onepass::sort::gpu::to_string of what sort/sort.cuh picked, a static string;
/// for a size query, the choice its first stage makes), nullptr where the entry always
/// runs the same algorithm.
using gpu_sort_fn = std::function<const char*(void* temp, std::size_t& temp_bytes, const void* d_keys_in, void* d_keys_out,
                                       const void* d_values_in, void* d_values_out, std::size_t n,
                                       const sort_params& params, void* stream)>;

/// Signature of the CPU sorts: as gpu_sort_fn with host pointers, no temporary storage.
using cpu_sort_fn = std::function<void(const void* keys_in, void* keys_out, const void* values_in, void* values_out,
                                       std::size_t n, const sort_params& params)>;

/// What the registry knows about one sort for one shape.
///
/// In-place entries (in_place = true) are the configurations of a sort that a user
/// calls on one buffer of data plus scratch (cub::DoubleBuffer, thrust::sort): their
/// gpu_run takes d_keys_in == d_keys_out (and d_values_in == d_values_out), holding the
/// input on entry and the sorted output on return, and throws onepass::error for
/// distinct in/out pointers; any scratch buffer comes out of the temporary storage.
/// Callers copy the input into the output buffer first (the experiments do so outside
/// the timed region, so such an entry is timed as its users run it).
struct sort_entry {
  sort_entry() = default;
  /// An entry for (name, where, shape) with every other field at its default; set them by name.
  sort_entry(std::string entry_name, device entry_where, sort_shape entry_shape)
      : name(std::move(entry_name)), where(entry_where), shape(entry_shape) {}

  std::string name;         ///< stable identifier, e.g. "onesweep", "cub_onesweep_n64"
  device where = device::gpu;
  sort_shape shape = sort_shape::keys_u32;
  std::string label;        ///< legend label in the paper's figures, e.g. "CUB 1.10 (reduce-then-scan)"
  std::string description;  ///< one line
  cpu_sort_fn run;          ///< CPU entries
  gpu_sort_fn gpu_run;      ///< GPU entries
  bool in_place = false;    ///< see above (GPU entries only)
  /// Float keys: -0.0 and +0.0 compare equal (CUB's order, stable among them) instead of
  /// -0.0 < +0.0 (the total order of sort/key_traits.hpp, ours by default).
  bool float_zeros_equal = false;
};

/// The fields one sort shares across the shapes it is registered for (the sort adapters:
/// registry/cpu_sort_adapter.hpp, registry/gpu_sort_adapter.cuh). Built by name:
///   sort_family f{"thrust_sort", "thrust::sort", "one line"};
///   f.in_place = true;
///   f.float_zeros_equal = true;
struct sort_family {
  sort_family(std::string family_name, std::string family_label, std::string family_description)
      : name(std::move(family_name)), label(std::move(family_label)), description(std::move(family_description)) {}

  std::string name;                ///< sort_entry::name
  std::string label;               ///< sort_entry::label
  std::string description;         ///< sort_entry::description
  bool in_place = false;           ///< sort_entry::in_place (GPU entries only)
  bool float_zeros_equal = false;  ///< sort_entry::float_zeros_equal

  /// The entry of this sort for (where, shape), without run / gpu_run.
  sort_entry entry(device where, sort_shape shape) const {
    sort_entry e{name, where, shape};
    e.label = label;
    e.description = description;
    e.in_place = in_place;
    e.float_zeros_equal = float_zeros_equal;
    return e;
  }
};

/// Registers `entry`; throws onepass::error if (device, shape, name) is taken.
void add_sort(sort_entry entry);

/// All registered sorts, ordered by (device, shape, name).
std::vector<sort_entry> sorts();

/// True when a sort is registered under (name, shape, where).
bool contains_sort(const std::string& name, sort_shape shape, device where = device::gpu);

/// The sort registered under (name, shape, where); throws onepass::error listing
/// the known names for that shape and device when there is none.
const sort_entry& find_sort(const std::string& name, sort_shape shape, device where = device::gpu);

/// Static registration helper for sorts: `static const sort_registrar r{make_entry()};`.
struct sort_registrar {
  explicit sort_registrar(sort_entry entry) { add_sort(std::move(entry)); }
};

// ----------------------------------------------------------------------------
// The Gaussian-generator family: fill a device buffer with N(0, 1) samples (article
// "Training a random Gaussian generator", section "Tail tests and measuring the speed of
// the generator": the to-memory comparison with cuRAND).

/// Output types of the Gaussian generators.
enum class gaussian_dtype {
  f64,  ///< double
  f32,  ///< float
};

/// "f64" or "f32".
const char* to_string(gaussian_dtype dtype);

/// Bytes of one output of `dtype` (8 or 4).
std::size_t dtype_bytes(gaussian_dtype dtype);

/// Parameters every Gaussian generator takes.
struct gaussian_params {
  std::uint64_t seed = 0;  ///< any 64-bit value; the same seed gives the same output
  /// true: a stateful generator (cuRAND's host API) continues its stream from its previous
  /// call on this device instead of restarting it at `seed` — the fastest way a user calls
  /// it (seed once, generate many times), used by the timed runs of gaussian_throughput
  /// after one untimed call with the seed. Stateless entries (ours) ignore it. false (the
  /// default): the output is a function of the seed alone.
  bool continue_stream = false;
};

/// Signature of the GPU Gaussian generators: writes n N(0, 1) samples of type `dtype`
/// (double for f64, float for f32) to d_out[0, n) (device memory, caller-owned, aligned
/// for the type), a function of (n, dtype, params.seed) alone. `stream` is a cudaStream_t
/// (void* here so this header needs no CUDA); work is enqueued on it, not waited for.
/// Throws onepass::error on bad arguments (null d_out with n > 0, a dtype the entry does
/// not list, n outside what the entry takes), onepass::runtime_failure when CUDA fails.
using gpu_gaussian_fn = std::function<void(void* d_out, std::size_t n, gaussian_dtype dtype,
                                           const gaussian_params& params, void* stream)>;

/// What the registry knows about one Gaussian generator.
struct gaussian_entry {
  gaussian_entry() = default;
  /// An entry for (name, where) with every other field at its default; set them by name.
  gaussian_entry(std::string entry_name, device entry_where) : name(std::move(entry_name)), where(entry_where) {}

  std::string name;          ///< stable identifier, e.g. "ours_memory_4", "curand_host_philox"
  device where = device::gpu;
  std::string label;         ///< legend label without the output type, e.g. "ours 4 coefficients generate_normal"
  std::string description;   ///< one line
  std::string entropy;       ///< the source of the random bits, e.g. "SplitMix64", "Philox4_32_10"
  std::vector<gaussian_dtype> dtypes;  ///< the output types gpu_run accepts
  gpu_gaussian_fn gpu_run;
  /// 3 or 4: the warp Gaussian generator with that many coefficients (the experiments'
  /// `form` column); 0 for other generators.
  unsigned coefficients = 0;
  /// True when the output equals gaussian::cpu::generate_normal(out, n, 0, 1, seed,
  /// default_table(), form with `coefficients`) bit for bit (floats: each double rounded).
  bool library_definition = false;
  std::size_t n_multiple = 1;  ///< n must be a multiple of this (cuRAND's normal pairs: 2)
  /// True when the (f32) output equals gaussian::cpu::generate_normal(out, n, 0, 1, seed,
  /// method::float_native) bit for bit: the float-native generator (float_lane.hpp).
  bool float_native = false;
};

/// True when `entry` lists `dtype` among its dtypes.
bool supports(const gaussian_entry& entry, gaussian_dtype dtype);

/// Registers `entry`; throws onepass::error if (device, name) is taken.
void add_gaussian(gaussian_entry entry);

/// All registered Gaussian generators, ordered by (device, name).
std::vector<gaussian_entry> gaussian_generators();

/// The Gaussian generator registered under (name, where); throws onepass::error listing
/// the known names when there is none.
const gaussian_entry& find_gaussian(const std::string& name, device where = device::gpu);

/// Static registration helper: `static const gaussian_registrar r{make_entry()};`.
struct gaussian_registrar {
  explicit gaussian_registrar(gaussian_entry entry) { add_gaussian(std::move(entry)); }
};

}  // namespace onepass::registry
