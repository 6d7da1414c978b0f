// A complete Ludus bot in C++: plays Evolution and Marine legally (docs/bots.md, "Languages").
#include "ludus.hpp"

int main() {
  unsigned long long state = 0;
  ludus::run([&](const ludus::Json& view, const ludus::Json& decision, const ludus::Bot& bot) {
    if (state == 0) state = 7 + bot.hello["seat"].integer();
    state = (state * 1103515245 + 12345) % 2147483648ULL;  // the same generator as the JavaScript kit
    (void)view;  // a real bot weighs the options with the view
    return static_cast<int>(state % decision["options"].size());
  });
}
