//===- Json.h - Minimal JSON reader for file headers ------------*- C++ -*-===//
//
// Private to lib/Runtime: just enough JSON to read safetensors headers from
// untrusted files without an external library.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_JSON_H
#define TP_LIB_RUNTIME_JSON_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tp {
namespace runtime {
namespace detail {

/// A parsed JSON value; objects keep their keys in document order.
struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0.0;
  /// Whether the number was written as an integer that fits int64_t.
  bool isInteger = false;
  int64_t integer = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;

  /// The member named \p key of an object, or null if absent.
  const JsonValue *find(const std::string &key) const;
};

/// Parses \p size bytes at \p text as one JSON value. Throws
/// std::runtime_error("... at byte N") on malformed input, duplicate object
/// keys, or nesting deeper than 64 levels.
JsonValue parseJson(const char *text, size_t size);

/// \p s as a JSON string literal, quotes included.
std::string quoteJson(const std::string &s);

} // namespace detail
} // namespace runtime
} // namespace tp

#endif // TP_LIB_RUNTIME_JSON_H
