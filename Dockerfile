# hap2mqtt's container image; docker-compose.yml builds it. Not built where it was written (there was no
# Docker engine there): see docs/demo.md.

# Build: the official Swift image plus the -dev packages of the three C libraries (Package.swift).
FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libmosquitto-dev libssl-dev libyaml-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# --static-swift-stdlib links the Swift runtime and Foundation into the binary: the run stage then needs
# only the C libraries.
RUN swift build -c release --product hap2mqtt --static-swift-stdlib \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/hap2mqtt" /out/hap2mqtt

# Run: Debian slim with the runtime libraries. hap2mqtt reads /app/Config/hap2mqtt.yaml (when there is
# one) and keeps its pairings in /app/data, the two volumes of docker-compose.yml.
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libmosquitto1 libssl3 libyaml-0-2 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/hap2mqtt /usr/local/bin/hap2mqtt
WORKDIR /app
VOLUME ["/app/data"]
ENTRYPOINT ["hap2mqtt"]
CMD ["run"]
