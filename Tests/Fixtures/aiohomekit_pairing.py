#!/usr/bin/env python3
"""aiohomekit 4.0.1 as the other controller of the pairing-exchange tests (Tests/IntegrationTests/Backup).

  aiohomekit_pairing.py pair --port P --code XXX-XX-XXX --out F
      Pairs with the accessory on 127.0.0.1:P (pair-setup, as Home Assistant's HomeKit Controller does
      through aiohomekit) and writes the pairing data aiohomekit keeps, the object Home Assistant stores as
      its config entry's data, to F (mode 0600).

  aiohomekit_pairing.py check --file F --alias A
      Loads the pairing `A` of the pairing file F (the format of aiohomekit's Controller.load_data and
      save_data), connects to the accessory with it (pair-verify with the keys in the file), reads the
      accessory list, turns the first Lightbulb's On characteristic on and reads it back. Prints one JSON
      line: {"accessories": N, "on": VALUE}. Exits 1 with the error on stderr when anything fails.
"""

import argparse
import asyncio
import json
import os
import sys

from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.controller.ip.pairing import IpPairing
from aiohomekit.model.categories import Categories
from aiohomekit.model.feature_flags import FeatureFlags
from aiohomekit.model.status_flags import StatusFlags
from aiohomekit.zeroconf import HomeKitService

LIGHTBULB = "00000043-0000-1000-8000-0026BB765291"
ON = "00000025-0000-1000-8000-0026BB765291"


class Controller:
    """The two things aiohomekit's IP pairing objects read from their controller (no mDNS needed here)."""

    def __init__(self):
        self._char_cache = CharacteristicCacheMemory()
        self.pairings = {}


def full_type(text):
    """A HAP type as the full upper-case UUID (`25` -> 00000025-0000-1000-8000-0026BB765291)."""
    text = text.upper()
    return text if "-" in text else text.rjust(8, "0") + "-0000-1000-8000-0026BB765291"


def lightbulb_on(accessories):
    for accessory in accessories:
        for service in accessory["services"]:
            if full_type(service["type"]) != LIGHTBULB:
                continue
            for characteristic in service["characteristics"]:
                if full_type(characteristic["type"]) == ON:
                    return accessory["aid"], characteristic["iid"]
    raise RuntimeError("no Lightbulb with an On characteristic")


async def pair(args):
    """Pair-setup through aiohomekit's IP discovery object, with what mDNS would have announced."""
    service = HomeKitService(
        name="hap2mqtt test", id="00:00:00:00:00:00", model="Bridge", feature_flags=FeatureFlags(0),
        status_flags=StatusFlags.UNPAIRED, config_num=1, state_num=1, category=Categories.BRIDGE,
        protocol_version="1.1", type="_hap._tcp.local.", address="127.0.0.1", addresses=["127.0.0.1"],
        port=args.port,
    )
    finish = await IpDiscovery(Controller(), service).async_start_pairing("test")
    pairing = await finish(args.code)
    data = dict(pairing.pairing_data)
    await pairing.close()
    descriptor = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf8") as f:
        json.dump(data, f)
    print(json.dumps({"paired": data["AccessoryPairingID"]}), flush=True)


async def check(args):
    with open(args.file, encoding="utf8") as f:
        data = json.load(f)[args.alias]
    pairing = IpPairing(Controller(), data)
    try:
        accessories = await pairing.list_accessories_and_characteristics()
        address = lightbulb_on(accessories)
        await pairing.put_characteristics([(address[0], address[1], True)])
        values = await pairing.get_characteristics([address])
        print(json.dumps({"accessories": len(accessories), "on": values[address].get("value")}), flush=True)
    finally:
        await pairing.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["pair", "check"])
    parser.add_argument("--file")
    parser.add_argument("--alias")
    parser.add_argument("--port", type=int)
    parser.add_argument("--code")
    parser.add_argument("--out")
    args = parser.parse_args()
    try:
        asyncio.run(pair(args) if args.command == "pair" else check(args))
    except Exception as error:  # the test shows it
        print(f"aiohomekit_pairing: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
