//===- JSONTest.cpp - mlir::tp::json reader and writer
//--------------------------===//
//
// Objects keep document order; duplicate keys and deep nesting are errors
// that say where (the assertions of the former checkJSONStructure, which
// this parser replaced, are here with the same messages); escapes,
// surrogate pairs and UTF-8; integers versus doubles; syntax errors worded
// and placed as llvm::json did; the writer's layout and round trips.
//
//===----------------------------------------------------------------------===//

#include "tp/Support/JSON.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

using namespace mlir::tp;

namespace {

/// The error message of parsing `text`, or "" when it parses.
std::string errorOf(std::string_view text, unsigned maxDepth = 64) {
  json::ParseOptions options;
  options.maxDepth = maxDepth;
  json::ParseResult r = json::parse(text, options);
  return r ? std::string() : r.error->message;
}

json::Value parseOK(std::string_view text) {
  json::ParseResult r = json::parse(text);
  EXPECT_TRUE(r) << text << ": " << (r ? "" : r.error->message);
  return std::move(r.value);
}

std::vector<std::string> keysOf(const json::Object &o) {
  std::vector<std::string> keys;
  for (const auto &member : o)
    keys.push_back(member.first);
  return keys;
}

TEST(JSONTest, ObjectsKeepDocumentOrder) {
  json::Value v = parseOK(R"({"z": 1, "a": {"y": 2, "b": 3}, "m": []})");
  const json::Object *o = v.getAsObject();
  ASSERT_TRUE(o);
  EXPECT_EQ(keysOf(*o), (std::vector<std::string>{"z", "a", "m"}));
  ASSERT_TRUE(o->getObject("a"));
  EXPECT_EQ(keysOf(*o->getObject("a")), (std::vector<std::string>{"y", "b"}));
  EXPECT_TRUE(o->getArray("m") && o->getArray("m")->empty());
  EXPECT_EQ(o->get("missing"), nullptr);
  EXPECT_EQ(o->getObject("z"), nullptr);
  // set replaces in place and appends new keys at the end.
  json::Object copy = *o;
  copy.set("a", 5);
  copy.set("new", true);
  EXPECT_EQ(keysOf(copy), (std::vector<std::string>{"z", "a", "m", "new"}));
  EXPECT_EQ(copy.get("a")->getAsInteger(), 5);
}

TEST(JSONTest, RejectsDuplicateKeys) {
  EXPECT_EQ(errorOf("{\"a\": 1, \"b\": {\"a\": 2}}"), "");
  EXPECT_EQ(errorOf("{\"a\": 1,\n \"a\": 2}"),
            "duplicate key 'a' at line 2, column 2");
  // Values are not keys; escapes spell the same key.
  EXPECT_EQ(errorOf("{\"k\": \"a\", \"a\": [\"a\", \"a\"]}"), "");
  EXPECT_EQ(errorOf("{\"plan\": {\"net1\": {}, \"n\\u0065t1\": {}}}"),
            "duplicate key 'net1' in 'plan' at line 1, column 23");
  // An object in an array has no key to name.
  EXPECT_EQ(errorOf("{\"l\": [{\"x\": 1, \"x\": 2}]}"),
            "duplicate key 'x' at line 1, column 17");
  json::ParseResult r = json::parse("{\"a\": 1, \"a\": 2}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error->kind, json::ParseError::DuplicateKey);
  EXPECT_EQ(r.error->offset, 9u);
}

TEST(JSONTest, BoundsNesting) {
  EXPECT_EQ(errorOf(std::string(64, '[') + std::string(64, ']')), "");
  EXPECT_EQ(errorOf(std::string(100000, '[')),
            "JSON nests deeper than 64 levels at line 1, column 65");
  EXPECT_EQ(errorOf("{\"a\":\n  {\"b\": [[1]]}}", 3),
            "JSON nests deeper than 3 levels at line 2, column 10");
  // Brackets inside strings do not count.
  EXPECT_EQ(errorOf("[\"[[[[\\\"[[\"]", 1), "");
  json::ParseResult r = json::parse(std::string(65, '['));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error->kind, json::ParseError::TooDeep);
}

TEST(JSONTest, DecodesEscapes) {
  json::Value v = parseOK(R"(["\"\\\/\b\f\n\r\t", "\u0041\u00e9\u20ac",
                              "\ud83d\ude00", "\ud800x", "\udc00",
                              "\ud800\u0041", "é"])");
  const json::Array *a = v.getAsArray();
  ASSERT_TRUE(a && a->size() == 7);
  EXPECT_EQ(*(*a)[0].getAsString(), "\"\\/\b\f\n\r\t");
  EXPECT_EQ(*(*a)[1].getAsString(), "A\xc3\xa9\xe2\x82\xac");
  // A surrogate pair is one code point (U+1F600, four UTF-8 bytes).
  EXPECT_EQ(*(*a)[2].getAsString(), "\xf0\x9f\x98\x80");
  // Unpaired surrogates are valid JSON but no character: U+FFFD.
  EXPECT_EQ(*(*a)[3].getAsString(), "\xef\xbf\xbdx");
  EXPECT_EQ(*(*a)[4].getAsString(), "\xef\xbf\xbd");
  EXPECT_EQ(*(*a)[5].getAsString(), "\xef\xbf\xbd"
                                    "A");
  EXPECT_EQ(*(*a)[6].getAsString(), "\xc3\xa9");
}

TEST(JSONTest, Numbers) {
  json::Value v = parseOK("[0, -7, 9223372036854775807, -9223372036854775808, "
                          "18446744073709551615, 99999999999999999999999, "
                          "8.5, 8.0, 1e3, -0.25E-2]");
  const json::Array &a = *v.getAsArray();
  EXPECT_EQ(a[0].getAsInteger(), 0);
  EXPECT_EQ(a[1].getAsInteger(), -7);
  EXPECT_TRUE(a[1].isIntegerLiteral());
  EXPECT_EQ(a[2].getAsInteger(), INT64_MAX);
  EXPECT_EQ(a[3].getAsInteger(), INT64_MIN);
  // Beyond int64: a number, not an integer.
  EXPECT_EQ(a[4].getAsInteger(), std::nullopt);
  EXPECT_EQ(a[4].getAsNumber(), 18446744073709551615.0);
  EXPECT_EQ(json::toString(a[4]), "18446744073709551615");
  EXPECT_EQ(a[5].getAsInteger(), std::nullopt);
  EXPECT_FALSE(a[5].isIntegerLiteral());
  EXPECT_EQ(a[6].getAsInteger(), std::nullopt);
  EXPECT_EQ(a[6].getAsNumber(), 8.5);
  // 8.0 and 1e3 are integers to getAsInteger (as for llvm::json), but not
  // integer literals.
  EXPECT_EQ(a[7].getAsInteger(), 8);
  EXPECT_FALSE(a[7].isIntegerLiteral());
  EXPECT_EQ(a[8].getAsInteger(), 1000);
  EXPECT_EQ(a[9].getAsNumber(), -0.0025);
  EXPECT_EQ(a[0].getAsString(), nullptr);
  EXPECT_EQ(a[0].getAsBoolean(), std::nullopt);
  // RFC 8259's grammar: no leading zeros, '+', bare '.' or exponent.
  for (const char *bad : {"01", "+1", ".5", "5.", "1e", "-", "1.2.3", "--1"})
    EXPECT_NE(errorOf(bad).find("Invalid JSON value (number?)"),
              std::string::npos)
        << bad;
}

TEST(JSONTest, SyntaxErrorsSayWhere) {
  // As llvm::json reported them: [line:column, byte=offset], the position
  // just past the character that was wrong.
  EXPECT_EQ(errorOf(R"({"mesh": {"shape": [2]}, "plan": {"net1": )"
                    R"({"style": "ColwiseParallel"},}})"),
            "[1:72, byte=72]: Expected object key");
  EXPECT_EQ(errorOf("{\"a\": 1,"), "[1:8, byte=8]: Expected object key");
  EXPECT_EQ(errorOf("{\"a\": "), "[1:6, byte=6]: Unexpected EOF");
  EXPECT_EQ(errorOf("{\"a\"\n 1}"),
            "[2:2, byte=7]: Expected : after object key");
  EXPECT_EQ(errorOf("[1 2]"),
            "[1:4, byte=4]: Expected , or ] after array element");
  EXPECT_EQ(errorOf("{\"a\": 1 \"b\": 2}"),
            "[1:9, byte=9]: Expected , or } after object property");
  EXPECT_EQ(errorOf("[1] x"), "[1:4, byte=4]: Text after end of document");
  EXPECT_EQ(errorOf("nul"), "[1:3, byte=3]: Invalid JSON value (null?)");
  EXPECT_EQ(errorOf("[trux]"), "[1:5, byte=5]: Invalid JSON value (true?)");
  EXPECT_EQ(errorOf("@"), "[1:1, byte=1]: Invalid JSON value");
  EXPECT_EQ(errorOf("\"abc"), "[1:4, byte=4]: Unterminated string");
  EXPECT_EQ(errorOf("\"a\tb\""), "[1:3, byte=3]: Control character in string");
  EXPECT_EQ(errorOf("\"\\q\""), "[1:3, byte=3]: Invalid escape sequence");
  EXPECT_EQ(errorOf("\"\\u12g4\""),
            "[1:7, byte=7]: Invalid \\u escape sequence");
  EXPECT_EQ(errorOf("[\"\xff\"]"), "[1:2, byte=2]: Invalid UTF-8 sequence");
  EXPECT_EQ(errorOf(""), "[1:0, byte=0]: Unexpected EOF");
  json::ParseResult r = json::parse("[1,]");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error->kind, json::ParseError::Syntax);
  EXPECT_EQ(r.error->offset, 4u);
}

TEST(JSONTest, Literals) {
  json::Value v = parseOK(" [true, false, null] \n");
  const json::Array &a = *v.getAsArray();
  EXPECT_EQ(a[0].getAsBoolean(), true);
  EXPECT_EQ(a[1].getAsBoolean(), false);
  EXPECT_TRUE(a[2].isNull());
  EXPECT_EQ(a[2].kind(), json::Value::Null);
}

TEST(JSONTest, Quote) {
  EXPECT_EQ(json::quote("plain"), "\"plain\"");
  EXPECT_EQ(json::quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json::quote(std::string("\t\n\r\x01\x1f", 5)),
            "\"\\t\\n\\r\\u0001\\u001f\"");
  // Non-ASCII is written as is.
  EXPECT_EQ(json::quote("\xc3\xa9"), "\"\xc3\xa9\"");
}

TEST(JSONTest, WriterLayout) {
  std::string compact;
  json::Writer c(compact);
  c.objectBegin();
  c.member("a", 1);
  c.key("b");
  c.arrayBegin();
  c.value(true);
  c.value(nullptr);
  c.value(0.5);
  c.arrayEnd();
  c.key("e");
  c.objectBegin();
  c.objectEnd();
  c.member("s", "x");
  c.objectEnd();
  EXPECT_EQ(compact, R"({"a":1,"b":[true,null,0.5],"e":{},"s":"x"})");

  // Indented: one element per line, empty containers closed on their line.
  std::string pretty;
  json::Writer p(pretty, 2);
  p.objectBegin();
  p.member("n", int64_t(-3));
  p.key("l");
  p.arrayBegin();
  p.value(uint64_t(18446744073709551615u));
  p.arrayBegin();
  p.arrayEnd();
  p.arrayEnd();
  p.key("o");
  p.objectBegin();
  p.member("d", 1e13);
  p.objectEnd();
  p.objectEnd();
  EXPECT_EQ(pretty, "{\n"
                    "  \"n\": -3,\n"
                    "  \"l\": [\n"
                    "    18446744073709551615,\n"
                    "    []\n"
                    "  ],\n"
                    "  \"o\": {\n"
                    "    \"d\": 10000000000000\n"
                    "  }\n"
                    "}");
  // Doubles keep 17 significant digits, so they read back exactly.
  EXPECT_EQ(json::toString(json::Value(0.1)), "0.10000000000000001");
}

// JSON has no NaN or infinity: the writer writes null for them, so what it
// writes always parses (it wrote "nan" and "-nan" inside arrays).
TEST(JSONTest, WriterNonFinite) {
  std::string text;
  json::Writer w(text);
  w.arrayBegin();
  w.value(std::numeric_limits<double>::quiet_NaN());
  w.value(-std::numeric_limits<double>::quiet_NaN());
  w.value(std::numeric_limits<double>::infinity());
  w.value(-std::numeric_limits<double>::infinity());
  w.value(json::Value(std::numeric_limits<double>::quiet_NaN()));
  w.value(1.5);
  w.arrayEnd();
  EXPECT_EQ(text, "[null,null,null,null,null,1.5]");
  json::ParseResult parsed = json::parse(text);
  ASSERT_TRUE(parsed);
  ASSERT_TRUE(parsed.value.getAsArray());
  EXPECT_EQ(parsed.value.getAsArray()->size(), 6u);
}

TEST(JSONTest, RoundTrips) {
  const char *text = R"({"z":[1,-2,3.25,"\u0001\t\"",true,null],)"
                     R"("a":{"é":{},"k":[]},"big":18446744073709551615})";
  json::Value v = parseOK(text);
  std::string written = json::toString(v);
  EXPECT_EQ(written, R"({"z":[1,-2,3.25,"\u0001\t\"",true,null],)"
                     R"("a":{"é":{},"k":[]},"big":18446744073709551615})");
  json::Value again = parseOK(written);
  EXPECT_EQ(json::toString(again), written);
  EXPECT_EQ(json::toString(parseOK(json::toString(v, 2))), written);
  // Built values write like parsed ones.
  json::Object o;
  o.set("k", json::Array{json::Value(1), json::Value("s"), json::Value()});
  EXPECT_EQ(json::toString(json::Value(std::move(o))), R"({"k":[1,"s",null]})");
}

} // namespace
