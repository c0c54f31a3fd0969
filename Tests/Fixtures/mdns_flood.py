"""Hostile `_hap._tcp` announcements for hap2mqtt's discovery tests: mDNS responses sent straight onto the
loopback of the private network namespace the test runs in, as fast as they can go, with python-zeroconf
(a dependency of HAP-python, so the test venv's Python runs this).

In rounds for --seconds, each round announces --batch services and says goodbye (TTL 0) to those of the
round before:
valid ones, ones without an id, with an id that is no device id, with TXT values that are not UTF-8 or as
long as DNS allows, with repeated keys, and ones announced by a PTR record alone, whose resolution can only
fail (they vanish mid-resolve). It prints one JSON line at the end: {"sent":N,"rounds":N,"seconds":S}.
It refuses to run outside a namespace whose one interface is lo.

  mdns_flood.py --seconds 5 --batch 200
"""

import argparse
import json
import time

from zeroconf import (
    DNSAddress,
    DNSOutgoing,
    DNSPointer,
    DNSService,
    DNSText,
    IPVersion,
    Zeroconf,
)
from zeroconf.const import _CLASS_IN, _FLAGS_AA, _FLAGS_QR_RESPONSE, _TYPE_A, _TYPE_PTR, _TYPE_SRV, _TYPE_TXT

SERVICE_TYPE = "_hap._tcp.local."
TTL = 120


def only_loopback():
    with open("/proc/net/dev", encoding="ascii") as f:
        return [line.split(":")[0].strip() for line in f.readlines()[2:]] == ["lo"]


def txt(strings):
    """A TXT record's wire form: each string, at most 255 bytes, after its length."""
    return b"".join(bytes([len(s[:255])]) + s[:255] for s in strings)


def strings(n):
    """The TXT strings of service `n`: one of several kinds of nonsense, or a valid record; None for a
    service announced by its PTR record alone."""
    kind = n % 7
    device = b"%02X:%02X:%02X:00:00:%02X" % (n // 65536 % 256, n // 256 % 256, n % 256, kind)
    if kind == 0:
        return [b"c#=1", b"s#=1", b"sf=1", b"ci=5", b"md=Flood", b"id=" + device]
    if kind == 1:
        return [b"c#=1", b"sf=1"]  # no id
    if kind == 2:
        return [b"id=not-a-device-id", b"c#=x"]
    if kind == 3:
        return [b"id=" + device, b"md=" + bytes([0xFF, 0xFE, 0xC0]) * 80, b"ci=\xd9\xa3"]
    if kind == 4:
        return [b"id=" + device, b"md=" + b"x" * 252, b"c#=999999999999"] + [b"k%d=v" % i for i in range(60)]
    if kind == 5:
        return [b"id=" + device, b"ID=11:22:33:44:55:66", b"sf=1", b"sf=0"]
    return None


def records(n, ttl):
    """The records that announce service `n` (with `ttl`; 0 says goodbye)."""
    name = "Flood %d.%s" % (n, SERVICE_TYPE)
    host = "flood-%d.local." % n
    found = [DNSPointer(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN, ttl, name)]
    txt_strings = strings(n)
    if txt_strings is not None:
        found.append(DNSService(name, _TYPE_SRV, _CLASS_IN, ttl, 0, 0, 1000 + n % 60000, host))
        found.append(DNSText(name, _TYPE_TXT, _CLASS_IN, ttl, txt(txt_strings)))
        found.append(DNSAddress(host, _TYPE_A, _CLASS_IN, ttl, bytes([127, 0, 0, 1])))
    return found


def send(zc, services, ttl):
    """One response per service, as an accessory sends its announcement."""
    now = 0  # add_answer_at_time with 0 adds every record
    for n in services:
        out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
        for record in records(n, ttl):
            out.add_answer_at_time(record, now)
        zc.send(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--batch", type=int, default=200)
    args = parser.parse_args()
    if not only_loopback():
        raise SystemExit("refusing to announce anything outside a private network namespace with lo alone")
    zc = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    sent = rounds = 0
    start = time.monotonic()
    try:
        previous = range(0)
        while time.monotonic() - start < args.seconds:
            services = range(sent, sent + args.batch)
            send(zc, services, TTL)
            # The services of the round before vanish now: a browser resolves some of them, and is in the
            # middle of resolving others.
            send(zc, previous, 0)
            previous = services
            sent += args.batch
            rounds += 1
            time.sleep(0.05)
        send(zc, previous, 0)
    finally:
        zc.close()
    print(json.dumps({"sent": sent, "rounds": rounds, "seconds": round(time.monotonic() - start, 1)}), flush=True)


if __name__ == "__main__":
    main()
