# layoutd container image.
#   docker build -t layoutd .
#   docker run --rm -p 8080:8080 layoutd          # then: curl http://127.0.0.1:8080/healthz
# Settings: flags after the image name replace the default command (e.g. `serve --host 0.0.0.0
# --threads 4`), or mount another file over /etc/layoutd/layoutd.json.

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# --- build: the release binary, Swift runtime linked in statically ---
FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libevent-dev libsqlite3-dev libmimalloc-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product layoutd --static-swift-stdlib \
    && install -D "$(swift build -c release --show-bin-path)/layoutd" /out/layoutd

# --- run: a slim Debian with the libevent, SQLite and mimalloc shared libraries only ---
FROM ${RUNTIME_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends libevent-2.1-7 libevent-pthreads-2.1-7 libsqlite3-0 libmimalloc2.0 libstdc++6 tzdata \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/layoutd /usr/local/bin/layoutd
COPY config/layoutd.json /etc/layoutd/layoutd.json
ENV LAYOUTD_CONFIG=/etc/layoutd/layoutd.json
USER 65534:65534
EXPOSE 8080
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/layoutd"]
CMD ["serve", "--host", "0.0.0.0"]
