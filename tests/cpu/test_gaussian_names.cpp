// CPU tests of the Gaussian family's names (issue 31: the device as a namespace,
// gaussian::cpu:: / gaussian::gpu::, one overload set and contract per name, the element
// count num_items): the canonical cpu::generate_normal overloads keep their documented
// contracts among themselves (the float default is method::float_native = the float table
// overload; rounded_double = the double generator rounded), and the deprecated aliases
// generate_normal_cpu and generate_normal_float_cpu (cpu_generate.hpp,
// float_cpu_generate.hpp; removed after one release) still compile and give the same bits as
// cpu::generate_normal for doubles and for floats by both methods, and the same errors.
// The GPU alias gaussian::generate_normal (generate.cuh) is a forwarder of the same kind; the
// GPU tests call gpu::generate_normal against cpu::generate_normal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "onepass/error.hpp"
#include "onepass/gaussian/cpu_generate.hpp"
#include "onepass/gaussian/float_cpu_generate.hpp"
#include "onepass/gaussian/table.hpp"

namespace g = onepass::gaussian;

namespace {

using onepass::testing::error_of;
using onepass::testing::same_bits;

// Not a multiple of a round (32 doubles, 128 floats) nor of a batch of rounds: the partial
// last batch is compared too.
constexpr std::size_t num_items = 5 * 4096 + 77;

}  // namespace

TEST(GaussianNames, CpuOverloadsKeepTheirContracts) {
  // Floats: the default is method::float_native, which is the float-table overload with
  // default_float_table() (as gpu::generate_normal on the GPU).
  std::vector<float> by_default(num_items), native(num_items), with_table(num_items);
  g::cpu::generate_normal(by_default.data(), num_items, 0.25, 2.0, 31);
  g::cpu::generate_normal(native.data(), num_items, 0.25, 2.0, 31, g::method::float_native);
  g::cpu::generate_normal(with_table.data(), num_items, 0.25, 2.0, 31, g::default_float_table());
  EXPECT_TRUE(same_bits(by_default, native));
  EXPECT_TRUE(same_bits(by_default, with_table));
  // method::rounded_double: the doubles (default table, form::four) rounded to nearest, and
  // the template overload for float with that table and form.
  std::vector<double> d(num_items), d_default(num_items);
  std::vector<float> rounded(num_items), float_of_table(num_items);
  g::cpu::generate_normal(d.data(), num_items, 0.25, 2.0, 31, g::default_table(), g::form::four);
  g::cpu::generate_normal(d_default.data(), num_items, 0.25, 2.0, 31);
  EXPECT_TRUE(same_bits(d, d_default));
  g::cpu::generate_normal(rounded.data(), num_items, 0.25, 2.0, 31, g::method::rounded_double);
  g::cpu::generate_normal(float_of_table.data(), num_items, 0.25, 2.0, 31, g::default_table(), g::form::four);
  EXPECT_TRUE(same_bits(rounded, float_of_table));
  for (std::size_t i = 0; i < num_items; ++i) ASSERT_EQ(rounded[i], static_cast<float>(d[i])) << i;
  // A null out with num_items = 0 is fine.
  g::cpu::generate_normal(nullptr, 0, 0.0, 1.0, 1);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

TEST(GaussianNames, DeprecatedDoubleAliasesEqualCpuGenerateNormal) {
  for (g::form f : {g::form::three, g::form::four}) {
    std::vector<double> want(num_items), got(num_items);
    g::cpu::generate_normal(want.data(), num_items, -1.0, 0.5, 9, g::default_table(), f);
    g::generate_normal_cpu(got.data(), num_items, -1.0, 0.5, 9, g::default_table(), f);
    EXPECT_TRUE(same_bits(want, got)) << "form " << static_cast<int>(f);
  }
  std::vector<double> want(num_items), got(num_items);
  g::cpu::generate_normal(want.data(), num_items, 0.0, 1.0, 42);
  g::generate_normal_cpu(got.data(), num_items, 0.0, 1.0, 42);
  EXPECT_TRUE(same_bits(want, got));
  g::generate_normal_cpu(nullptr, 0, 0.0, 1.0, 1);  // the nullptr_t alias
}

TEST(GaussianNames, DeprecatedFloatAliasesEqualCpuGenerateNormalByBothMethods) {
  for (g::method m : {g::method::float_native, g::method::rounded_double}) {
    std::vector<float> want(num_items), got(num_items);
    g::cpu::generate_normal(want.data(), num_items, 0.25, 1.5, 7, m);
    g::generate_normal_cpu(got.data(), num_items, 0.25, 1.5, 7, m);
    EXPECT_TRUE(same_bits(want, got)) << "method " << static_cast<int>(m);
  }
  std::vector<float> want(num_items), got(num_items);
  // The float default of the old name: float_native.
  g::cpu::generate_normal(want.data(), num_items, 0.25, 1.5, 7);
  g::generate_normal_cpu(got.data(), num_items, 0.25, 1.5, 7);
  EXPECT_TRUE(same_bits(want, got));
  // The double generator rounded, through the table overload of both names.
  g::cpu::generate_normal(want.data(), num_items, 0.25, 1.5, 7, g::default_table(), g::form::three);
  g::generate_normal_cpu(got.data(), num_items, 0.25, 1.5, 7, g::default_table(), g::form::three);
  EXPECT_TRUE(same_bits(want, got));
  // generate_normal_float_cpu, with a float table and with the default one.
  g::cpu::generate_normal(want.data(), num_items, 0.25, 1.5, 7, g::default_float_table());
  g::generate_normal_float_cpu(got.data(), num_items, 0.25, 1.5, 7, g::default_float_table());
  EXPECT_TRUE(same_bits(want, got));
  std::fill(got.begin(), got.end(), 0.0f);
  g::generate_normal_float_cpu(got.data(), num_items, 0.25, 1.5, 7);
  EXPECT_TRUE(same_bits(want, got));
}

TEST(GaussianNames, DeprecatedAliasesThrowTheSameErrors) {
  std::vector<double> x(8);
  std::vector<float> y(8);
  const std::string want_d = error_of([&] { g::cpu::generate_normal(x.data(), 8, 0.0, -1.0, 1); });
  EXPECT_NE(want_d.find(": stddev "), std::string::npos) << want_d;
  EXPECT_EQ(error_of([&] { g::generate_normal_cpu(x.data(), 8, 0.0, -1.0, 1); }), want_d);
  const std::string want_f =
      error_of([&] { g::cpu::generate_normal(y.data(), 8, 0.0, 1.0, 1, static_cast<g::method>(7)); });
  EXPECT_NE(want_f.find(": m "), std::string::npos) << want_f;
  EXPECT_EQ(error_of([&] { g::generate_normal_cpu(y.data(), 8, 0.0, 1.0, 1, static_cast<g::method>(7)); }), want_f);
  const std::size_t too_many = (std::size_t{1} << 62) + 1;
  const std::string want_n = error_of([&] { g::cpu::generate_normal(y.data(), too_many, 0.0, 1.0, 1); });
  EXPECT_NE(want_n.find(": num_items "), std::string::npos) << want_n;
  EXPECT_EQ(error_of([&] { g::generate_normal_float_cpu(y.data(), too_many, 0.0, 1.0, 1); }), want_n);
}

#pragma GCC diagnostic pop
