"""A HAP-python 5.0.0 accessory server that stays on 127.0.0.1: shared by the test fixture
(Tests/Fixtures/hap_fixture.py) and the demo bridge (demo/demo_bridge.py).

Importing it sets HAP-python's event coalescing window to 0. `make_driver` builds an AccessoryDriver that
listens and advertises on loopback only and never multicasts, unless asked to announce itself over mDNS,
which it does only inside a private network namespace whose one interface is lo (scripts/lib/avahi-namespace);
`serve` runs it until SIGTERM (or SIGINT).
`start_control_server` opens the tests' control channel: a line-based TCP server on 127.0.0.1, one JSON
command per line, one JSON answer per line ({"ok":true,…} or {"ok":false,"error":"…"});
`value_command` answers its set_value and get_value commands.

Facts about HAP-python 5.0.0 this relies on (read from its source):
  * mDNS cannot be switched off; a do-nothing object passed as `async_zeroconf_instance` stands in for it,
    and `address`/`listen_address` keep it on loopback.
  * Events wait `pyhap.hap_protocol.EVENT_COALESCE_TIME_WINDOW` (0.5 s) before they are sent; it is read at
    call time, so setting it to 0 sends them at once.
  * When its port is taken it hangs and ignores SIGTERM: `port_is_free` finds out first.

Run as a program, `python3 hap_loopback.py free-port [PREFERRED]` prints PREFERRED when it can be bound
on 127.0.0.1, else a port the system chose (scripts/demo uses it).
"""

import asyncio
import json
import signal
import socket
import sys
import time

import pyhap.hap_protocol as hap_protocol

hap_protocol.EVENT_COALESCE_TIME_WINDOW = 0

LOOPBACK = "127.0.0.1"


class NoZeroconf:
    """Stands in for AsyncZeroconf: nothing is ever multicast."""

    async def async_register_service(self, info, **kwargs):
        return None

    async def async_update_service(self, info):
        return None

    async def async_unregister_service(self, info):
        return None

    async def async_close(self):
        return None


def only_loopback():
    """Whether this process's network namespace has no interface but lo (from /proc/net/dev, which shows
    the interfaces of the reader's namespace)."""
    with open("/proc/net/dev", encoding="ascii") as f:
        names = [line.split(":")[0].strip() for line in f.readlines()[2:]]
    return names == ["lo"]


def make_driver(driver_class, port, state_file, code, pairing_id=None, mdns=False):
    """An instance of `driver_class` (AccessoryDriver or a subclass) on 127.0.0.1:`port`, keeping its
    pairings and keys in `state_file`. `pairing_id` (XX:XX:XX:XX:XX:XX) is used only when the state file
    does not exist yet. Without `mdns` nothing is ever multicast; with it, HAP-python's own zeroconf
    announces `_hap._tcp` on 127.0.0.1, which is refused (SystemExit) outside a namespace with lo alone."""
    if mdns and not only_loopback():
        raise SystemExit("refusing to announce over mDNS outside a private network namespace with lo alone")
    zeroconf = {"interface_choice": [LOOPBACK]} if mdns else {"async_zeroconf_instance": NoZeroconf()}
    return driver_class(
        address=LOOPBACK, listen_address=LOOPBACK, port=port, persist_file=state_file,
        pincode=code.encode(), mac=pairing_id, **zeroconf,
    )


def find_char(acc, name):
    """The characteristic called `name` (HAP-python's name, e.g. "Brightness") in any service of `acc`."""
    for service in acc.services:
        for char in service.characteristics:
            if char.display_name == name:
                return char
    return None


def typed(value):
    """A value with its Python type, so that a reader can tell true from 1 and 21.0 from 21."""
    kind = {bool: "bool", int: "int", float: "float", str: "str", type(None): "null"}.get(type(value), "json")
    return {"value": value, "type": kind}


def value_command(command, find):
    """The answer to a control command that reads or changes a value, or None for any other command.

      set_value accessory characteristic value   as the accessory itself would: subscribers get an event;
                                                 answers {"changed_ns":…}, CLOCK_MONOTONIC just before the
                                                 change (the benchmarks time events from it); with
                                                 "silent":true nobody gets an event (an accessory that says
                                                 it sends events and does not)
      get_value accessory characteristic         answers {"value":…,"type":"bool"|"int"|"float"|"str"|"null"}

    `find(accessory, characteristic)` returns the characteristic or raises KeyError."""
    cmd = command.get("cmd")
    if cmd == "set_value":
        char = find(command["accessory"], command["characteristic"])
        changed = time.monotonic_ns()
        char.set_value(command["value"], should_notify=not command.get("silent", False))
        return {"changed_ns": changed}
    if cmd == "get_value":
        return typed(find(command["accessory"], command["characteristic"]).get_value())
    return None


async def start_control_server(handle):
    """Opens the control channel on 127.0.0.1 (a port the system chooses) and returns (server, port).
    `handle(command)` answers one command (a dict) with a dict of fields; whatever it raises becomes an
    {"ok":false} answer, so the channel never dies of a bad command."""

    async def serve_connection(reader, writer):
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                try:
                    answer = {"ok": True, **handle(json.loads(line))}
                except Exception as error:  # every failure becomes an answer, never a dead channel
                    answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
                writer.write((json.dumps(answer, separators=(",", ":")) + "\n").encode())
                await writer.drain()
        finally:
            writer.close()

    server = await asyncio.start_server(serve_connection, LOOPBACK, 0)
    return server, server.sockets[0].getsockname()[1]


def port_is_free(port):
    """Whether 127.0.0.1:`port` can be bound now (nothing listens there)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


def free_port(preferred=None):
    """`preferred` when it is free, else a port the system chose that was free a moment ago."""
    if preferred and port_is_free(preferred):
        return preferred
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def serve(driver):
    """Runs `driver` until SIGTERM or SIGINT stops it cleanly. A SIGINT that the parent set to be ignored
    (a shell's background job) stays ignored, so a Ctrl-C meant for the foreground leaves it running."""
    # A parent may start us with signals blocked (the mask is inherited); SIGTERM must stop the server.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    loop = driver.loop
    loop.add_signal_handler(signal.SIGTERM, driver.stop)
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        loop.add_signal_handler(signal.SIGINT, driver.stop)
    driver.start()


def main(argv):
    if len(argv) in (2, 3) and argv[1] == "free-port":
        print(free_port(int(argv[2]) if len(argv) == 3 else None))
        return 0
    print(f"usage: {argv[0]} free-port [PREFERRED]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
