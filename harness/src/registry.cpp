#include "onepass/harness/registry.hpp"

#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "onepass/error.hpp"

namespace onepass::registry {

namespace {
// Function-local static so registration order across translation units is safe.
// The families keyed by (device, name): shuffles, segmented shuffles, Gaussian generators.
using named_key = std::pair<device, std::string>;
std::map<named_key, shuffle_entry>& shuffle_table() {
  static std::map<named_key, shuffle_entry> table;
  return table;
}
std::map<named_key, segmented_entry>& segmented_table() {
  static std::map<named_key, segmented_entry> table;
  return table;
}
std::map<named_key, gaussian_entry>& gaussian_table() {
  static std::map<named_key, gaussian_entry> table;
  return table;
}
// Registration and lookup of the (device, name) families, with the same checks and messages.
template <class Entry>
void add_named(std::map<named_key, Entry>& table, Entry entry, const char* function) {
  require(!entry.name.empty(), function, "entry.name", "must not be empty");
  named_key key{entry.where, entry.name};
  require(table.count(key) == 0, function, "entry.name",
          "'" + entry.name + "' is already registered for " + to_string(entry.where));
  table.emplace(std::move(key), std::move(entry));
}

/// The entries of a table, in the map's order (by device, then name; sorts: device, shape, name).
template <class Key, class Entry>
std::vector<Entry> entries_of(const std::map<Key, Entry>& table) {
  std::vector<Entry> out;
  for (const auto& kv : table) out.push_back(kv.second);
  return out;
}

template <class Entry>
const Entry& find_named(const std::map<named_key, Entry>& table, const std::string& name,
                        device where, const char* function, const char* noun) {
  auto it = table.find({where, name});
  if (it == table.end()) {
    std::string known;
    for (const auto& kv : table)
      if (kv.first.first == where) known += (known.empty() ? "" : ", ") + kv.first.second;
    throw error("onepass::registry::" + std::string(function) + ": name: no " + to_string(where) + " " + noun + " '" +
                name + "' is registered; registered: " + known);
  }
  return it->second;
}
std::optional<gpu_index_gather>& index_gather_slot() {
  static std::optional<gpu_index_gather> slot;
  return slot;
}
using sort_key = std::tuple<device, sort_shape, std::string>;
std::map<sort_key, sort_entry>& sort_table() {
  static std::map<sort_key, sort_entry> table;
  return table;
}
}  // namespace

const char* to_string(device d) { return d == device::cpu ? "cpu" : "gpu"; }

void add_shuffle(shuffle_entry entry) { add_named(shuffle_table(), std::move(entry), "registry::add_shuffle"); }

std::vector<shuffle_entry> shuffles() { return entries_of(shuffle_table()); }

bool contains_shuffle(const std::string& name, device where) {
  return shuffle_table().count(named_key{where, name}) != 0;
}

const shuffle_entry& find_shuffle(const std::string& name, device where) {
  return find_named(shuffle_table(), name, where, "find_shuffle", "shuffle");
}

void set_gpu_index_gather(gpu_index_gather gather) {
  require(!index_gather_slot().has_value(), "registry::set_gpu_index_gather", "gather",
          "an index-array gather is already registered");
  require(static_cast<bool>(gather.fill_indices), "registry::set_gpu_index_gather", "gather.fill_indices",
          "must not be empty");
  require(static_cast<bool>(gather.gather), "registry::set_gpu_index_gather", "gather.gather", "must not be empty");
  index_gather_slot() = std::move(gather);
}

bool has_gpu_index_gather() { return index_gather_slot().has_value(); }

const gpu_index_gather& find_gpu_index_gather() {
  const auto& slot = index_gather_slot();
  if (!slot) throw error("onepass::registry::find_gpu_index_gather: no index-array gather is registered (it comes "
                         "with the GPU baselines, onepass_baselines, in a CUDA build)");
  return *slot;
}

void add_segmented(segmented_entry entry) {
  add_named(segmented_table(), std::move(entry), "registry::add_segmented");
}

std::vector<segmented_entry> segmented_shuffles() { return entries_of(segmented_table()); }

const segmented_entry& find_segmented(const std::string& name, device where) {
  return find_named(segmented_table(), name, where, "find_segmented", "segmented shuffle");
}

const char* to_string(gaussian_dtype dtype) { return dtype == gaussian_dtype::f64 ? "f64" : "f32"; }

std::size_t dtype_bytes(gaussian_dtype dtype) { return dtype == gaussian_dtype::f64 ? 8 : 4; }

bool supports(const gaussian_entry& entry, gaussian_dtype dtype) {
  for (gaussian_dtype d : entry.dtypes)
    if (d == dtype) return true;
  return false;
}

void add_gaussian(gaussian_entry entry) {
  require(!entry.dtypes.empty(), "registry::add_gaussian", "entry.dtypes",
          "must list at least one output type ('" + entry.name + "')");
  require(entry.n_multiple >= 1, "registry::add_gaussian", "entry.n_multiple", "must be >= 1 ('" + entry.name + "')");
  add_named(gaussian_table(), std::move(entry), "registry::add_gaussian");
}

std::vector<gaussian_entry> gaussian_generators() { return entries_of(gaussian_table()); }

const gaussian_entry& find_gaussian(const std::string& name, device where) {
  return find_named(gaussian_table(), name, where, "find_gaussian", "Gaussian generator");
}

const char* to_string(sort_shape shape) {
  switch (shape) {
#define ONEPASS_SORT_SHAPE_NAME(shape_name, key_type, value_type, headline) \
  case sort_shape::shape_name:                                              \
    return shape_types<sort_shape::shape_name>::name;
    ONEPASS_SORT_SHAPES(ONEPASS_SORT_SHAPE_NAME)
#undef ONEPASS_SORT_SHAPE_NAME
  }
  return "unknown";
}

sort_shape parse_sort_shape(const std::string& name) {
  for (sort_shape shape : all_sort_shapes)
    if (name == to_string(shape)) return shape;
  throw error("onepass::registry::parse_sort_shape: name: '" + name + "' is not a sort shape; known: " +
              sort_shape_names());
}

std::string sort_shape_names(const std::string& separator) {
  std::string out;
  for (sort_shape shape : all_sort_shapes) out += (out.empty() ? "" : separator) + to_string(shape);
  return out;
}

bool headline_default(sort_shape shape) {
  return visit_sort_shape(shape, [](auto tag) { return shape_types<decltype(tag)::shape>::headline_default; });
}

std::size_t key_bytes(sort_shape shape) {
  return visit_sort_shape(shape, [](auto tag) { return sizeof(typename decltype(tag)::key); });
}

std::size_t value_bytes(sort_shape shape) {
  return visit_sort_shape(shape, [](auto tag) -> std::size_t {
    using value = typename decltype(tag)::value;
    if constexpr (std::is_void_v<value>)
      return 0;
    else
      return sizeof(value);
  });
}

void add_sort(sort_entry entry) {
  auto& table = sort_table();
  require(!entry.name.empty(), "registry::add_sort", "entry.name", "must not be empty");
  sort_key key{entry.where, entry.shape, entry.name};
  require(table.count(key) == 0, "registry::add_sort", "entry.name",
          "'" + entry.name + "' is already registered for " + to_string(entry.where) + " " + to_string(entry.shape));
  table.emplace(std::move(key), std::move(entry));
}

std::vector<sort_entry> sorts() { return entries_of(sort_table()); }

bool contains_sort(const std::string& name, sort_shape shape, device where) {
  return sort_table().count(sort_key{where, shape, name}) != 0;
}

const sort_entry& find_sort(const std::string& name, sort_shape shape, device where) {
  const auto& table = sort_table();
  auto it = table.find(sort_key{where, shape, name});
  if (it == table.end()) {
    std::string known;
    for (const auto& kv : table)
      if (std::get<0>(kv.first) == where && std::get<1>(kv.first) == shape)
        known += (known.empty() ? "" : ", ") + std::get<2>(kv.first);
    throw error("onepass::registry::find_sort: name: no " + std::string(to_string(where)) + " " + to_string(shape) +
                " sort '" + name + "' is registered; registered: " + known);
  }
  return it->second;
}

}  // namespace onepass::registry
