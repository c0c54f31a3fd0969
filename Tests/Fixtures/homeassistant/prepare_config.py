"""Prepares an offline Home Assistant configuration directory for hap2mqtt's tests.

Usage: python prepare_config.py CONFIG_DIR HTTP_PORT MQTT_PORT [DISCOVERY_PREFIX]

Writes configuration.yaml (HTTP on 127.0.0.1:HTTP_PORT, nothing that reaches the internet; automations from
automations.yaml, which tests fill through the REST API to try device triggers), an MQTT config
entry for the broker on 127.0.0.1:MQTT_PORT with discovery on (since Home Assistant 2022.12 the broker can
only be set in a config entry), onboarding marked done, and an owner user with a long-lived access token
made by Home Assistant's own auth code. Prints the token as the only line on stdout.

Versions: 2024.3 reads the HTTP settings from the `http:` block of configuration.yaml. Versions with an HTTP
settings store (`homeassistant.components.http.config.HTTPConfigStore`, 2026) keep them in `.storage/http`
instead: they would move a YAML block there once as a "pending" trial, raise a deprecation repair, and go
back to the default port 8123 five minutes later. For those this writes the store as confirmed ("stable")
with Home Assistant's own store code, and no `http:` block.
"""

import asyncio
import json
import os
import sys
from datetime import timedelta

from homeassistant import auth, config_entries, core
from homeassistant.auth.const import GROUP_ID_ADMIN
from homeassistant.auth.models import TOKEN_TYPE_LONG_LIVED_ACCESS_TOKEN
from homeassistant.components.onboarding import STORAGE_VERSION as ONBOARDING_VERSION
from homeassistant.components.onboarding.const import STEPS
from homeassistant.util import dt as dt_util
from homeassistant.helpers import device_registry, entity_registry

try:
    from homeassistant.components.http import config as http_store
except ImportError:  # 2024.3: HTTP settings only in configuration.yaml
    http_store = None


def write_storage(config_dir: str, key: str, version: int, data: dict) -> None:
    """Writes one file of .storage in Home Assistant's own envelope."""
    path = os.path.join(config_dir, ".storage", key)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"version": version, "minor_version": 1, "key": key, "data": data}, f, indent=2)


async def write_http_store(hass: core.HomeAssistant, http_port: int) -> None:
    """Saves `.storage/http` with HTTP on 127.0.0.1:HTTP_PORT as the confirmed settings, the YAML
    migration marked done (so no revert is scheduled and no deprecation raised)."""
    store = http_store.HTTPConfigStore(hass)
    await store.async_load()
    settings = http_store.HTTP_STORAGE_SCHEMA({"server_host": ["127.0.0.1"], "server_port": http_port})
    # pylint: disable=protected-access
    store._stable = {**settings, "created_at": dt_util.utcnow().isoformat(), "error": None, "error_message": None}
    store._pending = None
    store._yaml_migration_done = True
    await store._async_persist()


async def make_token(config_dir: str, http_port: int) -> str:
    """Creates the owner and a long-lived access token, and saves the auth store at once (Home
    Assistant only schedules that save); writes the HTTP settings store where the version has one."""
    hass = core.HomeAssistant(config_dir)
    if http_store is not None:
        await write_http_store(hass, http_port)
    # The auth store reads the device and entity registries when it loads. 2026 sets the device registry
    # up before loading it, and loading the entity registry waits for the config entries.
    if hasattr(device_registry, "async_setup"):
        device_registry.async_setup(hass)
        hass.config_entries = config_entries.ConfigEntries(hass, {})
        await hass.config_entries.async_initialize()
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
    http_yaml = "" if http_store is not None else f"http:\n  server_host: 127.0.0.1\n  server_port: {http_port}\n"
    with open(os.path.join(config_dir, "configuration.yaml"), "w", encoding="utf-8") as f:
        f.write(
            "homeassistant:\n"
            "  name: hap2mqtt tests\n"
            "  unit_system: metric\n"
            "  time_zone: UTC\n"
            "  latitude: 0\n"
            "  longitude: 0\n"
            "  elevation: 0\n"
            + http_yaml
            + "api:\n"
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
    print(asyncio.run(make_token(config_dir, http_port)))


if __name__ == "__main__":
    main()
