#!/bin/sh
# Entry point of the Vireo image, with the conventions of the official Valkey image:
#   docker run vireo                          vireo-server /etc/vireo/vireo.conf
#   docker run vireo --requirepass x          vireo-server /etc/vireo/vireo.conf --requirepass x
#   docker run vireo /my/vireo.conf --port 1  vireo-server /my/vireo.conf --port 1
#   docker run vireo vireo-server --port 6380 vireo-server /etc/vireo/vireo.conf --port 6380
#   docker run vireo vireo-cli -h host        any other program runs as given
set -e

# Options or a config file alone are arguments of the server.
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- vireo-server "$@"
fi

if [ "$1" = vireo-server ]; then
  shift
  # Without a config file of its own the server starts from the image's (bind, dir /data).
  case "${1:-}" in
    *.conf | -) ;;
    *) set -- "${VIREO_CONFIG:-/etc/vireo/vireo.conf}" "$@" ;;
  esac
  set -- vireo-server "$@"
  # Started as root (the default): a bind-mounted /data is created owned by root on the host,
  # so hand it to the vireo user, then run the server as that user.
  if [ "$(id -u)" = 0 ]; then
    find /data \! -user vireo -exec chown vireo:vireo '{}' + 2>/dev/null || true
    exec setpriv --reuid=vireo --regid=vireo --init-groups "$@"
  fi
fi

exec "$@"
