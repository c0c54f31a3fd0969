#!/usr/bin/env python3
"""A real HomeKit accessory for hap2mqtt's tests: a HAP-python 5.0.0 bridge on 127.0.0.1.

Started by Tests/HAP2MQTTTesting/HAPPythonAccessory.swift. It never advertises over mDNS and listens on
loopback only. Everything it reports goes to stdout as one JSON object per line:

  {"event":"ready","port":…,"control_port":…,"pairing_id":…,"config_version":…,"paired":…,"accessories":{…}}
  {"event":"set","accessory":"Light","characteristic":"Brightness","value":50,"type":"int","timed":false}
  {"event":"rejected","accessory":"Lock","characteristic":"LockTargetState","value":1,"type":"int","status":-70410}
  {"event":"prepare","ttl":10000,"pid":12345}
  {"event":"stopped"}

The control channel is a line-based TCP server on 127.0.0.1:<control_port>: one JSON command per line, one
JSON answer per line ({"ok":true,…} or {"ok":false,"error":"…"}). Commands:

  ping
  status                                            paired, config_version, pairing_id, accessories
  set_value accessory characteristic value          as the accessory itself would: subscribers get an event
                                                    (answers changed_ns: CLOCK_MONOTONIC before the change)
  get_value accessory characteristic               answers {"value":…,"type":"bool"|"int"|"float"|"str"|"null"}
  fail_writes accessory characteristic status       writes answer this HAP status (null: accept again)
  remove_accessory accessory                        live, and kept for the next start
  add_accessory accessory kind                      kind: light, color_light, switch, temperature, lock, thermostat, blind
  reset_pairings                                    forget every controller and drop their connections
  disconnect_clients                                drop every connection (pairings stay)

The loopback-only, mDNS-free driver with event coalescing 0, the control channel itself and its set_value
and get_value come from scripts/lib/hap_loopback.py, which the demo bridge shares. Facts about HAP-python
5.0.0 this fixture relies on besides (read from its source):
  * A characteristic setter that raises always answers -70402; there is no way for a setter to choose its
    HAP status. `pyhap.accessory_driver._wrap_char_setter` is looked up at call time, so wrapping it lets
    `fail_writes` answer any status (-70410, -70412, …) without touching the value.
  * Bridged accessories get aids 2, 3, … but never 7; here every accessory has a fixed aid so that removing
    one keeps the others' ids across restarts.
"""

import argparse
import json
import logging
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "lib"))

import pyhap.accessory_driver as accessory_driver_module  # noqa: E402
from pyhap.accessory import Accessory, Bridge  # noqa: E402
from pyhap.accessory_driver import AccessoryDriver  # noqa: E402
from pyhap import const  # noqa: E402

from hap_loopback import find_char, make_driver, port_is_free, serve, start_control_server, typed, value_command  # noqa: E402


def emit(obj):
    print(json.dumps(obj, separators=(",", ":")), flush=True)


# (accessory name, characteristic name) -> HAP status that writes answer instead of being applied.
FAILING = {}
_original_wrap_char_setter = accessory_driver_module._wrap_char_setter


def _wrap_char_setter(char, value, client_addr):
    key = (char.service.broker.display_name, char.display_name)
    status = FAILING.get(key)
    if status is not None:
        emit({"event": "rejected", "accessory": key[0], "characteristic": key[1], **typed(value), "status": status})
        return status, None
    return _original_wrap_char_setter(char, value, client_addr)


accessory_driver_module._wrap_char_setter = _wrap_char_setter


class FixtureDriver(AccessoryDriver):
    """Notes whether the write in progress is a timed one (top-level "pid") and reports prepares."""

    current_pid = None

    def set_characteristics(self, chars_query, client_addr):
        self.current_pid = chars_query.get(const.HAP_REPR_PID)
        try:
            return super().set_characteristics(chars_query, client_addr)
        finally:
            self.current_pid = None

    def prepare(self, prepare_query, client_addr):
        emit({"event": "prepare", "ttl": prepare_query.get("ttl"), "pid": prepare_query.get("pid")})
        return super().prepare(prepare_query, client_addr)


def record_setters(driver, acc, effects):
    """Every writable characteristic reports each accepted write; `effects` maps a name to what the
    accessory does next (e.g. the lock's current state follows its target)."""
    for service in acc.services:
        for char in service.characteristics:
            if const.HAP_PERMISSION_WRITE not in char.properties.get("Permissions", []):
                continue

            def setter(value, char=char):
                emit({
                    "event": "set", "accessory": acc.display_name, "characteristic": char.display_name,
                    **typed(value), "timed": driver.current_pid is not None,
                })
                effect = effects.get(char.display_name)
                if effect:
                    effect(value)

            char.setter_callback = setter


def make_accessory(driver, kind, name, aid):
    acc = Accessory(driver, name, aid=aid)
    effects = {}
    if kind == "light":
        acc.category = const.CATEGORY_LIGHTBULB
        acc.add_preload_service("Lightbulb", chars=["Brightness", "Hue", "Saturation", "ColorTemperature"])
    elif kind == "color_light":
        acc.category = const.CATEGORY_LIGHTBULB
        acc.add_preload_service("Lightbulb", chars=["Brightness", "Hue", "Saturation"])
    elif kind == "switch":
        acc.category = const.CATEGORY_SWITCH
        acc.add_preload_service("Switch")
    elif kind == "temperature":
        acc.category = const.CATEGORY_SENSOR
        acc.add_preload_service("TemperatureSensor")
        find_char(acc, "CurrentTemperature").set_value(21.5, should_notify=False)
    elif kind == "lock":
        acc.category = const.CATEGORY_DOOR_LOCK
        acc.add_preload_service("LockMechanism")
        target = find_char(acc, "LockTargetState")
        # Locks mark their target state for timed writes (HAP spec §9.52); HAP-python does not enforce it.
        target.override_properties(properties={"Permissions": ["pr", "pw", "ev", "tw"]})
        current = find_char(acc, "LockCurrentState")
        current.set_value(0, should_notify=False)
        effects["LockTargetState"] = current.set_value
    elif kind == "thermostat":
        acc.category = const.CATEGORY_THERMOSTAT
        acc.add_preload_service("Thermostat")
        find_char(acc, "CurrentTemperature").set_value(20.0, should_notify=False)
        find_char(acc, "TargetTemperature").set_value(21.0, should_notify=False)
        current = find_char(acc, "CurrentHeatingCoolingState")
        effects["TargetHeatingCoolingState"] = lambda v: current.set_value(v if v in (0, 1, 2) else 1)
    elif kind == "blind":
        acc.category = const.CATEGORY_WINDOW_COVERING
        acc.add_preload_service("WindowCovering")
        position = find_char(acc, "CurrentPosition")
        state = find_char(acc, "PositionState")
        state.set_value(2, should_notify=False)

        def move(value):
            position.set_value(value)
            state.set_value(2)

        effects["TargetPosition"] = move
    else:
        raise ValueError(f"unknown accessory kind {kind!r}")
    acc.set_info_service(
        firmware_revision="1.0.0", manufacturer="hap2mqtt tests", model=kind, serial_number=f"HAP2MQTT-{aid}")
    record_setters(driver, acc, effects)
    return acc


DEFAULT_ACCESSORIES = [
    ("Light", "light", 2),
    ("Switch", "switch", 3),
    ("Temperature", "temperature", 4),
    ("Lock", "lock", 5),
    ("Thermostat", "thermostat", 6),
    ("Blind", "blind", 8),
]


def scale_accessories(count):
    """The scale profile (--lights N): N colour lights "Light 1"…"Light N" with aids 2…N+1, each with 10
    characteristics (AccessoryInformation's 6; On, Brightness, Hue, Saturation), for the benchmarks'
    bridges of up to 149 bridged accessories (HAP's limit of 150 accessories per bridge)."""
    return [(f"Light {n}", "color_light", n + 1) for n in range(1, count + 1)]


class Layout:
    """Accessories removed or added through the control channel, kept beside the state file."""

    def __init__(self, path, defaults=DEFAULT_ACCESSORIES):
        self.path = path
        self.defaults = defaults
        self.removed = []
        self.added = []
        if os.path.exists(path):
            with open(path, encoding="utf8") as f:
                data = json.load(f)
            self.removed = data.get("removed", [])
            self.added = data.get("added", [])

    def save(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf8") as f:
            json.dump({"removed": self.removed, "added": self.added}, f)
        os.replace(tmp, self.path)

    def accessories(self):
        wanted = [a for a in self.defaults if a[0] not in self.removed]
        wanted += [(a["name"], a["kind"], a["aid"]) for a in self.added if a["name"] not in self.removed]
        return wanted


class FixtureBridge(Bridge):
    """The bridge; once the HAP server listens it opens the control channel and prints the ready line."""

    fixture = None

    def setup_message(self):
        pass  # the QR code would clutter stdout, which carries JSON lines only

    async def run(self):
        await self.fixture.started()


class Fixture:
    def __init__(self, args):
        self.args = args
        defaults = scale_accessories(args.lights) if args.lights is not None else DEFAULT_ACCESSORIES
        self.layout = Layout(args.state + ".layout.json", defaults)
        self.driver = make_driver(FixtureDriver, args.port, args.state, args.code, args.pairing_id)
        self.bridge = FixtureBridge(self.driver, "hap2mqtt Test Bridge")
        self.bridge.fixture = self
        self.bridge.set_info_service(
            firmware_revision="5.0.0", manufacturer="HAP-python", model="Bridge", serial_number="HAP2MQTT-1")
        for name, kind, aid in self.layout.accessories():
            self.bridge.add_accessory(make_accessory(self.driver, kind, name, aid))
        self.driver.add_accessory(self.bridge)
        self.control_server = None

    def accessory(self, name):
        if name == self.bridge.display_name:
            return self.bridge
        for acc in self.bridge.accessories.values():
            if acc.display_name == name:
                return acc
        raise KeyError(f"no accessory {name!r}")

    def char(self, accessory, name):
        char = find_char(self.accessory(accessory), name)
        if char is None:
            raise KeyError(f"accessory {accessory!r} has no characteristic {name!r}")
        return char

    def summary(self):
        return {
            "paired": self.driver.state.paired,
            "config_version": self.driver.state.config_version,
            "pairing_id": self.driver.state.mac,
            "accessories": {acc.display_name: aid for aid, acc in sorted(self.bridge.accessories.items())},
        }

    async def started(self):
        self.control_server, control_port = await start_control_server(self.handle)
        emit({"event": "ready", "port": self.args.port, "control_port": control_port, **self.summary()})

    def configuration_changed(self):
        if self.driver.state.set_accessories_hash(self.driver.accessories_hash):
            self.driver.persist()
            self.driver.update_advertisement()

    def drop_connections(self):
        for protocol in list(self.driver.http_server.connections.values()):
            protocol.close()

    def handle(self, command):
        cmd = command.get("cmd")
        if cmd == "ping":
            return {}
        if cmd == "status":
            return self.summary()
        answer = value_command(command, self.char)
        if answer is not None:
            return answer
        if cmd == "fail_writes":
            char = self.char(command["accessory"], command["characteristic"])
            key = (command["accessory"], char.display_name)
            if command.get("status") is None:
                FAILING.pop(key, None)
            else:
                FAILING[key] = int(command["status"])
            return {}
        if cmd == "remove_accessory":
            acc = self.accessory(command["accessory"])
            if acc is self.bridge:
                raise KeyError("the bridge itself cannot be removed")
            del self.bridge.accessories[acc.aid]
            self.layout.removed.append(acc.display_name)
            self.layout.save()
            self.configuration_changed()
            return self.summary()
        if cmd == "add_accessory":
            name = command["accessory"]
            if any(a.display_name == name for a in self.bridge.accessories.values()):
                raise KeyError(f"accessory {name!r} exists already")
            used = set(self.bridge.accessories) | {a["aid"] for a in self.layout.added} | {a[2] for a in self.layout.defaults}
            aid = next(n for n in range(2, 1000) if n != 7 and n not in used)
            self.bridge.add_accessory(make_accessory(self.driver, command["kind"], name, aid))
            if name in self.layout.removed:
                self.layout.removed.remove(name)
            self.layout.added.append({"name": name, "kind": command["kind"], "aid": aid})
            self.layout.save()
            self.configuration_changed()
            return self.summary()
        if cmd == "reset_pairings":
            state = self.driver.state
            state.paired_clients.clear()
            state.client_properties.clear()
            state.uuid_to_bytes.clear()
            self.driver.persist()
            self.driver.update_advertisement()
            self.drop_connections()
            return self.summary()
        if cmd == "disconnect_clients":
            self.drop_connections()
            return {}
        raise KeyError(f"unknown command {cmd!r}")

    def run(self):
        serve(self.driver)
        emit({"event": "stopped"})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--state", required=True, help="HAP-python's state file (pairings, keys, c#)")
    parser.add_argument("--code", default="031-45-154", help="setup code XXX-XX-XXX")
    parser.add_argument("--pairing-id", default=None, help="fixed pairing id XX:XX:XX:XX:XX:XX for a fresh state")
    parser.add_argument("--reset", action="store_true", help="start unpaired: delete the state and layout files")
    parser.add_argument("--lights", type=int, default=None, metavar="N",
                        help="the scale profile: N lights of 10 characteristics each instead of the six accessories")
    parser.add_argument("--log-level", default="WARNING")
    args = parser.parse_args()
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr)
    if args.reset:
        for path in (args.state, args.state + ".layout.json"):
            if os.path.exists(path):
                os.remove(path)
    if not port_is_free(args.port):
        emit({"event": "error", "reason": "port_in_use", "error": f"port {args.port} is in use"})
        sys.exit(2)
    Fixture(args).run()


if __name__ == "__main__":
    main()
