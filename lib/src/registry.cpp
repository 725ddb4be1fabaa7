#include "onepass/registry.hpp"

#include <map>
#include <utility>

#include "onepass/error.hpp"

namespace onepass::registry {

namespace {
// Function-local static so registration order across translation units is safe.
using shuffle_key = std::pair<device, std::string>;
std::map<shuffle_key, shuffle_entry>& shuffle_table() {
  static std::map<shuffle_key, shuffle_entry> table;
  return table;
}
}  // namespace

const char* to_string(device d) { return d == device::cpu ? "cpu" : "gpu"; }

void add_shuffle(shuffle_entry entry) {
  auto& table = shuffle_table();
  require(!entry.name.empty(), "registry::add_shuffle", "entry.name", "must not be empty");
  shuffle_key key{entry.where, entry.name};
  require(table.count(key) == 0, "registry::add_shuffle", "entry.name",
          "'" + entry.name + "' is already registered for " + to_string(entry.where));
  table.emplace(std::move(key), std::move(entry));
}

std::vector<shuffle_entry> shuffles() {
  std::vector<shuffle_entry> out;  // the map's order: by device, then name
  for (const auto& kv : shuffle_table()) out.push_back(kv.second);
  return out;
}

bool contains_shuffle(const std::string& name, device where) {
  return shuffle_table().count(shuffle_key{where, name}) != 0;
}

const shuffle_entry& find_shuffle(const std::string& name, device where) {
  const auto& table = shuffle_table();
  auto it = table.find(shuffle_key{where, name});
  if (it == table.end()) {
    std::string known;
    for (const auto& kv : table)
      if (kv.first.first == where) known += (known.empty() ? "" : ", ") + kv.first.second;
    throw error("--algorithm: unknown " + std::string(to_string(where)) + " shuffle '" + name + "'; known: " + known);
  }
  return it->second;
}

}  // namespace onepass::registry
