//===- Json.cpp - Minimal JSON reader for file headers ----------*- C++ -*-===//
//
// A recursive-descent parser over a bounded buffer (RFC 8259), hardened for
// untrusted input: every read is bounds-checked and nesting is limited.
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include <cstdlib>
#include <limits>
#include <set>
#include <stdexcept>

using namespace tp::runtime::detail;

const JsonValue *JsonValue::find(const std::string &key) const {
  for (const auto &member : object)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

namespace {
class Parser {
public:
  Parser(const char *text, size_t size) : text(text), size(size) {}

  JsonValue parseDocument() {
    JsonValue v = parseValue(0);
    skipSpace();
    if (pos != size)
      error("trailing characters after the JSON value");
    return v;
  }

private:
  [[noreturn]] void error(const std::string &message) const {
    throw std::runtime_error("invalid JSON: " + message + " at byte " +
                             std::to_string(pos));
  }

  bool atEnd() const { return pos >= size; }
  char peek() const { return atEnd() ? '\0' : text[pos]; }

  void skipSpace() {
    while (!atEnd() && (text[pos] == ' ' || text[pos] == '\t' ||
                        text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  void expect(char c) {
    if (atEnd() || text[pos] != c)
      error(std::string("expected '") + c + "'");
    ++pos;
  }

  void expectWord(const char *word) {
    for (const char *w = word; *w; ++w) {
      if (atEnd() || text[pos] != *w)
        error(std::string("invalid literal, expected '") + word + "'");
      ++pos;
    }
  }

  JsonValue parseValue(int depth) {
    if (depth > 64)
      error("nesting deeper than 64 levels");
    skipSpace();
    JsonValue v;
    switch (peek()) {
    case '{':
      parseObject(v, depth);
      return v;
    case '[':
      parseArray(v, depth);
      return v;
    case '"':
      v.kind = JsonValue::Kind::String;
      v.string = parseString();
      return v;
    case 't':
      expectWord("true");
      v.kind = JsonValue::Kind::Bool;
      v.boolean = true;
      return v;
    case 'f':
      expectWord("false");
      v.kind = JsonValue::Kind::Bool;
      return v;
    case 'n':
      expectWord("null");
      return v;
    default:
      if (peek() == '-' || (peek() >= '0' && peek() <= '9')) {
        parseNumber(v);
        return v;
      }
      error(atEnd() ? "unexpected end of input" : "unexpected character");
    }
  }

  void parseObject(JsonValue &v, int depth) {
    v.kind = JsonValue::Kind::Object;
    expect('{');
    skipSpace();
    if (peek() == '}') {
      ++pos;
      return;
    }
    std::set<std::string> keys;
    while (true) {
      skipSpace();
      if (peek() != '"')
        error("expected a string key");
      size_t keyPos = pos;
      std::string key = parseString();
      if (!keys.insert(key).second) {
        pos = keyPos;
        error("duplicate key \"" + key + "\"");
      }
      skipSpace();
      expect(':');
      v.object.emplace_back(std::move(key), parseValue(depth + 1));
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      expect('}');
      return;
    }
  }

  void parseArray(JsonValue &v, int depth) {
    v.kind = JsonValue::Kind::Array;
    expect('[');
    skipSpace();
    if (peek() == ']') {
      ++pos;
      return;
    }
    while (true) {
      v.array.push_back(parseValue(depth + 1));
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      expect(']');
      return;
    }
  }

  unsigned parseHex4() {
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = peek();
      unsigned digit;
      if (c >= '0' && c <= '9')
        digit = c - '0';
      else if (c >= 'a' && c <= 'f')
        digit = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        digit = c - 'A' + 10;
      else
        error("invalid \\u escape");
      code = code * 16 + digit;
      ++pos;
    }
    return code;
  }

  static void appendUtf8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::string parseString() {
    expect('"');
    std::string out;
    while (true) {
      if (atEnd())
        error("unterminated string");
      char c = text[pos++];
      if (c == '"')
        return out;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos;
        error("control character in string");
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (atEnd())
        error("unterminated escape");
      char e = text[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
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
      case 'u': {
        unsigned code = parseHex4();
        if (code >= 0xD800 && code < 0xDC00) {
          if (peek() != '\\')
            error("unpaired surrogate");
          ++pos;
          if (peek() != 'u')
            error("unpaired surrogate");
          ++pos;
          unsigned low = parseHex4();
          if (low < 0xDC00 || low >= 0xE000)
            error("invalid low surrogate");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code < 0xE000) {
          error("unpaired surrogate");
        }
        appendUtf8(out, code);
        break;
      }
      default:
        --pos;
        error("invalid escape");
      }
    }
  }

  void parseNumber(JsonValue &v) {
    size_t start = pos;
    bool integral = true;
    if (peek() == '-')
      ++pos;
    if (peek() == '0') {
      ++pos;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9')
        ++pos;
    } else {
      error("invalid number");
    }
    if (peek() == '.') {
      integral = false;
      ++pos;
      if (!(peek() >= '0' && peek() <= '9'))
        error("invalid number");
      while (peek() >= '0' && peek() <= '9')
        ++pos;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++pos;
      if (peek() == '+' || peek() == '-')
        ++pos;
      if (!(peek() >= '0' && peek() <= '9'))
        error("invalid number");
      while (peek() >= '0' && peek() <= '9')
        ++pos;
    }
    std::string literal(text + start, pos - start);
    v.kind = JsonValue::Kind::Number;
    v.number = std::strtod(literal.c_str(), nullptr);
    if (!integral)
      return;
    // Accumulate negatively so that INT64_MIN parses; overflow makes the
    // number non-integral rather than wrapping.
    bool negative = literal[0] == '-';
    int64_t value = 0;
    for (size_t i = negative ? 1 : 0; i < literal.size(); ++i) {
      int digit = literal[i] - '0';
      if (value < (std::numeric_limits<int64_t>::min() + digit) / 10)
        return;
      value = value * 10 - digit;
    }
    if (!negative && value == std::numeric_limits<int64_t>::min())
      return;
    v.isInteger = true;
    v.integer = negative ? value : -value;
  }

  const char *text;
  size_t size;
  size_t pos = 0;
};
} // namespace

JsonValue tp::runtime::detail::parseJson(const char *text, size_t size) {
  return Parser(text, size).parseDocument();
}

std::string tp::runtime::detail::quoteJson(const std::string &s) {
  static const char *hex = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      out += "\\u00";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}
