#!/usr/bin/env bash
# Install the Debian packages the test suite needs, only when missing (we run as root here).
set -euo pipefail
need=()
command -v bwrap >/dev/null || need+=(bubblewrap)
/usr/bin/python3 -c "import seccomp" 2>/dev/null || need+=(python3-seccomp)  # the sandbox's seccomp filter
command -v chromium >/dev/null || need+=(chromium)
command -v chromedriver >/dev/null || need+=(chromium-driver)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
