#!/usr/bin/env python3
"""Reads a Type 2 tag memory dump (nfc-mfultralight's .mfd) and prints the URIs of the NDEF
message found in it, decoded by ndeflib: an oracle independent of NFCKit's parsers.

Usage: type2_dump_ndef.py DUMP  ->  {"cc": "E1103E00", "uris": ["https://..."], "records": N}
Used by Tests/EndToEndTests; never by the product.
"""
import json
import sys

import ndef

data = open(sys.argv[1], "rb").read()
cc = data[12:16]
i = 16
message = None
while i < len(data):
    t = data[i]
    if t == 0x00:
        i += 1
        continue
    if t == 0xFE:
        break
    length = data[i + 1]
    head = 2
    if length == 0xFF:
        length = (data[i + 2] << 8) | data[i + 3]
        head = 4
    if t == 0x03:
        message = data[i + head:i + head + length]
        break
    i += head + length
records = list(ndef.message_decoder(message)) if message else []
print(json.dumps({"cc": cc.hex().upper(), "records": len(records),
                  "uris": [r.iri for r in records if isinstance(r, ndef.UriRecord)]}))
