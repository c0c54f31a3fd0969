# The Docker engine of scripts/docker-test: Debian's dockerd started on a private socket, with its own
# data root (kept between runs in the user's cache, so images and the layer cache survive) and exec root,
# no bridge network and no iptables rules: containers use the host's network (or the network namespace
# the engine runs in) and nothing else. Plus the stand-ins for registry images that cannot be pulled.
# Sourced, not run; needs root. Set DOCKER_WORK (a fresh folder) and DOCKER_DATA_ROOT first.

DOCKER=/usr/bin/docker  # Debian's client, matching its engine (another `docker` on PATH may not)
export DOCKER_HOST="unix://$DOCKER_WORK/docker.sock"

# docker_engine_start LOG: starts dockerd and waits until it answers.
docker_engine_start() {
    local log=$1 tenths=600
    # An engine left behind by a killed run holds the data root: end it first (by its pid file).
    local stale
    stale=$(cat "$DOCKER_DATA_ROOT.pid" 2>/dev/null || true)
    if [ -n "$stale" ] && [ "$(ps -p "$stale" -o comm= 2>/dev/null)" = dockerd ]; then
        echo "==> stopping dockerd (pid $stale) left over from an earlier run"
        docker_engine_stop_pid "$stale"
    fi
    mkdir -p "$DOCKER_DATA_ROOT" "$DOCKER_WORK/exec"
    dockerd --host "$DOCKER_HOST" --data-root "$DOCKER_DATA_ROOT" --exec-root "$DOCKER_WORK/exec" \
        --pidfile "$DOCKER_DATA_ROOT.pid" --bridge=none --iptables=false --ip-masq=false \
        >>"$log" 2>&1 &
    DOCKERD_PID=$!
    until "$DOCKER" info >/dev/null 2>&1; do
        if ! kill -0 "$DOCKERD_PID" 2>/dev/null || [ "$tenths" -le 0 ]; then
            tail -20 "$log" >&2
            echo "scripts/docker-test: dockerd did not start (log: $log)" >&2
            return 1
        fi
        sleep 0.1
        tenths=$((tenths - 1))
    done
}

# docker_engine_stop_pid PID: SIGTERM, up to 30 s for dockerd to stop its containers and containerd,
# then SIGKILL for it and its children.
docker_engine_stop_pid() {
    local pid=$1 tenths=300 children
    kill -TERM "$pid" 2>/dev/null || return 0
    while kill -0 "$pid" 2>/dev/null && [ "$tenths" -gt 0 ]; do sleep 0.1; tenths=$((tenths - 1)); done
    if kill -0 "$pid" 2>/dev/null; then
        children=$(pgrep -P "$pid" || true)
        kill -KILL "$pid" $children 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

# docker_engine_stop: stops the engine this shell started, if it runs.
docker_engine_stop() {
    [ -n "${DOCKERD_PID:-}" ] || return 0
    docker_engine_stop_pid "$DOCKERD_PID"
    DOCKERD_PID=""
}

# image_label IMAGE: the stand-in label of IMAGE ("" for a pulled image), or nothing when it is absent.
image_label() {
    "$DOCKER" image inspect -f '{{index .Config.Labels "org.hap2mqtt.stand-in"}}' "$1" 2>/dev/null
}

# need_image IMAGE KEY BUILD_FUNCTION: makes IMAGE available. A pull is tried first; when it fails, a
# stand-in made earlier with the same KEY is used, else BUILD_FUNCTION makes one (labelled with KEY).
need_image() {
    local image=$1 key=$2 build=$3 label started
    if "$DOCKER" pull -q "$image" >/dev/null 2>"$DOCKER_WORK/pull.log"; then
        echo "==> $image: pulled from the registry"
        return 0
    fi
    label=$(image_label "$image" || true)
    if "$DOCKER" image inspect "$image" >/dev/null 2>&1 && [ -z "$label" ]; then
        echo "==> $image: cannot be pulled ($(head -c 160 "$DOCKER_WORK/pull.log")); using the copy pulled earlier"
        return 0
    fi
    if [ "$label" = "$key" ]; then
        echo "==> $image: cannot be pulled here; using the local stand-in made earlier ($key)"
        return 0
    fi
    echo "==> $image: cannot be pulled here ($(head -c 160 "$DOCKER_WORK/pull.log")); making a local stand-in under that name"
    started=$SECONDS
    "$build" "$image" "$key"
    echo "    made in $((SECONDS - started)) s"
}

# The stand-in for debian:bookworm-slim: debootstrap's minbase of bookworm from the Debian archive, with
# the archive's updates and security suites, without what the official slim image leaves out too
# (downloaded packages, package lists, documentation, manual pages, locales), and with its apt and dpkg
# settings: apt keeps no package cache and no downloaded packages after an install, dpkg installs no
# documentation. Without them every apt-get layer built on it would carry tens of MB the official
# image's would not.
build_debian_stand_in() {
    local image=$1 key=$2 root="$DOCKER_WORK/rootfs"
    debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$DOCKER_WORK/debootstrap.log" 2>&1 \
        || { tail -20 "$DOCKER_WORK/debootstrap.log" >&2; return 1; }
    rm -f "$root/etc/apt/sources.list"
    cat >"$root/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    echo 'Acquire::Languages "none";' >"$root/etc/apt/apt.conf.d/docker-no-languages"
    echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$root/etc/apt/apt.conf.d/docker-autoremove-suggests"
    cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
EOF
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin "$root"/var/lib/apt/lists/* \
        "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/* "$root"/var/log/*.log
    find "$root/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete
    tar -C "$root" -c . | "$DOCKER" import --change 'CMD ["bash"]' \
        --change "LABEL org.hap2mqtt.stand-in=$key" - "$image" >/dev/null
    rm -rf "$root"
}

# The stand-in for swift:6.3-bookworm (scripts/lib/docker/swift-stand-in.Dockerfile), with the toolchain
# of this machine (the folder above the `swift` on PATH's usr/bin).
build_swift_stand_in() {
    local image=$1 key=$2 context="$DOCKER_WORK/swift-context" toolchain
    toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")
    [ -x "$toolchain/usr/bin/swift" ] || { echo "scripts/docker-test: no Swift toolchain at $toolchain" >&2; return 1; }
    mkdir -p "$context"
    # Hard links: the toolchain is large, and the build context only reads it.
    cp -al "$toolchain" "$context/swift" 2>/dev/null || cp -a "$toolchain" "$context/swift"
    cp scripts/lib/docker/swift-stand-in.Dockerfile "$context/Dockerfile"
    "$DOCKER" build -q --network host --label "org.hap2mqtt.stand-in=$key" -t "$image" "$context" \
        >"$DOCKER_WORK/swift-stand-in.log" 2>&1 || { tail -30 "$DOCKER_WORK/swift-stand-in.log" >&2; return 1; }
    rm -rf "$context"
}

# The stand-in for eclipse-mosquitto:2 (scripts/lib/docker/mosquitto-stand-in.Dockerfile).
build_mosquitto_stand_in() {
    local image=$1 key=$2
    "$DOCKER" build -q --network host --label "org.hap2mqtt.stand-in=$key" -t "$image" \
        -f scripts/lib/docker/mosquitto-stand-in.Dockerfile scripts/lib/docker \
        >"$DOCKER_WORK/mosquitto-stand-in.log" 2>&1 || { tail -30 "$DOCKER_WORK/mosquitto-stand-in.log" >&2; return 1; }
}

# ensure_base_images: debian:bookworm-slim, swift:6.3-bookworm and eclipse-mosquitto:2, pulled or made.
# A stand-in's key names what it was made from, so a changed recipe, base or toolchain makes it again.
ensure_base_images() {
    local base_key swift_key mosquitto_key base_id
    base_key="minbase-$(declare -f build_debian_stand_in | sha256sum | cut -c1-12)"
    need_image debian:bookworm-slim "$base_key" build_debian_stand_in
    base_id=$("$DOCKER" image inspect -f '{{.Id}}' debian:bookworm-slim | cut -c8-19)
    swift_key="$(swift --version 2>/dev/null | head -1 | tr -cd 'A-Za-z0-9.-' | cut -c1-40)-$base_id-$(
        sha256sum scripts/lib/docker/swift-stand-in.Dockerfile | cut -c1-12)"
    need_image swift:6.3-bookworm "$swift_key" build_swift_stand_in
    mosquitto_key="$base_id-$(cat scripts/lib/docker/mosquitto-stand-in.Dockerfile scripts/lib/docker/mosquitto-entrypoint.sh \
        | sha256sum | cut -c1-12)"
    need_image eclipse-mosquitto:2 "$mosquitto_key" build_mosquitto_stand_in
}
