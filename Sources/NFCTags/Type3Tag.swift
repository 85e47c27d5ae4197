public import NDEF
import NFCCore

/// FeliCa Lite-S facts the Type 3 mapping needs (FeliCa Lite-S User's Manual, "Memory map",
/// "MC", "Read Without Encryption"). Block numbers double as tag memory addresses × 16 in
/// error offsets.
public enum Type3LiteS {
    /// Read Without Encryption takes 1–4 blocks: the Nbr that ``Type3Tag/format(force:)``
    /// writes, and the blocks of the first read of every operation.
    public static let maximumReadBlocks = 4
    /// The Nbw ``Type3Tag/format(force:)`` writes: 1 block per Write Without Encryption (the
    /// Lite-S takes a second block only for a MAC_A, as nfcpy formats it too).
    public static let nbw: UInt8 = 1
    /// S_PAD0…S_PAD13: the user blocks (S_PAD0 holds the attribute information block).
    public static let userBlocks: ClosedRange<UInt16> = 0x00...0x0D
    /// MC, the memory configuration block.
    public static let memoryConfigurationBlock: UInt16 = 0x88

    /// Byte meanings of MC (User's Manual, "MC").
    public enum MC {
        /// Bytes 0–1 MC_SP (little-endian): bit n = 1 S_PAD n read/write, 0 read-only (one
        /// way: a 0 never returns to 1); bit 14 REG; bit 15 whether MC bytes 0–1 and 6–12 may
        /// still be written.
        public static let spLow = 0
        /// Byte 1 of MC_SP (S_PAD8–13 in bits 0–5, REG bit 6, MC bit 7).
        public static let spHigh = 1
        /// Bit of ``spHigh`` that keeps REG writable.
        public static let regBit: UInt8 = 0x40
        /// Bit of ``spHigh`` that keeps MC bytes 0–1 and 6–12 writable.
        public static let mcBit: UInt8 = 0x80
        /// Byte 2 MC_ALL: `FF` system blocks (ID, SER_C, CKV, CK) and MC bytes 2–5 writable;
        /// `00` read-only for good.
        public static let all = 2
        /// MC_ALL `FF`: writable.
        public static let allWritable: UInt8 = 0xFF
        /// Byte 3 SYS_OP: `01` NDEF, the card answers system code `12FC`; `00` not.
        public static let sysOp = 3
        /// SYS_OP `01`.
        public static let sysOpNDEF: UInt8 = 0x01
        /// Byte 4 RF_PRM: RF parameter in the low 3 bits (kept as read: never changed here).
        public static let rfParameter = 4
        /// Bytes 13–15: reserved, written as 00.
        public static let reserved = 13...15
    }
}

/// NDEF on an NFC Forum Type 3 Tag (FeliCa Lite-S and other FeliCa cards with system `12FC`)
/// through the FeliCa commands of a ``FeliCaTag``: the detection, read and write procedures of
/// the NFC Forum Type 3 Tag Operation Specification 1.x, with the Lite-S memory configuration
/// for the permanent lock and for formatting.
///
/// Reads use service `000B`, writes service `0009`, blocks 0 (attribute information) to Nmaxb.
/// Each call reads what it needs afresh. On a Lite-S the first read of every operation asks for
/// blocks 0–3 at once (the Lite-S read limit), so a message of up to 48 bytes costs one read.
///
/// **Interrupted writes.** WriteF `0F` in the attribute block marks a write that began and did
/// not finish (the spec's tear marker): ``readNDEF()`` then throws `malformedTag` at offset 9
/// rather than return blocks that may be half old, half new; ``queryNDEFStatus()`` still
/// answers (with Ln as stored) and ``writeNDEF(_:verify:)`` repairs the tag by writing a new
/// message.
///
/// **Systems.** Operations address the system that answers Polling for `12FC`: a card that was
/// polled for another system code (not a Lite-S) is polled for `12FC` first, one command more.
public struct Type3Tag: NFCNDEFTag {
    /// The FeliCa card, selected, whose commands this mapping sends.
    public private(set) var feliCa: FeliCaTag
    /// Whether the card is a FeliCa Lite-S (PMm IC type `F1`/`F2`): first reads of 4 blocks,
    /// the MC lock and formatting.
    public var isFeliCaLiteS: Bool

    /// The mapping over `feliCa`; Lite-S behaviour follows its PMm.
    public init(feliCa: FeliCaTag) {
        self.feliCa = feliCa
        self.isFeliCaLiteS = feliCa.isFeliCaLiteS
    }

    /// The most blocks read per command: Nbr, capped so the answer fits a FeliCa frame
    /// (12 + 16·n ≤ 254 bytes after the length byte).
    static func blocksPerRead(_ attribute: Type3AttributeInformation) -> Int { min(Int(attribute.nbr), 15) }
    /// The most blocks written per command: Nbw, capped so the command fits a FeliCa frame
    /// (13 + 19·n ≤ 254 bytes with 3-byte block list elements).
    static func blocksPerWrite(_ attribute: Type3AttributeInformation) -> Int { min(Int(attribute.nbw), 12) }

    // MARK: - NFCNDEFTag

    /// Whether this tag is still in the field: ``FeliCaTag/isPresent()`` of its FeliCa tag.
    public func isPresent() async -> Bool { await feliCa.isPresent() }

    /// The NDEF detection procedure: reads the attribute information block (on a Lite-S with
    /// blocks 1–3, in one command).
    /// - Returns: `.notSupported` (capacity 0) when block 0 is not an attribute information
    ///   block (checksum or version); otherwise RWFlag `01` → `.readWrite`, `00` → `.readOnly`,
    ///   capacity Nmaxb × 16 and Ln — even with WriteF `0F` (see the type's documentation).
    /// - Throws: ``NFCTagError`` `malformedTag` (offset in block 0), `tagResponse`, `connectionLost`.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery {
        let system: Type3Tag
        do {
            system = try await ndefSystem()
        } catch where error.code == .notNDEFFormatted {
            return NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0)
        }
        return try await system.queryNDEFStatusOnNDEFSystem()
    }

    /// Sends nothing and throws nothing: every FeliCa card has the RWFlag lock (and a Lite-S its MC). What can still
    /// stop ``writeLock()`` (an MC that can no longer change) is found by it before it writes.
    public func checkLockable() async throws(NFCTagError) {}

    /// The body of the public method, on the FeliCa system that answers `12FC`.
    func queryNDEFStatusOnNDEFSystem() async throws(NFCTagError) -> NDEFQuery {
        let snapshot: Snapshot
        do {
            snapshot = try await load()
        } catch where error.code == .notNDEFFormatted {
            return NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0)
        }
        let attribute = snapshot.attribute
        return NDEFQuery(
            status: attribute.isWritable ? .readWrite : .readOnly, capacity: attribute.capacity,
            messageLength: attribute.length)
    }

    /// Reads the stored message: blocks 1…⌈Ln/16⌉, Nbr blocks per command. Ln 0 gives
    /// ``NDEFMessage/empty``.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`; `malformedTag` (WriteF `0F`: an
    ///   interrupted write, offset 9; or a bad field); `malformedMessage` with the tag memory
    ///   address (block × 16 + byte) of the byte at fault; `tagResponse`, `connectionLost`.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage {
        try await ndefSystem().readNDEFOnNDEFSystem()
    }

    /// The body of the public method, on the FeliCa system that answers `12FC`.
    func readNDEFOnNDEFSystem() async throws(NFCTagError) -> NDEFMessage {
        var snapshot = try await load()
        let attribute = snapshot.attribute
        guard !attribute.isWriteInterrupted else {
            throw NFCTagError(
                .malformedTag, at: Type3AttributeInformation.Offset.writeFlag,
                "WriteF is 0F: a write was interrupted and the message may be incomplete; write a new one")
        }
        guard let range = attribute.messageBlocks else { return .empty }
        try await snapshot.fill(range, using: self)
        let bytes = Array(range.flatMap { snapshot.blocks[$0] ?? [] }.prefix(attribute.length))
        do {
            return try NDEFMessage(bytes: bytes)
        } catch {
            throw NFCTagError(
                .malformedMessage, at: Type3Command.blockSize + (error.offset ?? 0),
                "stored NDEF message does not decode: \(error.reason)")
        }
    }

    /// Writes `message` in place of the stored one (T3T 1.x, NDEF write procedure).
    ///
    /// Every check comes first — attribute block valid, RWFlag `01`, message ≤ Nmaxb × 16 —
    /// and a failed check sends no write. Then: (1) the attribute block with WriteF `0F`,
    /// (2) the data blocks whose content changes (the last one padded with 00), Nbw per
    /// command, (3) the attribute block with WriteF `00` and the new Ln. A tag pulled away
    /// holds the old message, or WriteF `0F` (detected by ``readNDEF()``), or the new message.
    /// When no data block changes, only the attribute block is written (one write, old to new);
    /// when nothing changes, nothing is written. With `verify`, blocks 0…last are read back.
    /// - Throws: ``NFCTagError`` `invalidMessage`, `notNDEFFormatted`, `malformedTag`,
    ///   `readOnly` (offset 10), `capacityExceeded` ("by N bytes") — nothing written;
    ///   `tagResponse`, `connectionLost`; `verificationFailed` (offset: tag memory address).
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) {
        try await ndefSystem().writeNDEFOnNDEFSystem(message, verify: verify)
    }

    /// The body of the public method, on the FeliCa system that answers `12FC`.
    func writeNDEFOnNDEFSystem(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) {
        let encoded = try message.encodedForTag()
        var snapshot = try await load()
        let attribute = snapshot.attribute
        guard attribute.isWritable else {
            throw NFCTagError(.readOnly, at: Type3AttributeInformation.Offset.rwFlag, "tag is read-only (RWFlag 00)")
        }
        try NFCTagError.checkCapacity(encoded.count, fits: attribute.capacity)
        var final = attribute
        final.writeFlag = Type3AttributeInformation.writeDone
        final.length = encoded.count
        var newBlocks: [Int: [UInt8]] = [:]
        for (index, start) in stride(from: 0, to: encoded.count, by: Type3Command.blockSize).enumerated() {
            let chunk = Array(encoded[start..<min(start + Type3Command.blockSize, encoded.count)])
            newBlocks[index + 1] = chunk + [UInt8](repeating: 0, count: Type3Command.blockSize - chunk.count)
        }
        if let range = final.messageBlocks { try await snapshot.fill(range, using: self) }
        let changed = newBlocks.keys.sorted().filter { newBlocks[$0] != snapshot.blocks[$0] }
        var current = attribute.encoded
        if !changed.isEmpty {
            var inProgress = attribute
            inProgress.writeFlag = Type3AttributeInformation.writeInProgress
            if current != inProgress.encoded {
                try await write([(Type3AttributeInformation.blockNumber, inProgress.encoded)])
                current = inProgress.encoded
            }
            let perWrite = Self.blocksPerWrite(attribute)
            for start in stride(from: 0, to: changed.count, by: perWrite) {
                let group = changed[start..<min(start + perWrite, changed.count)]
                try await write(group.map { (UInt16($0), newBlocks[$0] ?? []) })
            }
        }
        if current != final.encoded {
            try await write([(Type3AttributeInformation.blockNumber, final.encoded)])
        }

        guard verify else { return }
        var expected = newBlocks
        expected[0] = final.encoded
        let blocks = try await readBlocks(0...(final.messageBlocks?.upperBound ?? 0), attribute)
        for number in expected.keys.sorted() {
            let written = expected[number] ?? [], read = blocks[number] ?? []
            if let index = zip(written, read).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                throw NFCTagError(
                    .verificationFailed, at: number * Type3Command.blockSize + index,
                    "read back \(hexByte(read[index])) where \(hexByte(written[index])) was written")
            }
        }
    }

    /// Makes the tag read-only for good.
    ///
    /// On a FeliCa Lite-S: (1) the attribute block with RWFlag `00`, (2) MC (block `88`) with
    /// MC_SP bits 0–13 (S_PAD0–13) and bit 15 (MC bytes 0–1, 6–12) cleared — REG's bit 14 kept
    /// — and MC_ALL `00` (system blocks and MC bytes 2–5 frozen); SYS_OP, RF_PRM and the other
    /// bytes are written back as read. The Lite-S makes these bits one-way and applies a new MC
    /// from the next power-on; MC is read back to verify. A step whose bytes are already in
    /// place is skipped (locking a locked tag sends no write).
    ///
    /// On other FeliCa cards only RWFlag is set to `00`: a standard FeliCa has no permanent
    /// block lock reachable without its keys, so the lock is one that conforming readers
    /// honour, not one the card enforces.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`, `malformedTag`; `notSupported` when MC
    ///   can no longer be changed but S_PADs are still writable (nothing written);
    ///   `tagResponse`, `connectionLost`; `verificationFailed`.
    public func writeLock() async throws(NFCTagError) {
        try await ndefSystem().writeLockOnNDEFSystem()
    }

    /// The body of the public method, on the FeliCa system that answers `12FC`.
    func writeLockOnNDEFSystem() async throws(NFCTagError) {
        let mcBlock = Type3LiteS.memoryConfigurationBlock
        let numbers: [UInt16] = isFeliCaLiteS ? [Type3AttributeInformation.blockNumber, mcBlock] : [Type3AttributeInformation.blockNumber]
        let blocks = try await read(numbers)
        let attribute = try Type3AttributeInformation(parsing: blocks[0])
        try checkFitsChip(attribute)
        var locked = attribute
        locked.rwFlag = Type3AttributeInformation.readOnly
        var writes: [(UInt16, [UInt8])] = []
        if attribute.rwFlag != Type3AttributeInformation.readOnly {
            writes.append((Type3AttributeInformation.blockNumber, locked.encoded))
        }
        var lockedMC: [UInt8] = []
        if isFeliCaLiteS {
            let mc = blocks[1]
            lockedMC = Self.lockedMemoryConfiguration(mc)
            let mcAddress = Int(mcBlock) * Type3Command.blockSize
            let spFrozen = mc[Type3LiteS.MC.spHigh] & Type3LiteS.MC.mcBit == 0
            if spFrozen && !Self.writableUserBlocks(mc).isEmpty {
                throw NFCTagError(
                    .notSupported, at: mcAddress + Type3LiteS.MC.spLow,
                    "MC_SP can no longer be changed (bit 15 is 0) and leaves S_PADs writable: this Lite-S cannot be locked")
            }
            if mc[Type3LiteS.MC.spLow] & 0x01 == 0 && !writes.isEmpty {
                throw NFCTagError(
                    .notSupported, at: mcAddress, "S_PAD0 is already read-only but RWFlag says read/write: RWFlag cannot be set")
            }
            if mc[0..<13] != lockedMC[0..<13] { writes.append((mcBlock, lockedMC)) }
        }
        for write in writes { try await self.write([write]) }
        let check = try await read(numbers)
        let readBack = try Type3AttributeInformation(parsing: check[0])
        guard readBack.rwFlag == Type3AttributeInformation.readOnly else {
            throw NFCTagError(.verificationFailed, at: Type3AttributeInformation.Offset.rwFlag, "RWFlag read back \(hexByte(readBack.rwFlag)), not 00")
        }
        if isFeliCaLiteS {
            for index in 0..<13 where check[1][index] != lockedMC[index] {
                throw NFCTagError(
                    .verificationFailed, at: Int(mcBlock) * Type3Command.blockSize + index,
                    "MC byte \(index) read back \(hexByte(check[1][index])) where \(hexByte(lockedMC[index])) was written")
            }
        }
    }

    /// What keeps the tag from being physically read-only (``NFCNDEFTag/readOnlyGaps()``).
    ///
    /// RWFlag other than `00`; on a FeliCa Lite-S also what MC (block `88`) leaves writable,
    /// read as ``writeLock()`` writes it: S_PADs whose MC_SP bit is 1, MC_SP bit 15 still 1
    /// (MC_SP can change), MC_ALL other than `00` (system blocks and MC bytes 2–5 writable).
    /// RWFlag alone is a flag readers honour, not a lock the card enforces. Other FeliCa cards
    /// have no lock reachable without their keys: RWFlag is all that is judged. Reads only.
    /// - Throws: ``NFCTagError`` `malformedTag`, `tagResponse`, `connectionLost`.
    public func readOnlyGaps() async throws(NFCTagError) -> [String] {
        let system: Type3Tag
        do {
            system = try await ndefSystem()
        } catch where error.code == .notNDEFFormatted {
            return ["the tag holds no NDEF (\(error.reason))"]
        }
        let mcBlock = Type3LiteS.memoryConfigurationBlock
        let numbers: [UInt16] = isFeliCaLiteS ? [Type3AttributeInformation.blockNumber, mcBlock] : [Type3AttributeInformation.blockNumber]
        let blocks = try await system.read(numbers)
        let attribute: Type3AttributeInformation
        do {
            attribute = try Type3AttributeInformation(parsing: blocks[0])
        } catch where error.code == .notNDEFFormatted {
            return ["the tag holds no NDEF (\(error.reason))"]
        }
        var gaps: [String] = []
        if attribute.rwFlag != Type3AttributeInformation.readOnly {
            gaps.append("RWFlag is \(hexByte(attribute.rwFlag)), not 00: the attribute block grants writing")
        }
        guard isFeliCaLiteS, blocks.count > 1 else { return gaps }
        let mc = blocks[1]
        let mcText = "MC_SP \(hexByte(mc[Type3LiteS.MC.spLow])) \(hexByte(mc[Type3LiteS.MC.spHigh]))"
        let writable = Self.writableUserBlocks(mc)
        if !writable.isEmpty {
            gaps.append("S_PAD\(writable.count == 1 ? "" : "s") \(Type2Tag.ranges(writable)) still writable (\(mcText))")
        }
        if mc[Type3LiteS.MC.spHigh] & Type3LiteS.MC.mcBit != 0 {
            gaps.append("MC_SP can still be changed (bit 15 is 1, \(mcText))")
        }
        if mc[Type3LiteS.MC.all] != 0 {
            gaps.append("MC_ALL is \(hexByte(mc[Type3LiteS.MC.all])), not 00: system blocks and MC bytes 2–5 still writable")
        }
        return gaps
    }

    /// The S_PADs (0–13) whose MC_SP bit in `mc` is 1: still writable.
    public static func writableUserBlocks(_ mc: [UInt8]) -> [Int] {
        guard mc.count > Type3LiteS.MC.spHigh else { return [] }
        let sp = Int(mc[Type3LiteS.MC.spHigh]) << 8 | Int(mc[Type3LiteS.MC.spLow])
        return Type3LiteS.userBlocks.map(Int.init).filter { sp & (1 << $0) != 0 }
    }

    /// MC with every S_PAD, MC_SP itself and the system blocks read-only: bytes 0–1 = MC_SP with
    /// bits 0–13 and 15 cleared (REG's bit 14 kept), byte 2 MC_ALL = 00, bytes 3–12 as read,
    /// 13–15 = 00.
    public static func lockedMemoryConfiguration(_ mc: [UInt8]) -> [UInt8] {
        var locked = (0..<Type3Command.blockSize).map { $0 < mc.count ? mc[$0] : 0 }
        locked[Type3LiteS.MC.spLow] = 0x00
        locked[Type3LiteS.MC.spHigh] &= Type3LiteS.MC.regBit
        locked[Type3LiteS.MC.all] = 0x00
        for index in Type3LiteS.MC.reserved { locked[index] = 0 }
        return locked
    }

    /// Formats a FeliCa Lite-S for NDEF, holding an empty message.
    ///
    /// Reads blocks 0, MC, 1 and 2 (and, when block 0 is not an attribute block and `force` is
    /// not set, S_PAD3–13 to find data). Refuses with `alreadyFormatted` when a message is
    /// stored (Ln > 0, or WriteF `0F`) or, on a tag without attribute block, any S_PAD byte is
    /// not 00 — unless `force`. Then (1) MC with SYS_OP `01` when it is not (the card answers
    /// system code `12FC` from the next power-on; needs MC_ALL `FF`), (2) the attribute block:
    /// Ver 1.0, Nbr 4, Nbw 1, Nmaxb = the S_PADs writable in a row from S_PAD1 (13 on a fresh
    /// card), WriteF 00, RWFlag 01, Ln 0, checksum. Both are read back. Old data blocks are
    /// left as they are (Ln 0 hides them).
    /// - Throws: ``NFCTagError`` `notSupported` (not a Lite-S: its memory layout is unknown; or
    ///   SYS_OP cannot be set; or no writable S_PAD after S_PAD0), `readOnly` (RWFlag 00 without
    ///   `force`, or S_PAD0 read-only), `alreadyFormatted` (offset of the data found) — nothing
    ///   written; `tagResponse`, `connectionLost`; `verificationFailed`.
    public func format(force: Bool) async throws(NFCTagError) {
        guard isFeliCaLiteS else {
            throw NFCTagError(.notSupported, "formatting needs the FeliCa Lite-S memory layout; this FeliCa card is not one")
        }
        let mcBlock = Type3LiteS.memoryConfigurationBlock
        let mcAddress = Int(mcBlock) * Type3Command.blockSize
        let first = try await read([0, mcBlock, 1, 2])
        let mc = first[1]
        if !force {
            let existing: Type3AttributeInformation?
            do {
                existing = try Type3AttributeInformation(parsing: first[0])
            } catch {
                existing = nil
            }
            if let attribute = existing {
                if attribute.length > 0 || attribute.isWriteInterrupted {
                    throw NFCTagError(
                        .alreadyFormatted, at: Type3AttributeInformation.Offset.length,
                        "the tag holds an NDEF message of \(attribute.length) bytes\(attribute.isWriteInterrupted ? " (write interrupted)" : "")")
                }
                guard attribute.isWritable else {
                    throw NFCTagError(.readOnly, at: Type3AttributeInformation.Offset.rwFlag, "tag is read-only (RWFlag 00)")
                }
            } else {
                var userBlocks: [(UInt16, [UInt8])] = [(0, first[0]), (1, first[2]), (2, first[3])]
                for start in stride(from: 3, through: Int(Type3LiteS.userBlocks.upperBound), by: Type3LiteS.maximumReadBlocks) {
                    let numbers = (start...min(start + Type3LiteS.maximumReadBlocks - 1, Int(Type3LiteS.userBlocks.upperBound))).map(UInt16.init)
                    userBlocks += zip(numbers, try await read(numbers)).map { ($0, $1) }
                }
                for (number, bytes) in userBlocks {
                    if let index = bytes.firstIndex(where: { $0 != 0 }) {
                        throw NFCTagError(
                            .alreadyFormatted, at: Int(number) * Type3Command.blockSize + index,
                            "S_PAD\(number) holds data and block 0 is no attribute block; format with force to overwrite")
                    }
                }
            }
        }
        var newMC = mc
        for index in Type3LiteS.MC.reserved { newMC[index] = 0 }
        if mc[Type3LiteS.MC.sysOp] != Type3LiteS.MC.sysOpNDEF {
            guard mc[Type3LiteS.MC.all] == Type3LiteS.MC.allWritable else {
                throw NFCTagError(
                    .notSupported, at: mcAddress + Type3LiteS.MC.sysOp,
                    "SYS_OP is \(hexByte(mc[Type3LiteS.MC.sysOp])) and MC_ALL \(hexByte(mc[Type3LiteS.MC.all])) freezes it: system code 12FC cannot be enabled")
            }
            newMC[Type3LiteS.MC.sysOp] = Type3LiteS.MC.sysOpNDEF
        }
        guard mc[Type3LiteS.MC.spLow] & 0x01 != 0 else {
            throw NFCTagError(.readOnly, at: mcAddress + Type3LiteS.MC.spLow, "S_PAD0 is read-only (MC_SP bit 0 is 0)")
        }
        let sp = UInt16(mc[Type3LiteS.MC.spLow]) | UInt16(mc[Type3LiteS.MC.spHigh]) << 8
        let nmaxb = (1...Int(Type3LiteS.userBlocks.upperBound)).prefix { sp & (1 << $0) != 0 }.count
        guard nmaxb > 0 else {
            throw NFCTagError(.notSupported, at: mcAddress + Type3LiteS.MC.spLow, "S_PAD1 is read-only: no block for NDEF data")
        }
        let attribute = Type3AttributeInformation(
            nbr: UInt8(Type3LiteS.maximumReadBlocks), nbw: Type3LiteS.nbw, nmaxb: UInt16(nmaxb))
        if newMC[0..<13] != mc[0..<13] { try await write([(mcBlock, newMC)]) }
        if first[0] != attribute.encoded { try await write([(0, attribute.encoded)]) }
        let check = try await read([0, mcBlock])
        if let index = zip(check[0], attribute.encoded).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            throw NFCTagError(.verificationFailed, at: index, "attribute block byte \(index) read back \(hexByte(check[0][index]))")
        }
        guard check[1][Type3LiteS.MC.sysOp] == Type3LiteS.MC.sysOpNDEF else {
            throw NFCTagError(.verificationFailed, at: mcAddress + Type3LiteS.MC.sysOp, "SYS_OP read back \(hexByte(check[1][Type3LiteS.MC.sysOp]))")
        }
    }

    // MARK: - Blocks

    /// This mapping on the FeliCa system that holds the NDEF services (T3T 1.x, NDEF detection:
    /// Polling with system code `12FC`). A card polled for another system code (libnfc polls
    /// `FFFF`, and a multi-system card answers with system 0's IDm) is polled for `12FC` first
    /// and addressed with the IDm that answers. A Lite-S has one IDm for `88B4` and `12FC`, and
    /// a card polled for `12FC` is already there: neither costs a command.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted` when no system `12FC` answers.
    func ndefSystem() async throws(NFCTagError) -> Type3Tag {
        guard !isFeliCaLiteS, let polled = feliCa.currentSystemCode, polled != Type3SystemCode.ndef else { return self }
        let answer: (idm: Bytes, pmm: Bytes, requestData: Bytes)
        do {
            answer = try await feliCa.pollingAnswer(systemCode: Type3SystemCode.ndef, requestCode: .noRequest, timeSlot: .max1)
        } catch where error.readerError?.code == .timeout {
            throw NFCTagError(.notNDEFFormatted, "no system 12FC answers Polling: not an NFC Forum Type 3 tag", readerError: error.readerError)
        }
        var target = feliCa.target
        target.idm = answer.idm
        target.systemCode = Type3SystemCode.ndef
        var tag = self
        tag.feliCa = FeliCaTag(reader: feliCa.reader, target: target, identity: feliCa.identity, commandTimeout: feliCa.commandTimeout)
        return tag
    }

    /// Block 0 (parsed) and whatever other blocks have been read, by number.
    struct Snapshot {
        var attribute: Type3AttributeInformation
        var blocks: [Int: [UInt8]]

        /// Reads the blocks of `range` not read yet, Nbr per command.
        mutating func fill(_ range: ClosedRange<Int>, using tag: Type3Tag) async throws(NFCTagError) {
            let missing = range.filter { blocks[$0] == nil }
            let perRead = Type3Tag.blocksPerRead(attribute)
            for start in stride(from: 0, to: missing.count, by: perRead) {
                let numbers = missing[start..<min(start + perRead, missing.count)].map(UInt16.init)
                for (number, block) in zip(numbers, try await tag.read(numbers)) { blocks[Int(number)] = block }
            }
        }
    }

    /// An attribute block is tag data: on a FeliCa Lite-S, whose NDEF data can only be in
    /// S_PAD1–S_PAD13, an Nmaxb beyond 13 blocks is a lie (blocks past them are REG and system
    /// blocks, or do not exist), so nothing is read or written from it.
    /// - Throws: `malformedTag` at the Nmaxb offset (3).
    func checkFitsChip(_ attribute: Type3AttributeInformation) throws(NFCTagError) {
        let dataBlocks = Int(Type3LiteS.userBlocks.upperBound)  // S_PAD1…S_PAD13 after the attribute block
        guard isFeliCaLiteS, Int(attribute.nmaxb) > dataBlocks else { return }
        throw NFCTagError(
            .malformedTag, at: Type3AttributeInformation.Offset.nmaxb,
            "Nmaxb announces \(attribute.nmaxb) blocks but a FeliCa Lite-S has \(dataBlocks) for NDEF data")
    }

    /// The first read: block 0, with blocks 1–3 on a Lite-S.
    func load() async throws(NFCTagError) -> Snapshot {
        let count = isFeliCaLiteS ? Type3LiteS.maximumReadBlocks : 1
        let blocks = try await read((0..<count).map(UInt16.init))
        let attribute = try Type3AttributeInformation(parsing: blocks[0])
        try checkFitsChip(attribute)
        var known: [Int: [UInt8]] = [:]
        for (index, block) in blocks.enumerated() where index > 0 { known[index] = block }
        return Snapshot(attribute: attribute, blocks: known)
    }

    /// Blocks of `range`, Nbr per command.
    func readBlocks(_ range: ClosedRange<Int>, _ attribute: Type3AttributeInformation) async throws(NFCTagError) -> [Int: [UInt8]] {
        var snapshot = Snapshot(attribute: attribute, blocks: [:])
        try await snapshot.fill(range, using: self)
        return snapshot.blocks
    }

    /// One Read Without Encryption (service `000B`) of `numbers`.
    func read(_ numbers: [UInt16]) async throws(NFCTagError) -> [[UInt8]] {
        let answer = try await feliCa.readWithoutEncryption(
            serviceCodeList: [Type3ServiceCode.ndefRead], blockList: numbers.map { FeliCaBlockListElement(blockNumber: $0) })
        return answer.blocks.map(\.array)
    }

    /// One Write Without Encryption (service `0009`) of `blocks`.
    func write(_ blocks: [(UInt16, [UInt8])]) async throws(NFCTagError) {
        try await feliCa.writeWithoutEncryption(
            serviceCodeList: [Type3ServiceCode.ndefWrite], blockList: blocks.map { FeliCaBlockListElement(blockNumber: $0.0) },
            blockData: blocks.map { Bytes($0.1) })
    }
}
