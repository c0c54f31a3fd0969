# hap2mqtt's container image; docker-compose.yml builds and runs it (README "Docker"). scripts/docker-test
# builds it and runs it with the compose file in the tests.

# Build: the official Swift image plus the -dev packages of the C libraries (Package.swift), and rsync.
# Needs BuildKit for the cache mount: the default builder since Docker 23; with Debian's docker.io 20.10
# set DOCKER_BUILDKIT=1 (README "Docker").
FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libmosquitto-dev libssl-dev libyaml-dev libsystemd-dev \
        libavahi-client-dev libmicrohttpd-dev pkg-config rsync \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The commit `hap2mqtt --version` names comes from .git in the build context; where the context has none
# (a git worktree, an unpacked archive), pass it: --build-arg HAP2MQTT_COMMIT=$(git rev-parse --short=12 HEAD).
ARG HAP2MQTT_COMMIT=
# The build folder stays between builds in a BuildKit cache (/cache), so a rebuild after a change
# compiles only the modules that changed. The sources reach it with rsync --checksum: a file whose text is
# unchanged keeps its time there, whatever time the checkout gave it, so the build does not take it for new.
# --static-swift-stdlib links the Swift runtime and Foundation into the binary: the run stage then needs
# only the C libraries. Symbols are stripped: they are most of an unstripped binary's size.
RUN --mount=type=cache,id=hap2mqtt-swift-build,sharing=locked,target=/cache \
    export HAP2MQTT_COMMIT="${HAP2MQTT_COMMIT:-$(scripts/lib/build-commit --print /src)}" \
    && rsync -a --checksum --delete --exclude=/.build --exclude=/.git /src/ /cache/src/ \
    && cd /cache/src \
    && swift build -c release --product hap2mqtt --static-swift-stdlib \
    && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/hap2mqtt" /out/hap2mqtt \
    && strip /out/hap2mqtt

# Run: Debian slim with the runtime libraries (libsystemd0, for sd_notify, is in the base image already;
# it does nothing in a container; libavahi-client3 asks the host's avahi-daemon, over the host's D-Bus
# system bus that docker-compose.yml mounts, for the accessories announced on the network). hap2mqtt runs
# as its own user, hap2mqtt (uid and gid 10001), reads /app/Config/hap2mqtt.yaml when there is one, and
# keeps its state in the volume /app/data (mode 0700; every file in it 0600).
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libmosquitto1 libssl3 libyaml-0-2 libsystemd0 libavahi-client3 \
        libmicrohttpd12 \
        ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 hap2mqtt \
    && useradd --system --uid 10001 --gid hap2mqtt --home-dir /app --no-create-home --shell /usr/sbin/nologin hap2mqtt \
    && install -d -o hap2mqtt -g hap2mqtt -m 0700 /app/data
COPY --from=build /out/hap2mqtt /usr/local/bin/hap2mqtt
WORKDIR /app
USER 10001:10001
VOLUME ["/app/data"]
# The web page (frontend.enabled, on by default on 127.0.0.1; to reach it from outside the container it
# must listen on 0.0.0.0, which needs frontend.auth_token_file: README "Web page").
EXPOSE 8780
# Healthy while the gateway is connected to the broker and has synced the home: `hap2mqtt healthcheck`
# reads the health.json that `hap2mqtt run` keeps fresh in /app/data.
HEALTHCHECK --interval=15s --timeout=10s --start-period=60s --retries=3 CMD ["hap2mqtt", "healthcheck"]
ENTRYPOINT ["hap2mqtt"]
CMD ["run"]
