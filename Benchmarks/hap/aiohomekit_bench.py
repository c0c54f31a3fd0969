#!/usr/bin/env python3
"""The aiohomekit side of hap2mqtt-bench scenario 4 (`hap`): the operations hap2mqtt's HAP controller is
compared on, done by aiohomekit 4.0.1 against one HAP-python bridge on loopback (Tests/Fixtures/
hap_fixture.py, event coalescing off). hap2mqtt-bench runs it in the same invocation as its own side.

It uses a pairing made beforehand (--pairing-file: aiohomekit's pairing data, which hap2mqtt-bench writes
after adding this controller through its own admin pairing), or pairs itself with an unpaired fixture
(--code); pair-setup is never measured. It times, in milliseconds per sample:

  pair_verify   a new connection: TCP connect and pair-verify, until the session is encrypted
  accessories   GET /accessories: list_accessories_and_characteristics, which parses the JSON and
                builds aiohomekit's accessory model (Accessories.from_list)
  read          one characteristic read (GET /characteristics?id=aid.iid) on the open session
  write         one characteristic write (PUT /characteristics) on the open session
  event         from the fixture changing a value (asked through its control channel, which answers
                with its CLOCK_MONOTONIC time stamp taken just before the change) to aiohomekit's event
                callback with that value (time-stamped there on the same clock); hap2mqtt's side is
                timed the same way

and prints one JSON object on stdout: {"aiohomekit": "4.0.1", "samples": {"read": [...], ...}}. With
--serve it takes one operation at a time from stdin instead (see `serve`): hap2mqtt-bench runs it so,
alternating blocks of samples with its own side; each block's answer also carries this process's CPU
time per operation (getrusage of its own process, not the bridge's; for events less the control
channel's, measured with as many pings after them).

  aiohomekit_bench.py --port P (--code XXX-XX-XXX | --pairing-file F) --control-port C [--samples 200]
      [--serve] [--read 2.10] [--write 2.10] [--values 0,100] [--event Light/Brightness@2.10]

With --code the fixture must be unpaired (started with --reset). Only loopback is used; nothing is
advertised.
"""

import argparse
import asyncio
import importlib.metadata
import json
import resource
import sys
import time

from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.controller.ip.pairing import IpPairing
from aiohomekit.model.categories import Categories
from aiohomekit.model.feature_flags import FeatureFlags
from aiohomekit.model.status_flags import StatusFlags
from aiohomekit.zeroconf import HomeKitService


class BenchController:
    """The two things aiohomekit's IP pairing objects read from their controller."""

    def __init__(self):
        self._char_cache = CharacteristicCacheMemory()
        self.pairings = {}


def service(port):
    """What mDNS would have told aiohomekit about the fixture; here it is known."""
    return HomeKitService(
        name="hap2mqtt bench", id="00:00:00:00:00:00", model="Bridge", feature_flags=FeatureFlags(0),
        status_flags=StatusFlags.UNPAIRED, config_num=1, state_num=1, category=Categories.BRIDGE,
        protocol_version="1.1", type="_hap._tcp.local.", address="127.0.0.1", addresses=["127.0.0.1"], port=port,
    )


def address(text):
    aid, iid = text.split(".")
    return int(aid), int(iid)


async def control(port, command):
    """One command on the fixture's control channel; returns its JSON answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write((json.dumps(command) + "\n").encode())
    await writer.drain()
    answer = json.loads(await reader.readline())
    writer.close()
    await writer.wait_closed()
    if not answer.get("ok"):
        raise RuntimeError(f"fixture refused {command}: {answer}")
    return answer


def ms_since(start):
    return (time.perf_counter() - start) * 1000


def cpu_us():
    """This process's CPU time (user + system, all threads) in µs: getrusage, as hap2mqtt-bench reads its own."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (usage.ru_utime + usage.ru_stime) * 1e6


async def pair(controller, args):
    """aiohomekit's pairing data: from --pairing-file, or made now with pair-setup (--code)."""
    if args.pairing_file:
        with open(args.pairing_file, encoding="utf8") as f:
            return json.load(f)
    discovery = IpDiscovery(controller, service(args.port))
    finish = await discovery.async_start_pairing("bench")
    pairing = await finish(args.code)
    data = pairing.pairing_data
    await pairing.close()
    return data


class Bench:
    """One aiohomekit controller on the fixture: a session kept open for /accessories, reads, writes and
    events, and fresh connections for pair-verify. Each method times `n` samples of one operation."""

    def __init__(self, controller, data, args):
        self.controller = controller
        self.data = data
        self.args = args
        self.read_id = address(args.read)
        self.write_id = address(args.write)
        self.values = [int(v) for v in args.values.split(",")]
        names, event_address = args.event.split("@")
        self.event_accessory, self.event_characteristic = names.split("/")
        self.event_id = address(event_address)
        self.arrived = asyncio.Queue()
        self.pairing = None

    async def open(self):
        self.pairing = IpPairing(self.controller, self.data)
        await self.pairing._ensure_connected()
        self.pairing.dispatcher_connect(self.on_update)

    async def close(self):
        await self.pairing.close()

    def on_update(self, update):
        now = time.monotonic_ns()  # first thing in aiohomekit's callback, as hap2mqtt's side stamps it
        for key, item in update.items():
            if key == self.event_id:
                self.arrived.put_nowait((item.get("value"), now))

    async def pair_verify(self, n, start):
        samples = []
        for _ in range(n):
            fresh = IpPairing(self.controller, self.data)
            begin = time.perf_counter()
            await fresh._ensure_connected()
            samples.append(ms_since(begin))
            await fresh.close()
        return samples

    async def accessories(self, n, start):
        samples = []
        for _ in range(n):
            begin = time.perf_counter()
            # It parses the JSON and builds aiohomekit's model (Accessories.from_list) itself.
            await self.pairing.list_accessories_and_characteristics()
            samples.append(ms_since(begin))
        return samples

    async def read(self, n, start):
        samples = []
        for _ in range(n):
            begin = time.perf_counter()
            await self.pairing.get_characteristics([self.read_id])
            samples.append(ms_since(begin))
        return samples

    async def write(self, n, start):
        samples = []
        for i in range(start, start + n):
            begin = time.perf_counter()
            await self.pairing.put_characteristics([(*self.write_id, self.values[i % len(self.values)])])
            samples.append(ms_since(begin))
        return samples

    async def event(self, n, start):
        """Subscribed only meanwhile: a subscription left on would make the fixture send this controller
        an event for every write and event of the other side."""
        await self.pairing.subscribe([self.event_id])
        samples = []
        # One time-out for the block, as hap2mqtt's side has one watchdog for its block.
        async with asyncio.timeout(10):
            for i in range(start, start + n):
                # 1…50 in turn, counted over both sides: never the value before it (the writes leave one of
                # --values), so every change is one.
                value = i % 50 + 1
                answer = await control(self.args.control_port, {
                    "cmd": "set_value", "accessory": self.event_accessory,
                    "characteristic": self.event_characteristic, "value": value})
                while True:
                    got, when = await self.arrived.get()
                    if got == value:
                        break
                # The fixture's CLOCK_MONOTONIC stamp just before the change: the control channel is in neither
                # side.
                samples.append((when - answer["changed_ns"]) / 1e6)
        await self.pairing.unsubscribe([self.event_id])
        return samples

    async def pings(self, n):
        """`n` control-channel commands that do nothing: what each event's set_value costs this process
        besides the event, subtracted from the events' CPU time."""
        for _ in range(n):
            await control(self.args.control_port, {"cmd": "ping"})

    async def measure(self, name, n, start):
        """`n` samples of operation `name` (ms) and this process's CPU time per operation over them (µs),
        less, for events, the control channel's (as many pings, timed after them)."""
        begin = cpu_us()
        samples = await getattr(self, name)(n, start)
        cpu = cpu_us() - begin
        if name == "event":
            begin = cpu_us()
            await self.pings(n)
            cpu -= cpu_us() - begin
        return samples, cpu / n


OPERATIONS = ("pair_verify", "accessories", "read", "write", "event")


async def run_all(bench, args):
    """Every operation once: a tenth of --samples pair-verifies and /accessories, --samples of the rest."""
    samples = {}
    for name in OPERATIONS:
        n = max(1, args.samples // 10) if name in ("pair_verify", "accessories") else args.samples
        samples[name] = await getattr(bench, name)(n, 0)
    print(json.dumps({"aiohomekit": importlib.metadata.version("aiohomekit"), "samples": samples}), flush=True)


async def serve(bench):
    """Commands on stdin, one JSON object a line: {"op": "read", "n": 10, "start": 40} answers
    {"samples": [...], "cpu": µs per operation} on stdout; {"op": "quit"} ends. hap2mqtt-bench alternates blocks of samples between
    the two controllers this way, so that both meet the same moments of a busy machine."""
    loop = asyncio.get_running_loop()
    print(json.dumps({"ready": True, "aiohomekit": importlib.metadata.version("aiohomekit")}), flush=True)
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        command = json.loads(line)
        if command.get("op") == "quit":
            return
        if command.get("op") not in OPERATIONS:
            raise ValueError(f"unknown operation {command.get('op')!r}")
        samples, cpu = await bench.measure(command["op"], int(command["n"]), int(command.get("start", 0)))
        print(json.dumps({"samples": samples, "cpu": cpu}), flush=True)


async def run(args):
    controller = BenchController()
    bench = Bench(controller, await pair(controller, args), args)
    await bench.open()
    try:
        if args.serve:
            await serve(bench)
        else:
            await run_all(bench, args)
    finally:
        await bench.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True, help="the fixture's HAP port on 127.0.0.1")
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--code", help="its setup code, XXX-XX-XXX: pair now (the fixture must be unpaired)")
    how.add_argument("--pairing-file", help="aiohomekit's pairing data (JSON) of a pairing made beforehand")
    parser.add_argument("--control-port", type=int, required=True, help="its control channel")
    parser.add_argument("--samples", type=int, default=200, help="reads, writes and events (pair-verify and /accessories: a tenth)")
    parser.add_argument("--serve", action="store_true", help="take operations from stdin instead (hap2mqtt-bench)")
    parser.add_argument("--read", default="2.10", help="aid.iid to read")
    parser.add_argument("--write", default="2.10", help="aid.iid to write")
    parser.add_argument("--values", default="0,100", help="integer values the writes cycle through")
    parser.add_argument("--event", default="Light/Brightness@2.10", help="accessory/characteristic@aid.iid the events change")
    try:
        asyncio.run(run(parser.parse_args()))
    except Exception as error:  # one line for hap2mqtt-bench's error message
        print(f"aiohomekit_bench: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
