#!/usr/bin/env python3
"""ndeflib (PyPI) as an independent oracle for NFCKit's NDEF codec.

Two modes, both speaking JSON on stdout:

  generate COUNT SEED   Builds COUNT random messages with ndeflib and prints one JSON object
                        per line: {"hex": <ndeflib's bytes>, "exact": <bool>, "records": [spec]}.
                        Each spec is a record in NFCKit's JSON shorthand (docs/ndef.md), so the
                        Swift side can both check its decoder's fields against it and build the
                        same message with its encoder. "exact" says whether ndeflib's bytes are
                        the canonical encoding NFCKit must reproduce byte for byte (false where
                        the two lay out the same meaning differently, e.g. ndeflib sorts Wi-Fi
                        attributes and writes UTF-16 little-endian).
  check                 Reads lines {"hex": ..., "records": [NFCKit JSON output]} on stdin,
                        decodes each with ndeflib, and prints {"checked": N, "mismatches": [...]}.

Used by Tests/NDEFTests/NdeflibOracleTests.swift; never by the product.
"""
import json
import random
import sys

import ndef
from ndef import wifi

AUTH = {"open": "Open", "wpa-personal": "WPA-Personal", "shared": "Shared", "wpa-enterprise": "WPA-Enterprise",
        "wpa2-enterprise": "WPA2-Enterprise", "wpa2-personal": "WPA2-Personal"}
ENC = {"none": "None", "wep": "WEP", "tkip": "TKIP", "aes": "AES"}
ACTION_TO_NDEFLIB = {"do": "exec", "save": "save", "edit": "edit"}
ACTION_FROM_NDEFLIB = {v: k for k, v in ACTION_TO_NDEFLIB.items()}
PREFIXES = ["", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:", "ftp://anonymous:anonymous@",
            "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://", "ftp://", "dav://", "news:", "telnet://", "imap:",
            "rtsp://", "urn:", "pop:", "sip:", "sips:", "tftp:", "btspp://", "btl2cap://", "btgoep://", "tcpobex://",
            "irdaobex://", "file://", "urn:epc:id:", "urn:epc:tag:", "urn:epc:pat:", "urn:epc:raw:", "urn:epc:",
            "urn:nfc:"]


def word(rng, alphabet="abcdefghijklmnopqrstuvwxyz0123456789-._~äöü日本🎉", lo=1, hi=16):
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


def octets(rng, lo, hi):
    return bytes(rng.randrange(256) for _ in range(rng.randint(lo, hi)))


def make_record(rng):
    """Returns (ndeflib record, NFCKit shorthand spec, exact bytes expected)."""
    kind = rng.choice(["uri", "uri", "text", "text16", "sp", "mime", "external", "aar", "absolute", "unknown",
                       "wifi", "bluetooth", "mimebig"])
    if kind == "uri":
        iri = rng.choice(PREFIXES) + word(rng, "abcdefghijklmnopqrstuvwxyz0123456789/.-") + rng.choice(["", "/ä", "?q=1"])
        return ndef.UriRecord(iri), {"uri": iri}, True
    if kind in ("text", "text16"):
        text, lang = word(rng, lo=0, hi=40), rng.choice(["en", "de", "fr-CA", "zh-Hant-TW"])
        if kind == "text":
            return ndef.TextRecord(text, lang, "UTF-8"), {"text": text, "lang": lang}, True
        # ndeflib writes UTF-16 little-endian with a BOM; NFCKit writes big-endian with a BOM.
        return ndef.TextRecord(text, lang, "UTF-16"), {"text": text, "lang": lang, "encoding": "utf-16"}, False
    if kind == "sp":
        uri = "https://" + word(rng, "abcdefghijklmnopqrstuvwxyz.")
        rec = ndef.SmartposterRecord(uri)
        spec = {"uri": uri}
        titles = []
        for lang in rng.sample(["en", "de", "fr"], rng.randint(0, 2)):
            t = word(rng)
            rec.set_title(t, lang)
            titles.append({"text": t, "lang": lang})
        if titles:
            spec["titles"] = titles
        if rng.random() < 0.5:
            a = rng.choice(["do", "save", "edit"])
            rec.action = ACTION_TO_NDEFLIB[a]
            spec["action"] = a
        if rng.random() < 0.5:
            rec.resource_size = rng.randint(0, 2**32 - 1)
            spec["size"] = rec.resource_size
        if rng.random() < 0.5:
            rec.resource_type = "text/html"
            spec["type"] = "text/html"
        return rec, {"smartPoster": spec}, True
    if kind in ("mime", "mimebig"):
        data = octets(rng, 0, 40) if kind == "mime" else octets(rng, 256, 1200)
        mtype = rng.choice(["text/plain", "application/json", "image/png", "application/octet-stream"])
        return ndef.Record(mtype, "", data), {"mime": mtype, "dataHex": data.hex()}, True
    if kind == "external":
        etype = rng.choice(["example.com:t", "nfckit.dev:batch", "a.b:c"])
        data = octets(rng, 0, 30)
        return ndef.Record("urn:nfc:ext:" + etype, "", data), {"external": etype, "dataHex": data.hex()}, True
    if kind == "aar":
        pkg = rng.choice(["com.example.app", "org.nfckit.tool", "a.b_c.d1"])
        return ndef.Record("urn:nfc:ext:android.com:pkg", "", pkg.encode()), {"aar": pkg}, True
    if kind == "absolute":
        uri = "https://example.com/" + word(rng, "abcdefghij")
        data = octets(rng, 0, 10)
        return ndef.Record(uri, "", data), {"absoluteURI": uri, "dataHex": data.hex()}, True
    if kind == "unknown":
        data = octets(rng, 0, 30)
        return ndef.Record("unknown", "", data), {"tnf": "unknown", "payload": data.hex()}, True
    if kind == "wifi":
        ssid, key = word(rng, "abcdefghijklmnop", 1, 32), word(rng, "abcdefghijklmnop0123", 8, 63)
        auth, enc = rng.choice(list(AUTH)), rng.choice(list(ENC))
        if auth == "open" and enc == "none":
            key = ""
        mac = bytes(rng.randrange(256) for _ in range(6))
        cred = wifi.Credential()
        cred.set_attribute("network-index", 1)
        cred.set_attribute("ssid", ssid.encode())
        cred.set_attribute("authentication-type", AUTH[auth])
        cred.set_attribute("encryption-type", ENC[enc])
        cred.set_attribute("network-key", key.encode())
        cred.set_attribute("mac-address", mac)
        rec = ndef.WifiSimpleConfigRecord()
        rec.set_attribute("version-1", 1, 0)
        rec.set_attribute("credential", cred)
        spec = {"wifi": {"ssid": ssid, "auth": auth, "encryption": enc, "key": key,
                         "mac": ":".join("%02X" % b for b in mac)}}
        return rec, spec, False  # ndeflib sorts attributes by type; NFCKit uses Android's order
    # bluetooth
    addr = ":".join("%02X" % rng.randrange(256) for _ in range(6))
    rec = ndef.BluetoothEasyPairingRecord(addr)
    spec = {"address": addr}
    if rng.random() < 0.7:
        name = word(rng, lo=1, hi=20)
        rec.device_name = name
        spec["name"] = name
    if rng.random() < 0.7:
        cls = rng.randint(0, 0xFFFFFF)
        rec.device_class = cls
        spec["class"] = cls
    return rec, {"bluetooth": spec}, False  # ndeflib writes the name before the class


def generate(count, seed):
    rng = random.Random(seed)
    for _ in range(count):
        built = [make_record(rng) for _ in range(rng.randint(1, 5))]
        for rec, spec, _ in built:
            if rng.random() < 0.2 and not isinstance(rec, ndef.SmartposterRecord):
                rec.name = "id" + str(rng.randint(0, 99))
                spec["id"] = rec.name
        octs = b"".join(ndef.message_encoder([r for r, _, _ in built]))
        print(json.dumps({"hex": octs.hex(), "exact": all(e for _, _, e in built),
                          "records": [s for _, s, _ in built]}, ensure_ascii=False))


def describe(rec):
    """The fields of an ndeflib record in NFCKit's JSON output vocabulary."""
    if type(rec) is ndef.Record and rec.type in ("application/vnd.bluetooth.ep.oob", "application/vnd.wfa.wsc",
                                                 "urn:nfc:wkt:Sp", "urn:nfc:wkt:U", "urn:nfc:wkt:T"):
        # ndeflib 0.3.3 quirk: decoding a Smart Poster narrows its table of known types for the
        # rest of the message, so later records of these types come out generic; decoded alone,
        # the same record is recognised.
        rec = next(ndef.message_decoder(b"".join(ndef.message_encoder([rec]))))
    out = {}
    if rec.name:
        out["id"] = rec.name
    if isinstance(rec, ndef.UriRecord):
        out.update(kind="uri", uri=rec.iri)
    elif isinstance(rec, ndef.TextRecord):
        out.update(kind="text", text=rec.text, lang=rec.language, encoding=rec.encoding.lower())
    elif isinstance(rec, ndef.SmartposterRecord):
        sp = {"uri": rec.resource.iri}
        if rec.titles:
            sp["titles"] = sorted(rec.titles.items())
        if rec.action is not None:
            sp["action"] = ACTION_FROM_NDEFLIB.get(rec.action, rec.action)
        if rec.resource_size is not None:
            sp["size"] = rec.resource_size
        if rec.resource_type is not None:
            sp["type"] = rec.resource_type
        out.update(kind="smart-poster", smartPoster=sp)
    elif isinstance(rec, ndef.WifiSimpleConfigRecord):
        c = rec.get_attribute("credential")
        auth = {v: k for k, v in AUTH.items()}.get(c.get_attribute("authentication-type").value[1])
        enc = {v: k for k, v in ENC.items()}.get(c.get_attribute("encryption-type").value[1])
        out.update(kind="wifi", wifi={
            "ssid": c.get_attribute("ssid").value.decode(), "auth": auth, "encryption": enc,
            "key": c.get_attribute("network-key").value.decode(),
            "mac": ":".join("%02X" % b for b in c.get_attribute("mac-address").value)})
    elif isinstance(rec, ndef.BluetoothEasyPairingRecord):
        bt = {"address": rec.device_address.addr.upper()}
        if rec.device_name:
            bt["name"] = rec.device_name
        if 0x0D in rec.keys():
            bt["class"] = rec.device_class.cod
        out.update(kind="bluetooth", bluetooth=bt)
    else:
        t = rec.type
        if t.startswith("urn:nfc:ext:"):
            ext = t[len("urn:nfc:ext:"):]
            if ext.lower() == "android.com:pkg":
                out.update(kind="android-app", aar=rec.data.decode())
                return out
            else:
                out.update(kind="external", external=ext)
        elif t == "":
            out.update(kind="empty")
            return out
        elif t == "unknown":
            out.update(kind="unknown")
        elif t.startswith("urn:nfc:wkt:"):
            out.update(kind="well-known")
        elif "/" in t and ":" not in t:
            out.update(kind="mime", mime=t)
        else:
            out.update(kind="absolute-uri", absoluteURI=t)
        out["payload"] = rec.data.hex()
    return out


def normalise_ours(r):
    """NFCKit's JSON output record reduced to the fields describe() produces."""
    out = {"kind": r.get("kind")}
    if "id" in r:
        out["id"] = r["id"]
    k = out["kind"]
    if k == "empty":
        pass
    elif k == "uri":
        out["uri"] = r["uri"]
    elif k == "text":
        out.update(text=r["text"], lang=r["lang"], encoding=r["encoding"])
    elif k == "smart-poster":
        sp = dict(r["smartPoster"])
        if "titles" in sp:
            sp["titles"] = sorted((t["lang"], t["text"]) for t in sp["titles"])
        sp.pop("icons", None)
        out["smartPoster"] = sp
    elif k == "wifi":
        out["wifi"] = {key: r["wifi"].get(key) for key in ("ssid", "auth", "encryption", "key", "mac")}
    elif k == "bluetooth":
        out["bluetooth"] = {key: r["bluetooth"][key] for key in ("address", "name", "class") if key in r["bluetooth"]}
    else:
        for key in ("external", "mime", "absoluteURI"):
            if key in r:
                out[key] = r[key]
        if k == "android-app":
            out["aar"] = r["aar"]
        else:
            out["payload"] = r["payload"]
    return out


def check():
    checked, mismatches = 0, []
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        checked += 1
        try:
            theirs = [describe(r) for r in ndef.message_decoder(bytes.fromhex(case["hex"]))]
        except Exception as e:  # ndeflib refused bytes NFCKit produced
            mismatches.append({"hex": case["hex"], "error": "ndeflib: %s" % e})
            continue
        ours = [normalise_ours(r) for r in case["records"]]
        theirs = [json.loads(json.dumps(t)) for t in theirs]  # tuples -> lists, as in ours
        ours = [json.loads(json.dumps(o)) for o in ours]
        if ours != theirs:
            mismatches.append({"hex": case["hex"], "ours": ours, "ndeflib": theirs})
    print(json.dumps({"checked": checked, "mismatches": mismatches[:10], "mismatchCount": len(mismatches)},
                     ensure_ascii=False))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "generate":
        generate(int(sys.argv[2]), int(sys.argv[3]))
    elif len(sys.argv) == 2 and sys.argv[1] == "check":
        check()
    else:
        sys.exit("usage: ndeflib_oracle.py generate COUNT SEED | check")
