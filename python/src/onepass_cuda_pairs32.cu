// python/src/onepass_cuda_pairs32.cu — onepass::sort::gpu::sort_pairs with 4-byte values for the
// Python package's GPU module (a translation unit of its own: the instantiations compile in
// parallel with the others).
#include "onepass_cuda_sort.cuh"

namespace onepass_py {

std::string sort_pairs_v32(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in,
                           std::uintptr_t values_out, std::uint64_t n, char key_kind, unsigned key_bytes,
                           unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t stream) {
  return with_key(key_kind, key_bytes, [&](auto key) -> std::string {
    return sort_pairs_typed<decltype(key), std::uint32_t>(keys_in, keys_out, values_in, values_out, n, begin_bit,
                                                          end_bit, descending, as_stream(stream));
  });
}

}  // namespace onepass_py
