// Fuzz targets for the tag memory parsers of NFCTags: `type2-memory`, `type3-attribute`,
// `type4-cc`, `type5-memory`, `classic-mad`.
import NDEF
import NFCTags

/// `type2-memory`: the input is Type 2 tag memory from address 0 (the CC at 12, TLVs from 16).
/// The TLV area either fails with an offset inside the CC's data area (or where memory ran
/// out), or names NDEF addresses inside the data area, in order, that memory covers.
func checkType2Memory(_ bytes: [UInt8]) {
    if bytes.count >= 16 {
        let ccBytes = Array(bytes[12..<16])
        if let cc = try? Type2CapabilityContainer(bytes: ccBytes), cc.bytes != ccBytes {
            fail("Type 2 CC \(ccBytes) encodes back as \(cc.bytes)", bytes)
        }
    }
    // Every 3-byte window as a Lock and a Memory Control TLV value.
    if bytes.count >= 3 {
        let value = Array(bytes.suffix(3))
        for kind in [Type2ReservedArea.Kind.lockBits, .reserved] {
            guard let area = Type2ReservedArea(kind: kind, value: value) else { fail("a 3-byte control TLV value was refused", bytes) }
            if area.addresses.isEmpty || area.addresses.lowerBound < 0 { fail("control TLV area \(area.addresses) is empty", bytes) }
        }
    }
    // The chip's bound, taken from the input (byte 0, UID0 on a real tag): a CC that fits it
    // parses as without the bound; one that does not is refused at CC2 (offset 14).
    let bound = 16 + 8 * Int(bytes.first ?? 0)
    let bounded = Result { () throws(NFCTagError) in try Type2TLVArea.parse(memory: bytes, userMemoryEnd: bound) }
    let area: Type2TLVArea
    do {
        area = try Type2TLVArea.parse(memory: bytes)
    } catch {
        checkOffset(error.offset, within: max(bytes.count, 16 + 255 * 8), "Type 2 TLV area", bytes)
        if case .success = bounded { fail("parses with the chip's bound but not without: \(error)", bytes) }
        return
    }
    let dataEnd = 16 + area.capabilityContainer.dataAreaSize
    switch bounded {
    case .success(let same) where dataEnd <= bound && same == area: break
    case .failure(let error) where dataEnd > bound && error.code == .malformedTag && error.offset == 14: break
    default: fail("with the bound \(bound) the data area ending at \(dataEnd) gives \(bounded)", bytes)
    }
    var previous = 15
    for address in area.ndefAddresses {
        if address <= previous || address >= dataEnd { fail("NDEF address \(address) out of order or outside 16..<\(dataEnd)", bytes) }
        previous = address
    }
    if area.ndefTLVAddress < 16 { fail("NDEF TLV at \(area.ndefTLVAddress), before the data area", bytes) }
    let message = area.messageAddresses
    if message.count != area.messageLength { fail("message of \(area.messageLength) bytes but \(message.count) addresses", bytes) }
    if let last = message.last, last >= bytes.count { fail("message address \(last) past memory (\(bytes.count))", bytes) }
    if area.capacity < 0 || area.capacity > area.ndefAddresses.count { fail("capacity \(area.capacity) of \(area.ndefAddresses.count) bytes", bytes) }
    _ = NDEFMessage.decodeLeniently(message.map { bytes[$0] })
}

/// `type3-attribute`: the input is the attribute information block (block 0). A block that
/// parses encodes back to itself (the checksum is over the same bytes) and names message blocks
/// within Nmaxb.
func checkType3Attribute(_ bytes: [UInt8]) {
    let info: Type3AttributeInformation
    do {
        info = try Type3AttributeInformation(parsing: bytes)
    } catch {
        checkOffset(error.offset, within: max(bytes.count, 16), "Type 3 attribute block", bytes)
        return
    }
    if info.encoded != bytes { fail("attribute block encodes back as \(info.encoded)", bytes) }
    if let blocks = info.messageBlocks, blocks.upperBound > Int(info.nmaxb) { fail("message blocks \(blocks) beyond Nmaxb \(info.nmaxb)", bytes) }
    if info.length > info.capacity { fail("Ln \(info.length) beyond the capacity \(info.capacity)", bytes) }
}

/// `type4-cc`: the input is the CC file. A CC that parses names a reachable file of at most
/// 32 768 bytes with room for its length field.
func checkType4CapabilityContainer(_ bytes: [UInt8]) {
    let cc: Type4CapabilityContainer
    do {
        cc = try Type4CapabilityContainer(bytes: bytes)
    } catch {
        checkOffset(error.offset, within: max(bytes.count, 17), "Type 4 CC", bytes)
        return
    }
    if cc.reachableFileSize > 0x8000 || cc.capacity <= 0 { fail("reachable file \(cc.reachableFileSize), capacity \(cc.capacity)", bytes) }
    if cc.length < Type4CapabilityContainer.basicLength { fail("CCLEN \(cc.length) accepted", bytes) }
    if cc.maximumReadLength < 15 || cc.maximumUpdateLength < 1 { fail("MLe \(cc.maximumReadLength) / MLc \(cc.maximumUpdateLength) accepted", bytes) }
    if Type4CapabilityContainer.requiredLength(bytes) > bytes.count { fail("parsed with fewer bytes than requiredLength", bytes) }
}

/// `type5-memory`: the input is Type 5 tag memory from block 0. The CC encodes back to its
/// bytes; a T5T area that parses names its message inside the area.
func checkType5Memory(_ bytes: [UInt8]) {
    if let cc = try? Type5CapabilityContainer(memory: bytes) {
        let stored = Array(bytes.prefix(cc.size))
        var expected = cc.bytes
        if cc.size == 8 { expected[4] = stored[4]; expected[5] = stored[5] }  // RFU bytes are kept as found
        if stored != expected { fail("Type 5 CC \(stored) encodes back as \(cc.bytes)", bytes) }
    }
    // The chip's memory size, taken from the input's length (as a tag of exactly this memory):
    // the walk is cut there, and a TLV running past it is refused.
    let bounded = Result { () throws(NFCTagError) in try Type5TLVArea.parse(memory: bytes, memoryEnd: bytes.count) }
    if case .success(let inside) = bounded {
        if inside.messageAddresses.upperBound > bytes.count { fail("bounded parse names message bytes past memory", bytes) }
        if inside.capacity > inside.usableBytes || inside.ndefTLVAddress + inside.usableBytes > bytes.count {
            fail("bounded capacity \(inside.capacity) reaches past memory", bytes)
        }
    }
    let area: Type5TLVArea
    do {
        area = try Type5TLVArea.parse(memory: bytes)
    } catch {
        checkOffset(error.offset, within: max(bytes.count, 8 + 0xFFFF * 8), "Type 5 TLV area", bytes)
        if case .success = bounded { fail("parses with the chip's bound but not without: \(error)", bytes) }
        return
    }
    let cc = area.capabilityContainer
    if case .success(let inside) = bounded, inside.ndefTLVAddress != area.ndefTLVAddress || inside.messageLength != area.messageLength {
        fail("the bound changed which NDEF TLV was found", bytes)
    }
    if case .failure = bounded, area.messageAddresses.upperBound <= bytes.count, area.capacity >= 0 {
        // Without the bound the message lies inside memory; with it the walk may only fail where
        // the area is cut before the NDEF TLV's value ends.
        if area.ndefTLVAddress + 1 + area.lengthFieldSize + area.messageLength <= bytes.count, cc.areaEnd <= bytes.count {
            fail("a TLV area inside memory was refused with the bound: \(bounded)", bytes)
        }
    }
    let message = area.messageAddresses
    if area.ndefTLVAddress < cc.size || message.upperBound > cc.areaEnd { fail("message \(message) outside the area \(cc.size)..<\(cc.areaEnd)", bytes) }
    if area.capacity < 0 || area.capacity > area.usableBytes { fail("capacity \(area.capacity) of \(area.usableBytes)", bytes) }
    let available = message.clamped(to: 0..<bytes.count)
    _ = NDEFMessage.decodeLeniently(Array(bytes[available]))
}

/// `classic-mad`: bytes 0–31 are MAD1 (blocks 1–2); when the input goes on, the next 48 are
/// MAD2 (blocks 64–66). A MAD that parses encodes back to the same bytes and its NDEF sectors
/// are a run of sectors that exist.
func checkClassicMAD(_ bytes: [UInt8]) {
    let sector0 = Array(bytes.prefix(32))
    let sector16: [UInt8]? = bytes.count > 32 ? Array(bytes[32...].prefix(48)) : nil
    let mad: MADDirectory
    do {
        mad = try MADDirectory(sector0: sector0, sector16: sector16)
    } catch {
        checkOffset(error.offset, within: MADDirectory.mad2Address, "MAD", bytes)
        return
    }
    if mad.sector0Bytes != sector0 { fail("MAD1 encodes back differently", bytes) }
    if mad.sector16Bytes != sector16 { fail("MAD2 encodes back differently", bytes) }
    let sectors = mad.ndefSectors
    for sector in sectors where sector <= 0 || sector >= mad.applications.count || (mad.version == .mad2 && sector == 16) {
        fail("NDEF sector \(sector) is a MAD sector or does not exist", bytes)
    }
    if sectors != sectors.sorted() || Set(sectors).count != sectors.count { fail("NDEF sectors \(sectors) out of order", bytes) }
}
