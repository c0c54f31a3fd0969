#!/usr/bin/env python3
"""A real HomeKit accessory for hap2mqtt's tests: a HAP-python 5.0.0 bridge on 127.0.0.1.

Started by Tests/HAP2MQTTTesting/HAPPythonAccessory.swift. It listens on loopback only and never advertises
over mDNS, except with --mdns, which only works inside a private network namespace with lo alone (the
discovery tests, scripts/lib/avahi-namespace): HAP-python's own zeroconf then announces `_hap._tcp` there. Everything it reports goes to stdout as one JSON object per line:

  {"event":"ready","port":…,"control_port":…,"ready_ns":…,"pairing_id":…,"config_version":…,"paired":…,"accessories":{…}}
                                                    (ready_ns: CLOCK_MONOTONIC when the server listens and,
                                                    with --mdns, its first announcement has gone out)
  {"event":"set","accessory":"Light","characteristic":"Brightness","value":50,"type":"int","timed":false,"request":3}
                                                    (request: which PUT /characteristics carried it, from 1)
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
  fail_writes accessory characteristic status       writes answer this HAP status (null: accept again);
                                                    with "applied":true the value is stored first, as
                                                    HAP-python does when a setter raises (-70402)
  remove_accessory accessory                        live, and kept for the next start
  add_accessory accessory kind                      kind: light, color_light, switch, temperature, lock, thermostat, blind
                                                    (and the kinds of the homeassistant profile)

A characteristic name may end in #N for the N-th characteristic of that name in the accessory (the
buttons of a remote: ProgrammableSwitchEvent#2). Setter lines carry the service's name too ("service").
With --profile homeassistant the bridge holds one accessory per kind of HOMEASSISTANT_ACCESSORIES instead
of the six; a camera's snapshots are reported as
  {"event":"snapshot","accessory":"Camera","width":640,"height":480,"bytes":…,"path":"<the JPEG file sent>"}
  reset_pairings                                    forget every controller and drop their connections
  disconnect_clients                                drop every connection (pairings stay)
  flood_events accessory characteristic seconds     change the value (an int, from its minimum to its maximum
                                                    and round again) as fast as the event loop allows for that
                                                    long, each change an event to subscribers, as a faulty
                                                    accessory might; answers at once. The last value set is
                                                    the maximum. seconds 0 stops a flood under way.
  flood_status                                      {"events":N,"running":bool}: changes made by the last flood
  storm seconds [exclude] [slices]                  for `seconds` rounds of one second, change On, Brightness, Hue and
                                                    Saturation of every colour light (--lights) but those named
                                                    in exclude, each an event to subscribers; a round is cut
                                                    in `slices` (20) slices, a light in slice aid % slices,
                                                    each slice at its own moment of the second. Round k sets On
                                                    k % 2 == 1, Brightness and Saturation k % 101, Hue k % 361.
                                                    Answers at once with the iids of those four
                                                    ({"iids":{"On":9,…}}, the same in every light);
                                                    seconds 0 answers that alone and starts nothing.
  storm_status                                      {"running":bool,"changes":N,"stamps":[[round,slice,ns],…]}:
                                                    CLOCK_MONOTONIC just before each slice was changed
  misbehave [silent_events] [read_limit] [idle_close]  as real accessories do; each key given replaces its
                                                    setting: silent_events [[accessory, characteristic],…] whose
                                                    events are never sent (the subscription is accepted);
                                                    read_limit N: a GET /characteristics of more than N ids is
                                                    answered -70407 (out of resources) for each (null: off);
                                                    idle_close S: connections quiet (no byte either way) for S
                                                    seconds are closed (null: off). Answers the counts below
  misbehaviour                                      {"refused_reads":N,"idle_closes":N,"largest_read":N}

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
import asyncio
import json
import logging
import os
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "lib"))

import pyhap.accessory_driver as accessory_driver_module  # noqa: E402
from pyhap.accessory import Accessory, Bridge  # noqa: E402
from pyhap.accessory_driver import AccessoryDriver  # noqa: E402
from pyhap.camera import VIDEO_CODEC_PARAM_LEVEL_TYPES, VIDEO_CODEC_PARAM_PROFILE_ID_TYPES, Camera  # noqa: E402
from pyhap.characteristic import Characteristic  # noqa: E402
from pyhap.service import Service  # noqa: E402
from pyhap import RESOURCE_DIR, const  # noqa: E402

from device_accessories import build_device  # noqa: E402
from hap_loopback import NoZeroconf, find_char, make_driver, port_is_free, serve, start_control_server, typed, value_command  # noqa: E402


def emit(obj):
    print(json.dumps(obj, separators=(",", ":")), flush=True)


# (accessory name, characteristic name) -> (HAP status that writes answer, whether the value is stored anyway).
FAILING = {}

# Whether each accepted write is printed ("set" lines); --quiet-writes turns it off, so that the process
# reading the lines (hap2mqtt-bench's `hap`) does not count their parsing as its controller's CPU time.
RECORD_WRITES = True
_original_wrap_char_setter = accessory_driver_module._wrap_char_setter


def _wrap_char_setter(char, value, client_addr):
    key = (char.service.broker.display_name, char.display_name)
    failing = FAILING.get(key)
    if failing is not None:
        status, applied = failing
        if applied:
            char.set_value(value, should_notify=False)
        emit({"event": "rejected", "accessory": key[0], "characteristic": key[1], **typed(value), "status": status})
        return status, None
    return _original_wrap_char_setter(char, value, client_addr)


accessory_driver_module._wrap_char_setter = _wrap_char_setter


class Misbehaviour:
    """What the accessory does wrong (the misbehave command)."""

    def __init__(self):
        self.silent = set()  # (aid, iid) whose events are dropped
        self.read_limit = None
        self.idle_close = None
        self.refused_reads = 0
        self.idle_closes = 0
        self.largest_read = 0

    def counts(self):
        return {"refused_reads": self.refused_reads, "idle_closes": self.idle_closes, "largest_read": self.largest_read}


MISBEHAVIOUR = Misbehaviour()


class FixtureDriver(AccessoryDriver):
    """Notes whether the write in progress is a timed one (top-level "pid") and which PUT /characteristics
    it is (counted from 1: the setter lines carry it as "request"), and reports prepares; drops the events
    and refuses the reads that MISBEHAVIOUR asks for."""

    current_pid = None
    write_requests = 0

    def publish(self, data, sender_client_addr=None, immediate=False):
        if (data[const.HAP_REPR_AID], data[const.HAP_REPR_IID]) in MISBEHAVIOUR.silent:
            return
        super().publish(data, sender_client_addr, immediate)

    def get_characteristics(self, char_ids):
        limit = MISBEHAVIOUR.read_limit
        if limit is not None and len(char_ids) > limit:
            MISBEHAVIOUR.refused_reads += 1
            refused = []
            for aid_iid in char_ids:
                aid, iid = (int(i) for i in aid_iid.split("."))
                refused.append({const.HAP_REPR_AID: aid, const.HAP_REPR_IID: iid, const.HAP_REPR_STATUS: -70407})
            return {const.HAP_REPR_CHARS: refused}
        MISBEHAVIOUR.largest_read = max(MISBEHAVIOUR.largest_read, len(char_ids))
        return super().get_characteristics(char_ids)

    def set_characteristics(self, chars_query, client_addr):
        self.current_pid = chars_query.get(const.HAP_REPR_PID)
        self.write_requests += 1
        try:
            return super().set_characteristics(chars_query, client_addr)
        finally:
            self.current_pid = None

    def prepare(self, prepare_query, client_addr):
        emit({"event": "prepare", "ttl": prepare_query.get("ttl"), "pid": prepare_query.get("pid")})
        return super().prepare(prepare_query, client_addr)

    async def async_stop(self):
        """With --mdns, say goodbye before stopping, as an accessory that shuts down cleanly does: HAP-python
        5.0.0 closes its zeroconf without waiting for the goodbye packets, so none go out, and the
        announcement of the next start would repeat records the daemon still holds."""
        if not isinstance(self.advertiser, NoZeroconf):
            goodbyes = await self.advertiser.async_unregister_service(self.mdns_service_info)
            await goodbyes
            await self.advertiser.async_close()
            self.advertiser = NoZeroconf()
        await super().async_stop()


def record_setters(driver, acc, effects):
    """Every writable characteristic reports each accepted write; `effects` maps a name to what the
    accessory does next (e.g. the lock's current state follows its target)."""
    for service in acc.services:
        for char in service.characteristics:
            if const.HAP_PERMISSION_WRITE not in char.properties.get("Permissions", []):
                continue

            def setter(value, char=char, service=service):
                if RECORD_WRITES:
                    emit({
                        "event": "set", "accessory": acc.display_name, "characteristic": char.display_name,
                        "service": service.display_name, **typed(value), "timed": driver.current_pid is not None,
                        "request": driver.write_requests,
                    })
                effect = effects.get(char.display_name)
                if effect:
                    effect(value)

            char.setter_callback = setter


class FixtureCamera(Camera):
    """A camera whose snapshot is HAP-python's own sample JPEG; every request is reported."""

    def get_snapshot(self, image_size):
        path = os.path.join(RESOURCE_DIR, "snapshot.jpg")
        with open(path, "rb") as f:
            image = f.read()
        emit({
            "event": "snapshot", "accessory": self.display_name, "width": image_size.get("image-width"),
            "height": image_size.get("image-height"), "bytes": len(image), "path": path,
        })
        return image


CAMERA_OPTIONS = {
    "video": {
        "codec": {"profiles": [VIDEO_CODEC_PARAM_PROFILE_ID_TYPES["BASELINE"]], "levels": [VIDEO_CODEC_PARAM_LEVEL_TYPES["TYPE3_1"]]},
        "resolutions": [[640, 480, 30], [320, 240, 15]],
    },
    "audio": {"codecs": [{"type": "OPUS", "samplerate": 24}]},
    "address": "127.0.0.1",
}

# A vendor service and characteristics (random-looking UUIDs outside Apple's base), as accessories of
# other makers have them.
VENDOR_SERVICE = uuid.UUID("3F9C2A10-7B4E-4C1D-9A55-0D2E6B8A1C01")
VENDOR_LEVEL = uuid.UUID("3F9C2A10-7B4E-4C1D-9A55-0D2E6B8A1C02")
VENDOR_NIGHT_MODE = uuid.UUID("3F9C2A10-7B4E-4C1D-9A55-0D2E6B8A1C03")
VENDOR_GREETING = uuid.UUID("3F9C2A10-7B4E-4C1D-9A55-0D2E6B8A1C04")


def set_initial(acc, values):
    """Sets starting values without events: {characteristic name: value}."""
    for name, value in values.items():
        find_char(acc, name).set_value(value, should_notify=False)


def make_homeassistant_accessory(driver, kind, name, aid):
    """The accessories of the homeassistant profile: one per service type that Home Assistant gets a
    control for (Tests/IntegrationTests/HomeAssistantServicesTests.swift). Returns (accessory, effects)."""
    effects = {}
    if kind == "camera":
        acc = FixtureCamera(CAMERA_OPTIONS, driver, name, aid=aid)
        return acc, effects
    acc = Accessory(driver, name, aid=aid)
    if kind == "stepped_light":
        acc.category = const.CATEGORY_LIGHTBULB
        acc.add_preload_service("Lightbulb", chars=["Brightness"])
        find_char(acc, "Brightness").override_properties(properties={"minStep": 5})
        set_initial(acc, {"On": True, "Brightness": 50})
    elif kind == "stepped_fan":
        acc.category = const.CATEGORY_FAN
        acc.add_preload_service("Fanv2", chars=["RotationSpeed", "RotationDirection", "SwingMode", "TargetFanState"])
        find_char(acc, "RotationSpeed").override_properties(properties={"minStep": 25})
        set_initial(acc, {"Active": 1, "RotationSpeed": 50})
    elif kind == "air_purifier":
        acc.category = const.CATEGORY_AIR_PURIFIER
        purifier = acc.add_preload_service("AirPurifier", chars=["RotationSpeed", "SwingMode", "LockPhysicalControls"])
        purifier.is_primary_service = True
        filter_service = acc.add_preload_service("FilterMaintenance", chars=["FilterLifeLevel", "ResetFilterIndication"])
        purifier.add_linked_service(filter_service)
        set_initial(acc, {"Active": 1, "CurrentAirPurifierState": 2, "TargetAirPurifierState": 1, "RotationSpeed": 40,
                          "FilterChangeIndication": 0, "FilterLifeLevel": 80})
        state = find_char(acc, "CurrentAirPurifierState")
        effects["Active"] = lambda v: state.set_value(2 if v else 0)
        change, life = find_char(acc, "FilterChangeIndication"), find_char(acc, "FilterLifeLevel")

        def reset_filter(_):
            life.set_value(100)
            change.set_value(0)

        effects["ResetFilterIndication"] = reset_filter
    elif kind == "humidifier":
        acc.category = const.CATEGORY_HUMIDIFIER
        acc.add_preload_service("HumidifierDehumidifier", chars=[
            "RelativeHumidityHumidifierThreshold", "RelativeHumidityDehumidifierThreshold", "RotationSpeed", "WaterLevel"])
        set_initial(acc, {"Active": 1, "CurrentRelativeHumidity": 38, "CurrentHumidifierDehumidifierState": 2,
                          "TargetHumidifierDehumidifierState": 1, "RelativeHumidityHumidifierThreshold": 45,
                          "RelativeHumidityDehumidifierThreshold": 60, "WaterLevel": 70})
        state = find_char(acc, "CurrentHumidifierDehumidifierState")
        effects["TargetHumidifierDehumidifierState"] = lambda v: state.set_value({0: 1, 1: 2, 2: 3}.get(v, 1))
    elif kind == "television":
        acc.category = const.CATEGORY_TELEVISION
        tv = acc.add_preload_service("Television", chars=["RemoteKey", "PictureMode"])
        tv.is_primary_service = True
        tv.configure_char("ConfiguredName", value=name)
        for identifier, (source_name, shown) in enumerate([("HDMI 1", True), ("Apple TV", True), ("Old VCR", False)], start=1):
            source = acc.add_preload_service("InputSource", chars=["Identifier", "Name"], unique_id=source_name)
            source.configure_char("Name", value=source_name)
            source.configure_char("ConfiguredName", value=source_name)
            source.configure_char("Identifier", value=identifier)
            source.configure_char("IsConfigured", value=1)
            source.configure_char("InputSourceType", value=3)
            source.configure_char("CurrentVisibilityState", value=0 if shown else 1)
            tv.add_linked_service(source)
        speaker = acc.add_preload_service("TelevisionSpeaker", chars=["Active", "Volume", "VolumeControlType", "VolumeSelector"])
        tv.add_linked_service(speaker)
        set_initial(acc, {"Active": 1, "ActiveIdentifier": 1, "Mute": False, "Volume": 30, "VolumeControlType": 3})
        volume = find_char(acc, "Volume")
        effects["VolumeSelector"] = lambda v: volume.set_value(max(0, min(100, volume.value + (5 if v == 0 else -5))))
    elif kind == "tilting_blind":
        acc.category = const.CATEGORY_WINDOW_COVERING
        acc.add_preload_service("WindowCovering", chars=[
            "HoldPosition", "CurrentHorizontalTiltAngle", "TargetHorizontalTiltAngle",
            "CurrentVerticalTiltAngle", "TargetVerticalTiltAngle", "ObstructionDetected"])
        set_initial(acc, {"CurrentPosition": 100, "TargetPosition": 100, "PositionState": 2,
                          "CurrentHorizontalTiltAngle": 0, "TargetHorizontalTiltAngle": 0})
        position, target, movement = find_char(acc, "CurrentPosition"), find_char(acc, "TargetPosition"), find_char(acc, "PositionState")
        tilt = find_char(acc, "CurrentHorizontalTiltAngle")
        vertical = find_char(acc, "CurrentVerticalTiltAngle")

        def move(value):
            # It starts moving and stays on its way until HoldPosition stops it where it is.
            movement.set_value(1 if value > position.value else 0 if value < position.value else 2)

        def hold(_):
            position.set_value(50)
            target.set_value(50)
            movement.set_value(2)

        effects["TargetPosition"] = move
        effects["HoldPosition"] = hold
        effects["TargetHorizontalTiltAngle"] = tilt.set_value
        effects["TargetVerticalTiltAngle"] = vertical.set_value
    elif kind == "heater_cooler":
        acc.category = const.CATEGORY_AIR_CONDITIONER
        acc.add_preload_service("HeaterCooler", chars=[
            "HeatingThresholdTemperature", "CoolingThresholdTemperature", "RotationSpeed", "SwingMode",
            "TemperatureDisplayUnits", "LockPhysicalControls"])
        set_initial(acc, {"Active": 1, "CurrentHeaterCoolerState": 2, "TargetHeaterCoolerState": 1, "CurrentTemperature": 19.0,
                          "HeatingThresholdTemperature": 21.0, "CoolingThresholdTemperature": 26.0, "RotationSpeed": 100,
                          "SwingMode": 0, "TemperatureDisplayUnits": 0, "LockPhysicalControls": 0})
        state = find_char(acc, "CurrentHeaterCoolerState")
        effects["TargetHeaterCoolerState"] = lambda v: state.set_value({0: 1, 1: 2, 2: 3}.get(v, 1))
    elif kind == "door_lock":
        acc.category = const.CATEGORY_DOOR_LOCK
        acc.add_preload_service("LockMechanism")
        set_initial(acc, {"LockCurrentState": 1, "LockTargetState": 1})
        # The bolt moves only when the test says so (set_value LockCurrentState), so that Home Assistant
        # can be seen locking and unlocking in between.
    elif kind == "remote":
        acc.category = const.CATEGORY_PROGRAMMABLE_SWITCH
        label = acc.add_preload_service("ServiceLabel")
        label.configure_char("ServiceLabelNamespace", value=1)
        for index in (1, 2, 3):
            button = acc.add_preload_service("StatelessProgrammableSwitch", chars=["ServiceLabelIndex"], unique_id=index)
            button.configure_char("ServiceLabelIndex", value=index)
    elif kind == "doorbell":
        acc.category = const.CATEGORY_VIDEO_DOOR_BELL
        acc.add_preload_service("Doorbell")
    elif kind == "garage":
        acc.category = const.CATEGORY_GARAGE_DOOR_OPENER
        acc.add_preload_service("GarageDoorOpener")
        set_initial(acc, {"CurrentDoorState": 1, "TargetDoorState": 1, "ObstructionDetected": False})
    elif kind == "battery_contact":
        acc.category = const.CATEGORY_SENSOR
        contact = acc.add_preload_service("ContactSensor")
        contact.is_primary_service = True
        acc.add_preload_service("BatteryService")
        set_initial(acc, {"ContactSensorState": 0, "BatteryLevel": 87, "ChargingState": 2, "StatusLowBattery": 0})
    elif kind == "vendor":
        acc.category = const.CATEGORY_OTHER
        service = Service(VENDOR_SERVICE, "Vendor")
        rw = [const.HAP_PERMISSION_READ, const.HAP_PERMISSION_WRITE, const.HAP_PERMISSION_NOTIFY]
        service.add_characteristic(
            Characteristic("Vendor Level", VENDOR_LEVEL, {"Format": "float", "Permissions": rw, "minValue": 0, "maxValue": 10, "minStep": 0.5}),
            Characteristic("Vendor Night Mode", VENDOR_NIGHT_MODE, {"Format": "bool", "Permissions": rw}),
            Characteristic("Vendor Greeting", VENDOR_GREETING, {"Format": "string", "Permissions": rw}),
        )
        acc.add_service(service)
        set_initial(acc, {"Vendor Level": 2.5, "Vendor Night Mode": False, "Vendor Greeting": "hello"})
    else:
        raise ValueError(f"unknown accessory kind {kind!r}")
    return acc, effects


def make_accessory(driver, kind, name, aid):
    if kind in HOMEASSISTANT_KINDS:
        acc, effects = make_homeassistant_accessory(driver, kind, name, aid)
    else:
        acc, effects = make_default_accessory(driver, kind, name, aid)
    acc.set_info_service(
        firmware_revision="1.0.0", manufacturer="hap2mqtt tests", model=kind, serial_number=f"HAP2MQTT-{aid}")
    record_setters(driver, acc, effects)
    return acc


def make_default_accessory(driver, kind, name, aid):
    """The accessories of the default profile and of add_accessory. Returns (accessory, effects)."""
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
    return acc, effects


DEFAULT_ACCESSORIES = [
    ("Light", "light", 2),
    ("Switch", "switch", 3),
    ("Temperature", "temperature", 4),
    ("Lock", "lock", 5),
    ("Thermostat", "thermostat", 6),
    ("Blind", "blind", 8),
]


# The homeassistant profile (--profile homeassistant): one accessory per service type that Home Assistant
# gets a control for. "Garage " ends in a space on purpose (names must not carry it into Home Assistant).
HOMEASSISTANT_ACCESSORIES = [
    ("Lamp", "stepped_light", 2),
    ("Fan", "stepped_fan", 3),
    ("Air Purifier", "air_purifier", 4),
    ("Humidifier", "humidifier", 5),
    ("Television", "television", 6),
    ("Camera", "camera", 8),
    ("Blind", "tilting_blind", 9),
    ("Heater", "heater_cooler", 10),
    ("Door Lock", "door_lock", 11),
    ("Remote", "remote", 12),
    ("Doorbell", "doorbell", 13),
    ("Garage ", "garage", 14),
    ("Battery Sensor", "battery_contact", 15),
    ("Vendor Device", "vendor", 16),
]
HOMEASSISTANT_KINDS = {kind for _, kind, _ in HOMEASSISTANT_ACCESSORIES}


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
        if args.lights is not None:
            defaults = scale_accessories(args.lights)
        elif args.profile == "homeassistant":
            defaults = HOMEASSISTANT_ACCESSORIES
        else:
            defaults = DEFAULT_ACCESSORIES
        self.layout = Layout(args.state + ".layout.json", defaults if args.device is None else [])
        self.driver = make_driver(FixtureDriver, args.port, args.state, args.code, args.pairing_id, mdns=args.mdns)
        if args.device is not None:
            self.bridge = build_device(self.driver, args.device, FixtureBridge)
            self.bridge.fixture = self
            self.driver.add_accessory(self.bridge)
            self.init_counts()
            return
        self.bridge = FixtureBridge(self.driver, "hap2mqtt Test Bridge")
        self.bridge.fixture = self
        self.bridge.set_info_service(
            firmware_revision="5.0.0", manufacturer="HAP-python", model="Bridge", serial_number="HAP2MQTT-1")
        for name, kind, aid in self.layout.accessories():
            self.bridge.add_accessory(make_accessory(self.driver, kind, name, aid))
        self.driver.add_accessory(self.bridge)
        self.init_counts()

    def init_counts(self):
        self.control_server = None
        self.flood_seconds = 0.0
        self.flood_count = 0
        self.flood_running = False
        self.storm_running = False
        self.storm_changes = 0
        self.storm_stamps = []

    def accessory(self, name):
        if name == self.bridge.display_name:
            return self.bridge
        for acc in self.bridge.accessories.values():
            if acc.display_name == name:
                return acc
        raise KeyError(f"no accessory {name!r}")

    def char(self, accessory, name):
        base, _, nth = name.partition("#")
        if nth:
            matches = [c for service in self.accessory(accessory).services for c in service.characteristics if c.display_name == base]
            char = matches[int(nth) - 1] if 0 < int(nth) <= len(matches) else None
        else:
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
        emit({"event": "ready", "port": self.args.port, "control_port": control_port, "ready_ns": time.monotonic_ns(),
              **self.summary()})

    def configuration_changed(self):
        if self.driver.state.set_accessories_hash(self.driver.accessories_hash):
            self.driver.persist()
            self.driver.update_advertisement()

    async def flood(self, char):
        """Changes `char` as fast as the event loop allows, for `flood_seconds` from now (flood_events)."""
        low = int(char.properties.get("minValue", 0))
        high = int(char.properties.get("maxValue", 100))
        end = time.monotonic() + self.flood_seconds
        value = low
        try:
            while time.monotonic() < end and self.flood_seconds > 0:
                value = value + 1 if value < high else low
                char.set_value(value)
                self.flood_count += 1
                if self.flood_count % 5 == 0:
                    # Lets the driver write the events out (and the control channel answer).
                    await asyncio.sleep(0)
            char.set_value(high)
        finally:
            self.flood_running = False

    STORM_CHARACTERISTICS = ("On", "Brightness", "Hue", "Saturation")

    @staticmethod
    def storm_value(name, k):
        """The value of round `k` (from 1): always another than the round before's, and than a new light's."""
        if name == "On":
            return k % 2 == 1
        return k % (361 if name == "Hue" else 101)

    async def storm(self, seconds, exclude, slices):
        """Changes every storm characteristic of every light not in `exclude` once a round (storm)."""
        lights = [acc for _, acc in sorted(self.bridge.accessories.items()) if acc.display_name not in exclude
                  and find_char(acc, "Hue") is not None]
        by_slice = [[(acc.aid, [find_char(acc, n) for n in self.STORM_CHARACTERISTICS]) for acc in lights
                     if acc.aid % slices == s] for s in range(slices)]
        start = time.monotonic()
        try:
            for k in range(1, max(1, round(seconds)) + 1):
                for s in range(slices):
                    delay = start + (k - 1) + s / slices - time.monotonic()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    self.storm_stamps.append([k, s, time.monotonic_ns()])
                    for _, chars in by_slice[s]:
                        for name, char in zip(self.STORM_CHARACTERISTICS, chars):
                            char.set_value(self.storm_value(name, k))
                            self.storm_changes += 1
                    await asyncio.sleep(0)  # lets the driver write the events out
        finally:
            self.storm_running = False

    async def close_idle(self):
        """Closes connections quiet for MISBEHAVIOUR.idle_close seconds, as accessories that end idle ones do."""
        while MISBEHAVIOUR.idle_close is not None:
            now = time.time()
            for protocol in list(self.driver.http_server.connections.values()):
                if protocol.last_activity is not None and now - protocol.last_activity > MISBEHAVIOUR.idle_close:
                    MISBEHAVIOUR.idle_closes += 1
                    protocol.close()
            await asyncio.sleep(0.1)

    def misbehave(self, command):
        if "silent_events" in command:
            MISBEHAVIOUR.silent = set()
            for accessory, name in command["silent_events"]:
                char = self.char(accessory, name)
                MISBEHAVIOUR.silent.add((self.accessory(accessory).aid, self.accessory(accessory).iid_manager.get_iid(char)))
        if "read_limit" in command:
            MISBEHAVIOUR.read_limit = None if command["read_limit"] is None else int(command["read_limit"])
        if "idle_close" in command:
            running = MISBEHAVIOUR.idle_close is not None
            MISBEHAVIOUR.idle_close = None if command["idle_close"] is None else float(command["idle_close"])
            if MISBEHAVIOUR.idle_close is not None and not running:
                asyncio.get_running_loop().create_task(self.close_idle())
        return MISBEHAVIOUR.counts()

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
                FAILING[key] = (int(command["status"]), bool(command.get("applied", False)))
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
        if cmd == "set_admin":
            # Every paired controller becomes an admin or a regular user, as another admin could make
            # it with Add Pairing; HAP-python checks the permission on each /pairings request.
            state = self.driver.state
            for properties in state.client_properties.values():
                properties[const.CLIENT_PROP_PERMS] = 1 if command["admin"] else 0
            self.driver.persist()
            return {}
        if cmd == "disconnect_clients":
            self.drop_connections()
            return {}
        if cmd == "flood_events":
            char = self.char(command["accessory"], command["characteristic"])
            self.flood_seconds = float(command["seconds"])
            if self.flood_seconds > 0 and not self.flood_running:
                self.flood_running = True
                self.flood_count = 0
                asyncio.get_running_loop().create_task(self.flood(char))
            return {}
        if cmd == "storm":
            if self.storm_running:
                raise KeyError("a storm is under way")
            light = next(acc for _, acc in sorted(self.bridge.accessories.items()) if find_char(acc, "Hue") is not None)
            iids = {n: light.iid_manager.get_iid(find_char(light, n)) for n in self.STORM_CHARACTERISTICS}
            if float(command["seconds"]) <= 0:
                return {"iids": iids}
            self.storm_running = True
            self.storm_changes = 0
            self.storm_stamps = []
            asyncio.get_running_loop().create_task(
                self.storm(float(command["seconds"]), set(command.get("exclude", [])), int(command.get("slices", 20))))
            return {"iids": iids}
        if cmd == "storm_status":
            return {"running": self.storm_running, "changes": self.storm_changes, "stamps": self.storm_stamps}
        if cmd == "misbehave":
            return self.misbehave(command)
        if cmd == "misbehaviour":
            return MISBEHAVIOUR.counts()
        if cmd == "flood_status":
            return {"events": self.flood_count, "running": self.flood_running}
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
    parser.add_argument("--profile", choices=["default", "homeassistant"], default="default",
                        help="homeassistant: one accessory per service type Home Assistant controls instead of the six")
    parser.add_argument("--device", default=None, metavar="FILE",
                        help="serve a real device's accessory database (Tests/Fixtures/devices/*.json) instead")
    parser.add_argument("--mdns", action="store_true",
                        help="announce over mDNS on 127.0.0.1 (only inside a private network namespace with lo alone)")
    parser.add_argument("--quiet-writes", action="store_true", help="print no line per accepted write")
    parser.add_argument("--log-level", default="WARNING")
    args = parser.parse_args()
    global RECORD_WRITES
    RECORD_WRITES = not args.quiet_writes
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
