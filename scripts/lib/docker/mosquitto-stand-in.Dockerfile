# A stand-in for the official eclipse-mosquitto:2 image, for machines that cannot pull it
# (scripts/docker-test builds it only when the pull fails, and says so): Debian's mosquitto 2, laid out
# as the official image is, so docker-compose.yml works with either. The user mosquitto (uid and gid
# 1883), /mosquitto/config, /mosquitto/data and /mosquitto/log with the last two as volumes, port 1883,
# the clients in /usr/bin, an entry point that gives /mosquitto to that user when started as root, and
# mosquitto -c /mosquitto/config/mosquitto.conf as the command (mosquitto drops to its user itself).
FROM debian:bookworm-slim
RUN groupadd --system --gid 1883 mosquitto \
    && useradd --system --uid 1883 --gid mosquitto --home-dir /var/empty --no-create-home \
        --shell /usr/sbin/nologin mosquitto \
    && export DEBIAN_FRONTEND=noninteractive \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends mosquitto mosquitto-clients \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /mosquitto/config /mosquitto/data /mosquitto/log \
    && printf 'listener 1883\nallow_anonymous false\n' > /mosquitto/config/mosquitto.conf \
    && chown -R mosquitto:mosquitto /mosquitto
COPY mosquitto-entrypoint.sh /docker-entrypoint.sh
VOLUME ["/mosquitto/data", "/mosquitto/log"]
EXPOSE 1883
ENTRYPOINT ["/docker-entrypoint.sh"]
CMD ["/usr/sbin/mosquitto", "-c", "/mosquitto/config/mosquitto.conf"]
