#!/usr/bin/env bash
# Installs the Debian packages named as arguments that are not installed yet
# (apt-get update first; sudo unless root). Used by setup.sh and fuzz.sh.
set -euo pipefail
[ $# -gt 0 ] || exit 0
if dpkg -s "$@" >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "$@"
