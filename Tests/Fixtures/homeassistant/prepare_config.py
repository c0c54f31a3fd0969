"""Prepares an offline Home Assistant configuration directory for hap2mqtt's tests.

Usage: python prepare_config.py CONFIG_DIR HTTP_PORT MQTT_PORT [DISCOVERY_PREFIX]

Writes configuration.yaml (HTTP on 127.0.0.1:HTTP_PORT, nothing that reaches the internet; automations from
automations.yaml, which tests fill through the REST API to try device triggers), an MQTT config
entry for the broker on 127.0.0.1:MQTT_PORT with discovery on (since Home Assistant 2022.12 the broker can
only be set in a config entry), onboarding marked done, and an owner user with a long-lived access token
made by Home Assistant's own auth code. Prints the token as the only line on stdout.
"""

import asyncio
import json
import os
import sys
from datetime import timedelta

from homeassistant import auth, core
from homeassistant.auth.const import GROUP_ID_ADMIN
from homeassistant.auth.models import TOKEN_TYPE_LONG_LIVED_ACCESS_TOKEN
from homeassistant.components.onboarding import STORAGE_VERSION as ONBOARDING_VERSION
from homeassistant.components.onboarding.const import STEPS
from homeassistant.helpers import device_registry, entity_registry


def write_storage(config_dir: str, key: str, version: int, data: dict) -> None:
    """Writes one file of .storage in Home Assistant's own envelope."""
    path = os.path.join(config_dir, ".storage", key)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"version": version, "minor_version": 1, "key": key, "data": data}, f, indent=2)


async def make_token(config_dir: str) -> str:
    """Creates the owner and a long-lived access token, and saves the auth store at once (Home
    Assistant only schedules that save)."""
    hass = core.HomeAssistant(config_dir)
    # The auth store reads the device and entity registries when it loads.
    await device_registry.async_load(hass)
    await entity_registry.async_load(hass)
    manager = await auth.auth_manager_from_config(hass, [{"type": "homeassistant"}], [])
    user = await manager.async_create_user("hap2mqtt tests", group_ids=[GROUP_ID_ADMIN])
    user.is_owner = True
    refresh = await manager.async_create_refresh_token(
        user,
        client_name="hap2mqtt tests",
        token_type=TOKEN_TYPE_LONG_LIVED_ACCESS_TOKEN,
        access_token_expiration=timedelta(days=3650),
    )
    token = manager.async_create_access_token(refresh)
    store = manager._store  # pylint: disable=protected-access
    await store._store.async_save(store._data_to_save())  # pylint: disable=protected-access
    await hass.async_stop(force=True)
    return token


def main() -> None:
    config_dir, http_port, mqtt_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    prefix = sys.argv[4] if len(sys.argv) > 4 else "homeassistant"
    os.makedirs(os.path.join(config_dir, ".storage"), exist_ok=True)
    with open(os.path.join(config_dir, "configuration.yaml"), "w", encoding="utf-8") as f:
        f.write(
            "homeassistant:\n"
            "  name: hap2mqtt tests\n"
            "  unit_system: metric\n"
            "  time_zone: UTC\n"
            "  latitude: 0\n"
            "  longitude: 0\n"
            "  elevation: 0\n"
            "http:\n"
            "  server_host: 127.0.0.1\n"
            f"  server_port: {http_port}\n"
            "api:\n"
            "automation: !include automations.yaml\n"
            "logger:\n"
            "  default: warning\n"
            "  logs:\n"
            "    homeassistant.components.mqtt: info\n"
        )
    with open(os.path.join(config_dir, "automations.yaml"), "w", encoding="utf-8") as f:
        f.write("[]\n")
    write_storage(config_dir, "onboarding", ONBOARDING_VERSION, {"done": list(STEPS)})
    write_storage(
        config_dir,
        "core.config_entries",
        1,
        {
            "entries": [
                {
                    "entry_id": "hap2mqtttestsmqttentry000000001",
                    "version": 1,
                    "minor_version": 1,
                    "domain": "mqtt",
                    "title": "hap2mqtt test broker",
                    "data": {
                        "broker": "127.0.0.1",
                        "port": mqtt_port,
                        "discovery": True,
                        "discovery_prefix": prefix,
                    },
                    "options": {},
                    "pref_disable_new_entities": False,
                    "pref_disable_polling": False,
                    "source": "user",
                    "unique_id": None,
                    "disabled_by": None,
                }
            ]
        },
    )
    print(asyncio.run(make_token(config_dir)))


if __name__ == "__main__":
    main()
