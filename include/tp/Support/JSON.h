//===- JSON.h - tp's one JSON reader and writer -----------------*- C++ -*-===//
//
// The JSON library of the whole tree: plan files, tp-model configs,
// safetensors headers, the comm report and tp-run --json all go through it.
// Plain C++17 with no LLVM or MLIR headers and no exceptions, so that both
// the compiler (built without exceptions) and the runtime (which may not see
// LLVM) link it.
//
// What the files need that a general JSON library does not give:
// - objects keep their keys in document order (a plan's entries apply in
//   the order written);
// - a key twice in one object is an error, not "one of them wins";
// - nesting is bounded (the parser recurses once per level), and the bound
//   is checked before recursing, so a file of 100000 '[' fails cleanly;
// - errors are values that say where: syntax errors as llvm::json wrote
//   them ("[line:column, byte=offset]: message"), which the tools printed
//   before this library existed, duplicate keys and depth as "... at line
//   L, column C".
//
//===----------------------------------------------------------------------===//

#ifndef TP_SUPPORT_JSON_H
#define TP_SUPPORT_JSON_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace mlir::tp::json {

class Value;

/// A JSON array.
using Array = std::vector<Value>;

/// A JSON object: its members in document order, keys unique (the parser
/// rejects duplicates; `set` replaces).
class Object {
public:
  using Member = std::pair<std::string, Value>;
  using const_iterator = std::vector<Member>::const_iterator;

  const_iterator begin() const;
  const_iterator end() const;
  size_t size() const;
  bool empty() const;

  /// The value of `key`, or null when absent (a linear search: the objects
  /// read by key are small; large ones are iterated).
  const Value *get(std::string_view key) const;
  /// The value of `key` when it is an object / an array / a string.
  const Object *getObject(std::string_view key) const;
  const Array *getArray(std::string_view key) const;
  const std::string *getString(std::string_view key) const;

  /// Sets `key` to `value`: replaces its value if present, else appends it.
  void set(std::string key, Value value);

private:
  friend class Parser;
  std::vector<Member> members;
};

/// One JSON value. Numbers keep whether they were written as an integer:
/// a literal that fits int64 is an integer, one that fits only uint64 an
/// unsigned integer (as in llvm::json), anything else a double.
class Value {
public:
  enum Kind { Null, Boolean, Number, String, Array, Object };

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : kind_(Boolean), bool_(b) {}
  template <typename T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>,
                             int> = 0>
  Value(T i) : kind_(Number) {
    if constexpr (std::is_signed_v<T>) {
      number_ = Int64;
      int_ = i;
    } else if (uint64_t(i) <= uint64_t(INT64_MAX)) {
      number_ = Int64;
      int_ = int64_t(i);
    } else {
      number_ = UInt64;
      uint_ = i;
    }
  }
  Value(double d) : kind_(Number), number_(Double), double_(d) {}
  Value(std::string s) : kind_(String), string_(std::move(s)) {}
  Value(std::string_view s) : kind_(String), string_(s) {}
  Value(const char *s) : kind_(String), string_(s) {}
  Value(json::Array a) : kind_(Array), array_(std::move(a)) {}
  Value(json::Object o) : kind_(Object), object_(std::move(o)) {}

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Null; }

  std::optional<bool> getAsBoolean() const;
  /// Any number, as a double.
  std::optional<double> getAsNumber() const;
  /// An integer in int64 range: an integer literal, or (as llvm::json
  /// accepts) a number without fraction such as 8.0 or 1e3.
  std::optional<int64_t> getAsInteger() const;
  /// Whether the number was written as an integer literal that fits int64
  /// (stricter than getAsInteger: 8.0 is not).
  bool isIntegerLiteral() const { return kind_ == Number && number_ == Int64; }
  const std::string *getAsString() const;
  const json::Array *getAsArray() const;
  const json::Object *getAsObject() const;
  json::Array *getAsArray();
  json::Object *getAsObject();

private:
  friend class Parser;
  friend class Writer;
  enum NumberKind { Int64, UInt64, Double };

  Kind kind_ = Null;
  NumberKind number_ = Int64;
  bool bool_ = false;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  double double_ = 0;
  std::string string_;
  json::Array array_;
  json::Object object_;
};

/// Why a text is not accepted.
struct ParseError {
  enum Kind { Syntax, DuplicateKey, TooDeep };
  Kind kind = Syntax;
  /// The whole message, position included: "[1:72, byte=72]: Expected
  /// object key", "duplicate key 'a' in 'plan' at line 2, column 4", "JSON
  /// nests deeper than 64 levels at line 1, column 65".
  std::string message;
  /// Byte offset of the position the message names (for syntax errors,
  /// llvm::json's: just past the character that was wrong).
  size_t offset = 0;
};

struct ParseOptions {
  /// The deepest nesting of arrays and objects accepted.
  unsigned maxDepth = 64;
};

/// A parsed document, or why there is none.
struct ParseResult {
  Value value;
  std::optional<ParseError> error;
  explicit operator bool() const { return !error; }
};

/// Parses `text` as one JSON document (RFC 8259, UTF-8; an unpaired
/// surrogate escape becomes U+FFFD as in llvm::json).
ParseResult parse(std::string_view text, const ParseOptions &options = {});

/// `s` as a JSON string literal, quotes included (\t, \n, \r and \" \\
/// escaped by name, other control characters as \u00XX).
std::string quote(std::string_view s);

/// A streaming writer: values, arrays and objects appended to a string,
/// compact (`indent` 0) or one element per line indented by `indent`
/// spaces, exactly as llvm::json::OStream lays them out. Doubles are written
/// with 17 significant digits ("%.17g"), so they read back unchanged; a NaN
/// or an infinity, which JSON has no number for, is written as `null` (a
/// caller that must tell them apart writes a string of its own instead).
class Writer {
public:
  explicit Writer(std::string &out, unsigned indent = 0)
      : out(out), indentSize(indent) {}

  void arrayBegin();
  void arrayEnd();
  void objectBegin();
  void objectEnd();
  /// Starts a member of the current object; a value must follow.
  void key(std::string_view k);

  void value(std::nullptr_t);
  void value(bool b);
  void value(double d);
  void value(std::string_view s);
  void value(const std::string &s) { value(std::string_view(s)); }
  void value(const char *s) { value(std::string_view(s)); }
  template <typename T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>,
                             int> = 0>
  void value(T i) {
    if constexpr (std::is_signed_v<T>)
      writeInteger(int64_t(i));
    else
      writeUnsigned(uint64_t(i));
  }
  /// A whole value; objects in their members' order.
  void value(const Value &v);

  /// `key(k)` then `value(v)`.
  template <typename T> void member(std::string_view k, const T &v) {
    key(k);
    value(v);
  }

private:
  enum Context { Top, InArray, InObject, AfterKey };
  struct Level {
    Context context;
    bool hasValue;
  };
  void valueBegin();
  void open(Context context, char bracket);
  void close(char bracket);
  void newline();
  void writeInteger(int64_t i);
  void writeUnsigned(uint64_t u);

  std::string &out;
  unsigned indentSize;
  unsigned indent = 0;
  std::vector<Level> stack{{Top, false}};
};

/// `v` written by a Writer with `indent`.
std::string toString(const Value &v, unsigned indent = 0);

} // namespace mlir::tp::json

#endif // TP_SUPPORT_JSON_H
