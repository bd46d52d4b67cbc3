#!/usr/bin/env bash
# Rehearses the Docker image without a Docker engine (`make docker-rehearse`): carries out the
# Dockerfile's instructions for real in chroots of debootstrapped Debian bookworm root file
# systems, then starts the image the way `docker run vireo --port P --save ""` would and checks
# it from the host (PING, SET/GET, Lua modules, SAVE into /data as the vireo user, INFO,
# SHUTDOWN). A broken package name, build command, path, COPY source, user or entry point fails.
# scripts/docker_rehearse/ (Python, standard library only) does the work; this wrapper checks
# the prerequisites and makes sure no mount or process is left behind, whatever happens.
#
# Needs root (debootstrap, chroot, mounts) and http://deb.debian.org. Manual only: it downloads
# and does a full build, so it is not part of `make test`.
#   REHEARSE_DIR     work directory: stages, build context, volumes, run.log
#                    (default /tmp/vireo-rehearse; wiped at the start, kept afterwards)
#   REHEARSE_CACHE   the debootstrapped base tarballs, reused by later runs; delete it to start
#                    from fresh Debian packages (default /tmp/vireo-rehearse-cache)
#   REHEARSE_MIRROR  the Debian mirror (default http://deb.debian.org/debian)
# Arguments go to the helper: --build-only, --parse-only, --dockerfile F, --context DIR (paths
# relative to the repository root).
set -euo pipefail

cd "$(dirname "$0")/.."
REHEARSE_DIR=$(realpath -m "${REHEARSE_DIR:-/tmp/vireo-rehearse}")
REHEARSE_CACHE=$(realpath -m "${REHEARSE_CACHE:-/tmp/vireo-rehearse-cache}")
REHEARSE_MIRROR=${REHEARSE_MIRROR:-http://deb.debian.org/debian}

if [ "$(id -u)" != 0 ]; then
  echo "docker-rehearse: needs root (debootstrap, chroot, mounts)" >&2
  exit 1
fi
if ! command -v debootstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap
fi
case "$REHEARSE_DIR" in
  / | /tmp | /usr* | /etc* | /work | "$PWD")
    echo "docker-rehearse: REHEARSE_DIR=$REHEARSE_DIR: choose a directory of its own" >&2
    exit 1 ;;
esac

# The safety net behind the helper's own clean-up: kill what still runs chrooted under the work
# directory, then unmount everything below it, deepest first.
cleanup() {
  local pid root
  for pid in /proc/[0-9]*; do
    root=$(readlink "$pid/root" 2>/dev/null) || continue
    case "$root" in "$REHEARSE_DIR"/*) kill -9 "${pid#/proc/}" 2>/dev/null || true ;; esac
  done
  awk -v dir="$REHEARSE_DIR/" 'index($5, dir) == 1 { print $5 }' /proc/self/mountinfo |
    sort -r | while read -r point; do
      umount "$point" 2>/dev/null || umount -l "$point" 2>/dev/null || true
    done
}
trap cleanup EXIT

# The helper runs in the background so that a signal to this script reaches it at once (bash
# would wait for a foreground child first); it then ends its chroot processes and unmounts.
forward() { kill -TERM "$helper" 2>/dev/null || true; }
trap forward INT TERM HUP
# Debian's interpreter, as the tests use; the helper needs only the standard library.
/usr/bin/python3 -B scripts/docker_rehearse --dockerfile Dockerfile --context . \
  --work "$REHEARSE_DIR" --cache "$REHEARSE_CACHE" --mirror "$REHEARSE_MIRROR" "$@" &
helper=$!
status=0
wait "$helper" || status=$?
while kill -0 "$helper" 2>/dev/null; do
  status=0
  wait "$helper" || status=$?
done
exit "$status"
