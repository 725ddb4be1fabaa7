// onepass/gaussian/warp_emulation.hpp — the CPU emulation of one warp of the
// warp-parallel Gaussian generator (article sections as in warp_gaussian.cuh).
// Runs the same lane.hpp functions as the CUDA kernel for 32 lanes, with
// __shfl_xor_sync emulated by exchanging the lanes' sent values, so for the same
// entropy words, table and coefficients it returns the kernel's doubles bit for bit.
#pragma once

#include <cstdint>

#include "onepass/gaussian/lane.hpp"
#include "onepass/gaussian/table.hpp"

namespace onepass::gaussian {

/// Integer registers of a whole warp at the end of the butterfly (for tests/analysis).
struct warp_registers {
  std::int32_t a[32];
  std::int32_t b[32];
  std::int32_t c[32];
};

/// Emulates the integer part of one warp: lane L (0..31) uses entropy[L] and
/// sub-table L & 15 of `tab` (4096 entries, layout of table.hpp). Returns a, b, c of
/// every lane exactly as the kernel holds them before the final combination.
inline warp_registers emulate_warp_registers(const std::uint32_t (&entropy)[32], const std::int32_t* tab) {
  lane::registers r[32];
  warp_registers out{};
  for (unsigned l = 0; l < 32; ++l) r[l] = lane::load(entropy[l], l, tab);
  for (unsigned layer = 1; layer <= 5; ++layer) {
    std::int32_t sent[32];
    for (unsigned l = 0; l < 32; ++l) sent[l] = lane::mix_send(r[l]);
    const unsigned offset = lane::layer_offset(layer);
    for (unsigned l = 0; l < 32; ++l) lane::mix_receive(r[l], sent[l ^ offset], entropy[l], layer);
    if (layer == lane::c_after_layer)
      for (unsigned l = 0; l < 32; ++l) out.c[l] = lane::uniform_c(entropy[l], r[l].b);
  }
  for (unsigned l = 0; l < 32; ++l) {
    out.a[l] = r[l].a;
    out.b[l] = r[l].b;
  }
  return out;
}

/// CPU emulation of warp_gaussian for one warp: out[L] is lane L's output for entropy
/// words entropy[0..31], table `tab` (4096 entries), coefficients `coeff`, mean `mu`,
/// standard deviation `sigma`; `f` selects the 4-coefficient (default, as
/// warp_gaussian) or the 3-coefficient form. Bit-identical to warp_gaussian<f>. No errors.
inline void emulate_warp(const std::uint32_t (&entropy)[32], const std::int32_t* tab, const coefficients& coeff,
                         double (&out)[32], double mu = 0.0, double sigma = 1.0, form f = form::four) {
  const warp_registers w = emulate_warp_registers(entropy, tab);
  for (unsigned l = 0; l < 32; ++l)
    out[l] = f == form::four ? lane::combine4(w.a[l], w.b[l], w.c[l], coeff, mu, sigma)
                               : lane::combine3(w.a[l], w.b[l], w.c[l], coeff, mu, sigma);
}

}  // namespace onepass::gaussian
