// python/src/onepass_ext.cpp — the CPU bindings behind the Python package `onepass`
// (python/onepass/__init__.py holds the user-facing functions and their checks).
//
// Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §3-4: the bijective
// shuffle with the VariablePhilox bijection, computed by the library's fused oneTBB scan
// (onepass/shuffle/cpu_shuffle.hpp) — the same permutation as the C++ library and the
// `onepass` CLI for the same (n, seed, rounds).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <tbb/parallel_for.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/gaussian/cpu_generate.hpp"
#include "onepass/gaussian/float_cpu_generate.hpp"
#include "onepass/error.hpp"
#include "onepass/shuffle/cpu_segmented_shuffle.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"
#include "onepass/shuffle/cpu_walking.hpp"
#include "cpu_sort.hpp"
#include "gaussian_batch.hpp"
#include "walking_batch.hpp"

namespace nb = nanobind;

namespace {

using bytes_2d = nb::ndarray<std::uint8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
/// An input that is only read: read-only arrays (np.frombuffer, memmap mode 'r',
/// flags.writeable = False) are accepted.
using const_bytes_2d = nb::ndarray<const std::uint8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using index_1d = nb::ndarray<std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

template <std::size_t N>
struct alignas(N >= 16 ? 16 : N) row_of {
  unsigned char b[N];
};

template <class T>
void shuffle_rows(const std::uint8_t* in, std::uint8_t* out, std::size_t n, std::uint64_t seed, unsigned rounds,
                  bool inverse) {
  const T* src = reinterpret_cast<const T*>(in);
  T* dst = reinterpret_cast<T*>(out);
  if (inverse) {
    onepass::shuffle::cpu::variable_philox_unshuffle(src, dst, n, seed, rounds);
  } else {
    onepass::shuffle::cpu::variable_philox_shuffle(src, dst, n, seed, rounds);
  }
}

/// out row j = in row p[j] (forward) or out row p[j] = in row j (inverse), rows of
/// row_bytes bytes, p the permutation of 0..n-1 for (seed, rounds).
void shuffle_rows_generic(const std::uint8_t* in, std::uint8_t* out, std::size_t n, std::size_t row_bytes,
                          std::uint64_t seed, unsigned rounds, bool inverse) {
  std::vector<std::uint64_t> identity(n), p(n);
  std::iota(identity.begin(), identity.end(), std::uint64_t{0});
  onepass::shuffle::cpu::variable_philox_shuffle(identity.data(), p.data(), n, seed, rounds);
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t j) {
    if (inverse) {
      std::memcpy(out + p[j] * row_bytes, in + j * row_bytes, row_bytes);
    } else {
      std::memcpy(out + j * row_bytes, in + p[j] * row_bytes, row_bytes);
    }
  });
}

/// in, out: n x row_bytes bytes (C-contiguous, not overlapping; checked in Python).
void shuffle_bytes(const_bytes_2d in, bytes_2d out, std::uint64_t seed, unsigned rounds, bool inverse) {
  const std::size_t n = in.shape(0), row = in.shape(1);
  if (out.shape(0) != n || out.shape(1) != row) throw nb::value_error("out: must have the shape of x");
  const std::uint8_t* src = in.data();
  std::uint8_t* dst = out.data();
  nb::gil_scoped_release release;
  const auto address = reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst);
  switch (row) {
    case 1: shuffle_rows<row_of<1>>(src, dst, n, seed, rounds, inverse); return;
    case 2: if (address % 2 == 0) { shuffle_rows<row_of<2>>(src, dst, n, seed, rounds, inverse); return; } break;
    case 4: if (address % 4 == 0) { shuffle_rows<row_of<4>>(src, dst, n, seed, rounds, inverse); return; } break;
    case 8: if (address % 8 == 0) { shuffle_rows<row_of<8>>(src, dst, n, seed, rounds, inverse); return; } break;
    case 16: if (address % 16 == 0) { shuffle_rows<row_of<16>>(src, dst, n, seed, rounds, inverse); return; } break;
    default: break;
  }
  shuffle_rows_generic(src, dst, n, row, seed, rounds, inverse);
}

/// p: n uint64 — the permutation of 0..n-1 for (seed, rounds).
void permutation_into(index_1d p, std::uint64_t seed, unsigned rounds) {
  const std::size_t n = p.shape(0);
  std::uint64_t* dst = p.data();
  nb::gil_scoped_release release;
  std::vector<std::uint64_t> identity(n);
  std::iota(identity.begin(), identity.end(), std::uint64_t{0});
  onepass::shuffle::cpu::variable_philox_shuffle(identity.data(), dst, n, seed, rounds);
}

/// out: count uint64, out[k] = sigma((first + k * stride) mod num_items) with sigma =
/// walking_permutation::for_length(num_items, seed, rounds): the cycle-walking permutation
/// (Black & Rogaway, CT-RSA 2002) over VariablePhilox (Mitchell et al. §3.2), a batch of a
/// data loader's global order (onepass.data passes seed = epoch_seed(seed, epoch)). oneTBB;
/// the values of the C++ walking_indices and of gpu::walking_indices.
void walking_indices_into(index_1d out, std::uint64_t num_items, std::uint64_t seed, unsigned rounds,
                          std::uint64_t first, std::uint64_t stride) {
  const std::uint64_t count = out.shape(0);
  std::uint64_t* dst = out.data();
  nb::gil_scoped_release release;
  const auto sigma = onepass::shuffle::walking_permutation::for_length(num_items, seed, rounds);
  onepass_py::walking_batch(sigma, first, stride, count, dst);
}

/// out: n doubles or floats, filled with N(mean, stddev^2) samples of the warp Gaussian
/// generator. Doubles, and floats with method == method::rounded_double (1): the double
/// generator (default table; form 3 or 4; floats are the doubles rounded to nearest), the
/// C++ gaussian::cpu::generate_normal(out, n, mean, stddev, seed, default_table(), form).
/// Floats with method == method::float_native (0): the float-native generator (issue 30),
/// cpu::generate_normal(out, n, mean, stddev, seed, default_float_table()); form is not
/// used. Bit-identical to gpu::generate_normal on the GPU with the same choice. `method`
/// is not used for doubles. Run by the copy for this CPU's instruction set
/// (gaussian_batch.hpp; every copy gives the same bits). Throws onepass::error naming the
/// argument (checked in Python).
template <class T>
void normal_into(nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu> out, double mean, double stddev,
                 std::uint64_t seed, int form, int method) {
  namespace g = onepass::gaussian;
  const std::size_t n = out.shape(0);
  T* dst = out.data();
  const g::form f = form == 3 ? g::form::three : g::form::four;
  if constexpr (std::is_same_v<T, float>) {
    onepass::require(method == static_cast<int>(g::method::float_native) ||
                         method == static_cast<int>(g::method::rounded_double),
                     "normal_into", "method", "must be 0 (float_native) or 1 (rounded_double)");
    if (method == static_cast<int>(g::method::float_native)) {
      nb::gil_scoped_release release;
      onepass_py::normal_float_native(dst, n, mean, stddev, seed);  // gaussian_batch.hpp
      return;
    }
  }
  nb::gil_scoped_release release;
  onepass_py::normal_double_generator(dst, n, mean, stddev, seed, f);  // gaussian_batch.hpp
}

/// keys_out = keys_in sorted (stable, LSD radix with oneTBB; keys and values: 1-d,
/// C-contiguous, distinct memory — checked in Python). Values of 4 or 8 bytes move with
/// their keys; none: keys only. Bits [begin_bit, end_bit) of the order-preserving key
/// transform (end_bit 0: all). numpy_order: floats in NumPy's order (NaNs last, -0.0 ==
/// +0.0; cpu::sort_keys_numpy_order), else IEEE totalOrder. The sorts are cpu_sort.cpp's.
template <class Key>
void sort_keys_into(nb::ndarray<const Key, nb::ndim<1>, nb::c_contig, nb::device::cpu> keys_in,
                    nb::ndarray<Key, nb::ndim<1>, nb::c_contig, nb::device::cpu> keys_out, unsigned begin_bit,
                    unsigned end_bit, bool descending, bool numpy_order) {
  const std::size_t n = keys_in.shape(0);
  if (keys_out.shape(0) != n) throw nb::value_error("keys_out: must have as many elements as keys");
  const Key* src = keys_in.data();
  Key* dst = keys_out.data();
  nb::gil_scoped_release release;
  onepass_py::cpu_sort_keys(src, dst, n, begin_bit, end_bit, descending, numpy_order);
}

template <class Key, class Value>
void sort_pairs_into(nb::ndarray<const Key, nb::ndim<1>, nb::c_contig, nb::device::cpu> keys_in,
                     nb::ndarray<Key, nb::ndim<1>, nb::c_contig, nb::device::cpu> keys_out,
                     nb::ndarray<const Value, nb::ndim<1>, nb::c_contig, nb::device::cpu> values_in,
                     nb::ndarray<Value, nb::ndim<1>, nb::c_contig, nb::device::cpu> values_out, unsigned begin_bit,
                     unsigned end_bit, bool descending, bool numpy_order) {
  const std::size_t n = keys_in.shape(0);
  if (values_in.shape(0) != n || values_out.shape(0) != n || keys_out.shape(0) != n)
    throw nb::value_error("values: must have as many elements as keys");
  const Key* ks = keys_in.data();
  Key* kd = keys_out.data();
  const Value* vs = values_in.data();
  Value* vd = values_out.data();
  nb::gil_scoped_release release;
  onepass_py::cpu_sort_pairs(ks, kd, vs, vd, n, begin_bit, end_bit, descending, numpy_order);
}

/// index_out = the stable argsort of keys (uint64), keys_out = the sorted keys
/// (cpu::argsort: the indices are made in the first pass, not read).
template <class Key>
void argsort_into(nb::ndarray<const Key, nb::ndim<1>, nb::c_contig, nb::device::cpu> keys_in,
                  nb::ndarray<Key, nb::ndim<1>, nb::c_contig, nb::device::cpu> keys_out,
                  nb::ndarray<std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> index_out,
                  unsigned begin_bit, unsigned end_bit, bool descending, bool numpy_order) {
  const std::size_t n = keys_in.shape(0);
  if (keys_out.shape(0) != n || index_out.shape(0) != n)
    throw nb::value_error("index_out: must have as many elements as keys");
  const Key* ks = keys_in.data();
  Key* kd = keys_out.data();
  std::uint64_t* id = index_out.data();
  nb::gil_scoped_release release;
  onepass_py::cpu_argsort(ks, kd, id, n, begin_bit, end_bit, descending, numpy_order);
}

/// Segmented shuffle of items of `item` bytes (1, 2, 4, 8 or 16; checked in Python): x and
/// out hold num_items items as raw bytes; offsets (int64, num_segments + 1) or, when empty,
/// rows of `row_length` items. The library's shuffle::cpu::segmented_shuffle / segmented_unshuffle.
template <class T>
void segmented_typed(const std::uint8_t* in, std::uint8_t* out, std::uint64_t num_items, const std::int64_t* offsets,
                     std::uint64_t num_segments, std::uint64_t row_length, std::uint64_t seed, unsigned rounds,
                     bool inverse) {
  namespace sh = onepass::shuffle;
  const T* src = reinterpret_cast<const T*>(in);
  T* dst = reinterpret_cast<T*>(out);
  if (offsets != nullptr) {
    if (inverse) sh::cpu::segmented_unshuffle(src, dst, num_items, offsets, num_segments, seed, rounds);
    else sh::cpu::segmented_shuffle(src, dst, num_items, offsets, num_segments, seed, rounds);
  } else {
    if (inverse) sh::cpu::segmented_unshuffle(src, dst, num_segments, row_length, seed, rounds);
    else sh::cpu::segmented_shuffle(src, dst, num_segments, row_length, seed, rounds);
  }
}

void segmented_bytes(const_bytes_2d x, bytes_2d out, nb::ndarray<const std::int64_t, nb::ndim<1>, nb::c_contig,
                     nb::device::cpu> offsets, std::uint64_t num_segments, std::uint64_t row_length,
                     std::size_t item, std::uint64_t seed, unsigned rounds, bool inverse, bool use_offsets) {
  // x, out: num_items x item bytes.
  const std::uint64_t num_items = x.shape(0);
  if (x.shape(1) != item || out.shape(0) != num_items || out.shape(1) != item)
    throw nb::value_error("out: must have the shape of x");
  const std::uint8_t* src = x.data();
  std::uint8_t* dst = out.data();
  const std::int64_t* off = use_offsets ? offsets.data() : nullptr;
  if (use_offsets && offsets.shape(0) != num_segments + 1)
    throw nb::value_error("offsets: must hold num_segments + 1 values");
  nb::gil_scoped_release release;
  switch (item) {
    case 1: segmented_typed<row_of<1>>(src, dst, num_items, off, num_segments, row_length, seed, rounds, inverse); break;
    case 2: segmented_typed<row_of<2>>(src, dst, num_items, off, num_segments, row_length, seed, rounds, inverse); break;
    case 4: segmented_typed<row_of<4>>(src, dst, num_items, off, num_segments, row_length, seed, rounds, inverse); break;
    case 8: segmented_typed<row_of<8>>(src, dst, num_items, off, num_segments, row_length, seed, rounds, inverse); break;
    case 16:
      segmented_typed<row_of<16>>(src, dst, num_items, off, num_segments, row_length, seed, rounds, inverse);
      break;
    default: throw nb::type_error("x: items of 1, 2, 4, 8 or 16 bytes");
  }
}

template <class Key>
void bind_sorts(nb::module_& m) {
  m.def("sort_keys", &sort_keys_into<Key>, nb::arg("keys"), nb::arg("keys_out"), nb::arg("begin_bit"),
        nb::arg("end_bit"), nb::arg("descending"), nb::arg("numpy_order") = false);
  m.def("sort_pairs", &sort_pairs_into<Key, std::uint32_t>, nb::arg("keys"), nb::arg("keys_out"), nb::arg("values"),
        nb::arg("values_out"), nb::arg("begin_bit"), nb::arg("end_bit"), nb::arg("descending"),
        nb::arg("numpy_order") = false);
  m.def("sort_pairs", &sort_pairs_into<Key, std::uint64_t>, nb::arg("keys"), nb::arg("keys_out"), nb::arg("values"),
        nb::arg("values_out"), nb::arg("begin_bit"), nb::arg("end_bit"), nb::arg("descending"),
        nb::arg("numpy_order") = false);
  m.def("argsort", &argsort_into<Key>, nb::arg("keys"), nb::arg("keys_out"), nb::arg("index_out"),
        nb::arg("begin_bit"), nb::arg("end_bit"), nb::arg("descending"), nb::arg("numpy_order") = false);
}

}  // namespace

NB_MODULE(_onepass, m) {
  m.doc() = "onepass CPU kernels (bijective shuffle, Mitchell et al. §3-4); use the functions of `onepass`.";
  m.attr("__version__") = ONEPASS_VERSION_TEXT;
  m.attr("default_rounds") = onepass::bijection::default_rounds;
  m.attr("max_length") = onepass::shuffle::max_length;
  m.def("shuffle_bytes", &shuffle_bytes, nb::arg("x"), nb::arg("out"), nb::arg("seed"), nb::arg("rounds"),
        nb::arg("inverse"),
        "Rows of x (n x row_bytes uint8, C-contiguous) shuffled into out (same shape, distinct memory).");
  m.def("permutation_into", &permutation_into, nb::arg("p"), nb::arg("seed"), nb::arg("rounds"),
        "Writes the permutation of 0..n-1 for (seed, rounds) into p (n uint64).");
  m.def("normal_into", &normal_into<double>, nb::arg("out"), nb::arg("mean"), nb::arg("stddev"), nb::arg("seed"),
        nb::arg("form"), nb::arg("method"),
        "Fills out (n float64) with N(mean, stddev^2) samples of the warp Gaussian generator (method not used).");
  m.def("normal_into", &normal_into<float>, nb::arg("out"), nb::arg("mean"), nb::arg("stddev"), nb::arg("seed"),
        nb::arg("form"), nb::arg("method"),
        "Fills out (n float32): method 0 (float_native) the float-native generator (cpu::generate_normal, "
        "form not used); 1 (rounded_double) the float64 samples of the form rounded to nearest.");
  m.attr("gaussian_isa") = onepass_py::gaussian_batch_isa();
  m.def("segmented_bytes", &segmented_bytes, nb::arg("x"), nb::arg("out"), nb::arg("offsets"),
        nb::arg("num_segments"), nb::arg("row_length"), nb::arg("item"), nb::arg("seed"), nb::arg("rounds"),
        nb::arg("inverse"), nb::arg("use_offsets"));
  m.def("segment_seed", [](std::uint64_t seed, std::uint64_t s) { return onepass::shuffle::segment_seed(seed, s); },
        nb::arg("seed"), nb::arg("segment"), "The seed of segment s of a segmented shuffle with `seed`.");
  m.def("walking_indices_into", &walking_indices_into, nb::arg("out"), nb::arg("num_items"), nb::arg("seed"),
        nb::arg("rounds"), nb::arg("first"), nb::arg("stride"),
        "Writes out[k] = sigma((first + k * stride) mod num_items) (out: count uint64), sigma the walking "
        "permutation of [0, num_items) for (seed, rounds).");
  m.attr("walking_isa") = onepass_py::walking_batch_isa();
  m.def("epoch_seed", [](std::uint64_t seed, std::uint64_t epoch) { return onepass::shuffle::epoch_seed(seed, epoch); },
        nb::arg("seed"), nb::arg("epoch"), "The seed of epoch `epoch` of a data-loader order with base seed `seed`.");
  bind_sorts<std::uint32_t>(m);
  bind_sorts<std::int32_t>(m);
  bind_sorts<float>(m);
  bind_sorts<std::uint64_t>(m);
  bind_sorts<std::int64_t>(m);
  bind_sorts<double>(m);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const onepass::error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}
