#include "onepass/registry.hpp"

#include <algorithm>
#include <map>

#include "onepass/error.hpp"

namespace onepass::registry {

namespace {
// Function-local static so registration order across translation units is safe.
std::map<std::string, shuffle_entry>& shuffle_table() {
  static std::map<std::string, shuffle_entry> table;
  return table;
}
}  // namespace

const char* to_string(device d) { return d == device::cpu ? "cpu" : "gpu"; }

void add_shuffle(shuffle_entry entry) {
  auto& table = shuffle_table();
  require(!entry.name.empty(), "registry::add_shuffle", "entry.name", "must not be empty");
  require(table.count(entry.name) == 0, "registry::add_shuffle", "entry.name",
          "'" + entry.name + "' is already registered");
  std::string name = entry.name;
  table.emplace(std::move(name), std::move(entry));
}

std::vector<shuffle_entry> shuffles() {
  std::vector<shuffle_entry> out;
  for (const auto& kv : shuffle_table()) out.push_back(kv.second);
  std::stable_sort(out.begin(), out.end(),
                   [](const shuffle_entry& a, const shuffle_entry& b) { return a.where < b.where; });
  return out;
}

const shuffle_entry& find_shuffle(const std::string& name) {
  const auto& table = shuffle_table();
  auto it = table.find(name);
  if (it == table.end()) {
    std::string known;
    for (const auto& kv : table) known += (known.empty() ? "" : ", ") + kv.first;
    throw error("--algorithm: unknown shuffle '" + name + "'; known: " + known);
  }
  return it->second;
}

}  // namespace onepass::registry
