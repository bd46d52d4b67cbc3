# Vireo server image.
#
#   docker build -t vireo .
#   docker run -d -p 6379:6379 -v "$PWD/data:/data" vireo --requirepass <password>
#
# The entry point follows the official Valkey image: options (or a .conf file) as arguments go
# to vireo-server, which starts from /etc/vireo/vireo.conf (vireo.conf of the repository plus
# deploy/docker/container.conf: all interfaces, protected mode off, dir /data). The server runs
# as the unprivileged user `vireo`. Compose files: deploy/compose/.

# ---- build: the compiler and the -dev packages of scripts/install-deps.sh it needs ----------
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      g++ cmake ninja-build make pkg-config \
      libxxhash-dev libjemalloc-dev liblzf-dev libssl-dev liblua5.1-0-dev libedit-dev \
      lua-cjson-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIREO_TESTS=OFF \
 && ninja -C build vireo-server vireo-cli vireo-benchmark \
 && DESTDIR=/staging cmake --install build --prefix /usr --strip \
 && cat vireo.conf deploy/docker/container.conf > /staging/etc/vireo/vireo.conf

# ---- runtime: only the shared libraries the binaries load ---------------------------------
FROM debian:12-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libxxhash0 libjemalloc2 liblzf1 libssl3 liblua5.1-0 lua-cjson libedit2 \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system vireo \
 && useradd --system --gid vireo --home-dir /data --no-create-home --shell /usr/sbin/nologin vireo \
 && mkdir -p /data /etc/vireo \
 && chown vireo:vireo /data /etc/vireo
COPY --from=build /staging/usr/bin/vireo-server /staging/usr/bin/vireo-cli \
                  /staging/usr/bin/vireo-benchmark /usr/bin/
# Owned by vireo so CONFIG REWRITE can rewrite it.
COPY --from=build --chown=vireo:vireo /staging/etc/vireo/vireo.conf /etc/vireo/vireo.conf
COPY deploy/docker/docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh

VOLUME /data
WORKDIR /data
# 6379: clients; 16379: the cluster bus (port + 10000).
EXPOSE 6379 16379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["vireo-server", "/etc/vireo/vireo.conf"]
