// Hostile (ponder_thread.py's twin): after each reply, a thread computes for 300 ms while another seat decides.
#include <chrono>
#include <iostream>
#include <string>
#include <thread>

static long long seq_of(const std::string& line) {
  auto at = line.find("\"seq\":");
  return at == std::string::npos ? -1 : std::stoll(line.substr(at + 6));
}

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find("\"type\":\"decide\"") == std::string::npos) continue;
    std::cout << "{\"seq\":" << seq_of(line) << ",\"choice\":0}" << std::endl;
    std::thread([] {
      auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
      volatile unsigned long spin = 0;
      while (std::chrono::steady_clock::now() < end) spin = spin + 1;
    }).detach();
  }
}
