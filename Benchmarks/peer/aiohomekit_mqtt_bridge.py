#!/usr/bin/env python3
"""A minimal HomeKit-to-MQTT bridge built on aiohomekit 4.0.1 and paho-mqtt 2.1: what a user could run
instead of hap2mqtt, and hap2mqtt-bench's `peer` scenario runs beside it (Benchmarks/README.md).

  aiohomekit_mqtt_bridge.py --pairings FILE --broker HOST:PORT [--base peer] [--qos 1]

FILE is aiohomekit's pairing file: a JSON object of alias -> pairing data (what `Controller.save_data`
writes). For every pairing it opens aiohomekit's IpPairing, reads /accessories, publishes every readable
characteristic's value retained on `<base>/<alias>/<aid>/<iid>` (the value as JSON: `true`, `42`, `21.5`),
subscribes to every characteristic that sends events (perms `ev`) and publishes each change the same way.
`<base>/<alias>/<aid>/<iid>/set` (a JSON value) becomes an awaited `put_characteristics`, and its result
goes to `.../set/result` (`{"status":"ok","value":…}` or `{"status":"error","hap_status":…}`), after the
new state (aiohomekit calls the listeners with the written value). It prints `{"ready":true}` once every
pairing's state is published and its subscriptions made, and ends on SIGTERM or SIGINT.

It is written as aiohomekit's and paho-mqtt's own examples and Home Assistant's homekit_controller use
them: one asyncio loop for aiohomekit, paho's network thread (`loop_start`) for MQTT, `dispatcher_connect`
for events. The one difference from Home Assistant: there is no mDNS here (the bridges listen on loopback
and never advertise), so the controller is the two attributes IpPairing reads, and the address comes
from the pairing data, as aiohomekit falls back to when zeroconf has not seen the accessory; and paho's
socket gets TCP_NODELAY, as every other socket of the benchmark has.
"""

import argparse
import asyncio
import json
import signal
import socket

import paho.mqtt.client as mqtt
from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip.pairing import IpPairing


class Controller:
    """What IpPairing reads from its controller: a characteristic cache and the pairings by alias."""

    def __init__(self):
        self._char_cache = CharacteristicCacheMemory()
        self.pairings = {}


class Bridge:
    def __init__(self, args):
        self.base = args.base
        self.qos = args.qos
        self.loop = asyncio.get_running_loop()
        self.pairings = {}
        self.mqtt = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{args.base}-bridge")
        self.mqtt.on_connect = self.on_connect
        self.mqtt.on_message = self.on_message
        self.connected = asyncio.Event()

    def on_connect(self, client, userdata, flags, reason_code, properties):
        # paho leaves Nagle's algorithm on: a result right after the state would wait for the broker's
        # delayed ACK (40 ms). hap2mqtt, aiohomekit (asyncio) and the broker here all turn it off.
        client.socket().setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client.subscribe(f"{self.base}/+/+/+/set", qos=1)
        self.loop.call_soon_threadsafe(self.connected.set)

    def publish_state(self, alias, aid, iid, value):
        self.mqtt.publish(f"{self.base}/{alias}/{aid}/{iid}", json.dumps(value), qos=self.qos, retain=True)

    def on_message(self, client, userdata, message):
        # paho's thread: the write runs on aiohomekit's loop.
        asyncio.run_coroutine_threadsafe(self.write(message.topic, message.payload), self.loop)

    async def write(self, topic, payload):
        _, alias, aid, iid, _ = topic.rsplit("/", 4)
        try:
            value = json.loads(payload)
            key = (int(aid), int(iid))
            status = await self.pairings[alias].put_characteristics([(key[0], key[1], value)])
            if key in status:
                result = {"status": "error", "hap_status": status[key]["status"]}
            else:
                result = {"status": "ok", "value": value}
        except Exception as error:  # a bad payload or a lost connection: the result says so
            result = {"status": "error", "error": str(error)}
        self.mqtt.publish(topic + "/result", json.dumps(result), qos=1)

    async def add(self, controller, alias, data):
        pairing = IpPairing(controller, data)
        controller.pairings[alias] = pairing
        self.pairings[alias] = pairing
        accessories = await pairing.list_accessories_and_characteristics()
        evented = []
        for accessory in accessories:
            for service in accessory["services"]:
                for char in service["characteristics"]:
                    if "pr" in char["perms"] and "value" in char:
                        self.publish_state(alias, accessory["aid"], char["iid"], char["value"])
                    if "ev" in char["perms"]:
                        evented.append((accessory["aid"], char["iid"]))

        def on_update(update):
            for (aid, iid), item in update.items():
                if "value" in item:
                    self.publish_state(alias, aid, iid, item["value"])

        pairing.dispatcher_connect(on_update)
        await pairing.subscribe(evented)


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairings", required=True)
    parser.add_argument("--broker", required=True, help="HOST:PORT")
    parser.add_argument("--base", default="peer")
    parser.add_argument("--qos", type=int, default=1, help="QoS of the state messages (hap2mqtt's default is 1)")
    args = parser.parse_args()
    with open(args.pairings, encoding="utf8") as f:
        pairings = json.load(f)
    bridge = Bridge(args)
    host, port = args.broker.rsplit(":", 1)
    bridge.mqtt.connect(host, int(port))
    bridge.mqtt.loop_start()
    await bridge.connected.wait()
    controller = Controller()
    await asyncio.gather(*(bridge.add(controller, alias, data) for alias, data in pairings.items()))
    print(json.dumps({"ready": True}), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    for pairing in bridge.pairings.values():
        await pairing.close()
    bridge.mqtt.loop_stop()


if __name__ == "__main__":
    asyncio.run(main())
