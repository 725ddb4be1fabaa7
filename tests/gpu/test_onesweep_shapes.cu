// Tests of the Onesweep GPU radix sort (lib/include/onepass/sort/onesweep.cuh): the
// off-by-default pairs options of binning_shape, homogeneous tiles (the binning
// short-circuit) mixed with general ones, the ranking alternatives the tuning program
// injects (detail::gated_launch, match_any), and crowded places above 2^25 keys (label
// gpu_long). Skipped (GTEST_SKIP) without a CUDA device.
// Helpers: onesweep_test_support.cuh.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "onesweep_test_support.cuh"

namespace {


// The off-by-default pairs options of binning_shape (ValuesAfterKeys: the values pass
// through the keys' shared buffer after the keys; PrefetchValues 1 / 2: L2 prefetch /
// values in registers), through the plan: partial tiles, several portions, descending,
// 4- and 8-byte values with 4- and 8-byte keys, random, few distinct and all-equal keys.
template <class Policy>
void check_pairs_shape(const char* name) {
  std::uint64_t seed = 700;
  constexpr std::size_t tile = Policy::tile_items;
  for (std::size_t n : {std::size_t{1}, tile - 1, tile + 1, 3 * tile + 7, std::size_t{200003}}) {
    for (std::uint64_t portion : {std::uint64_t{1} << 28, std::uint64_t{2 * tile + 3}}) {
      for (bool descending : {false, true}) {
        config c;
        c.descending = descending;
        c.portion = portion;
        const std::string what = std::string(name) + " " + describe(c, n);
        for (pattern p : {pattern::random, pattern::few_distinct, pattern::all_equal}) {
          check<8, std::uint32_t, std::uint32_t, Policy>(make_keys<std::uint32_t>(p, n, ++seed), c, what + " u32/u32");
          check<8, std::uint32_t, std::uint64_t, Policy>(make_keys<std::uint32_t>(p, n, ++seed), c, what + " u32/u64");
        }
        check<8, std::uint64_t, std::uint32_t, Policy>(make_keys<std::uint64_t>(pattern::random, n, ++seed), c,
                                                       what + " u64/u32");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}
using ballots_shape_values_after_keys =
    os::detail::binning_shape<256, 56, 2, os::detail::peer_match::ballots, 4, 1, 0, true>;
using ballots_shape_prefetch_l2 = os::detail::binning_shape<256, 48, 2, os::detail::peer_match::ballots, 4, 1, 1>;
using ballots_shape_values_in_registers =
    os::detail::binning_shape<384, 24, 2, os::detail::peer_match::ballots, 4, 1, 2>;
TEST_F(Onesweep, PairsValuesAfterKeys) { check_pairs_shape<ballots_shape_values_after_keys>("values after keys"); }
TEST_F(Onesweep, PairsPrefetchValuesL2) { check_pairs_shape<ballots_shape_prefetch_l2>("prefetch L2"); }
TEST_F(Onesweep, PairsValuesInRegisters) { check_pairs_shape<ballots_shape_values_in_registers>("values in registers"); }

// Homogeneous tiles (every key of a tile with the same digit at the pass's place:
// the binning kernel's short-circuit) mixed with general ones, at several places,
// with partial last tiles, for keys only and pairs (the tile of each configuration).
// Kinds 0-2 have no dominant digit (only the tile short-circuit applies); 3, 5 and 6
// do (warps with one digit also skip the multisplit; kind 5 has such warps in tiles
// that are not homogeneous, kind 6 such warps holding padding slots).
template <class Key>
std::vector<Key> homogeneous_mix(int kind, std::size_t n, std::size_t tile, std::uint64_t seed) {
  using bits_type = typename radix_traits<Key>::bits_type;
  std::mt19937_64 rng(seed);
  std::vector<Key> keys(n);
  std::vector<std::uint64_t> few(6);
  for (auto& f : few) f = rng();
  const std::uint64_t same = rng();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t block = i / tile;
    std::uint64_t w = rng();
    switch (kind) {
      case 0:  // low byte constant within each aligned tile, different between tiles
        w = (w & ~std::uint64_t{0xFF}) | (block * 37 + 11) % 251;
        break;
      case 1:  // low two bytes per tile, the next per pair of tiles; higher bytes random
        w = (w & ~std::uint64_t{0xFFFFFF}) | ((block * 7919) & 0xFFFF) | ((((block / 2) * 13) & 0xFF) << 16);
        break;
      case 2:  // whole keys from a small set, constant within each aligned tile
        w = few[(block * 5 + block / 3) % few.size()];
        break;
      case 3:  // all equal
        w = same;
        break;
      case 4: {  // thirds: low-entropy band (AND of 16 words), uniform, all equal
        if (i < n / 3) {
          for (int r = 1; r < 16; ++r) w &= rng();
        } else if (i >= 2 * n / 3) {
          w = same;
        }
        break;
      }
      case 6:  // all ones: every digit is the padding slots' digit (descending: all zeros)
        w = ~std::uint64_t{0};
        break;
      default: {  // kind 5: all equal but one key per tile (a different low byte, in the last lanes too)
        w = same;
        const std::size_t odd = (block * 2654435761u) % tile;
        if (i % tile == odd || i % tile == tile - 1 - (block % 3)) w ^= 1 + (block % 254);
        break;
      }
    }
    keys[i] = from_word<Key>(static_cast<bits_type>(w));
  }
  return keys;
}

template <class Key, class Value>
void check_homogeneous(const char* name) {
  constexpr std::size_t tile_k = os::detail::binning_policy<sizeof(Key), 0, 8>::tile_items;
  // Every n below is small: pairs take the policy's small-sort shape where it has one.
  constexpr std::size_t tile_p =
      os::detail::small_shape<os::detail::binning_policy<sizeof(Key), sizeof(Value), 8>>::type::tile_items;
  std::uint64_t seed = 900 + sizeof(Key);
  for (int kind = 0; kind <= 6; ++kind) {
    for (bool pairs : {false, true}) {
      const std::size_t tile = pairs ? tile_p : tile_k;
      for (std::size_t n : {std::size_t{1}, tile / 2 + 3, tile, tile + 1, 6 * tile, 7 * tile + 123}) {
        const auto keys = homogeneous_mix<Key>(kind, n, tile, ++seed);
        for (bool descending : {false, true}) {
          config c;
          c.descending = descending;
          const std::string what = std::string(name) + " homogeneous kind " + std::to_string(kind);
          if (pairs) {
            check<8, Key, Value>(keys, c, what + " pairs");
          } else {
            check<8, Key>(keys, c, what);
          }
          c.double_buffer = true;
          c.begin_bit = 4;
          c.end_bit = radix_traits<Key>::bits - 3;
          if (pairs) {
            check<8, Key, Value>(keys, c, what + " pairs, bit subset");
          } else {
            check<8, Key>(keys, c, what + " bit subset");
          }
          // Small portions: a homogeneous last tile hands the digit starts on.
          c = config{};
          c.descending = descending;
          c.portion = 2 * tile + 5;
          if (pairs) {
            check<8, Key, Value>(keys, c, what + " pairs, portions");
          } else {
            check<8, Key>(keys, c, what + " portions");
          }
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST_F(Onesweep, HomogeneousTilesU32) { check_homogeneous<std::uint32_t, std::uint32_t>("u32"); }
TEST_F(Onesweep, HomogeneousTilesU64) { check_homogeneous<std::uint64_t, std::uint64_t>("u64"); }
TEST_F(Onesweep, HomogeneousTilesU64PairsU32) { check_homogeneous<std::uint64_t, std::uint32_t>("u64/u32"); }

// Crowded places above 2^25 keys (the size from which the atomicOr-ranked shapes of
// gated_launch pair their launches; the default shapes rank by ballots at every size):
// AND of 2, 4 and 8 words (fewer than 16 distinct digits expected among 32 keys at every
// place from 4 words on), for uint32 and uint64 keys, both orders, through the public API.
template <class Key>
void check_crowded(const char* name) {
  using bits_type = typename radix_traits<Key>::bits_type;
  const std::size_t n = (std::size_t{1} << 25) + 4097;
  std::mt19937_64 rng(4242 + sizeof(Key));
  for (int q : {2, 4, 8}) {
    std::vector<Key> keys(n);
    for (auto& k : keys) {
      std::uint64_t w = rng();
      for (int r = 1; r < q; ++r) w &= rng();
      k = from_word<Key>(static_cast<bits_type>(w));
    }
    for (bool descending : {false, true}) {
      config c;
      c.descending = descending;
      check<8, Key>(keys, c, std::string(name) + " crowded, AND of " + std::to_string(q) + " words");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// The ranking alternatives (no default uses them; scripts/bench_onesweep.cu injects
// them as the plan's Policy) through the plan, on uniform keys and on the AND of 4 and
// of 8 words (crowded places, where the gated pair's match_any launch does the work),
// with partial tiles and several portions, both orders: the gated atomicOr / match_any
// pair (paired from one key, so every portion takes it), the dynamic kernel and the
// atomicOr kernel alone (never paired), and the match_any shape; u32 keys, and u32
// pairs for the gated pair.
using atomic_or_shape = os::detail::binning_shape<256, 32, 3, os::detail::peer_match::atomic_or, 4>;
template <class Policy, bool Pairs>
void check_ranking(const char* name) {
  constexpr std::size_t tile = Policy::tile_items;
  std::uint64_t seed = 1300;
  for (int q : {1, 4, 8}) {
    for (std::size_t n : {tile + 1, 3 * tile + 17, std::size_t{100003}}) {
      const auto keys = make_keys<std::uint32_t>(pattern::entropy, n, ++seed, q);
      for (bool descending : {false, true}) {
        for (std::uint64_t portion : {std::uint64_t{1} << 28, std::uint64_t{2 * tile + 3}}) {
          config c;
          c.descending = descending;
          c.portion = portion;
          const std::string what = std::string(name) + " AND of " + std::to_string(q) + " words";
          if constexpr (Pairs) {
            check<8, std::uint32_t, std::uint32_t, Policy>(keys, c, what + " u32/u32");
          } else {
            check<8, std::uint32_t, int, Policy>(keys, c, what);
          }
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}
TEST_F(Onesweep, RankingGatedPair) {
  check_ranking<os::detail::gated_launch<atomic_or_shape, 1>, false>("gated pair");
  check_ranking<os::detail::gated_launch<atomic_or_shape, 1>, true>("gated pair");
}
TEST_F(Onesweep, RankingDynamic) {
  check_ranking<os::detail::gated_launch<atomic_or_shape, os::detail::never_paired, true>, false>("dynamic");
}
TEST_F(Onesweep, RankingAtomicOrAlone) {
  check_ranking<os::detail::gated_launch<atomic_or_shape, os::detail::never_paired, false>, false>("atomic_or");
}
TEST_F(Onesweep, RankingMatchAny) {
  check_ranking<os::detail::binning_shape<256, 32, 3, os::detail::peer_match::match_any, 4>, false>("match_any");
}

TEST_F(Onesweep, CrowdedPlacesU32) { check_crowded<std::uint32_t>("u32"); }
TEST_F(Onesweep, CrowdedPlacesU64) { check_crowded<std::uint64_t>("u64"); }

}  // namespace
