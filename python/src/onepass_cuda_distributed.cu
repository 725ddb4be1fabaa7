// python/src/onepass_cuda_distributed.cu — the multi-GPU functions of onepass's Python package
// (declared in onepass_cuda.hpp; python/onepass/distributed.py is the user-facing side):
//
//   nccl_*                the module's own NCCL communicators (ncclGetUniqueId, ncclCommInitRank,
//                         ncclCommDestroy / ncclCommAbort): PyTorch does not hand out its
//                         ncclComm_t, so the Python side makes one per process group.
//   distributed_sort      onepass::distributed::sort_keys / sort_pairs (distributed/sort.cuh: the
//                         radix-partitioning sort with exact splitters after RMG sort, Ilic,
//                         Tolovski & Rabl, BTW 2023), the stable sort of the concatenation of the
//                         ranks' keys cut into the input counts.
//   distributed_shuffle   onepass::distributed::shuffle / unshuffle (distributed/shuffle.cuh:
//                         Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §4
//                         Algorithm 1, over NCCL): one permutation of the concatenation that does
//                         not depend on the number of ranks.
//
// The caller owns the temporary storage (two-phase: *_bytes, then the call with a buffer of
// that size): the Python side takes it from PyTorch's caching allocator. Only built when NCCL
// was found (python/CMakeLists.txt: ONEPASS_PY_HAVE_NCCL).
//
// NCCL is opened at run time, not linked (python/CMakeLists.txt): the sort half defines the
// NCCL functions that this module calls (and the library's distributed headers call) as
// module-private forwarders to the libnccl.so.2 found by dlopen on first use — the one
// already loaded in the process (PyTorch's) when there is one, else $ONEPASS_NCCL_LIBRARY,
// else the loader's search, else the library found at configure time. The module thus
// imports without NCCL, and never puts a second, older NCCL in front of torch's.
//
// Compiled twice (python/CMakeLists.txt): without ONEPASS_PY_DISTRIBUTED_SHUFFLE it defines
// the communicator functions and the sort, with it the shuffle: the two halves (each a few
// minutes of nvcc) compile side by side.
#include "onepass_cuda_common.cuh"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#ifdef ONEPASS_PY_DISTRIBUTED_SHUFFLE
#include "onepass/distributed/shuffle.cuh"
#else
#include "onepass/distributed/sort.cuh"
#endif
#include "onepass/error.hpp"

#ifndef ONEPASS_PY_DISTRIBUTED_SHUFFLE

// --- NCCL, opened at run time ---------------------------------------------------------------------

namespace onepass_py {
namespace {

/// The NCCL functions of the loaded library (null when absent; GetLastError is optional: NCCL
/// >= 2.13).
struct nccl_api {
  void* library = nullptr;
  std::string error;  ///< why no library was loaded
  decltype(&::ncclGetVersion) GetVersion = nullptr;
  decltype(&::ncclGetUniqueId) GetUniqueId = nullptr;
  decltype(&::ncclCommInitRank) CommInitRank = nullptr;
  decltype(&::ncclCommDestroy) CommDestroy = nullptr;
  decltype(&::ncclCommAbort) CommAbort = nullptr;
  decltype(&::ncclGetErrorString) GetErrorString = nullptr;
  decltype(&::ncclGetLastError) GetLastError = nullptr;
  decltype(&::ncclCommCount) CommCount = nullptr;
  decltype(&::ncclCommUserRank) CommUserRank = nullptr;
  decltype(&::ncclAllGather) AllGather = nullptr;
  decltype(&::ncclSend) Send = nullptr;
  decltype(&::ncclRecv) Recv = nullptr;
  decltype(&::ncclGroupStart) GroupStart = nullptr;
  decltype(&::ncclGroupEnd) GroupEnd = nullptr;
};

nccl_api open_nccl() {
  nccl_api api;
  std::string tried;
  void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);  // already loaded (e.g. by torch)
  if (!library) {
    const char* env = std::getenv("ONEPASS_NCCL_LIBRARY");
    if (env && *env) {
      library = dlopen(env, RTLD_NOW | RTLD_LOCAL);
      if (!library) tried += std::string(" ONEPASS_NCCL_LIBRARY=") + env + ": " + dlerror() + ";";
    }
  }
  if (!library) {
    library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!library) tried += std::string(" libnccl.so.2: ") + dlerror() + ";";
  }
#ifdef ONEPASS_PY_NCCL_FALLBACK
  if (!library) {
    library = dlopen(ONEPASS_PY_NCCL_FALLBACK, RTLD_NOW | RTLD_LOCAL);
    if (!library) tried += std::string(" ") + ONEPASS_PY_NCCL_FALLBACK + ": " + dlerror() + ";";
  }
#endif
  if (!library) {
    api.error = "onepass.distributed: cannot load the NCCL library (import torch first, or set "
                "ONEPASS_NCCL_LIBRARY to the path of libnccl.so.2); tried" + tried;
    return api;
  }
  std::string missing;
  auto load = [&](auto& fn, const char* name, bool required) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
    if (!fn && required) missing += std::string(" ") + name;
  };
  load(api.GetVersion, "ncclGetVersion", true);
  load(api.GetUniqueId, "ncclGetUniqueId", true);
  load(api.CommInitRank, "ncclCommInitRank", true);
  load(api.CommDestroy, "ncclCommDestroy", true);
  load(api.CommAbort, "ncclCommAbort", true);
  load(api.GetErrorString, "ncclGetErrorString", true);
  load(api.GetLastError, "ncclGetLastError", false);
  load(api.CommCount, "ncclCommCount", true);
  load(api.CommUserRank, "ncclCommUserRank", true);
  load(api.AllGather, "ncclAllGather", true);
  load(api.Send, "ncclSend", true);
  load(api.Recv, "ncclRecv", true);
  load(api.GroupStart, "ncclGroupStart", true);
  load(api.GroupEnd, "ncclGroupEnd", true);
  if (!missing.empty()) {
    api.error = "onepass.distributed: the loaded NCCL library lacks" + missing + " (NCCL >= 2.7 needed)";
    return api;
  }
  api.library = library;
  return api;
}

const nccl_api& nccl() {
  static const nccl_api api = open_nccl();
  if (!api.library) throw onepass::runtime_failure(api.error);
  return api;
}

}  // namespace
}  // namespace onepass_py

// The NCCL entry points this module calls, forwarded to the loaded library. Hidden (the module
// is compiled with hidden visibility and loaded RTLD_LOCAL): nothing outside it binds to them.
extern "C" {
ncclResult_t ncclGetVersion(int* version) { return onepass_py::nccl().GetVersion(version); }
ncclResult_t ncclGetUniqueId(ncclUniqueId* id) { return onepass_py::nccl().GetUniqueId(id); }
ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  return onepass_py::nccl().CommInitRank(comm, nranks, id, rank);
}
ncclResult_t ncclCommDestroy(ncclComm_t comm) { return onepass_py::nccl().CommDestroy(comm); }
ncclResult_t ncclCommAbort(ncclComm_t comm) { return onepass_py::nccl().CommAbort(comm); }
const char* ncclGetErrorString(ncclResult_t result) { return onepass_py::nccl().GetErrorString(result); }
const char* ncclGetLastError(ncclComm_t comm) {
  const auto& api = onepass_py::nccl();
  return api.GetLastError ? api.GetLastError(comm) : "";
}
ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) { return onepass_py::nccl().CommCount(comm, count); }
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  return onepass_py::nccl().CommUserRank(comm, rank);
}
ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream) {
  return onepass_py::nccl().AllGather(sendbuff, recvbuff, sendcount, datatype, comm, stream);
}
ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  return onepass_py::nccl().Send(sendbuff, count, datatype, peer, comm, stream);
}
ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  return onepass_py::nccl().Recv(recvbuff, count, datatype, peer, comm, stream);
}
ncclResult_t ncclGroupStart() { return onepass_py::nccl().GroupStart(); }
ncclResult_t ncclGroupEnd() { return onepass_py::nccl().GroupEnd(); }
}  // extern "C"

#endif  // !ONEPASS_PY_DISTRIBUTED_SHUFFLE

namespace onepass_py {
namespace {

namespace dist = onepass::distributed;

inline ncclComm_t as_comm(std::uintptr_t c) {
  if (c == 0) throw onepass::error("comm: must be an initialised NCCL communicator handle, got 0");
  return reinterpret_cast<ncclComm_t>(c);
}

#ifndef ONEPASS_PY_DISTRIBUTED_SHUFFLE

inline void check_nccl(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return;
  std::string message = std::string(what) + " failed: " + ncclGetErrorString(r);
  if (const char* last = ncclGetLastError(nullptr); last && *last) message += std::string(" (") + last + ")";
  if (r == ncclInvalidArgument || r == ncclInvalidUsage) throw onepass::error(message);
  throw onepass::runtime_failure(message);
}

/// Calls fn(Key{}) for the key type of (kind, bytes) (void result).
template <class Fn>
void with_sort_key(char kind, unsigned bytes, Fn&& fn) {
  if (kind == 'u' && bytes == 4) return fn(std::uint32_t{});
  if (kind == 'i' && bytes == 4) return fn(std::int32_t{});
  if (kind == 'f' && bytes == 4) return fn(float{});
  if (kind == 'u' && bytes == 8) return fn(std::uint64_t{});
  if (kind == 'i' && bytes == 8) return fn(std::int64_t{});
  if (kind == 'f' && bytes == 8) return fn(double{});
  throw onepass::error("keys: dtype must be uint32, int32, float32, uint64, int64 or float64");
}

/// Calls fn(Value{}) for the value word of value_bytes (0: keys only, dist::detail::no_values).
template <class Fn>
void with_value(unsigned value_bytes, Fn&& fn) {
  if (value_bytes == 0) return fn(dist::detail::no_values{});
  if (value_bytes == 4) return fn(std::uint32_t{});
  if (value_bytes == 8) return fn(std::uint64_t{});
  throw onepass::error("values: dtype must have 4 or 8 bytes per element");
}

#endif  // !ONEPASS_PY_DISTRIBUTED_SHUFFLE

#ifdef ONEPASS_PY_DISTRIBUTED_SHUFFLE

/// Calls fn(T{}) for the item word of item_bytes.
template <class Fn>
void with_item(unsigned item_bytes, Fn&& fn) {
  switch (item_bytes) {
    case 1: return fn(std::uint8_t{});
    case 2: return fn(std::uint16_t{});
    case 4: return fn(std::uint32_t{});
    case 8: return fn(std::uint64_t{});
    case 16: return fn(item16{});
    default:
      throw onepass::error("item_bytes: must be 1, 2, 4, 8 or 16, got " + std::to_string(item_bytes));
  }
}

inline dist::permutation as_permutation(int kind) {
  if (kind == 0) return dist::permutation::bijective;
  if (kind == 1) return dist::permutation::walking;
  throw onepass::error("permutation: must be 0 (bijective) or 1 (walking), got " + std::to_string(kind));
}

#else

inline dist::sort_method as_sort_method(int method) {
  if (method == 0) return dist::sort_method::partition_first;
  if (method == 1) return dist::sort_method::sort_first;
  throw onepass::error("method: must be 0 (partition_first) or 1 (sort_first), got " + std::to_string(method));
}

template <class Key, class Value>
void sort_typed(void* temp, std::size_t& temp_bytes, dist::double_buffer<Key>& keys, dist::double_buffer<Value>* values,
                std::uint64_t n, unsigned begin_bit, unsigned end_bit, bool descending, ncclComm_t comm,
                cudaStream_t stream, dist::sort_method method) {
  if constexpr (std::is_same_v<Value, dist::detail::no_values>) {
    dist::sort_keys<Key>(temp, temp_bytes, keys, n, comm, stream, begin_bit, end_bit, descending, method);
  } else {
    dist::sort_pairs<Key, Value>(temp, temp_bytes, keys, *values, n, comm, stream, begin_bit, end_bit, descending,
                                 method);
  }
}

/// The sort (temp == 0 && query: the size query) for the dispatched key and value types.
std::pair<int, int> sort_call(bool query, std::uintptr_t temp, std::size_t& temp_bytes, std::uintptr_t keys0,
                              std::uintptr_t keys1, std::uintptr_t values0, std::uintptr_t values1, std::uint64_t n,
                              char key_kind, unsigned key_bytes, unsigned value_bytes, unsigned begin_bit,
                              unsigned end_bit, bool descending, std::uintptr_t comm_id, std::uintptr_t stream_id,
                              int method_code) {
  const ncclComm_t comm = as_comm(comm_id);
  const cudaStream_t stream = as_stream(stream_id);
  const dist::sort_method method = as_sort_method(method_code);
  std::pair<int, int> selectors{0, 0};
  with_sort_key(key_kind, key_bytes, [&](auto key) {
    using Key = decltype(key);
    with_value(value_bytes, [&](auto value) {
      using Value = decltype(value);
      dist::double_buffer<Key> keys(as_ptr<Key>(keys0), as_ptr<Key>(keys1));
      if constexpr (std::is_same_v<Value, dist::detail::no_values>) {
        sort_typed<Key, Value>(query ? nullptr : as_ptr<void>(temp), temp_bytes, keys, nullptr, n, begin_bit, end_bit,
                               descending, comm, stream, method);
        selectors = {keys.selector, keys.selector};
      } else {
        dist::double_buffer<Value> values(as_ptr<Value>(values0), as_ptr<Value>(values1));
        sort_typed<Key, Value>(query ? nullptr : as_ptr<void>(temp), temp_bytes, keys, &values, n, begin_bit, end_bit,
                               descending, comm, stream, method);
        selectors = {keys.selector, values.selector};
      }
    });
  });
  return selectors;
}

#endif  // ONEPASS_PY_DISTRIBUTED_SHUFFLE

}  // namespace

#ifndef ONEPASS_PY_DISTRIBUTED_SHUFFLE

std::string nccl_unique_id() {
  ncclUniqueId id;
  check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  return std::string(id.internal, sizeof(id.internal));
}

std::uintptr_t nccl_comm_init(const std::string& unique_id, int nranks, int rank, int device) {
  ncclUniqueId id;
  if (unique_id.size() != sizeof(id.internal))
    throw onepass::error("unique_id: must be the " + std::to_string(sizeof(id.internal)) +
                         " bytes of nccl_unique_id(), got " + std::to_string(unique_id.size()));
  if (nranks < 1) throw onepass::error("nranks: must be at least 1, got " + std::to_string(nranks));
  if (rank < 0 || rank >= nranks)
    throw onepass::error("rank: must be in [0, " + std::to_string(nranks - 1) + "], got " + std::to_string(rank));
  std::memcpy(id.internal, unique_id.data(), sizeof(id.internal));
  device_scope scope(device);
  ncclComm_t comm = nullptr;
  check_nccl(ncclCommInitRank(&comm, nranks, id, rank), "ncclCommInitRank");
  return reinterpret_cast<std::uintptr_t>(comm);
}

void nccl_comm_destroy(std::uintptr_t comm_id, bool abort) {
  const ncclComm_t comm = as_comm(comm_id);
  if (abort) {
    check_nccl(ncclCommAbort(comm), "ncclCommAbort");
  } else {
    check_nccl(ncclCommDestroy(comm), "ncclCommDestroy");
  }
}

std::pair<int, int> nccl_comm_rank_count(std::uintptr_t comm_id) {
  const ncclComm_t comm = as_comm(comm_id);
  int rank = 0, count = 0;
  check_nccl(ncclCommUserRank(comm, &rank), "ncclCommUserRank");
  check_nccl(ncclCommCount(comm, &count), "ncclCommCount");
  return {rank, count};
}

int nccl_version() {
  int version = 0;
  check_nccl(ncclGetVersion(&version), "ncclGetVersion");
  return version;
}

std::size_t distributed_sort_bytes(std::uint64_t n, char key_kind, unsigned key_bytes, unsigned value_bytes,
                                   unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t comm,
                                   std::uintptr_t stream, int device, int method) {
  device_scope scope(device);
  std::size_t bytes = 0;
  sort_call(true, 0, bytes, 0, 0, 0, 0, n, key_kind, key_bytes, value_bytes, begin_bit, end_bit, descending, comm,
            stream, method);
  return bytes;
}

std::pair<int, int> distributed_sort(std::uintptr_t temp, std::size_t temp_bytes, std::uintptr_t keys0,
                                     std::uintptr_t keys1, std::uintptr_t values0, std::uintptr_t values1,
                                     std::uint64_t n, char key_kind, unsigned key_bytes, unsigned value_bytes,
                                     unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t comm,
                                     std::uintptr_t stream, int device, int method) {
  device_scope scope(device);
  // The library treats d_temp == nullptr as the size query: a call with no storage (an
  // empty query answer) still runs, on a dummy non-null pointer it never dereferences.
  static unsigned char no_storage;
  if (temp == 0) temp = reinterpret_cast<std::uintptr_t>(&no_storage);
  return sort_call(false, temp, temp_bytes, keys0, keys1, values0, values1, n, key_kind, key_bytes, value_bytes,
                   begin_bit, end_bit, descending, comm, stream, method);
}

#else  // ONEPASS_PY_DISTRIBUTED_SHUFFLE

std::size_t distributed_shuffle_bytes(std::uint64_t n, unsigned item_bytes, int kind, std::uintptr_t comm_id,
                                      std::uintptr_t stream_id, int device) {
  device_scope scope(device);
  const ncclComm_t comm = as_comm(comm_id);
  const dist::permutation p = as_permutation(kind);
  std::size_t bytes = 0;
  with_item(item_bytes, [&](auto item) {
    using T = decltype(item);
    dist::shuffle<T>(nullptr, bytes, nullptr, nullptr, n, 0, comm, as_stream(stream_id), p);
  });
  return bytes;
}

void distributed_shuffle(std::uintptr_t temp, std::size_t temp_bytes, std::uintptr_t in, std::uintptr_t out,
                         std::uint64_t n, unsigned item_bytes, std::uint64_t seed, int kind, unsigned rounds,
                         bool inverse, std::uintptr_t comm_id, std::uintptr_t stream_id, int device) {
  device_scope scope(device);
  const ncclComm_t comm = as_comm(comm_id);
  const dist::permutation p = as_permutation(kind);
  static unsigned char no_storage;
  void* d_temp = temp ? as_ptr<void>(temp) : static_cast<void*>(&no_storage);
  with_item(item_bytes, [&](auto item) {
    using T = decltype(item);
    if (inverse) {
      dist::unshuffle<T>(d_temp, temp_bytes, as_ptr<const T>(in), as_ptr<T>(out), n, seed, comm, as_stream(stream_id),
                         p, rounds);
    } else {
      dist::shuffle<T>(d_temp, temp_bytes, as_ptr<const T>(in), as_ptr<T>(out), n, seed, comm, as_stream(stream_id), p,
                       rounds);
    }
  });
}

#endif  // ONEPASS_PY_DISTRIBUTED_SHUFFLE

}  // namespace onepass_py
