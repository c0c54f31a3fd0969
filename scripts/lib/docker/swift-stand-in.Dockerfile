# A stand-in for the official swift:6.3-bookworm image, for machines that cannot pull it
# (scripts/docker-test builds it only when the pull fails, and says so). Like the official image: Debian
# 12 with the packages it installs, the toolchain in /opt/swift/6.3 with its programs linked into
# /usr/bin, and the same PATH and LD_LIBRARY_PATH. The toolchain is the one installed on this machine
# (the build context's swift/), not a download.
FROM debian:bookworm-slim
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get -q update \
    && apt-get -q install -y binutils libicu-dev libcurl4-openssl-dev libedit-dev libsqlite3-dev \
        libncurses-dev libpython3-dev libxml2-dev pkg-config uuid-dev tzdata git gcc libstdc++-12-dev \
    && rm -rf /var/lib/apt/lists/*
COPY swift /opt/swift/6.3
RUN ln -sf /opt/swift/6.3/usr/bin/* /usr/bin/ && swift --version
ENV PATH=/opt/swift/6.3/usr/bin:$PATH
ENV LD_LIBRARY_PATH=/opt/swift/6.3/usr/lib/swift/linux
