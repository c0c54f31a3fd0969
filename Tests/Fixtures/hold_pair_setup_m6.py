"""A TCP relay on 127.0.0.1 that lets a HAP accessory take pair-setup M5 but never delivers its M6.

The first connection is relayed until the client has sent its third POST /pair-setup (M5); from then on
the accessory's answers on that connection are dropped, so the accessory holds the new pairing while the
controller waits for M6, the window in which a killed controller loses the pairing. Later connections are
relayed in full. Prints {"port": N} on standard output once listening; runs until killed.

usage: hold_pair_setup_m6.py TARGET_PORT
"""
import asyncio
import json
import sys


async def pump(reader, writer, on_data=None, dropping=lambda: False):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if on_data:
                on_data(data)
            if not dropping():
                writer.write(data)
                await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main(target_port):
    connections = 0

    async def relay(client_reader, client_writer):
        nonlocal connections
        connections += 1
        held = connections == 1
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
        seen = bytearray()
        state = {"m5_sent": False}

        def watch(data):
            if held and not state["m5_sent"]:
                seen.extend(data)
                if seen.count(b"POST /pair-setup") >= 3:
                    state["m5_sent"] = True

        await asyncio.gather(
            pump(client_reader, server_writer, on_data=watch),
            pump(server_reader, client_writer, dropping=lambda: state["m5_sent"]),
        )

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    print(json.dumps({"port": server.sockets[0].getsockname()[1]}), flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
