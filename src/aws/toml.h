// Bottlerocket's user data is TOML: the subset karp reads from a user's data (tables, dotted and
// quoted keys, strings, integers, floats, booleans, arrays) and writes back, keys sorted so the
// output is deterministic. Internal to the AWS target (userdata.cc).

#ifndef KARP_SRC_AWS_TOML_H_
#define KARP_SRC_AWS_TOML_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace karp::aws {

struct TomlValue {
  enum class Type { kString, kInteger, kFloat, kBool, kArray, kTable };
  Type type = Type::kTable;
  std::string text;  // string value, or the literal text of a number
  bool b = false;
  std::vector<TomlValue> array;
  std::map<std::string, TomlValue> table;

  static TomlValue String(std::string s) {
    TomlValue v;
    v.type = Type::kString;
    v.text = std::move(s);
    return v;
  }
  static TomlValue Integer(int64_t i) {
    TomlValue v;
    v.type = Type::kInteger;
    v.text = std::to_string(i);
    return v;
  }
};

// Parses `text` as the TOML subset into its root table. Errors: InvalidArgument naming the line.
absl::StatusOr<TomlValue> ParseToml(std::string_view text);

// Appends `table` as TOML to `out`: its plain values first under `[path]` (none for the root),
// then its sub-tables, each key sorted.
void WriteToml(const TomlValue& table, const std::string& path, std::string* out);

// A table of the string values of `m`.
TomlValue TomlStringTable(const std::map<std::string, std::string>& m);

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_TOML_H_
