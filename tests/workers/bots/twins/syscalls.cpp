// Hostile (syscalls.py's twin): calls one kernel interface of each family the seccomp filter refuses and logs
// `<family> <call>: <result>`, then plays on. Under the filter each answers EPERM (clone3: ENOSYS).
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <sched.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

static int err(long value) { return value >= 0 ? 0 : errno; }  // read at once: the next call sets errno again

static const char* result(int code) {
  if (code == 0) return "ok";
  switch (code) {
    case EPERM: return "EPERM";
    case ENOSYS: return "ENOSYS";
    case EINVAL: return "EINVAL";
    case EFAULT: return "EFAULT";
    case ESRCH: return "ESRCH";
    case EBADF: return "EBADF";
    default: return "other";
  }
}

int main() {
  char params[256] = {0};
  struct Call { const char* family; const char* name; int code; };
  Call calls[] = {
      {"io_uring", "io_uring_setup", err(syscall(425, 2, params))},
      {"keys", "keyctl", err(syscall(SYS_keyctl, 0, -3, 1))},
      {"bpf", "bpf", err(syscall(SYS_bpf, 9999, nullptr, 0))},
      {"perf", "perf_event_open", err(syscall(SYS_perf_event_open, nullptr, 0, -1, -1, 0))},
      {"userfaultfd", "userfaultfd", err(syscall(SYS_userfaultfd, 1))},
      {"namespaces", "unshare", err(syscall(SYS_unshare, CLONE_NEWUSER))},
      {"namespaces", "setns", err(syscall(SYS_setns, -1, 0))},
      {"namespaces", "clone3", err(syscall(435, nullptr, 0))},
      {"mount", "mount", err(syscall(SYS_mount, nullptr, nullptr, nullptr, 0, nullptr))},
      {"tracing", "ptrace", err(syscall(SYS_ptrace, 2, 999999, 0, 0))},
      {"kernel", "iopl", err(syscall(SYS_iopl, 0))},
      {"numa", "set_mempolicy", err(syscall(SYS_set_mempolicy, 0, nullptr, 0))},
  };
  for (const Call& call : calls) std::fprintf(stderr, "%s %s: %s\n", call.family, call.name, result(call.code));
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find("\"type\":\"decide\"") == std::string::npos) continue;
    auto at = line.find("\"seq\":");
    std::cout << "{\"seq\":" << std::stoll(line.substr(at + 6)) << ",\"choice\":0}" << std::endl;
  }
}
