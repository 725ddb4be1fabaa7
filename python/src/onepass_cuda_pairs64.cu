// python/src/onepass_cuda_pairs64.cu — onepass::sort::gpu::sort_pairs with 8-byte values, and
// argsort (the keys sorted with 0 … n-1 as values), for the Python package's GPU module; the
// 8-byte keys are instantiated in onepass_cuda_pairs64_wide.cu.
#include "onepass_cuda_sort.cuh"

namespace onepass_py {

std::string sort_pairs_v64(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in,
                           std::uintptr_t values_out, std::uint64_t n, char key_kind, unsigned key_bytes,
                           unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t stream) {
  if (key_bytes == 8)
    return sort_pairs_v64_wide(keys_in, keys_out, values_in, values_out, n, key_kind, begin_bit, end_bit, descending,
                               stream);
  if (key_bytes != 4) throw onepass::error("keys: dtype must have 4 or 8 bytes");
  return with_key_of_width<4>(key_kind, [&](auto key) -> std::string {
    return sort_pairs_typed<decltype(key), std::uint64_t>(keys_in, keys_out, values_in, values_out, n, begin_bit,
                                                          end_bit, descending, as_stream(stream));
  });
}

std::string argsort(std::uintptr_t keys_in, std::uintptr_t index_out, std::uint64_t n, char key_kind,
                    unsigned key_bytes, unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t stream_id,
                    int device) {
  if (n == 0) return "empty";
  device_scope scope(device);
  const cudaStream_t stream = as_stream(stream_id);
  stream_buffer index(n * sizeof(std::uint64_t), stream), keys_out(n * std::size_t{key_bytes}, stream);
  launch_iota(index.as<std::uint64_t>(), n, stream, device);
  return sort_pairs_v64(keys_in, reinterpret_cast<std::uintptr_t>(keys_out.get()),
                        reinterpret_cast<std::uintptr_t>(index.get()), index_out, n, key_kind, key_bytes, begin_bit,
                        end_bit, descending, stream_id);
}

}  // namespace onepass_py
