public import NDEF
import NFCCore

/// The NDEF mapping of a Type 1 tag: detection from RALL (and block F and the later segments on
/// the dynamic layout), the TLV area of ``Type1TLVArea``, tear-safe writes, lock by CC3 and the
/// lock bits, format with the layouts of ``Type1FormatLayout``.
extension Type1Tag: NFCNDEFTag {
    /// The NDEF detection procedure: `.notSupported` (capacity 0) when HR0, the CC or the TLV
    /// area says not NDEF; else read-write or read-only from CC3's write access.
    /// - Throws: ``NFCTagError`` `malformedTag` (a TLV cut short…), `notSupported` (the NDEF TLV
    ///   reaches past what this reader reads), `tagResponse`, `connectionLost`.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery {
        let snapshot = try await load()
        do {
            let area = try tlvArea(snapshot)
            return NDEFQuery(
                status: area.capabilityContainer.isWritable ? .readWrite : .readOnly, capacity: area.capacity,
                messageLength: area.messageLength)
        } catch where error.code == .notNDEFFormatted {
            return NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0)
        }
    }

    /// The stored message; ``NDEFMessage/empty`` for an empty NDEF TLV.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`, `malformedMessage` (offset in tag memory),
    ///   and as ``queryNDEFStatus()``.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage {
        let snapshot = try await load()
        let area = try tlvArea(snapshot)
        guard area.messageLength > 0 else { return .empty }
        let addresses = area.messageAddresses
        let bytes = addresses.map { snapshot.memory[$0] }
        do throws(NDEFError) {
            return try NDEFMessage(bytes: bytes)
        } catch {
            let offset = error.offset.map { addresses[addresses.startIndex + min($0, addresses.count - 1)] }
            throw NFCTagError(.malformedMessage, at: offset, "stored NDEF message does not decode: \(error.reason)")
        }
    }

    /// Writes `message` in place of the stored one. Checks first (NDEF formatted, CC3 write
    /// access, capacity, no byte to change locked or out of the reader's reach); then the first L
    /// byte to 0 (unless the tag already holds an empty message), the message bytes and a
    /// Terminator TLV where room is left, and the length last (L2 L3, then L1 = `FF`, for the
    /// 3-byte form). Bytes already holding their new value are not written.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`, `readOnly`, `capacityExceeded`,
    ///   `invalidMessage`, `notSupported` (nothing written); `connectionLost`, `tagResponse` (the
    ///   tag holds the old, an empty or the new message); `verificationFailed`.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) {
        let encoded = try message.encodedForTag()
        var snapshot = try await load()
        let area = try tlvArea(snapshot)
        guard area.capabilityContainer.isWritable else {
            throw NFCTagError(.readOnly, at: Type1Memory.capabilityContainerAddress + 3, "CC3 denies writing")
        }
        try NFCTagError.checkCapacity(encoded.count, fits: area.capacity)
        let tlv = NDEFTLV.wrap(encoded, room: area.ndefAddresses.count)
        let lengthSize = encoded.count < 0xFF ? 1 : 3
        let addresses = area.ndefAddresses
        var data: [(address: Int, value: UInt8)] = []
        // A byte past the reader's reach is unknown: it is to be written (and refused below).
        func differs(_ index: Int) -> Bool {
            addresses[index] >= snapshot.memory.count || snapshot.memory[addresses[index]] != tlv[index]
        }
        for index in (1 + lengthSize)..<tlv.count where differs(index) {
            data.append((addresses[index], tlv[index]))
        }
        let lengthOrder = lengthSize == 3 ? [2, 3, 1] : [1]
        let length = lengthOrder.compactMap { index -> (address: Int, value: UInt8)? in
            !differs(index) && data.isEmpty ? nil : (addresses[index], tlv[index])
        }
        let firstLength = addresses[1]
        let clear: [(address: Int, value: UInt8)] =
            snapshot.memory[firstLength] != 0 && !(data.isEmpty && length.isEmpty) ? [(firstLength, UInt8(0))] : []
        let changes = clear + data + length
        try checkWritable(changes.map(\.address), snapshot: snapshot, area: area)
        try await write(changes, into: &snapshot.memory)
        guard verify, !changes.isEmpty else { return }
        let back: NDEFMessage
        do {
            back = try await readNDEF()
        } catch where error.code == .malformedMessage || error.code == .malformedTag || error.code == .notNDEFFormatted {
            throw NFCTagError(.verificationFailed, at: error.offset, "read back: \(error.reason)")
        }
        guard back == message || (message.records.isEmpty && back == .empty) else {
            throw NFCTagError(.verificationFailed, "the message read back differs from the one written")
        }
    }

    /// Makes the tag read-only for good: CC3 write access `F` (WRITE-NE), then the lock bits a
    /// Lock Control TLV names (WRITE-NE of each byte), then LOCK0 and LOCK1 (`FF`, WRITE-NE).
    /// Checks first: NDEF formatted, every lock byte within the reader's reach.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`, `notSupported` (nothing written);
    ///   `connectionLost`, `tagResponse`.
    public func writeLock() async throws(NFCTagError) {
        let snapshot = try await load()
        let area = try tlvArea(snapshot)
        var steps: [(address: Int, value: UInt8)] = []
        let cc3 = Type1Memory.capabilityContainerAddress + 3
        if snapshot.memory[cc3] & 0x0F != Type1CapabilityContainer.writeAccessDenied {
            steps.append((cc3, Type1CapabilityContainer.writeAccessDenied))
        }
        for lock in area.controlAreas where lock.kind == .lockBits {
            for (offset, address) in lock.addresses.enumerated() {
                let bits = min(8, lock.bitCount - offset * 8)
                guard bits > 0 else { break }
                let value = UInt8(truncatingIfNeeded: (1 << bits) - 1)
                guard address < snapshot.memory.count else {
                    throw NFCTagError(.notSupported, at: address, "lock byte \(address) lies past the memory this reader reads; nothing was written")
                }
                if snapshot.memory[address] & value != value { steps.append((address, value)) }
            }
        }
        for address in Type1Memory.staticLockBytes where snapshot.memory[address] != 0xFF {
            steps.append((address, 0xFF))
        }
        for step in steps where step.address >= Type1Memory.byteCommandLimit {
            throw NFCTagError(.notSupported, at: step.address, "lock byte \(step.address) is out of reach of the byte commands; nothing was written")
        }
        for step in steps {
            let now = try await writeByte(step.address, step.value, erase: false)
            guard now & step.value == step.value else {
                throw NFCTagError(.tagResponse, at: step.address, "the tag holds \(hexByte(now)) at byte \(step.address) after setting \(hexByte(step.value))")
            }
        }
    }

    /// Whether ``writeLock()`` can lock this tag: it needs an NDEF-capable tag (HR0), formatted
    /// or to be formatted.
    /// - Throws: ``NFCTagError`` `notSupported` for a Jewel that is not NDEF-capable.
    public func checkLockable() async throws(NFCTagError) {
        let identification = try await readIdentification()
        guard Type1HeaderROM.isNDEFCapable(identification.hr0) else {
            throw NFCTagError(.notSupported, at: 0, "HR0 \(hexByte(identification.hr0)) is not an NDEF-capable Type 1 tag: it has no lock NFCKit drives")
        }
    }

    /// What keeps the tag writable: CC3's write access, LOCK0/LOCK1 bits, the lock bits of a
    /// Lock Control TLV.
    public func readOnlyGaps() async throws(NFCTagError) -> [String] {
        let snapshot = try await load()
        let area: Type1TLVArea
        do {
            area = try self.tlvArea(snapshot)
        } catch where error.code == .notNDEFFormatted {
            return ["the tag holds no NDEF"]
        }
        var gaps: [String] = []
        if area.capabilityContainer.isWritable { gaps.append("CC3 grants write access") }
        for address in Type1Memory.staticLockBytes where snapshot.memory[address] != 0xFF {
            gaps.append("static lock byte \(address) is \(hexByte(snapshot.memory[address])), not FF")
        }
        for lock in area.controlAreas where lock.kind == .lockBits {
            for (offset, address) in lock.addresses.enumerated() where address < snapshot.memory.count {
                let bits = min(8, lock.bitCount - offset * 8)
                guard bits > 0 else { break }
                let value = UInt8(truncatingIfNeeded: (1 << bits) - 1)
                if snapshot.memory[address] & value != value { gaps.append("dynamic lock byte \(address) has bits clear") }
            }
        }
        return gaps
    }

    /// Writes the layout of ``Type1FormatLayout`` (CC, control TLVs on the dynamic layout, an
    /// empty NDEF TLV). A tag holding a message, or data where none is formatted, is refused
    /// without `force`. When the layout is already there only L goes to 0; otherwise CC0 goes to
    /// 00 first (the tag reads as not formatted), the other bytes follow and `E1` comes last.
    /// - Throws: ``NFCTagError`` `alreadyFormatted`, `notSupported` (not NDEF-capable), `readOnly`
    ///   (a locked block), `connectionLost`, `tagResponse`.
    public func format(force: Bool) async throws(NFCTagError) {
        var snapshot = try await load()
        guard Type1HeaderROM.isNDEFCapable(snapshot.hr0) else {
            throw NFCTagError(.notSupported, at: 0, "HR0 \(hexByte(snapshot.hr0)) is not an NDEF-capable Type 1 tag")
        }
        let layout = Type1HeaderROM.isStatic(snapshot.hr0) ? Type1FormatLayout.staticLayout : Type1FormatLayout.dynamicLayout
        let start = Type1Memory.capabilityContainerAddress
        let current = Array(snapshot.memory[start..<(start + layout.count)])
        let parsed = try? tlvArea(snapshot)
        let holdsData: Bool
        if let parsed {
            holdsData = parsed.messageLength > 0
        } else if snapshot.memory[start] == Type1CapabilityContainer.ndefMagic {
            holdsData = true
        } else {
            holdsData = snapshot.memory[Type1Memory.dataAreaAddress..<Type1Memory.reservedBlock.lowerBound].contains { $0 != 0 }
        }
        if holdsData && !force {
            throw NFCTagError(.alreadyFormatted, "the tag holds data; format with force to replace it")
        }
        var changes: [(address: Int, value: UInt8)] = []
        if current.dropLast() == layout.dropLast() {
            let length = start + layout.count - 1
            if snapshot.memory[length] != 0 { changes.append((length, UInt8(0))) }
        } else {
            if snapshot.memory[start] != 0 { changes.append((start, UInt8(0))) }
            for (offset, byte) in layout.enumerated().dropFirst() where current[offset] != byte {
                changes.append((start + offset, byte))
            }
            changes.append((start, layout[0]))
        }
        try checkWritable(changes.map(\.address), snapshot: snapshot, area: nil)
        try await write(changes, into: &snapshot.memory)
    }
}
