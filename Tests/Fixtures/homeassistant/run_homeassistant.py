"""Runs Home Assistant for hap2mqtt's tests, optionally in a private network namespace.

Usage: python run_homeassistant.py [--isolate MQTT_PORT HTTP_PORT SOCKET_DIR] -- HASS_ARGUMENTS...

Signals: a child started from a Swift test inherits the signal mask of the dispatch thread that started
it, where SIGTERM and SIGINT are blocked; Home Assistant would then never see the SIGTERM that asks it to
stop. Every process here unblocks them first.

With --isolate (needs `unshare --net`, i.e. root or user namespaces), Home Assistant runs in a new network
namespace that has nothing but its own loopback, so it can send no packet anywhere. Two relays join it to
the host's loopback through Unix sockets in SOCKET_DIR: inside, 127.0.0.1:MQTT_PORT leads to the test
broker on the host's 127.0.0.1:MQTT_PORT; outside, the host's 127.0.0.1:HTTP_PORT leads to Home
Assistant's HTTP server on 127.0.0.1:HTTP_PORT inside.
"""

import asyncio
import ctypes
import fcntl
import os
import signal
import socket
import struct
import subprocess
import sys
import threading


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copies one direction of a relayed connection until it ends."""
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


async def relay(listen: str, connect: str) -> None:
    """Accepts on `listen` and joins each connection to a new one to `connect` (`tcp:PORT` on 127.0.0.1
    or `unix:PATH`)."""

    async def open_target():
        kind, where = connect.split(":", 1)
        if kind == "tcp":
            return await asyncio.open_connection("127.0.0.1", int(where))
        return await asyncio.open_unix_connection(where)

    async def handle(reader, writer):
        try:
            target_reader, target_writer = await open_target()
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, target_writer), pipe(target_reader, writer))

    kind, where = listen.split(":", 1)
    if kind == "tcp":
        server = await asyncio.start_server(handle, "127.0.0.1", int(where))
    else:
        server = await asyncio.start_unix_server(handle, where)
    async with server:
        await server.serve_forever()


def start_relays(pairs) -> None:
    """Runs the relays on their own event loop in a daemon thread."""

    async def run_all():
        await asyncio.gather(*(relay(listen, connect) for listen, connect in pairs))

    threading.Thread(target=lambda: asyncio.run(run_all()), daemon=True).start()


class RouteEntry(ctypes.Structure):
    """`struct rtentry` of <net/route.h>, for SIOCADDRT."""

    _fields_ = [
        ("rt_pad1", ctypes.c_ulong),
        ("rt_dst", ctypes.c_ubyte * 16),
        ("rt_gateway", ctypes.c_ubyte * 16),
        ("rt_genmask", ctypes.c_ubyte * 16),
        ("rt_flags", ctypes.c_ushort),
        ("rt_pad2", ctypes.c_short),
        ("rt_pad3", ctypes.c_ulong),
        ("rt_pad4", ctypes.c_void_p),
        ("rt_metric", ctypes.c_short),
        ("rt_dev", ctypes.c_char_p),
        ("rt_mtu", ctypes.c_ulong),
        ("rt_window", ctypes.c_ulong),
        ("rt_irtt", ctypes.c_ushort),
    ]


def inet_sockaddr(address: str):
    """A `struct sockaddr_in` for `address`, port 0, as 16 bytes."""
    raw = struct.pack("=H2s4s8s", socket.AF_INET, b"", socket.inet_aton(address), b"")
    return (ctypes.c_ubyte * 16).from_buffer_copy(raw)


def loopback_up() -> None:
    """Brings `lo` up in this network namespace (SIOCGIFFLAGS/SIOCSIFFLAGS, IFF_UP) and routes multicast
    (224.0.0.0/4) to it (SIOCADDRT): Home Assistant 2026 starts zeroconf for its HTTP client, and joining
    the mDNS group fails with "No such device" where no route leads to it. Nothing leaves `lo`."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(s, 0x8913, request))[1]
        fcntl.ioctl(s, 0x8914, struct.pack("16sh", b"lo", flags | 0x1 | 0x1000))  # IFF_UP | IFF_MULTICAST
        route = RouteEntry(
            rt_dst=inet_sockaddr("224.0.0.0"), rt_genmask=inet_sockaddr("240.0.0.0"), rt_flags=0x1, rt_dev=b"lo"
        )  # RTF_UP
        fcntl.ioctl(s, 0x890B, bytes(memoryview(route)))


def run_homeassistant(arguments) -> int:
    from homeassistant.__main__ import main  # pylint: disable=import-outside-toplevel

    sys.argv = ["hass"] + arguments
    return main()


def outer(mqtt_port: str, http_port: str, socket_dir: str, arguments) -> int:
    """Host side: relays, then the inner process in a new network namespace; SIGTERM and SIGINT go on
    to it, and this process ends when it does."""
    mqtt_socket = os.path.join(socket_dir, "mqtt.sock")
    http_socket = os.path.join(socket_dir, "http.sock")
    start_relays([(f"unix:{mqtt_socket}", f"tcp:{mqtt_port}"), (f"tcp:{http_port}", f"unix:{http_socket}")])
    command = ["unshare", "--net", sys.executable, os.path.abspath(__file__), "--inner", mqtt_port, http_port, socket_dir, "--"]
    child = subprocess.Popen(command + arguments)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda number, _frame: child.send_signal(number))
    return child.wait()


def inner(mqtt_port: str, http_port: str, socket_dir: str, arguments) -> int:
    """Namespace side: dies with the outer process, brings loopback up, relays, runs Home Assistant."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    loopback_up()
    mqtt_socket = os.path.join(socket_dir, "mqtt.sock")
    http_socket = os.path.join(socket_dir, "http.sock")
    start_relays([(f"tcp:{mqtt_port}", f"unix:{mqtt_socket}"), (f"unix:{http_socket}", f"tcp:{http_port}")])
    return run_homeassistant(arguments)


def entry() -> int:
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    args = sys.argv[1:]
    split = args.index("--") if "--" in args else len(args)
    options, arguments = args[:split], args[split + 1 :]
    if options[:1] == ["--isolate"]:
        return outer(*options[1:4], arguments)
    if options[:1] == ["--inner"]:
        return inner(*options[1:4], arguments)
    return run_homeassistant(arguments)


if __name__ == "__main__":
    sys.exit(entry())
