#!/usr/bin/env bash
# Installs the Debian 12 packages Vireo needs to build, test and benchmark.
# Idempotent: asks dpkg what is already installed and only runs apt-get (update + install)
# when something is missing. Runs as root (CI) or through sudo.
set -euo pipefail

PACKAGES=(
  g++ cmake ninja-build make pkg-config
  libgtest-dev libxxhash-dev libjemalloc-dev liblzf-dev libssl-dev liblua5.1-0-dev libedit-dev
  lua-cjson-dev              # cjson for scripts (bit, cmsgpack, struct are our own)
  python3 python3-pytest python3-redis
  python3-pytest-xdist       # the integration suites on two workers (CMakeLists.txt)
  python3-yaml               # tests/integration/test_install.py reads deploy/compose/*.yaml
  redis-server redis-tools   # reference peers for tests/compat and bench/compare
  valgrind                   # bench/compare --callgrind
  clang-14 libclang-rt-14-dev  # libFuzzer targets (make fuzz, scripts/fuzz.sh)
  procps iproute2 util-linux # ps/pkill, ss, taskset
  openssl                    # tests/integration/test_tls.py makes its certificates
)
# `install-deps.sh arm`: the cross compilers and qemu for make test-arm / test-armhf and the ARM
# stage of scripts/test-all.sh; `install-deps.sh arm64`: the aarch64 ones only.
if [[ ${1:-} == arm ]]; then
  PACKAGES+=(g++-aarch64-linux-gnu g++-arm-linux-gnueabihf qemu-user-static)
elif [[ ${1:-} == arm64 ]]; then
  PACKAGES+=(g++-aarch64-linux-gnu qemu-user-static)
fi

if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "install-deps: not root and sudo is not available" >&2
  exit 1
fi

# One dpkg-query for all packages; a package dpkg has never heard of prints nothing.
declare -A status=()
while IFS='|' read -r name state; do
  name=${name%%:*}  # multi-arch: count the package as present if any architecture is
  [[ ${status[$name]:-} == "install ok installed" ]] || status[$name]=$state
done < <(dpkg-query -W -f='${Package}|${Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)
missing=()
for pkg in "${PACKAGES[@]}"; do
  [[ ${status[$pkg]:-} == "install ok installed" ]] || missing+=("$pkg")
done

# The distro redis-server package starts a service on 127.0.0.1:6379, which `make run` needs.
# Stop it only if it is the packaged service (systemd unit or the Debian pidfile, owned by the
# `redis` user); never touch other redis-server processes.
stop_distro_redis() {
  if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null 2>&1; then
    if systemctl is-active --quiet redis-server 2>/dev/null; then
      echo "install-deps: stopping the distro redis-server service (it holds port 6379)"
      "${SUDO[@]}" systemctl stop redis-server || true
      "${SUDO[@]}" systemctl disable --quiet redis-server 2>/dev/null || true
    fi
  fi
  local pidfile=/run/redis/redis-server.pid pid
  if [[ -r $pidfile ]]; then
    pid=$(cat "$pidfile" 2>/dev/null || true)
    if [[ $pid =~ ^[0-9]+$ ]] && [[ $(ps -o user= -o comm= -p "$pid" 2>/dev/null | awk '{print $1, $2}') == "redis redis-server" ]]; then
      echo "install-deps: stopping the distro redis-server (pid $pid, port 6379)"
      if [[ -x /etc/init.d/redis-server ]]; then
        "${SUDO[@]}" /etc/init.d/redis-server stop >/dev/null 2>&1 || true
      fi
      if kill -0 "$pid" 2>/dev/null; then
        "${SUDO[@]}" kill -TERM "$pid" 2>/dev/null || true
      fi
    fi
  fi
}

if ((${#missing[@]} > 0)); then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Keep package scripts from starting services (the redis-server package would otherwise
  # start one on port 6379). Only add a policy if the system has none, and remove it after.
  policy_added=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee /usr/sbin/policy-rc.d >/dev/null
    "${SUDO[@]}" chmod 755 /usr/sbin/policy-rc.d
    policy_added=1
  fi
  cleanup_policy() {
    if [[ $policy_added -eq 1 ]]; then "${SUDO[@]}" rm -f /usr/sbin/policy-rc.d; fi
  }
  trap cleanup_policy EXIT
  log=$(mktemp)
  if ! { "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
         "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
           --no-install-recommends -o Dpkg::Use-Pty=0 "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "install-deps: apt-get failed" >&2
    exit 1
  fi
  rm -f "$log"
  cleanup_policy
  trap - EXIT
  policy_added=0
fi

stop_distro_redis
