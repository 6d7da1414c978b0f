// The Ludus SDK for C++, one header (docs/bots.md, "Languages"): a JSON reader and ludus::run(act), which reads
// the engine's lines on stdin, asks for whole views, calls act(view, decision) and writes {"seq", "choice"}.
// Log to std::cerr: stdout carries only the protocol.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ludus {

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json& operator[](const std::string& key) const {
    static const Json none;
    auto found = object.find(key);
    return found == object.end() ? none : found->second;
  }
  const Json& operator[](std::size_t i) const { return array.at(i); }
  std::size_t size() const { return kind == Array ? array.size() : object.size(); }
  long long integer() const { return static_cast<long long>(number); }
  bool has(const std::string& key) const { return object.count(key) > 0; }
};

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}
  Json parse() {
    Json value = read();
    skip();
    if (i_ != s_.size()) fail("trailing characters");
    return value;
  }

 private:
  const std::string& s_;
  std::size_t i_ = 0;

  [[noreturn]] void fail(const char* what) { throw std::runtime_error(std::string("bad JSON: ") + what); }
  void skip() { while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_; }
  char peek() { skip(); if (i_ >= s_.size()) fail("unexpected end"); return s_[i_]; }
  void expect(const char* word) {
    for (const char* c = word; *c; ++c, ++i_) if (i_ >= s_.size() || s_[i_] != *c) fail("unexpected word");
  }
  Json read() {
    Json v;
    char c = peek();
    if (c == '{') {
      v.kind = Json::Object; ++i_;
      if (peek() == '}') { ++i_; return v; }
      while (true) {
        if (peek() != '"') fail("expected a key");
        std::string key = text();
        if (peek() != ':') fail("expected ':'");
        ++i_;
        v.object[key] = read();
        char d = peek(); ++i_;
        if (d == '}') return v;
        if (d != ',') fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.kind = Json::Array; ++i_;
      if (peek() == ']') { ++i_; return v; }
      while (true) {
        v.array.push_back(read());
        char d = peek(); ++i_;
        if (d == ']') return v;
        if (d != ',') fail("expected ',' or ']'");
      }
    }
    if (c == '"') { v.kind = Json::String; v.string = text(); return v; }
    if (c == 't') { expect("true"); v.kind = Json::Bool; v.boolean = true; return v; }
    if (c == 'f') { expect("false"); v.kind = Json::Bool; return v; }
    if (c == 'n') { expect("null"); return v; }
    std::size_t end = i_;
    while (end < s_.size() && std::string("+-0123456789.eE").find(s_[end]) != std::string::npos) ++end;
    if (end == i_) fail("unexpected character");
    v.kind = Json::Number;
    v.number = std::stod(s_.substr(i_, end - i_));
    i_ = end;
    return v;
  }
  static void utf8(std::string& out, unsigned code) {
    if (code < 0x80) { out += static_cast<char>(code); }
    else if (code < 0x800) { out += static_cast<char>(0xC0 | (code >> 6)); out += static_cast<char>(0x80 | (code & 0x3F)); }
    else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12)); out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18)); out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F)); out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  unsigned hex4() {
    if (i_ + 4 > s_.size()) fail("short \\u escape");
    unsigned code = std::stoul(s_.substr(i_, 4), nullptr, 16);
    i_ += 4;
    return code;
  }
  std::string text() {
    std::string out;
    ++i_;  // the opening quote
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      char c = s_[i_++];
      if (c == '"') return out;
      if (c != '\\') { out += c; continue; }
      char e = s_[i_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          unsigned code = hex4();
          if (code >= 0xD800 && code < 0xDC00 && i_ + 6 <= s_.size() && s_[i_] == '\\') {
            i_ += 2;
            code = 0x10000 + ((code - 0xD800) << 10) + (hex4() - 0xDC00);
          }
          utf8(out, code);
          break;
        }
        default: out += e;
      }
    }
  }
};

inline Json parse(const std::string& line) { return Parser(line).parse(); }

struct Bot {
  Json hello;    // your seat, the player count, the options
  Json clock;    // the last decide's clock: move_ms, bank_ms
  Json outcome;  // the result, once the game is over
};

// act(view, decision, bot) returns the index of the chosen option in decision["options"].
inline Bot run(const std::function<int(const Json&, const Json&, const Bot&)>& act) {
  std::ios::sync_with_stdio(false);
  Bot bot;
  std::string line;
  while (std::getline(std::cin, line)) {
    Json message = parse(line);
    const std::string& type = message["type"].string;
    if (type == "hello") {
      bot.hello = message;
      if (message["protocol"].integer() >= 2) std::cout << "{\"type\":\"hello\",\"views\":\"full\"}" << std::endl;
    } else if (type == "decide") {
      bot.clock = message["clock"];
      int choice = act(message["view"], message["decision"], bot);
      std::cout << "{\"seq\":" << message["seq"].integer() << ",\"choice\":" << choice << "}" << std::endl;
    } else if (type == "result") {
      bot.outcome = message["outcome"];
      break;
    }
  }
  return bot;
}

}  // namespace ludus
