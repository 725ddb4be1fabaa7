// python/src/onepass_cuda_ext.cpp — the nanobind module onepass._onepass_cuda: GPU arrays
// in and out of onepass's Python package (python/onepass/_gpu.py holds the user-facing
// logic and the checks).
//
// DLPack capsules come in already made: the Python side calls x.__dlpack__(stream=s) with
// the caller's stream as the DLPack protocol asks (nb::ndarray alone would call it with
// stream=None, which synchronises on the legacy default stream: wjakob/nanobind#1241) and
// hands the capsule to `view`, which imports it with nanobind (no copy) and reports its
// pointer, shape, strides, dtype and device. The launches (onepass_cuda.hpp) take the
// device pointers as integers and run with the GIL released.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

#include "onepass/error.hpp"
#include "onepass_cuda.hpp"

namespace nb = nanobind;

namespace {

/// An imported DLPack tensor (read-only view: the module writes through the pointer only
/// where the Python side says it may). Keeps the producer's array alive while held.
struct dl_view {
  nb::ndarray<nb::ro> array;

  std::uintptr_t ptr() const { return reinterpret_cast<std::uintptr_t>(array.data()); }
  std::vector<std::int64_t> shape() const {
    return std::vector<std::int64_t>(array.shape_ptr(), array.shape_ptr() + array.ndim());
  }
  /// Strides in elements (nanobind fills C-order strides when the producer gave none).
  std::vector<std::int64_t> strides() const {
    return std::vector<std::int64_t>(array.stride_ptr(), array.stride_ptr() + array.ndim());
  }
  /// (code, bits, lanes) of DLPack: code 0 int, 1 uint, 2 float, 4 bfloat, 5 complex, 6 bool.
  std::tuple<int, int, int> dtype() const {
    const auto d = array.dtype();
    return {static_cast<int>(d.code), static_cast<int>(d.bits), static_cast<int>(d.lanes)};
  }
};

/// Owner of a cudaMallocAsync buffer handed out in a DLPack-exportable nb::ndarray: freed
/// with cudaFreeAsync on the stream it was made for when the last consumer lets go.
struct device_owner {
  std::uintptr_t ptr;
  std::uintptr_t stream;
  int device;
};

/// (array, pointer): a new device array exportable by DLPack.
nb::tuple owned_array(std::vector<std::size_t> shape, int code, int bits, int device, std::uintptr_t stream) {
  std::size_t count = 1;
  for (std::size_t d : shape) count *= d;
  const std::size_t bytes = count * static_cast<std::size_t>(bits / 8);
  std::uintptr_t ptr = 0;
  {
    nb::gil_scoped_release release;
    ptr = onepass_py::allocate(bytes, stream, device);
  }
  auto* owner = new device_owner{ptr, stream, device};
  nb::capsule capsule(owner, [](void* p) noexcept {
    auto* o = static_cast<device_owner*>(p);
    onepass_py::release(o->ptr, o->stream, o->device);
    delete o;
  });
  nb::dlpack::dtype dt{static_cast<std::uint8_t>(code), static_cast<std::uint8_t>(bits), 1};
  nb::ndarray<> array(reinterpret_cast<void*>(ptr), shape.size(), shape.data(), capsule, nullptr, dt,
                      nb::device::cuda::value, device);
  return nb::make_tuple(nb::cast(array), ptr);
}

}  // namespace

NB_MODULE(_onepass_cuda, m) {
  m.doc() = "onepass GPU launches (CUDA) behind the functions of `onepass`; use those.";
  nb::class_<dl_view>(m, "DLView", "An imported DLPack tensor: pointer, shape, strides (in elements), dtype, device.")
      .def_prop_ro("ptr", &dl_view::ptr)
      .def_prop_ro("shape", &dl_view::shape)
      .def_prop_ro("strides", &dl_view::strides)
      .def_prop_ro("dtype", &dl_view::dtype)
      .def_prop_ro("device_type", [](const dl_view& v) { return v.array.device_type(); })
      .def_prop_ro("device_id", [](const dl_view& v) { return v.array.device_id(); });
  m.def("view", [](nb::ndarray<nb::ro> a) { return dl_view{std::move(a)}; }, nb::arg("capsule"),
        "Imports a DLPack capsule (or any object nanobind imports) without a copy.");
  m.def("owned_array", &owned_array, nb::arg("shape"), nb::arg("code"), nb::arg("bits"), nb::arg("device"),
        nb::arg("stream"),
        "(array, pointer): a new device array (cudaMallocAsync on stream; freed with cudaFreeAsync on it), exportable by DLPack.");

  m.def("shuffle_rows", [](std::uintptr_t in, std::uintptr_t out, std::uint64_t outer, std::uint64_t n,
                           std::uint64_t row_bytes, std::uint64_t seed, unsigned rounds, bool inverse,
                           std::uintptr_t stream, int device) {
          nb::gil_scoped_release release;
          return onepass_py::shuffle_rows(in, out, outer, n, row_bytes, seed, rounds, inverse, stream, device);
        });
  m.def("permutation", [](std::uintptr_t out, std::uint64_t n, std::uint64_t seed, unsigned rounds,
                          std::uintptr_t stream, int device) {
          nb::gil_scoped_release release;
          onepass_py::permutation(out, n, seed, rounds, stream, device);
        });
  m.def("walking_indices", [](std::uintptr_t out, std::uint64_t count, std::uint64_t num_items, std::uint64_t seed,
                              unsigned rounds, std::uint64_t first, std::uint64_t stride, std::uintptr_t stream,
                              int device) {
          nb::gil_scoped_release release;
          onepass_py::walking_indices(out, count, num_items, seed, rounds, first, stride, stream, device);
        });
  m.def("segmented", [](std::uintptr_t in, std::uintptr_t out, std::uint64_t num_items, unsigned item_bytes,
                        std::uintptr_t offsets, unsigned offset_bytes, std::uint64_t num_segments,
                        std::uint64_t row_length, std::uint64_t seed, unsigned rounds, bool inverse,
                        std::uintptr_t stream, int device) {
          nb::gil_scoped_release release;
          onepass_py::segmented(in, out, num_items, item_bytes, offsets, offset_bytes, num_segments, row_length, seed,
                                rounds, inverse, stream, device);
        });
  m.def("sort", [](std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in,
                   std::uintptr_t values_out, std::uint64_t n, char kind, unsigned key_bytes, unsigned value_bytes,
                   unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t stream, int device) {
          nb::gil_scoped_release release;
          return onepass_py::sort(keys_in, keys_out, values_in, values_out, n, kind, key_bytes, value_bytes,
                                  begin_bit, end_bit, descending, stream, device);
        });
  m.def("argsort", [](std::uintptr_t keys_in, std::uintptr_t index_out, std::uint64_t n, char kind,
                      unsigned key_bytes, unsigned begin_bit, unsigned end_bit, bool descending,
                      std::uintptr_t stream, int device) {
          nb::gil_scoped_release release;
          return onepass_py::argsort(keys_in, index_out, n, kind, key_bytes, begin_bit, end_bit, descending, stream,
                                     device);
        });
  m.def("normal", [](std::uintptr_t out, std::uint64_t n, bool single, double mean, double stddev,
                     std::uint64_t seed, int form, int method, std::uintptr_t stream, int device) {
          nb::gil_scoped_release release;
          onepass_py::normal(out, n, single, mean, stddev, seed, form, method, stream, device);
        });
  m.def("synchronize", [](std::uintptr_t stream, int device) {
          nb::gil_scoped_release release;
          onepass_py::synchronize(stream, device);
        });
  m.def("stream_wait", [](std::uintptr_t producer, std::uintptr_t consumer, int device) {
          nb::gil_scoped_release release;
          onepass_py::stream_wait(producer, consumer, device);
        });
#ifdef ONEPASS_PY_HAVE_NCCL
  // Beyond one GPU (onepass_cuda_distributed.cu; python/onepass/distributed.py): NCCL
  // communicators of the module's own and the collectives of onepass::distributed.
  m.attr("has_nccl") = true;
  m.def("nccl_unique_id", []() {
          const std::string id = onepass_py::nccl_unique_id();
          return nb::bytes(id.data(), id.size());
        },
        "ncclGetUniqueId: the 128 bytes rank 0 hands to the other ranks of a new communicator.");
  m.def("nccl_comm_init", [](nb::bytes unique_id, int nranks, int rank, int device) {
          std::string id(unique_id.c_str(), unique_id.size());
          nb::gil_scoped_release release;
          return onepass_py::nccl_comm_init(id, nranks, rank, device);
        }, nb::arg("unique_id"), nb::arg("nranks"), nb::arg("rank"), nb::arg("device"),
        "ncclCommInitRank with `device` current (collective): the communicator's handle (an integer).");
  m.def("nccl_comm_destroy", [](std::uintptr_t comm, bool abort) {
          nb::gil_scoped_release release;
          onepass_py::nccl_comm_destroy(comm, abort);
        }, nb::arg("comm"), nb::arg("abort"),
        "ncclCommDestroy (abort=False; every rank) or ncclCommAbort (abort=True; local).");
  m.def("nccl_comm_rank_count", &onepass_py::nccl_comm_rank_count, nb::arg("comm"),
        "(rank, number of ranks) of a communicator handle.");
  m.def("nccl_version", &onepass_py::nccl_version, "ncclGetVersion of the NCCL library loaded.");
  m.def("distributed_sort_bytes", [](std::uint64_t n, char kind, unsigned key_bytes, unsigned value_bytes,
                                     unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t comm,
                                     std::uintptr_t stream, int device, int method) {
          nb::gil_scoped_release release;
          return onepass_py::distributed_sort_bytes(n, kind, key_bytes, value_bytes, begin_bit, end_bit, descending,
                                                    comm, stream, device, method);
        });
  m.def("distributed_sort", [](std::uintptr_t temp, std::size_t temp_bytes, std::uintptr_t keys0,
                               std::uintptr_t keys1, std::uintptr_t values0, std::uintptr_t values1, std::uint64_t n,
                               char kind, unsigned key_bytes, unsigned value_bytes, unsigned begin_bit,
                               unsigned end_bit, bool descending, std::uintptr_t comm, std::uintptr_t stream,
                               int device, int method) {
          nb::gil_scoped_release release;
          return onepass_py::distributed_sort(temp, temp_bytes, keys0, keys1, values0, values1, n, kind, key_bytes,
                                              value_bytes, begin_bit, end_bit, descending, comm, stream, device,
                                              method);
        });
  m.def("distributed_shuffle_bytes", [](std::uint64_t n, unsigned item_bytes, int kind, std::uintptr_t comm,
                                        std::uintptr_t stream, int device) {
          nb::gil_scoped_release release;
          return onepass_py::distributed_shuffle_bytes(n, item_bytes, kind, comm, stream, device);
        });
  m.def("distributed_shuffle", [](std::uintptr_t temp, std::size_t temp_bytes, std::uintptr_t in, std::uintptr_t out,
                                  std::uint64_t n, unsigned item_bytes, std::uint64_t seed, int kind, unsigned rounds,
                                  bool inverse, std::uintptr_t comm, std::uintptr_t stream, int device) {
          nb::gil_scoped_release release;
          onepass_py::distributed_shuffle(temp, temp_bytes, in, out, n, item_bytes, seed, kind, rounds, inverse, comm,
                                          stream, device);
        });
#else
  m.attr("has_nccl") = false;
#endif
  m.def("pointer_device", &onepass_py::pointer_device);
  m.def("device_count", &onepass_py::device_count);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const onepass::error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const onepass::runtime_failure& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
}
