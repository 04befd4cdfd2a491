# layoutd container image (README "Container").
#   docker build -t layoutd .
#   docker run --rm -v layoutd-keys:/etc/layoutd/keys layoutd keys new alice --file /etc/layoutd/keys/api-keys
#   docker run --rm -p 8080:8080 -v layoutd-data:/var/lib/layoutd/data -v layoutd-keys:/etc/layoutd/keys layoutd
#   curl http://127.0.0.1:8080/readyz
# API keys (docs/deploy.md "Container"): `serve` needs /etc/layoutd/keys/api-keys, mounted as a
# directory; `serve --allow-anonymous` is the deliberate way to serve without keys.
# Settings: environment variables (-e LAYOUTD_THREADS=4, -e LAYOUTD_STORE=memory; docs/operations.md),
# flags after the image name (`serve --threads 4`), or another file mounted over
# /etc/layoutd/layoutd.json. Whatever they say, `serve` listens on 0.0.0.0 inside the container
# (docker/entrypoint.sh appends `--host 0.0.0.0` last; the last --host wins).

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# --- build: the release binary, Swift runtime linked in statically ---
# The -dev package of every .systemLibrary target of Package.swift (its `providers: [.apt([...])]`),
# and pkg-config for those found through it. Tests/DaemonTests/ContainerImageTests.swift fails when
# one is missing here, or a library the binary links has no package in the runtime stage below.
FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libevent-dev libsqlite3-dev libpq-dev libmimalloc-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product layoutd --static-swift-stdlib \
    && install -D "$(swift build -c release --show-bin-path)/layoutd" /out/layoutd

# --- run: a slim Debian with the libevent, SQLite, libpq and mimalloc shared libraries only ---
# Debian 12 packages of the shared objects the binary names (libevent-2.1.so.7,
# libevent_pthreads-2.1.so.7, libsqlite3.so.0, libpq.so.5, libmimalloc.so.2); what they load in
# turn (libpq5: libssl3, libgssapi-krb5-2, libldap-2.5-0) comes with them as their dependencies.
FROM ${RUNTIME_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends libevent-2.1-7 libevent-pthreads-2.1-7 libsqlite3-0 libpq5 libmimalloc2.0 libstdc++6 tzdata \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/layoutd /usr/local/bin/layoutd
COPY docker/entrypoint.sh /usr/local/bin/layoutd-entrypoint
COPY config/layoutd.json /etc/layoutd/layoutd.json
# The store of config/layoutd.json is sqlite:data/layoutd.db, relative to the working directory:
# /var/lib/layoutd/data, a volume, so sessions outlive the container.
# /etc/layoutd/keys: where the keys file is mounted (a new named volume takes this owner, so
# `layoutd keys new` run in the image can write it there).
RUN mkdir -p /var/lib/layoutd/data /etc/layoutd/keys && chown -R 65534:65534 /var/lib/layoutd /etc/layoutd/keys
WORKDIR /var/lib/layoutd
VOLUME ["/var/lib/layoutd/data"]
# The keys file (issue 29): on 0.0.0.0 the daemon refuses to serve without one (protected mode),
# and `layoutd probe` (HEALTHCHECK) reads the same settings. docker/entrypoint.sh drops it for
# `serve --allow-anonymous`.
ENV LAYOUTD_CONFIG=/etc/layoutd/layoutd.json \
    LAYOUTD_HOST=0.0.0.0 \
    LAYOUTD_API_KEYS_FILE=/etc/layoutd/keys/api-keys
USER 65534:65534
EXPOSE 8080
STOPSIGNAL SIGTERM
# No curl in the slim image: `layoutd probe` GETs /readyz on the port the settings name.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["/usr/local/bin/layoutd", "probe"]
ENTRYPOINT ["/usr/local/bin/layoutd-entrypoint"]
CMD ["serve"]
