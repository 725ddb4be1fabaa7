// python/src/onepass_cuda_pairs64_wide.cu — onepass::sort::gpu::sort_pairs with 8-byte keys and
// 8-byte values (the wide half of sort_pairs_v64, in a translation unit of its own so that
// a parallel build compiles it beside the others).
#include "onepass_cuda_sort.cuh"

namespace onepass_py {

std::string sort_pairs_v64_wide(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in,
                                std::uintptr_t values_out, std::uint64_t n, char key_kind, unsigned begin_bit,
                                unsigned end_bit, bool descending, std::uintptr_t stream) {
  return with_key_of_width<8>(key_kind, [&](auto key) -> std::string {
    return sort_pairs_typed<decltype(key), std::uint64_t>(keys_in, keys_out, values_in, values_out, n, begin_bit,
                                                          end_bit, descending, as_stream(stream));
  });
}

}  // namespace onepass_py
