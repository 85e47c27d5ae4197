#!/usr/bin/env python3
"""Writes the hostile tag images of this directory: tag files (docs/simulator.md, "Tag files")
whose memory lies. Run from anywhere: python3 Tests/Fixtures/hostile/make-images.py. The images
are committed; this script says exactly how each was made. See docs/robustness.md."""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
URI = bytes([0xD1, 0x01, 0x0C, 0x55, 0x02]) + b"example.com"  # https://www.example.com

def save(name, model, uid, memory, **extra):
    state = {"model": model, "uid": uid, "memory": bytes(memory).hex()}
    if model.startswith("ntag"):
        state.update(counters=[0], authenticationFailures=0)  # what the simulator saves
    state.update(extra)
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(state, f, indent=2, sort_keys=True)
        f.write("\n")

# --- NTAG213 (45 pages): UID/lock/CC pages 0-3, user pages 4-39 (144 bytes), dynamic lock page
# 40, CFG0, CFG1, PWD, PACK. The factory pages 0-2 and 40-44 of the simulator's default tag.
NTAG_HEAD = bytes.fromhex("045349964d0000014c480000")
NTAG_TAIL = bytes.fromhex("000000bd040000ff00050000ffffffff00000000")
def ntag213(cc2, user, cc3=0x00):
    user = bytes(user)[:144]
    return NTAG_HEAD + bytes([0xE1, 0x10, cc2, cc3]) + user + bytes(144 - len(user)) + NTAG_TAIL

T2_UID = "0453494d000001"
# The CC announces 2040 bytes (CC2 = FF); the chip has 144.
save("t2-cc-past-chip", "ntag213", T2_UID, ntag213(0xFF, [0x03, 0x00, 0xFE]))
# An NDEF TLV with a 3-byte length of 65534 (FF FF FE).
save("t2-tlv-length-65534", "ntag213", T2_UID, ntag213(0x12, [0x03, 0xFF, 0xFF, 0xFE] + list(URI)))
# TLVs that never end: NULL TLVs and empty unknown TLVs (7A 00) through the whole data area,
# behind a CC that announces 2040 bytes.
save("t2-tlvs-never-end", "ntag213", T2_UID, ntag213(0xFF, [0x00, 0x7A, 0x00] * 48))
# Lock Control TLV at page 15 x 2^15 (far outside memory), Memory Control TLV reserving 256
# bytes at page 0x0F x 2^15 + 15, then a good NDEF TLV.
save("t2-control-tlvs-outside", "ntag213", T2_UID,
     ntag213(0x12, [0x01, 0x03, 0xFF, 0x10, 0xFF, 0x02, 0x03, 0xFF, 0x00, 0x0F, 0x03, len(URI)] + list(URI) + [0xFE]))
# An NDEF TLV of 10 bytes whose record claims a 200-byte payload.
save("t2-record-past-tlv", "ntag213", T2_UID,
     ntag213(0x12, [0x03, 0x0A, 0xD1, 0x01, 0xC8, 0x55, 0x02] + list(b"examp") + [0xFE]))
# A chunked record whose chain never ends: every chunk has CF set, the last one ME too.
chunks = [0xB1, 0x01, 0x03, 0x54, 0x02, 0x65, 0x6E] + [0x36, 0x00, 0x02, 0x61, 0x61] * 5 + [0x76, 0x00, 0x01, 0x61]
save("t2-chunks-without-end", "ntag213", T2_UID, ntag213(0x12, [0x03, len(chunks)] + chunks + [0xFE]))
# An NDEF TLV of 254 bytes in a 144-byte data area.
save("t2-tlv-past-data-area", "ntag213", T2_UID, ntag213(0x12, [0x03, 0xFE] + list(URI) + [0xFE]))

# --- Type 4 (2048-byte NDEF file): the CC file is replaced through the tag file.
def type4_cc(size, mle=0x3B, mlc=0x34):
    return bytes([0x00, 0x0F, 0x20, mle >> 8, mle & 0xFF, mlc >> 8, mlc & 0xFF, 0x04, 0x06, 0xE1, 0x04,
                  size >> 8, size & 0xFF, 0x00, 0x00])
def type4_file(nlen, message=b""):
    f = bytes([nlen >> 8, nlen & 0xFF]) + message
    return f + bytes(2048 - len(f))
# The CC announces a 0xFFFE-byte NDEF file (the real one has 2048) and NLEN 7000 (28672).
save("t4-cc-ffff-file", "type4", T2_UID, type4_file(0x7000, URI), readOnly=False,
     attributes={"capabilityContainer": type4_cc(0xFFFE).hex()})
# The CC is true; NLEN (4096) runs past the 2048-byte file.
save("t4-nlen-past-file", "type4", T2_UID, type4_file(0x1000, URI), readOnly=False)

# --- FeliCa Lite-S: block 0 is the attribute information block.
FELICA_REST = bytes.fromhex("d1010a5504612e6578616d706c650000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000012e53494d0000010000000000000000012e53494d00000100f10000000143000000000000000000000000000000000012fc00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffff0107000000000000000000000003000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000")
def attribute(nmaxb, ln, checksum_delta=0, nbr=4, nbw=1):
    b = [0x10, nbr, nbw, nmaxb >> 8, nmaxb & 0xFF, 0, 0, 0, 0, 0x00, 0x01, ln >> 16, (ln >> 8) & 0xFF, ln & 0xFF]
    s = sum(b) + checksum_delta
    return bytes(b + [(s >> 8) & 0xFF, s & 0xFF])
F_UID = "012e53494d000001"
# Nmaxb FFFF (1 MiB) and Ln 0FFFF0, checksum right: the Lite-S has 13 NDEF blocks.
save("t3-nmaxb-absurd", "felica-lite-s", F_UID, attribute(0xFFFF, 0x0FFFF0) + FELICA_REST)
# The same block with a checksum off by one.
save("t3-bad-checksum", "felica-lite-s", F_UID, attribute(0xFFFF, 0x0FFFF0, checksum_delta=1) + FELICA_REST)

# --- MIFARE Classic 1K, NDEF formatted (MAD1 pointing every sector 1-15 at NDEF).
def crc(data):
    c = 0xC7
    for b in data:
        c ^= b
        for _ in range(8):
            c = ((c << 1) ^ 0x1D) & 0xFF if c & 0x80 else (c << 1) & 0xFF
    return c
def classic(gpb, first_sector_data):
    mad = [0x01] + [0x03, 0xE1] * 15
    memory = bytes.fromhex("53494d01560804006263646566676869") + bytes([crc(mad)] + mad)
    memory += bytes.fromhex("a0a1a2a3a4a5787788") + bytes([gpb]) + bytes.fromhex("ffffffffffff")
    data = bytes(first_sector_data) + bytes(48 * 15)
    for sector in range(1, 16):
        memory += data[(sector - 1) * 48:sector * 48] + bytes.fromhex("d3f7d3f7d3f77f078840ffffffffffff")
    return memory
C_UID = "53494d01"
# Every sector is NDEF and the NDEF TLV claims 65534 bytes (the 15 sectors hold 720).
save("classic-mad-all-ndef", "classic1k", C_UID, classic(0xC1, [0x03, 0xFF, 0xFF, 0xFE] + list(URI)))
# The GPB announces MAD2 (sector 16 onwards) on a 1K card, which has 16 sectors.
save("classic-mad2-on-1k", "classic1k", C_UID, classic(0xC2, [0x03, len(URI)] + list(URI) + [0xFE]))

# --- ICODE SLIX2 (80 blocks of 4 bytes), tag file image: memory, 80 lock bytes, DSFID, AFI, flags.
def slix2(memory):
    memory = bytes(memory)
    return memory + bytes(320 - len(memory)) + bytes(83)
S_UID = "e004010853494d01"
# 8-byte CC with MLEN FFFF (524 280 bytes; the chip has 320) and an NDEF TLV of 65534 bytes.
save("t5-mlen-huge", "slix2", S_UID, slix2([0xE1, 0x40, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x03, 0xFF, 0xFF, 0xFE] + list(URI)))
# 4-byte CC with MLEN FF (2040 bytes) and a short, valid message.
save("t5-cc-past-chip", "slix2", S_UID, slix2([0xE1, 0x40, 0xFF, 0x01, 0x03, len(URI)] + list(URI) + [0xFE]))

# --- Broadcom Topaz (NFC Forum Type 1): UID0-6 in block 0, CC in block 1, TLVs from byte 12,
# blocks D-F reserved (docs/tags.md, "Type 1").
T_UID = "0153494d000001"
def topaz(size, tail):
    memory = bytes.fromhex(T_UID) + bytes(1) + bytes(tail)
    return memory + bytes(size - len(memory))
# Topaz 512 whose CC2 = FF names 2048 bytes; nfcpy's control TLVs; a short, valid message.
save("t1-cc-past-chip", "topaz512", T_UID, topaz(512, [0xE1, 0x10, 0xFF, 0x00, 0x01, 0x03, 0xF2, 0x30, 0x33,
     0x02, 0x03, 0xF0, 0x02, 0x03, 0x03, len(URI)] + list(URI) + [0xFE]))
# Topaz 96 with an NDEF TLV of 200 bytes in its 92-byte data area.
save("t1-tlv-past-area", "topaz96", T_UID, topaz(120, [0xE1, 0x10, 0x0E, 0x00, 0x03, 200] + list(URI)))

# --- The same structures as fuzz seeds (Fuzz/corpus/TARGET/hostile-*.bin), so the fuzzers start
# from each lie too.
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
def seed(target, name, data):
    directory = os.path.join(ROOT, "Fuzz", "corpus", target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "hostile-" + name + ".bin"), "wb") as f:
        f.write(bytes(data))
for name in ["t2-cc-past-chip", "t2-tlv-length-65534", "t2-tlvs-never-end", "t2-control-tlvs-outside",
             "t2-record-past-tlv", "t2-chunks-without-end", "t2-tlv-past-data-area"]:
    with open(os.path.join(HERE, name + ".json")) as f:
        seed("type2-memory", name, bytes.fromhex(json.load(f)["memory"])[:160])
for name in ["t5-mlen-huge", "t5-cc-past-chip"]:
    with open(os.path.join(HERE, name + ".json")) as f:
        seed("type5-memory", name, bytes.fromhex(json.load(f)["memory"])[:316])
for name in ["t1-cc-past-chip", "t1-tlv-past-area"]:
    with open(os.path.join(HERE, name + ".json")) as f:
        seed("type1-memory", name, bytes([0x00, 0x12 if "cc-past" in name else 0x11]) + bytes.fromhex(json.load(f)["memory"]))
seed("type3-attribute", "t3-nmaxb-absurd", attribute(0xFFFF, 0x0FFFF0))
seed("type3-attribute", "t3-bad-checksum", attribute(0xFFFF, 0x0FFFF0, checksum_delta=1))
seed("type4-cc", "t4-cc-ffff-file", type4_cc(0xFFFE))
seed("classic-mad", "mad-all-ndef", classic(0xC1, [])[16:48])
