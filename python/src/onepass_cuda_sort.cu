// python/src/onepass_cuda_sort.cu — sort (keys only; pairs forwarded to _pairs32.cu /
// _pairs64.cu) of the Python package's GPU module: onepass::sort::gpu::sort_keys, onesweep
// (Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs",
// 2022) or the hybrid MSD sort, whichever the library's rule picks.
#include "onepass_cuda_sort.cuh"

namespace onepass_py {

std::string sort(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in, std::uintptr_t values_out,
                 std::uint64_t n, char key_kind, unsigned key_bytes, unsigned value_bytes, unsigned begin_bit,
                 unsigned end_bit, bool descending, std::uintptr_t stream_id, int device) {
  if (n == 0) return "empty";
  device_scope scope(device);
  if (values_in != 0) {
    if (value_bytes == 4)
      return sort_pairs_v32(keys_in, keys_out, values_in, values_out, n, key_kind, key_bytes, begin_bit, end_bit,
                            descending, stream_id);
    if (value_bytes == 8)
      return sort_pairs_v64(keys_in, keys_out, values_in, values_out, n, key_kind, key_bytes, begin_bit, end_bit,
                            descending, stream_id);
    throw onepass::error("values: dtype must have 4 or 8 bytes per element");
  }
  const cudaStream_t stream = as_stream(stream_id);
  return with_key(key_kind, key_bytes, [&](auto key) -> std::string {
    using Key = decltype(key);
    namespace so = onepass::sort::gpu;
    std::size_t bytes = 0;
    so::sort_keys<Key>(nullptr, bytes, as_ptr<const Key>(keys_in), as_ptr<Key>(keys_out), n, begin_bit, end_bit,
                       descending, stream);
    stream_buffer temp(bytes, stream);
    return so::to_string(so::sort_keys<Key>(temp.get(), bytes, as_ptr<const Key>(keys_in), as_ptr<Key>(keys_out), n,
                                            begin_bit, end_bit, descending, stream));
  });
}

}  // namespace onepass_py
