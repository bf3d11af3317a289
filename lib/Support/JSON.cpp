//===- JSON.cpp - tp's one JSON reader and writer ---------------*- C++ -*-===//
//
// A recursive-descent parser over a bounded buffer whose recursion is
// bounded by ParseOptions::maxDepth, and the llvm::json-compatible writer
// (see JSON.h). Syntax errors are found at the positions llvm::json found
// them and carry its messages, so that the tools' messages did not change
// when they moved here.
//
//===----------------------------------------------------------------------===//

#include "tp/Support/JSON.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <unordered_set>

namespace mlir::tp::json {

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

Object::const_iterator Object::begin() const { return members.begin(); }
Object::const_iterator Object::end() const { return members.end(); }
size_t Object::size() const { return members.size(); }
bool Object::empty() const { return members.empty(); }

const Value *Object::get(std::string_view key) const {
  for (const Member &m : members)
    if (m.first == key)
      return &m.second;
  return nullptr;
}

const Object *Object::getObject(std::string_view key) const {
  const Value *v = get(key);
  return v ? v->getAsObject() : nullptr;
}

const Array *Object::getArray(std::string_view key) const {
  const Value *v = get(key);
  return v ? v->getAsArray() : nullptr;
}

const std::string *Object::getString(std::string_view key) const {
  const Value *v = get(key);
  return v ? v->getAsString() : nullptr;
}

void Object::set(std::string key, Value value) {
  for (Member &m : members)
    if (m.first == key) {
      m.second = std::move(value);
      return;
    }
  members.emplace_back(std::move(key), std::move(value));
}

std::optional<bool> Value::getAsBoolean() const {
  if (kind_ != Boolean)
    return std::nullopt;
  return bool_;
}

std::optional<double> Value::getAsNumber() const {
  if (kind_ != Number)
    return std::nullopt;
  switch (number_) {
  case Int64:
    return double(int_);
  case UInt64:
    return double(uint_);
  case Double:
    return double_;
  }
  return std::nullopt;
}

std::optional<int64_t> Value::getAsInteger() const {
  if (kind_ != Number || number_ == UInt64)
    return std::nullopt;
  if (number_ == Int64)
    return int_;
  double whole;
  // -2^63 is exact in a double; 2^63 is not an int64.
  if (std::modf(double_, &whole) == 0.0 && whole >= -9223372036854775808.0 &&
      whole < 9223372036854775808.0)
    return int64_t(whole);
  return std::nullopt;
}

const std::string *Value::getAsString() const {
  return kind_ == String ? &string_ : nullptr;
}
const Array *Value::getAsArray() const {
  return kind_ == Array ? &array_ : nullptr;
}
const Object *Value::getAsObject() const {
  return kind_ == Object ? &object_ : nullptr;
}
Array *Value::getAsArray() { return kind_ == Array ? &array_ : nullptr; }
Object *Value::getAsObject() { return kind_ == Object ? &object_ : nullptr; }

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

/// The length of the well-formed UTF-8 sequence at `s[i]`, or 0.
static size_t utf8Length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    // No overlong forms, no surrogates.
    if (c == 0xE0)
      lo = 0xA0;
    if (c == 0xED)
      hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    // No overlong forms, nothing above U+10FFFF.
    if (c == 0xF0)
      lo = 0x90;
    if (c == 0xF4)
      hi = 0x8F;
  } else
    return 0;
  if (i + n > s.size())
    return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi)
    return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
      return 0;
  return n;
}

static void appendUtf8(std::string &out, uint32_t code) {
  if (code < 0x80) {
    out += char(code);
  } else if (code < 0x800) {
    out += char(0xC0 | (code >> 6));
    out += char(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += char(0xE0 | (code >> 12));
    out += char(0x80 | ((code >> 6) & 0x3F));
    out += char(0x80 | (code & 0x3F));
  } else {
    out += char(0xF0 | (code >> 18));
    out += char(0x80 | ((code >> 12) & 0x3F));
    out += char(0x80 | ((code >> 6) & 0x3F));
    out += char(0x80 | (code & 0x3F));
  }
}

/// Each parse function returns false after recording the error; `pos` is
/// where llvm::json's parser would stand when it reports the same error.
class Parser {
public:
  Parser(std::string_view text, const ParseOptions &options)
      : text(text), options(options) {}

  ParseResult run() {
    ParseResult result;
    if (checkUtf8() && parseValue(result.value, 0, "") && atDocumentEnd())
      return result;
    result.value = Value();
    result.error = std::move(error);
    return result;
  }

private:
  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }
  char next() { return atEnd() ? '\0' : text[pos++]; }

  void skipSpace() {
    while (!atEnd() && (text[pos] == ' ' || text[pos] == '\t' ||
                        text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  /// Line (1-based) of byte `at`, and the offset where that line starts.
  std::pair<size_t, size_t> lineOf(size_t at) const {
    size_t line = 1, lineStart = 0;
    for (size_t i = 0; i < at && i < text.size(); ++i)
      if (text[i] == '\n') {
        ++line;
        lineStart = i + 1;
      }
    return {line, lineStart};
  }

  /// A syntax error at `pos`, worded and placed as llvm::json did.
  bool syntaxError(const char *message) {
    auto [line, lineStart] = lineOf(pos);
    error.kind = ParseError::Syntax;
    error.offset = pos;
    error.message = "[" + std::to_string(line) + ":" +
                    std::to_string(pos - lineStart) +
                    ", byte=" + std::to_string(pos) + "]: " + message;
    return false;
  }

  /// An error about the token at byte `at`, with a 1-based column.
  bool structureError(ParseError::Kind kind, size_t at,
                      const std::string &message) {
    auto [line, lineStart] = lineOf(at);
    error.kind = kind;
    error.offset = at;
    error.message = message + " at line " + std::to_string(line) + ", column " +
                    std::to_string(at - lineStart + 1);
    return false;
  }

  bool checkUtf8() {
    for (size_t i = 0; i < text.size();) {
      size_t n = utf8Length(text, i);
      if (n == 0) {
        pos = i;
        return syntaxError("Invalid UTF-8 sequence");
      }
      i += n;
    }
    return true;
  }

  bool atDocumentEnd() {
    skipSpace();
    return atEnd() || syntaxError("Text after end of document");
  }

  bool literal(const char *rest, const char *message) {
    for (const char *c = rest; *c; ++c)
      if (next() != *c)
        return syntaxError(message);
    return true;
  }

  /// `depth`: the arrays and objects around this value; `name`: the key
  /// whose value this is ("" at the top and in arrays), for messages.
  bool parseValue(Value &out, unsigned depth, std::string_view name) {
    skipSpace();
    if (atEnd())
      return syntaxError("Unexpected EOF");
    size_t start = pos;
    char c = next();
    switch (c) {
    case 'n':
      out = Value();
      return literal("ull", "Invalid JSON value (null?)");
    case 't':
      out = Value(true);
      return literal("rue", "Invalid JSON value (true?)");
    case 'f':
      out = Value(false);
      return literal("alse", "Invalid JSON value (false?)");
    case '"':
      out.kind_ = Value::String;
      return parseString(out.string_);
    case '[':
    case '{':
      if (depth >= options.maxDepth)
        return structureError(ParseError::TooDeep, start,
                              "JSON nests deeper than " +
                                  std::to_string(options.maxDepth) + " levels");
      return c == '[' ? parseArray(out, depth + 1)
                      : parseObject(out, depth + 1, name);
    default:
      if (isNumberChar(c))
        return parseNumber(out, start);
      return syntaxError("Invalid JSON value");
    }
  }

  bool parseArray(Value &out, unsigned depth) {
    out.kind_ = Value::Array;
    skipSpace();
    if (peek() == ']') {
      ++pos;
      return true;
    }
    for (bool more = true; more;) {
      out.array_.emplace_back();
      if (!parseValue(out.array_.back(), depth, "") ||
          !separator(']', "Expected , or ] after array element", more))
        return false;
    }
    return true;
  }

  /// After an element: ',' (more follow) or `close` (the last), else an
  /// error with `message`.
  bool separator(char close, const char *message, bool &more) {
    skipSpace();
    char c = next();
    more = c == ',';
    if (more)
      skipSpace();
    return more || c == close || syntaxError(message);
  }

  bool parseObject(Value &out, unsigned depth, std::string_view name) {
    out.kind_ = Value::Object;
    std::vector<Object::Member> &members = out.object_.members;
    skipSpace();
    if (peek() == '}') {
      ++pos;
      return true;
    }
    std::unordered_set<std::string> keys;
    for (bool more = true; more;) {
      size_t keyStart = pos;
      if (next() != '"')
        return syntaxError("Expected object key");
      std::string key;
      if (!parseString(key))
        return false;
      if (!keys.insert(key).second)
        return structureError(ParseError::DuplicateKey, keyStart,
                              "duplicate key '" + key + "'" +
                                  (name.empty()
                                       ? std::string()
                                       : " in '" + std::string(name) + "'"));
      skipSpace();
      if (next() != ':')
        return syntaxError("Expected : after object key");
      skipSpace();
      members.emplace_back(std::move(key), Value());
      if (!parseValue(members.back().second, depth, members.back().first) ||
          !separator('}', "Expected , or } after object property", more))
        return false;
    }
    return true;
  }

  bool parseString(std::string &out) {
    // The opening quote is consumed.
    for (char c = next(); c != '"'; c = next()) {
      if (atEnd())
        return syntaxError("Unterminated string");
      if (static_cast<unsigned char>(c) < 0x20)
        return syntaxError("Control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      switch (c = next()) {
      case '"':
      case '\\':
      case '/':
        out += c;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u':
        if (!parseUnicodeEscape(out))
          return false;
        break;
      default:
        return syntaxError("Invalid escape sequence");
      }
    }
    return true;
  }

  bool parseHex4(uint32_t &code) {
    code = 0;
    char digits[4] = {next(), next(), next(), next()};
    for (char c : digits) {
      uint32_t d;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        return syntaxError("Invalid \\u escape sequence");
      code = code * 16 + d;
    }
    return true;
  }

  /// After "\u": one code point, or a surrogate pair. An unpaired surrogate
  /// is valid JSON (RFC 8259, 8.2) but no character: it becomes U+FFFD.
  bool parseUnicodeEscape(std::string &out) {
    uint32_t first;
    if (!parseHex4(first))
      return false;
    while (true) {
      if (first < 0xD800 || first >= 0xE000) {
        appendUtf8(out, first);
        return true;
      }
      if (first >= 0xDC00) {
        appendUtf8(out, 0xFFFD);
        return true;
      }
      if (pos + 2 > text.size() || text[pos] != '\\' || text[pos + 1] != 'u') {
        appendUtf8(out, 0xFFFD);
        return true;
      }
      pos += 2;
      uint32_t second;
      if (!parseHex4(second))
        return false;
      if (second >= 0xDC00 && second < 0xE000) {
        appendUtf8(out, 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00));
        return true;
      }
      // The second escape is not a low surrogate: the first was unpaired,
      // the second is a character of its own.
      appendUtf8(out, 0xFFFD);
      first = second;
    }
  }

  static bool isNumberChar(char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ||
           c == 'e' || c == 'E';
  }

  /// Whether `s` is a number in RFC 8259's grammar.
  static bool isJsonNumber(std::string_view s, bool &integral) {
    size_t i = 0;
    auto digits = [&] {
      size_t begin = i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9')
        ++i;
      return i > begin;
    };
    integral = true;
    if (i < s.size() && s[i] == '-')
      ++i;
    if (i < s.size() && s[i] == '0')
      ++i;
    else if (!digits())
      return false;
    if (i < s.size() && s[i] == '.') {
      integral = false;
      ++i;
      if (!digits())
        return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      integral = false;
      ++i;
      if (i < s.size() && (s[i] == '+' || s[i] == '-'))
        ++i;
      if (!digits())
        return false;
    }
    return i == s.size();
  }

  bool parseNumber(Value &out, size_t start) {
    while (isNumberChar(peek()))
      ++pos;
    std::string literal(text.substr(start, pos - start));
    bool integral;
    if (!isJsonNumber(literal, integral))
      return syntaxError("Invalid JSON value (number?)");
    out.kind_ = Value::Number;
    if (integral) {
      errno = 0;
      long long i = std::strtoll(literal.c_str(), nullptr, 10);
      if (errno != ERANGE) {
        out.number_ = Value::Int64;
        out.int_ = i;
        return true;
      }
      if (literal[0] != '-') {
        errno = 0;
        unsigned long long u = std::strtoull(literal.c_str(), nullptr, 10);
        if (errno != ERANGE) {
          out.number_ = Value::UInt64;
          out.uint_ = u;
          return true;
        }
      }
    }
    out.number_ = Value::Double;
    out.double_ = std::strtod(literal.c_str(), nullptr);
    return true;
  }

  std::string_view text;
  const ParseOptions &options;
  size_t pos = 0;
  ParseError error;
};

ParseResult parse(std::string_view text, const ParseOptions &options) {
  return Parser(text, options).run();
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

static void appendQuoted(std::string &out, std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u >= 0x20) {
      out += c;
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += "\\u00";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  out += '"';
}

std::string quote(std::string_view s) {
  std::string out;
  appendQuoted(out, s);
  return out;
}

void Writer::newline() {
  if (!indentSize)
    return;
  out += '\n';
  out.append(indent, ' ');
}

void Writer::valueBegin() {
  Level &level = stack.back();
  if (level.context == AfterKey) {
    // The value of a member: the key wrote the separator.
    stack.pop_back();
    return;
  }
  if (level.hasValue)
    out += ',';
  if (level.context == InArray)
    newline();
  level.hasValue = true;
}

void Writer::open(Context context, char bracket) {
  valueBegin();
  stack.push_back({context, false});
  indent += indentSize;
  out += bracket;
}

void Writer::close(char bracket) {
  indent -= indentSize;
  if (stack.back().hasValue)
    newline();
  out += bracket;
  stack.pop_back();
}

void Writer::arrayBegin() { open(InArray, '['); }
void Writer::arrayEnd() { close(']'); }
void Writer::objectBegin() { open(InObject, '{'); }
void Writer::objectEnd() { close('}'); }

void Writer::key(std::string_view k) {
  Level &level = stack.back();
  if (level.hasValue)
    out += ',';
  newline();
  level.hasValue = true;
  appendQuoted(out, k);
  out += ':';
  if (indentSize)
    out += ' ';
  stack.push_back({AfterKey, false});
}

void Writer::value(std::nullptr_t) {
  valueBegin();
  out += "null";
}

void Writer::value(bool b) {
  valueBegin();
  out += b ? "true" : "false";
}

void Writer::writeInteger(int64_t i) {
  valueBegin();
  out += std::to_string(i);
}

void Writer::writeUnsigned(uint64_t u) {
  valueBegin();
  out += std::to_string(u);
}

void Writer::value(double d) {
  if (!std::isfinite(d))
    return value(nullptr);
  valueBegin();
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*g",
                std::numeric_limits<double>::max_digits10, d);
  out += buffer;
}

void Writer::value(std::string_view s) {
  valueBegin();
  appendQuoted(out, s);
}

void Writer::value(const Value &v) {
  switch (v.kind()) {
  case Value::Null:
    return value(nullptr);
  case Value::Boolean:
    return value(v.bool_);
  case Value::Number:
    if (v.number_ == Value::Int64)
      return writeInteger(v.int_);
    if (v.number_ == Value::UInt64)
      return writeUnsigned(v.uint_);
    return value(v.double_);
  case Value::String:
    return value(std::string_view(v.string_));
  case Value::Array:
    arrayBegin();
    for (const Value &item : v.array_)
      value(item);
    return arrayEnd();
  case Value::Object:
    objectBegin();
    for (const Object::Member &m : v.object_)
      member(m.first, m.second);
    return objectEnd();
  }
}

std::string toString(const Value &v, unsigned indent) {
  std::string out;
  Writer(out, indent).value(v);
  return out;
}

} // namespace mlir::tp::json
