#!/usr/bin/env python3
"""ndeflib side of the NDEF codec benchmark (Scripts/bench-ndef); prints JSON lines.

The same three messages as Benchmarks/ndef-bench/main.swift, built byte for byte alike:
  url       one URI record https://example.com/t/04A1B2C3D4E5F6
  mime-4k   one application/octet-stream record, 4096-byte payload, byte i = (31 i + 7) mod 256
  mixed-30  10 URI, 10 Text ("en") and 10 text/plain records, interleaved

What one operation does:
  encode  b"".join(ndef.message_encoder(records)) over record objects built once beforehand
          (ndeflib still serializes each URI and Text payload from its fields on every encode)
  decode  list(ndef.message_decoder(octets)): URI and Text records become UriRecord and
          TextRecord objects with decoded strings; MIME records become Record objects holding
          a copy of the payload

Usage: bench_ndef_ndeflib.py [--min-time SECONDS] [--repeats N] [--encodings-only]
"""
import argparse
import json
import time

import ndef


def bench_messages():
    """The records of each message, built once (ndeflib encodes from record objects)."""
    octet_stream = bytes((i * 31 + 7) & 0xFF for i in range(4096))
    mixed = []
    for i in range(10):
        uri = f"https://www.example.com/p/{i}" if i % 2 == 0 else f"mailto:user{i}@example.com"
        mixed.append(ndef.UriRecord(uri))
        mixed.append(ndef.TextRecord(f"Record number {i}", "en"))
        mixed.append(ndef.Record("text/plain", "", f"plain text payload {i}".encode()))
    return [
        ("url", [ndef.UriRecord("https://example.com/t/04A1B2C3D4E5F6")]),
        ("mime-4k", [ndef.Record("application/octet-stream", "", octet_stream)]),
        ("mixed-30", mixed),
    ]


def encode(records):
    return b"".join(ndef.message_encoder(records))


def decode(octets):
    return list(ndef.message_decoder(octets))


def operations_per_second(body, min_seconds):
    """Runs body in growing batches until min_seconds have passed; returns operations/s."""
    operations = 0
    batch = 1
    clock = time.perf_counter
    start = clock()
    while True:
        for _ in range(batch):
            body()
        operations += batch
        elapsed = clock() - start
        if elapsed >= min_seconds:
            return operations / elapsed
        batch = min(batch * 2, 1 << 14)


def main():
    parser = argparse.ArgumentParser(description="ndeflib encode/decode throughput")
    parser.add_argument("--min-time", type=float, default=0.5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--encodings-only", action="store_true")
    args = parser.parse_args()

    messages = bench_messages()
    for name, records in messages:
        octets = encode(records)
        print(json.dumps({"kind": "encoding", "impl": "ndeflib", "message": name, "bytes": len(octets),
                          "records": len(records), "hex": octets.hex()}), flush=True)
    if args.encodings_only:
        return

    for name, records in messages:
        octets = encode(records)
        assert decode(octets) == records, f"ndeflib does not round-trip {name}"
        operations_per_second(lambda: decode(encode(records)), args.min_time / 5)  # warm-up
        for op, body in (("encode", lambda: encode(records)), ("decode", lambda: decode(octets))):
            best = max(operations_per_second(body, args.min_time) for _ in range(args.repeats))
            print(json.dumps({"kind": "result", "impl": "ndeflib", "message": name, "op": op,
                              "bytes": len(octets), "messages_per_s": best,
                              "mb_per_s": best * len(octets) / 1e6, "ns_per_message": 1e9 / best}),
                  flush=True)


if __name__ == "__main__":
    main()
