#!/usr/bin/env bash
# Installs what mxjit needs from Debian 12 packages, only if something is missing.
# `setup-deps.sh fuzz` adds what the libFuzzer targets need (make fuzz, fuzz-smoke; CI).
set -euo pipefail
pkgs=(cmake make gcc g++ pkg-config llvm-22-dev liblld-22-dev lld-22 libyaml-dev
      libcriterion-dev zlib1g-dev libzstd-dev python3 python3-numpy)
[ "${1:-}" = fuzz ] && pkgs+=(clang-22 libclang-rt-22-dev libfuzzer-22-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
