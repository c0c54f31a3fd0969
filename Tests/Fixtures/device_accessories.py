"""Builds HAP-python accessories from a real device's accessory database (Tests/Fixtures/devices/*.json), for
hap_fixture.py --device: the same aids, iids, types, permissions, formats, values and ranges, so that a
controller paired with it sees what it would see paired with the device.

Facts about HAP-python 5.0.0 this relies on (read from its source):
  * An accessory's IIDManager assigns an iid to each service and characteristic it is given
    (`get_iid_for_obj`); a subclass may choose it, which is how the device's own iids are kept.
  * `Characteristic.to_HAP` writes min/max/step/unit and valid values for numeric formats only, and maxLen
    for strings; a device's unit on a string, or its maxDataLen, is not served.
  * Writes are checked against format, range and valid values (`to_valid_value`) as a device would.
  * `Service.to_HAP` knows nothing of `hidden`: DeviceService adds it for the services the device hides.
"""

import json
import uuid

from pyhap.accessory import Accessory, Bridge
from pyhap.characteristic import Characteristic
from pyhap.iid_manager import IIDManager
from pyhap.service import Service

APPLE_BASE = "-0000-1000-8000-0026BB765291"

# The corpus's names for HAP-python's properties.
RANGE_KEYS = {"minValue": "minValue", "maxValue": "maxValue", "minStep": "minStep", "unit": "unit", "maxLen": "maxLen"}


class DeviceIIDs(IIDManager):
    """Gives each service and characteristic the iid the device gave it (`wanted`, filled before they are
    added: HAP-python's objects take no attributes of ours)."""

    def __init__(self):
        super().__init__()
        self.wanted = {}

    def get_iid_for_obj(self, obj):
        return self.wanted[obj]


class DeviceService(Service):
    """A service that says `"hidden":true` when the device's did (HAP-python's own never does)."""

    hidden = False

    def to_HAP(self, include_value=True):
        hap = super().to_HAP(include_value)
        if self.hidden:
            hap["hidden"] = True
        return hap


def hap_uuid(short):
    """A full UUID from the short form the device sent ("A2") or a full one (with dashes or without)."""
    text = str(short)
    if "-" in text or len(text) > 8:
        return uuid.UUID(text)
    return uuid.UUID(text.rjust(8, "0") + APPLE_BASE)


def make_characteristic(item, iids):
    properties = {"Format": item.get("format", "data"), "Permissions": list(item.get("perms", []))}
    for key, prop in RANGE_KEYS.items():
        if key in item:
            properties[prop] = item[key]
    if "valid-values" in item:
        properties["ValidValues"] = {str(v): v for v in item["valid-values"]}
    name = item.get("description") or "c" + str(item["iid"])
    char = Characteristic(name, hap_uuid(item["type"]), properties, allow_invalid_client_values=True)
    # The loader's name is what HAP-python leaves out of `description`; a device without one sends none.
    char._loader_display_name = name if "description" not in item else None
    if "value" in item:
        char.value = item["value"]
    iids.wanted[char] = item["iid"]
    return char


def fill(acc, services):
    """Replaces `acc`'s services (HAP-python adds an information service of its own) by the device's."""
    acc.services = []
    acc.iid_manager = DeviceIIDs()
    iids = acc.iid_manager
    by_iid = {}
    made = []
    for item in services:
        service = DeviceService(hap_uuid(item["type"]), "s" + str(item["iid"]))
        service.hidden = bool(item.get("hidden"))
        iids.wanted[service] = item["iid"]
        for c in item.get("characteristics", []):
            service.add_characteristic(make_characteristic(c, iids))
        if item.get("primary"):
            service.is_primary_service = True
        by_iid[item["iid"]] = service
        made.append((service, item))
    # Services first, then their characteristics: where a device reuses a number for a service and a
    # characteristic, reads (HAP-python looks iids up in one table) find the characteristic.
    for service, _ in made:
        service.broker = acc
        acc.services.append(service)
        acc.iid_manager.assign(service)
    for service, item in made:
        for c in service.characteristics:
            c.broker = acc
            acc.iid_manager.assign(c)
        for linked in item.get("linked", []):
            if linked in by_iid:
                service.add_linked_service(by_iid[linked])


def build_device(driver, path, bridge_class=Bridge):
    """The accessory at aid 1 of the device in `path`, as a `bridge_class` (a Bridge) holding the device's
    other accessories."""
    with open(path, encoding="utf-8") as file:
        device = json.load(file)
    accessories = sorted(device["accessories"], key=lambda a: a["aid"])
    root = bridge_class(driver, device.get("device", "Device"))
    fill(root, accessories[0]["services"])
    for item in accessories[1:]:
        acc = Accessory(driver, "Accessory " + str(item["aid"]), aid=item["aid"])
        fill(acc, item["services"])
        root.add_accessory(acc)
    return root
