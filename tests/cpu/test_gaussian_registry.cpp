// The Gaussian-generator family of the registry (onepass/harness/registry.hpp) on the host: the
// dtype names and sizes, registration and lookup errors (onepass::error, worded as the
// other families'), and — in a build with the CUDA sources — that ours (both forms) and
// cuRAND's host API are registered with the fields the experiments and the CLI read.
// Nothing here runs on a GPU (tests/gpu/test_gpu_gaussian_registry.cu calls the entries).
#include <gtest/gtest.h>

#include <string>

#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"

namespace {
namespace reg = onepass::registry;

std::string message_of_find(const std::string& name) {
  try {
    reg::find_gaussian(name, reg::device::gpu);
  } catch (const onepass::error& e) {
    return e.what();
  }
  return "";
}

TEST(GaussianRegistry, DtypeNamesAndSizes) {
  EXPECT_STREQ(reg::to_string(reg::gaussian_dtype::f64), "f64");
  EXPECT_STREQ(reg::to_string(reg::gaussian_dtype::f32), "f32");
  EXPECT_EQ(reg::dtype_bytes(reg::gaussian_dtype::f64), 8u);
  EXPECT_EQ(reg::dtype_bytes(reg::gaussian_dtype::f32), 4u);
}

TEST(GaussianRegistry, AddAndFindCheckTheirArguments) {
  reg::gaussian_entry e;
  e.name = "test_only_gaussian";
  e.where = reg::device::cpu;  // a device no real entry uses, so iterations over GPU entries never see it
  e.dtypes = {reg::gaussian_dtype::f32};
  reg::add_gaussian(e);
  const auto& found = reg::find_gaussian("test_only_gaussian", reg::device::cpu);
  EXPECT_TRUE(reg::supports(found, reg::gaussian_dtype::f32));
  EXPECT_FALSE(reg::supports(found, reg::gaussian_dtype::f64));
  try {
    reg::add_gaussian(e);
    ADD_FAILURE() << "a second entry under the same (device, name) was accepted";
  } catch (const onepass::error& err) {
    EXPECT_EQ(std::string(err.what()),
              "registry::add_gaussian: entry.name 'test_only_gaussian' is already registered for cpu");
  }
  reg::gaussian_entry no_types;
  no_types.name = "test_only_no_types";
  EXPECT_THROW(reg::add_gaussian(no_types), onepass::error);
  reg::gaussian_entry no_name;
  no_name.dtypes = {reg::gaussian_dtype::f64};
  EXPECT_THROW(reg::add_gaussian(no_name), onepass::error);
  const std::string m = message_of_find("no_such_generator");
  EXPECT_EQ(m.rfind("onepass::registry::find_gaussian: name: no gpu Gaussian generator 'no_such_generator' is "
                    "registered; registered: ",
                    0),
            0u)
      << m;
}

TEST(GaussianRegistry, GpuEntriesOfThisBuild) {
  std::size_t gpu_entries = 0;
  for (const auto& e : reg::gaussian_generators()) {
    if (e.where != reg::device::gpu) continue;
    ++gpu_entries;
    EXPECT_FALSE(e.label.empty()) << e.name;
    EXPECT_FALSE(e.entropy.empty()) << e.name;
    EXPECT_FALSE(e.dtypes.empty()) << e.name;
    EXPECT_TRUE(static_cast<bool>(e.gpu_run)) << e.name;
    EXPECT_TRUE(!e.library_definition || e.coefficients == 3 || e.coefficients == 4) << e.name;
  }
#ifdef ONEPASS_HAVE_CUDA_SOURCES
  EXPECT_GE(gpu_entries, 3u) << "ours_memory_3, ours_memory_4, curand_host_philox";
  for (unsigned k : {3u, 4u}) {
    const auto& ours = reg::find_gaussian("ours_memory_" + std::to_string(k));
    EXPECT_EQ(ours.coefficients, k);
    EXPECT_TRUE(ours.library_definition);
    EXPECT_EQ(ours.entropy, "SplitMix64");
    EXPECT_EQ(ours.label, "ours " + std::to_string(k) + " coefficients generate_normal");
    EXPECT_TRUE(reg::supports(ours, reg::gaussian_dtype::f64));
    EXPECT_TRUE(reg::supports(ours, reg::gaussian_dtype::f32));
  }
  const auto& curand = reg::find_gaussian("curand_host_philox");
  EXPECT_EQ(curand.entropy, "Philox4_32_10");
  EXPECT_FALSE(curand.library_definition);
  EXPECT_EQ(curand.coefficients, 0u);
  EXPECT_EQ(curand.n_multiple, 2u);
  EXPECT_TRUE(reg::supports(curand, reg::gaussian_dtype::f64));
  EXPECT_TRUE(reg::supports(curand, reg::gaussian_dtype::f32));
#else
  EXPECT_EQ(gpu_entries, 0u) << "a build without the CUDA sources registers no GPU Gaussian generator";
#endif
}

}  // namespace
