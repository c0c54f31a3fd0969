#!/usr/bin/env python3
"""hap2mqtt's demo accessory: a HAP-python 5.0.0 bridge on 127.0.0.1 with ten accessories that react.

scripts/demo starts it, pairs hap2mqtt with it and runs the gateway. It listens on loopback only, never
advertises over mDNS and sends events at once (scripts/lib/hap_loopback.py, shared with the tests'
fixture). Its pairings and keys live in the state file, so a second run is still paired.

On stdout it prints one ready line, then one line for every write it accepts and for what the accessory
does about it ("Desk Lamp: brightness → 50"). HAP-python's own log goes to stderr. With --ready-file it
also writes {"port":…,"paired":…,"pairing_id":…,"setup_code":…} to that file (atomically) once it listens.

For tests (Tests/HAP2MQTTTesting/DemoBridge.swift) two options more, both off by default:
  --record FILE  appends one JSON line per accepted write, as the test fixture prints them, plus the number
                 of the HAP request it came in (writes in one request share it):
                 {"event":"set","accessory":"Desk Lamp","characteristic":"Hue","value":240,"type":"int","request":3}
  --control      opens the control channel of Tests/Fixtures/hap_fixture.py with its commands ping, set_value
                 and get_value (scripts/lib/hap_loopback.py); the ready file then carries "control_port".

The accessories (names are the accessory's Name, hap2mqtt makes its topics from them):
  Desk Lamp          Lightbulb: on, brightness, hue, saturation, color_temperature
  Fan                Switch
  Kettle             Outlet: outlet_in_use follows on
  Room Temperature   TemperatureSensor: a slow random walk, one step every 10 s
  Room Humidity      HumiditySensor
  Front Door         ContactSensor
  Hallway Motion     MotionSensor
  Front Door Lock    LockMechanism: the current state follows the target
  Thermostat         Thermostat: heating/cooling follows the mode (auto: the room temperature against
                     the target); its current temperature is the room's
  Bedroom Blind      WindowCovering: the position moves to the target in steps of 10 %
"""

import argparse
import json
import logging
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "lib"))

from pyhap import const  # noqa: E402
from pyhap.accessory import Accessory, Bridge  # noqa: E402
from pyhap.accessory_driver import AccessoryDriver  # noqa: E402
from pyhap.util import event_wait  # noqa: E402

from hap_loopback import find_char, make_driver, port_is_free, serve, start_control_server, typed, value_command  # noqa: E402

DEMO_CODE = "246-81-357"
DEMO_PAIRING_ID = "DE:30:A0:00:00:01"
LIGHT_NAME = "Desk Lamp"

DRIFT_INTERVAL = 10.0  # seconds between two steps of the room temperature's random walk
BLIND_STEP = 10  # percent the blind moves per step
BLIND_STEP_INTERVAL = 0.4  # seconds per step


def say(text):
    print(text, flush=True)


def slug(name):
    """HAP-python's CamelCase name as hap2mqtt's topic names it: ColorTemperature → color_temperature."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def shown(char, value):
    """A value as a user reads it: true/false, numbers, and an enumeration's name beside its number."""
    if isinstance(value, bool):
        return "true" if value else "false"
    names = {v: k for k, v in char.properties.get("ValidValues", {}).items()}
    if value in names:
        return f"{value} ({slug(names[value]).replace('_', ' ')})"
    return f"{value}"


def report(acc, char, value):
    say(f"{acc.display_name}: {slug(char.display_name)} → {shown(char, value)}")


class DemoDriver(AccessoryDriver):
    """Numbers the write requests (PUT /characteristics) and, with --record, writes each accepted write."""

    requests = 0
    record_file = None

    def set_characteristics(self, chars_query, client_addr):
        self.requests += 1
        return super().set_characteristics(chars_query, client_addr)

    def record(self, acc, char, value):
        if self.record_file:
            line = {"event": "set", "accessory": acc.display_name, "characteristic": char.display_name,
                    **typed(value), "request": self.requests}
            with open(self.record_file, "a", encoding="utf8") as f:
                f.write(json.dumps(line, separators=(",", ":")) + "\n")


def update(acc, char, value):
    """Changes a value as the accessory itself would (subscribers get an event) and says so."""
    if char.get_value() != value:
        char.set_value(value)
        report(acc, char, value)


class DemoAccessory(Accessory):
    """A bridged accessory with one service; every write it accepts is printed, then `react` runs."""

    def __init__(self, driver, name, category, service, chars=(), initial=None, model=None):
        super().__init__(driver, name)
        self.category = category
        self.add_preload_service(service, chars=list(chars))
        for char_name, value in (initial or {}).items():
            find_char(self, char_name).set_value(value, should_notify=False)
        self.set_info_service(
            firmware_revision="1.0.0", manufacturer="hap2mqtt demo", model=model or service,
            serial_number="DEMO-" + re.sub(r"\W+", "-", name).lower())
        for service_ in self.services:
            for char in service_.characteristics:
                if const.HAP_PERMISSION_WRITE in char.properties.get("Permissions", []):
                    char.setter_callback = lambda value, char=char: self.written(char, value)

    def char(self, name):
        return find_char(self, name)

    def written(self, char, value):
        report(self, char, value)
        self.driver.record(self, char, value)
        self.react(char.display_name, value)

    def react(self, name, value):
        """What the accessory does after a write to `name`; nothing by default."""


class Outlet(DemoAccessory):
    def __init__(self, driver, name):
        super().__init__(driver, name, const.CATEGORY_OUTLET, "Outlet")

    def react(self, name, value):
        if name == "On":
            update(self, self.char("OutletInUse"), bool(value))


class Lock(DemoAccessory):
    def __init__(self, driver, name):
        super().__init__(
            driver, name, const.CATEGORY_DOOR_LOCK, "LockMechanism",
            initial={"LockCurrentState": 1, "LockTargetState": 1})

    def react(self, name, value):
        if name == "LockTargetState":
            update(self, self.char("LockCurrentState"), value)


class Thermostat(DemoAccessory):
    def __init__(self, driver, name, room_temperature):
        super().__init__(
            driver, name, const.CATEGORY_THERMOSTAT, "Thermostat",
            initial={"CurrentTemperature": room_temperature, "TargetTemperature": 21.0,
                     "TargetHeatingCoolingState": 0, "CurrentHeatingCoolingState": 0})

    def react(self, name, value):
        if name in ("TargetHeatingCoolingState", "TargetTemperature"):
            self.follow_mode()

    def room_temperature_changed(self, value):
        self.char("CurrentTemperature").set_value(value)
        self.follow_mode()

    def follow_mode(self):
        mode = self.char("TargetHeatingCoolingState").get_value()
        if mode == 3:  # auto: heat below the target, cool above it
            current = self.char("CurrentTemperature").get_value()
            target = self.char("TargetTemperature").get_value()
            mode = 1 if current < target - 0.25 else 2 if current > target + 0.25 else 0
        update(self, self.char("CurrentHeatingCoolingState"), mode)


class Blind(DemoAccessory):
    def __init__(self, driver, name):
        super().__init__(
            driver, name, const.CATEGORY_WINDOW_COVERING, "WindowCovering",
            initial={"CurrentPosition": 0, "TargetPosition": 0, "PositionState": 2})
        self.moving = None

    def react(self, name, value):
        if name == "TargetPosition" and self.moving is None:
            self.step()

    def step(self):
        current = self.char("CurrentPosition").get_value()
        target = self.char("TargetPosition").get_value()
        if current == target:
            self.moving = None
            update(self, self.char("PositionState"), 2)
            return
        update(self, self.char("PositionState"), 1 if target > current else 0)
        delta = max(-BLIND_STEP, min(BLIND_STEP, target - current))
        update(self, self.char("CurrentPosition"), current + delta)
        self.moving = self.driver.loop.call_later(BLIND_STEP_INTERVAL, self.step)


class RoomTemperature(DemoAccessory):
    """Drifts: every DRIFT_INTERVAL seconds the temperature moves by up to 0.3 °C, kept within 18–24 °C."""

    def __init__(self, driver, name, initial, followers):
        super().__init__(
            driver, name, const.CATEGORY_SENSOR, "TemperatureSensor", initial={"CurrentTemperature": initial})
        self.followers = followers

    async def run(self):
        while not await event_wait(self.driver.aio_stop_event, DRIFT_INTERVAL):
            current = self.char("CurrentTemperature").get_value()
            value = round(min(24.0, max(18.0, current + random.choice((-0.3, -0.2, -0.1, 0.1, 0.2, 0.3)))), 1)
            self.char("CurrentTemperature").set_value(value)
            for follower in self.followers:
                follower.room_temperature_changed(value)


def make_accessories(driver):
    room = 21.0
    thermostat = Thermostat(driver, "Thermostat", room)
    return [
        DemoAccessory(
            driver, LIGHT_NAME, const.CATEGORY_LIGHTBULB, "Lightbulb",
            chars=["Brightness", "Hue", "Saturation", "ColorTemperature"],
            initial={"On": False, "Brightness": 100, "Hue": 30, "Saturation": 40, "ColorTemperature": 300}),
        DemoAccessory(driver, "Fan", const.CATEGORY_SWITCH, "Switch"),
        Outlet(driver, "Kettle"),
        RoomTemperature(driver, "Room Temperature", room, [thermostat]),
        DemoAccessory(
            driver, "Room Humidity", const.CATEGORY_SENSOR, "HumiditySensor", initial={"CurrentRelativeHumidity": 45}),
        DemoAccessory(driver, "Front Door", const.CATEGORY_SENSOR, "ContactSensor", initial={"ContactSensorState": 0}),
        DemoAccessory(
            driver, "Hallway Motion", const.CATEGORY_SENSOR, "MotionSensor", initial={"MotionDetected": False}),
        Lock(driver, "Front Door Lock"),
        thermostat,
        Blind(driver, "Bedroom Blind"),
    ]


class DemoBridge(Bridge):
    """Prints the ready line (and writes the ready file) once the HAP server listens."""

    ready_file = None
    control = False

    def setup_message(self):
        pass  # the ready line says what pairing needs; HAP-python's QR hint would only confuse

    def find(self, accessory, characteristic):
        for acc in self.accessories.values():
            if acc.display_name == accessory and find_char(acc, characteristic):
                return find_char(acc, characteristic)
        raise KeyError(f"no characteristic {characteristic!r} in an accessory {accessory!r}")

    def handle(self, command):
        answer = value_command(command, self.find)
        if answer is None and command.get("cmd") != "ping":
            raise KeyError(f"unknown command {command.get('cmd')!r}")
        return answer or {}

    async def run(self):
        state = self.driver.state
        paired = "paired" if state.paired else f"not paired: pair with setup code {DEMO_CODE}"
        control_port = None
        if self.control:
            self.control_server, control_port = await start_control_server(self.handle)
        say(f"Demo bridge ready: {len(self.accessories)} accessories on 127.0.0.1:{state.port}, {paired}")
        if self.ready_file:
            tmp = self.ready_file + ".tmp"
            ready = {"port": state.port, "paired": state.paired, "pairing_id": state.mac, "setup_code": DEMO_CODE}
            if control_port:
                ready["control_port"] = control_port
            with open(tmp, "w", encoding="utf8") as f:
                json.dump(ready, f)
            os.replace(tmp, self.ready_file)
        await super().run()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=51826, help="HAP port on 127.0.0.1 (default 51826)")
    parser.add_argument("--state", required=True, help="HAP-python's state file (pairings, keys, c#)")
    parser.add_argument("--ready-file", help="where to write the ready JSON once the bridge listens")
    parser.add_argument("--reset", action="store_true", help="start unpaired: delete the state file first")
    parser.add_argument("--log-level", default="WARNING", help="HAP-python's log level on stderr")
    parser.add_argument("--record", help="tests: append one JSON line per accepted write to this file")
    parser.add_argument("--control", action="store_true", help="tests: open the control channel")
    args = parser.parse_args()
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr)
    if args.reset and os.path.exists(args.state):
        os.remove(args.state)
    if not port_is_free(args.port):
        print(f"demo_bridge: port {args.port} on 127.0.0.1 is in use", file=sys.stderr, flush=True)
        sys.exit(2)
    driver = make_driver(DemoDriver, args.port, args.state, DEMO_CODE, DEMO_PAIRING_ID)
    driver.record_file = args.record
    bridge = DemoBridge(driver, "hap2mqtt Demo Bridge")
    bridge.ready_file = args.ready_file
    bridge.control = args.control
    bridge.set_info_service(
        firmware_revision="1.0.0", manufacturer="hap2mqtt demo", model="Bridge", serial_number="DEMO-bridge")
    for acc in make_accessories(driver):
        bridge.add_accessory(acc)
    driver.add_accessory(bridge)
    serve(driver)


if __name__ == "__main__":
    main()
