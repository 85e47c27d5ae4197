public import NFCCore

/// An NFC Forum Type 1 tag (Innovision Jewel, Broadcom Topaz 96 and Topaz 512): its commands
/// (RID, RALL, READ, WRITE-E, WRITE-NE, RSEG, READ8, WRITE-E8, WRITE-NE8) and its NDEF mapping.
///
/// CoreNFC has no Type 1 tag class: as it does with an ISO 14443-A compatible tag it does not
/// know, ``NFCTag/connect(to:on:commandTimeout:)`` (and so `nfctool`) reports these tags as
/// ``NFCTag/miFare(_:)`` of family ``MiFareFamily/unknown``, with this tag in
/// ``MiFareTag/type1`` and as its ``MiFareTag/ndefPlatform``. The CoreNFC-shaped sessions do not
/// poll the Jewel modulation (CoreNFC has no option for it).
///
/// Readers: the byte commands, RID and RALL go through any reader that carries Type 1 frames;
/// the 8-byte commands and RSEG only where ``NFCReader/checkCanSend(_:mode:)`` allows them. A
/// PN53x driven by libnfc does not (its firmware carries RID, RALL, READ, WRITE-E and WRITE-NE
/// only, per nfcpy's `clf/pn532.py`), so there a Topaz 512 is read and written up to byte 127
/// (the static part, block F by READ): a message that reaches past it is refused as
/// ``NFCTagError/Code/notSupported`` before anything is written.
///
/// Writes are tear-safe as on Type 2: the NDEF TLV's length goes to 0 first, then the message
/// bytes, then the real length last (one WRITE-E, or L2 L3 and then L1 = `FF`): a cut leaves the
/// old message, an empty one or the new one.
public struct Type1Tag: Sendable {
    /// The reader that selected the tag.
    public let reader: any NFCReader
    /// What selection returned (SENS_RES and UID0…UID3).
    public let target: JewelTarget
    /// What identification found.
    public let identity: ChipIdentity
    /// The timeout of each command.
    public var commandTimeout: Duration

    /// Wraps a selected target.
    public init(reader: any NFCReader, target: JewelTarget, identity: ChipIdentity, commandTimeout: Duration = .seconds(1)) {
        self.reader = reader
        self.target = target
        self.identity = identity
        self.commandTimeout = commandTimeout
    }

    /// UID0…UID3, which every command but RID carries.
    public var identifier: Bytes { target.id }

    private var uid: [UInt8] { target.id.array }

    // MARK: - Commands

    /// RID: HR0, HR1 and UID0…UID3.
    /// - Throws: ``NFCTagError`` `tagResponse` (malformed answer), `connectionLost`.
    public func readIdentification() async throws(NFCTagError) -> (hr0: UInt8, hr1: UInt8, uid: [UInt8]) {
        try Type1Answer.identification(try await send(Type1Frame.readIdentification(), what: "RID"))
    }

    /// RALL: HR0, HR1 and blocks 0…E (120 bytes).
    /// - Throws: as ``readIdentification()``.
    public func readAll() async throws(NFCTagError) -> (hr0: UInt8, hr1: UInt8, memory: [UInt8]) {
        try Type1Answer.readAll(try await send(Type1Frame.readAll(uid: uid), what: "RALL", exchange: .read))
    }

    /// READ of one byte (address 0…127).
    /// - Throws: ``NFCTagError`` `invalidParameter` (address), as ``readIdentification()``.
    public func readByte(_ address: Int) async throws(NFCTagError) -> UInt8 {
        try checkByteAddress(address)
        return try Type1Answer.byte(try await send(Type1Frame.read(address: address, uid: uid), what: "READ \(address)", exchange: .read), address: address)
    }

    /// WRITE-E (`erase`) or WRITE-NE of one byte (address 0…127).
    /// - Returns: the byte as the tag now holds it (a locked byte keeps its value).
    /// - Throws: as ``readByte(_:)``.
    @discardableResult
    public func writeByte(_ address: Int, _ value: UInt8, erase: Bool = true) async throws(NFCTagError) -> UInt8 {
        try checkByteAddress(address)
        let frame = Type1Frame.write(address: address, byte: value, erase: erase, uid: uid)
        return try Type1Answer.byte(try await send(frame, what: "\(erase ? "WRITE-E" : "WRITE-NE") \(address)", exchange: .write), address: address)
    }

    /// RSEG: the 128 bytes of segment 0…15.
    /// - Throws: `notSupported` when the reader cannot carry it, as ``readIdentification()``.
    public func readSegment(_ segment: Int) async throws(NFCTagError) -> [UInt8] {
        guard (0..<16).contains(segment) else { throw NFCTagError(.invalidParameter, "segment \(segment) is not 0…15") }
        return try Type1Answer.segment(try await send(Type1Frame.readSegment(segment, uid: uid), what: "RSEG \(segment)", exchange: .read), segment: segment)
    }

    /// READ8: the 8 bytes of block 0…255.
    /// - Throws: as ``readSegment(_:)``.
    public func readBlock(_ block: Int) async throws(NFCTagError) -> [UInt8] {
        try checkBlock(block)
        return try Type1Answer.block(try await send(Type1Frame.read8(block: block, uid: uid), what: "READ8 \(block)", exchange: .read), block: block)
    }

    /// WRITE-E8 (`erase`) or WRITE-NE8 of block 0…255 with 8 bytes.
    /// - Returns: the block as the tag now holds it.
    /// - Throws: as ``readSegment(_:)``; `invalidParameter` unless `data` has 8 bytes.
    @discardableResult
    public func writeBlock(_ block: Int, _ data: [UInt8], erase: Bool = true) async throws(NFCTagError) -> [UInt8] {
        try checkBlock(block)
        guard data.count == Type1Memory.blockSize else { throw NFCTagError(.invalidParameter, "a block holds 8 bytes, not \(data.count)") }
        let frame = Type1Frame.write8(block: block, data: data, erase: erase, uid: uid)
        return try Type1Answer.block(try await send(frame, what: "\(erase ? "WRITE-E8" : "WRITE-NE8") \(block)", exchange: .write), block: block)
    }

    /// Whether the reader carries READ8, WRITE-E8/NE8 and RSEG (asked without sending).
    public func readerCarriesBlockCommands() async -> Bool {
        do {
            try await reader.checkCanSend(Bytes(Type1Frame.read8(block: 0, uid: uid)), mode: .standard)
            return true
        } catch {
            return false
        }
    }

    /// Whether the tag still answers in the field.
    public func isPresent() async -> Bool { await reader.isTargetPresent() }

    private func checkByteAddress(_ address: Int) throws(NFCTagError) {
        guard (0..<Type1Memory.byteCommandLimit).contains(address) else {
            throw NFCTagError(.invalidParameter, "byte address \(address) is not 0…127")
        }
    }

    private func checkBlock(_ block: Int) throws(NFCTagError) {
        guard (0..<256).contains(block) else { throw NFCTagError(.invalidParameter, "block \(block) is not 0…255") }
    }

    private func send(_ frame: [UInt8], what: String, exchange: NFCTagError.Exchange? = nil) async throws(NFCTagError) -> [UInt8] {
        do {
            return try await reader.transceive(Bytes(frame), mode: .standard, timeout: commandTimeout).array
        } catch {
            throw NFCTagError(error, during: what, exchange: exchange)
        }
    }

    // MARK: - Memory

    /// Tag memory as read for the NDEF procedures.
    struct Snapshot {
        var hr0: UInt8
        var hr1: UInt8
        var memory: [UInt8]
        /// Whether `memory` holds everything the tag has (false: the reader stops at byte 128).
        var reachedAll: Bool
        /// Whether the reader carries the 8-byte commands.
        var blockCommands: Bool
        /// The chip's memory size where the header ROM tells it (120 static, 512 Topaz 512),
        /// else the largest a CC can name: a CC naming more is not believed.
        var physicalSize: Int {
            if Type1HeaderROM.isStatic(hr0) { return Type1Memory.staticSize }
            if hr1 == Type1HeaderROM.topaz512 { return 512 }
            return Type1TLVArea.largestMemory
        }
    }

    /// RALL; on the dynamic layout also block F (READ8, or READ byte by byte where the reader
    /// has no READ8) and the segments after 0 (RSEG) up to the CC's memory size (512 bytes when
    /// there is no CC), never past a Topaz 512's 512 bytes.
    func load() async throws(NFCTagError) -> Snapshot {
        let all = try await readAll()
        var snapshot = Snapshot(hr0: all.hr0, hr1: all.hr1, memory: all.memory, reachedAll: true, blockCommands: false)
        guard !Type1HeaderROM.isStatic(all.hr0) else { return snapshot }
        snapshot.blockCommands = await readerCarriesBlockCommands()
        let ccStart = Type1Memory.capabilityContainerAddress
        let named = (try? Type1CapabilityContainer(bytes: all.memory[ccStart..<(ccStart + 4)]).memorySize) ?? 512
        let size = min(named, snapshot.physicalSize)
        if snapshot.blockCommands {
            snapshot.memory += try await readBlock(Type1Memory.staticSize / Type1Memory.blockSize)
            var segment = 1
            while segment * Type1Memory.segmentSize < min(size, Type1TLVArea.largestMemory) {
                snapshot.memory += try await readSegment(segment)
                segment += 1
            }
        } else {
            for address in Type1Memory.staticSize..<Type1Memory.byteCommandLimit {
                snapshot.memory.append(try await readByte(address))
            }
            snapshot.reachedAll = size <= Type1Memory.byteCommandLimit
        }
        return snapshot
    }

    /// Whether a lock bit keeps `address` from being written: LOCK0/LOCK1 for blocks 0…E, the
    /// lock bits a Lock Control TLV names for blocks from 16 on (one bit per 8-byte block), and
    /// block D always.
    static func isLocked(_ address: Int, memory: [UInt8], lockAreas: [Type2ReservedArea]) -> Bool {
        let block = address / Type1Memory.blockSize
        if Type1Memory.reservedBlock.contains(address) { return true }
        if block < 15 {
            let lock = Type1Memory.staticLockBytes.lowerBound
            guard memory.count > lock + 1 else { return false }
            let byte = block < 8 ? memory[lock] : memory[lock + 1]
            return byte & (1 << (block % 8)) != 0
        }
        guard block >= 16 else { return false }
        let bit = block - 16
        for area in lockAreas where bit < area.bitCount {
            let index = area.addresses.lowerBound + bit / 8
            guard index < memory.count else { return false }
            return memory[index] & (1 << (bit % 8)) != 0
        }
        return false
    }
}

extension Type1Tag {
    /// The stored area, or the status for a tag that holds no NDEF.
    func tlvArea(_ snapshot: Snapshot) throws(NFCTagError) -> Type1TLVArea {
        try Type1TLVArea.parse(
            memory: snapshot.memory, hr0: snapshot.hr0, reachedAll: snapshot.reachedAll, physicalSize: snapshot.physicalSize)
    }

    /// Writes `changes` (address → byte) to the tag in the order given by `order` groups: bytes
    /// below 128 with WRITE-E one by one, bytes from 128 on with WRITE-E8 of their block (the
    /// rest of the block as `memory` holds it). Updates `memory`.
    /// - Throws: ``NFCTagError`` `readOnly` when the tag keeps a byte (locked), and the command
    ///   errors.
    func write(_ changes: [(address: Int, value: UInt8)], into memory: inout [UInt8]) async throws(NFCTagError) {
        var index = 0
        while index < changes.count {
            let (address, value) = changes[index]
            if address < Type1Memory.byteCommandLimit {
                let kept = try await writeByte(address, value)
                guard kept == value else {
                    throw NFCTagError(.readOnly, at: address, "the tag kept \(hexByte(kept)) at byte \(address) instead of \(hexByte(value)): the block is locked")
                }
                memory[address] = value
                index += 1
                continue
            }
            let block = address / Type1Memory.blockSize
            let start = block * Type1Memory.blockSize
            var data = Array(memory[start..<(start + Type1Memory.blockSize)])
            while index < changes.count, changes[index].address / Type1Memory.blockSize == block {
                data[changes[index].address - start] = changes[index].value
                index += 1
            }
            let kept = try await writeBlock(block, data)
            guard kept == data else {
                throw NFCTagError(.readOnly, at: start, "the tag kept block \(block) as \(Hex.encode(kept, uppercase: true)): the block is locked")
            }
            memory.replaceSubrange(start..<(start + Type1Memory.blockSize), with: data)
        }
    }

    /// Refuses, before anything is written, a byte the reader cannot reach or a lock keeps.
    func checkWritable(_ addresses: [Int], snapshot: Snapshot, area: Type1TLVArea?) throws(NFCTagError) {
        let lockAreas = area?.controlAreas.filter { $0.kind == .lockBits } ?? []
        for address in addresses {
            if address >= Type1Memory.byteCommandLimit && !snapshot.blockCommands {
                throw NFCTagError(.notSupported, at: address, "byte \(address) needs WRITE-E8, which this reader does not carry (a PN53x firmware has no Type 1 block commands); nothing was written")
            }
            if Self.isLocked(address, memory: snapshot.memory, lockAreas: lockAreas) {
                throw NFCTagError(.readOnly, at: address, "byte \(address) lies in a locked block; nothing was written")
            }
        }
    }
}
