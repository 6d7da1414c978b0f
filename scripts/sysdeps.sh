#!/usr/bin/env bash
# Install the Debian packages the test suite needs, only when missing (we run as root here).
set -euo pipefail
need=()
command -v bwrap >/dev/null || need+=(bubblewrap)
/usr/bin/python3 -c "import seccomp" 2>/dev/null || need+=(python3-seccomp)  # the sandbox's seccomp filter
# Bots in other languages (docs/bots.md, "Languages"): the sandbox runs the Debian toolchains in /usr/bin, not
# whatever else is on PATH (a rustup rustc in ~/.cargo is out of the sandbox's reach).
[ -x /usr/bin/node ] || need+=(nodejs)
[ -x /usr/bin/g++ ] || need+=(g++)
[ -x /usr/bin/rustc ] || need+=(rustc)
{ [ -x /usr/bin/javac ] && [ -x /usr/bin/java ]; } || need+=(default-jdk-headless)
command -v chromium >/dev/null || need+=(chromium)
command -v chromedriver >/dev/null || need+=(chromium-driver)
command -v ip >/dev/null || need+=(iproute2)  # the same: its namespaces and veth pairs
command -v socat >/dev/null || need+=(socat)  # benchmarks/separate_workers.py --netns: the namespaces' forwarders
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
