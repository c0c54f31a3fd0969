#!/bin/sh
# The stand-in eclipse-mosquitto image's entry point (mosquitto-stand-in.Dockerfile): started as root,
# it gives /mosquitto (volumes included) to the user mosquitto, then runs the command.
set -e
if [ "$(id -u)" = 0 ] && [ -d /mosquitto ]; then
    chown -R mosquitto:mosquitto /mosquitto || true
fi
exec "$@"
