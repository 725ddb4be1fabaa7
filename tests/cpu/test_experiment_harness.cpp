// The experiment programs' shared command line (experiments/common/harness.hpp):
// the exit-status convention (0 done, 1 runtime failure, 2 bad arguments, 3 no GPU)
// and an --out-dir that cannot hold the outputs (a file, a path under a file) refused
// with one line naming the path and the reason, before anything is created. Runs the
// built table2_cpu_shuffle (a CPU experiment; the test is skipped, and says so, when
// the experiments were not built).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"  // outcome, slurp

namespace {

namespace fs = std::filesystem;
using onepass::testing::outcome;
using onepass::testing::slurp;

class ExperimentHarness : public ::testing::Test {
 protected:
  const std::string program = ONEPASS_BINARY_DIR "/bin/table2_cpu_shuffle";

  void SetUp() override {
    if (!fs::exists(program)) GTEST_SKIP() << program << " was not built (experiments off): skipped";
    std::string pattern = (fs::temp_directory_path() / "onepass_harness_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  /// Runs the program with `args` (shell text); stdout is discarded.
  outcome run(const std::string& args) {
    const fs::path err = dir_ / "stderr.txt";
    const std::string command = "'" + program + "' " + args + " >/dev/null 2>'" + err.string() + "'";
    const int raw = std::system(command.c_str());
    outcome r;
    r.status = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
    r.err = slurp(err);
    return r;
  }

  fs::path dir_;
};

constexpr const char* tiny = "--scale smoke --max-log2 8 --algorithms gather";

TEST_F(ExperimentHarness, OutDirThatIsAFileIsAUsageErrorNamingIt) {
  const fs::path file = dir_ / "taken";
  std::ofstream(file) << "keep me";
  const outcome r = run(std::string(tiny) + " --out-dir '" + file.string() + "'");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--out-dir '" + file.string() + "'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(file), "keep me");
}

TEST_F(ExperimentHarness, OutDirUnderAFileIsAUsageErrorNamingTheFile) {
  const fs::path file = dir_ / "plain";
  std::ofstream(file) << "x";
  const outcome r = run(std::string(tiny) + " --out-dir '" + (file / "sub" / "deeper").string() + "'");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("'" + file.string() + "' exists and is not a directory"), std::string::npos) << r.err;
}

TEST_F(ExperimentHarness, RefusedArgumentsCreateNoDirectory) {
  const fs::path out = dir_ / "never";
  const outcome r = run("--scale smoke --algorithms no_such_shuffle --out-dir '" + out.string() + "'");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("no_such_shuffle"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(ExperimentHarness, UnknownOptionExitsWithTheUsageStatus) {
  const outcome r = run("--no-such-option --out-dir '" + (dir_ / "unused").string() + "'");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "unused"));
  EXPECT_EQ(run("--help").status, 0);
}

TEST_F(ExperimentHarness, ARunCreatesItsMissingOutputDirectory) {
  const fs::path out = dir_ / "made" / "on" / "demand";
  const outcome r = run(std::string(tiny) + " --out-dir '" + out.string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(out / "table2_cpu_shuffle.csv"));
  EXPECT_TRUE(fs::exists(out / "table2_cpu_shuffle.meta.json"));
  EXPECT_FALSE(fs::exists(out / "table2_cpu_shuffle.csv.partial"));
}

}  // namespace
