#!/usr/bin/env bash
# Usage: arm-sysroot.sh ARCH DIR   (ARCH: arm64 or armhf, Debian's names)
# Unpacks Debian 12's ARCH builds of the libraries vireo_core and the unit tests link (xxhash,
# lzf, OpenSSL, Lua 5.1 with cjson, GoogleTest, libedit) into DIR, the sysroot the
# cmake/*-linux-gnu*.cmake toolchain files build against. The C library and libstdc++ come
# with the cross compiler (scripts/install-deps.sh installs it and qemu-user-static).
#
# Why not `dpkg --add-architecture`: the host's Multi-Arch: same packages (libssl3, libc6,
# linux-libc-dev) must then be at exactly the version of their ARCH twin, and a mirror whose
# ARCH index lags the host's makes apt refuse the install. Here apt runs on a private state
# (own index lists, empty dpkg status) only to download the .deb files; the host's package
# database is never touched, so no root is needed. Idempotent: a stamp lists what DIR holds.
set -euo pipefail

arch=${1:?usage: arm-sysroot.sh arm64|armhf DIR}
dest=${2:?usage: arm-sysroot.sh arm64|armhf DIR}
packages=(libxxhash-dev libxxhash0 liblzf-dev liblzf1 libssl-dev libssl3
          liblua5.1-0-dev liblua5.1-0 lua-cjson-dev lua-cjson
          libgtest-dev
          libedit-dev libedit2 libbsd0 libmd0 libtinfo6)  # vireo-cli: CMake looks for it

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
stamp=$dest/.packages
want="$arch ${packages[*]}"
if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
  exit 0
fi

state=$dest.apt
rm -rf "$state"
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/debs"
touch "$state/status"
apt=(apt-get -q -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
     -o "Dir::State::Lists=$state/lists" -o "Dir::State::Status=$state/status"
     -o "Dir::Cache=$state/cache" -o Debug::NoLocking=1 -o "APT::Sandbox::User=$(id -un)")
# A mirror in the middle of a sync can fail one index (say bookworm-security) and still give
# every package from the others, so a failed update is only a warning; a missing package
# fails the download below.
if ! "${apt[@]}" update >"$state/update.log" 2>&1; then
  echo "arm-sysroot: apt-get update reported errors (going on):" >&2
  grep -E '^(E|W):' "$state/update.log" >&2 || true
fi
if ! (cd "$state/debs" && "${apt[@]}" download "${packages[@]}") >"$state/download.log" 2>&1; then
  cat "$state/download.log" >&2
  echo "arm-sysroot: could not download the $arch packages" >&2
  exit 1
fi

rm -rf "$dest/usr"
for deb in "$state/debs"/*.deb; do
  dpkg-deb -x "$deb" "$dest"
done
rm -rf "$state"
echo "$want" >"$stamp"
echo "arm-sysroot: $arch libraries in $dest"
