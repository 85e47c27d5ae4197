public import NDEF
import NFCCore

/// NDEF on an NFC Forum Type 5 Tag (ISO 15693: ICODE SLIX2 and kin) over ``ISO15693Tag``'s
/// commands: the NDEF detection, read and write procedures of Type 5 Tag 1.0 (7.5), with every
/// check before the first write and the tear-safe write order of ARCHITECTURE.md.
///
/// Reads use the option flag, so each block comes with its security status: a block locked with
/// Lock Block is known before anything is written, at no extra command. Read Multiple Blocks is
/// used when the CC announces it (feature bit 0) and the chip has it, at most
/// ``maxBlocksPerRead`` blocks per command; else Read Single Block. Block numbers take 2 bytes
/// (the extended commands) when the CC magic is `E2`.
///
/// libnfc cannot inventory ISO 15693 tags with a PN532, so this mapping is proven against the
/// ICODE SLIX2 model through the in-process simulator only.
public struct Type5Tag: NFCNDEFTag {
    /// The tag's commands.
    public let tag: ISO15693Tag
    /// The most blocks one Read Multiple Blocks asks for: 32 (128 bytes of 4-byte blocks, plus
    /// their status bytes, well inside any reader's frame); 0 never uses the command.
    public var maxBlocksPerRead: Int
    /// Whether the chip is known to have Lock Block even when the CC does not say so (ICODE
    /// SLI/SLIX/SLIX2: SL2S2602 data sheet, "LOCK BLOCK"; TI Tag-it HF-I: SCBS826 "user lock per
    /// block", and AOSP `rw_i93.cc` locks Tag-it blocks with it; ST25DV/ST25TV: DS10925 "Lock
    /// Block").
    public var chipHasLockBlock: Bool
    /// How many blocks the detection procedure reads at once past the CC when Read Multiple
    /// Blocks is allowed: 8 blocks hold the TLV header and a short message, so reading a short
    /// message costs no further command.
    public var readAheadBlocks = 8
    /// Where the memory NDEF may use ends, when identification knows the chip: its memory size,
    /// less the ICODE SLIX2's counter block 79 (SL2S2602 data sheet, "Counter": a write there
    /// presets or increments the counter). The T5T area is cut there whatever the CC's MLEN says
    /// (Android's NFC stack formats a SLIX2 with MLEN `28`, counter block included).
    public var memoryEnd: Int?

    /// Set by a caller that opened the chip's password session on this tag (ICODE SET
    /// PASSWORD, ST25 PRESENT PASSWORD): blocks behind a password are then not refused before
    /// writing (``writeProtection(blocks:)``); the chip judges. No command tells whether a
    /// session is open, so the default, false, refuses them.
    public var passwordSessionOpen = false

    /// The ICODE SLIX2's user memory: blocks 0–78 of 4 bytes; block 79 holds the counter.
    public static let icodeSLIX2UserMemory = 79 * 4

    /// The mapping over `tag`; ICODE and ST chips (by identification) are known to have Lock Block.
    public init(tag: ISO15693Tag, maxBlocksPerRead: Int = 32) {
        self.tag = tag
        self.maxBlocksPerRead = maxBlocksPerRead
        self.chipHasLockBlock = [.icode, .tagIt, .st25].contains(tag.identity.family)
        self.memoryEnd = tag.identity.knownModel == .icodeSLIX2 ? Self.icodeSLIX2UserMemory : tag.identity.memoryBytes
    }

    /// Whether this tag is still in the field: ``ISO15693Tag/isPresent()`` of its ISO 15693 tag.
    public func isPresent() async -> Bool { await tag.isPresent() }

    /// The NDEF detection procedure (Type 5 Tag 1.0, 7.5.1): block 0 (the CC), then the T5T area
    /// up to the NDEF TLV.
    /// - Returns: `.notSupported` (capacity 0) when the CC or the area says not NDEF;
    ///   `.readWrite`/`.readOnly` from the CC write access, the capacity
    ///   (``Type5TLVArea/capacity``) and the stored message length.
    /// - Throws: ``NFCTagError`` `malformedTag` (with the byte address), `connectionLost`,
    ///   `tagResponse`.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery {
        let area: Type5TLVArea
        do {
            area = try await load().area
        } catch where error.code == .notNDEFFormatted {
            return NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0)
        }
        return NDEFQuery(
            status: area.capabilityContainer.isWritable ? .readWrite : .readOnly, capacity: area.capacity,
            messageLength: area.messageLength)
    }

    /// Reads the stored NDEF message (Type 5 Tag 1.0, 7.5.2); an NDEF TLV of length 0 gives
    /// ``NDEFMessage/empty``.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`; `malformedTag`; `malformedMessage` (offset =
    ///   tag memory address of the faulty byte); `connectionLost`, `tagResponse`.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage {
        var (snapshot, area) = try await load()
        guard area.messageLength > 0 else { return .empty }
        let range = area.messageAddresses
        try await snapshot.extend(through: range.upperBound - 1, using: self)
        do throws(NDEFError) {
            return try NDEFMessage(bytes: Array(snapshot.memory[range]))
        } catch {
            let offset = error.offset.map { range.lowerBound + min($0, range.count - 1) }
            throw NFCTagError(.malformedMessage, at: offset, "stored NDEF message does not decode: \(error.reason)")
        }
    }

    /// Writes `message` in place of the stored one (Type 5 Tag 1.0, 7.5.3).
    ///
    /// Checks first — NDEF formatted, CC write access, message ≤ capacity, no block to be
    /// changed locked — and a failed check sends no write. Then: (1) the block holding the first
    /// L byte is written with L = 0 (`03 00` reads as an empty NDEF TLV) unless the tag already
    /// holds an empty message there, (2) the other blocks whose content changes, (3) that block
    /// with the real length. A single changing block is written once. A Terminator TLV follows
    /// the message when a byte is left in the area. With `verify`, the written blocks are read
    /// back and compared.
    /// Blocks that need a password (``writeProtection()``: ICODE page protection, ST25DV and
    /// ST25TV02K areas) are refused before the first write, as locked blocks are.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`, `readOnly` (CC or a locked block),
    ///   `passwordRequired` (a block to change needs a password), `capacityExceeded` ("by N
    ///   bytes"), `invalidMessage` (nothing written); `connectionLost`, `tagResponse`, and
    ///   `readOnly`/`passwordRequired` for a block the chip refuses half-way, when its protection
    ///   could not be read first (the reason says whether the tag holds the old or an empty
    ///   message); `verificationFailed`.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) {
        let encoded = try message.encodedForTag()
        var (snapshot, area) = try await load()
        let cc = area.capabilityContainer
        guard cc.isWritable else {
            throw NFCTagError(.readOnly, at: 1, "tag is read-only (CC write access \(cc.writeAccess), byte 1 = \(hexByte(cc.versionAndAccess)))")
        }
        try NFCTagError.checkCapacity(encoded.count, fits: area.capacity)
        let tlv = NDEFTLV.wrap(encoded, room: area.usableBytes)
        let start = area.ndefTLVAddress
        try await snapshot.extend(through: start + tlv.count - 1, using: self)

        var final = snapshot.memory
        final.replaceSubrange(start..<(start + tlv.count), with: tlv)
        let size = snapshot.blockSize
        let lengthAddress = start + 1
        let lengthBlock = lengthAddress / size
        var zeroed = final
        zeroed[lengthAddress] = 0
        func block(_ memory: [UInt8], _ b: Int) -> [UInt8] { Array(memory[(b * size)..<((b + 1) * size)]) }
        let blocks = Array((start / size)...((start + tlv.count - 1) / size))
        let changing = blocks.filter { block(final, $0) != block(snapshot.memory, $0) }
        if let locked = changing.first(where: { snapshot.isLocked($0) }) {
            throw NFCTagError(.readOnly, at: locked * size, "block \(locked) is locked (Lock Block); nothing was written")
        }
        // Blocks behind a password (ICODE page protection, ST25 areas) are refused here, before
        // the length is zeroed: else the old message would be lost and the new one not written.
        try await refuseProtected(changing, blockSize: size)
        let others = changing.filter { $0 != lengthBlock }
        var current = block(snapshot.memory, lengthBlock)
        let readsEmpty = snapshot.memory[start] == Type5TLVType.ndefMessage && snapshot.memory[lengthAddress] == 0
        // What the tag holds if a write is refused half-way (the order above is tear-safe).
        var progress = WriteProgress(emptied: readsEmpty)
        do throws(NFCTagError) {
            if others.count == 1, current == block(final, lengthBlock) {
                // One block changes: one write takes the tag from the old message to the new.
                try await write(block: others[0], block(final, others[0]), cc: cc)
            } else if !others.isEmpty {
                if !readsEmpty, current != block(zeroed, lengthBlock) {
                    try await write(block: lengthBlock, block(zeroed, lengthBlock), cc: cc)
                    current = block(zeroed, lengthBlock)
                    progress.emptied = true
                }
                for b in others {
                    progress.written = true
                    try await write(block: b, block(final, b), cc: cc)
                }
            }
            if current != block(final, lengthBlock) {
                try await write(block: lengthBlock, block(final, lengthBlock), cc: cc)
            }
        } catch {
            throw refusedWrite(error, snapshot: snapshot, tagHolds: progress.text)
        }

        guard verify else { return }
        var check = Snapshot(memory: [], blockSize: size, lockedBlocks: [], capabilityContainer: cc)
        check.readMultipleRefused = snapshot.readMultipleRefused
        check.memory = [UInt8](repeating: 0, count: blocks[0] * size)
        try await check.extend(through: start + tlv.count - 1, using: self)
        for address in start..<(start + tlv.count) where check.memory[address] != final[address] {
            throw NFCTagError(
                .verificationFailed, at: address,
                "read back \(hexByte(check.memory[address])) where \(hexByte(final[address])) was written")
        }
    }

    /// Makes the tag permanently read-only (Type 5 Tag 1.0, 7.5.4 and the SL2S2602 Lock Block):
    /// (1) CC byte 1's write access becomes `11`b (never), so that readers see read-only at once;
    /// (2) Lock Block on every block of the T5T area, cut at ``memoryEnd`` (an MLEN overstating
    /// the memory locks no block past it, nor the SLIX2 counter); (3) Lock Block on the CC block(s) last.
    /// Interrupted, the tag holds its message and reads read-write (before 1) or read-only;
    /// running it again finishes the job (a block already locked, error `11`, counts as done).
    /// (4) The lock state is read back: every block must report itself locked and the CC's
    /// write access `11`b (a chip that acknowledged LOCK BLOCK without locking fails here).
    /// Irreversible.
    /// - Throws: ``NFCTagError`` `notSupported` when neither the CC (feature bit 3) nor the chip
    ///   has Lock Block (nothing sent after the reads); `notNDEFFormatted`; `malformedTag`;
    ///   `readOnly` when the CC block is locked while its write access is not yet `11`b;
    ///   `tagResponse` saying the lock is partly done (and what is) when a LOCK BLOCK is refused
    ///   after the CC or a block was changed;
    ///   `verificationFailed` when the read-back finds a block unlocked; `connectionLost`,
    ///   `tagResponse`.
    public func writeLock() async throws(NFCTagError) {
        let (snapshot, area) = try await load()
        let cc = area.capabilityContainer
        try await checkLockable(cc, snapshot: snapshot)
        let size = snapshot.blockSize
        let (ccBlocks, areaBlocks) = lockedBlocks(cc, blockSize: size)
        if cc.writeAccess != Type5CapabilityContainer.writeAccessNever {
            // CC byte 1 is in block 0 unless blocks are a single byte long.
            let accessBlock = 1 / size
            guard !snapshot.isLocked(accessBlock) else {
                throw NFCTagError(.readOnly, at: 1, "the CC block is locked while its write access is \(cc.writeAccess), not 3")
            }
            var data = Array(snapshot.memory[(accessBlock * size)..<((accessBlock + 1) * size)])
            data[1 % size] = (cc.versionAndAccess & 0xFC) | Type5CapabilityContainer.writeAccessNever
            try await write(block: accessBlock, data, cc: cc)
        }
        let ccChanged = cc.writeAccess != Type5CapabilityContainer.writeAccessNever
        var lockedNow: [Int] = []
        for b in Array(areaBlocks) + Array(ccBlocks) where !snapshot.isLocked(b) {
            do throws(NFCTagError) {
                let io = commands(for: cc)
                if cc.usesExtendedCommands { try await io.extendedLockBlock(b) } else { try await io.lockBlock(b) }
                lockedNow.append(b)
            } catch where ISO15693Error.code(in: error) == ISO15693Error.alreadyLocked {
                continue
            } catch where error.code != .connectionLost && (ccChanged || !lockedNow.isEmpty) {
                // A refusal part-way (a block behind a password no check could see, as on a chip
                // whose protection cannot be asked) is not "read-only, nothing written".
                let done = (ccChanged ? ["the CC's write access is now never (3)"] : [])
                    + (lockedNow.isEmpty ? [] : ["blocks \(Type2Tag.ranges(lockedNow)) are locked"])
                throw NFCTagError(
                    .tagResponse, at: b * size,
                    "the lock is partly done: \(done.joined(separator: " and ")); LOCK BLOCK \(b) was refused (\(error.reason)): the tag cannot be made fully read-only as it is")
            }
        }
        try await verifyLocked(blocks: 0..<areaBlocks.upperBound, blockSize: size, cc: cc)
    }

    /// Blocks asked at once in the lock read-back: a reader frame holds 32 status bytes easily
    /// (readers' manuals cap the count at 128 bytes of block data or 255 bytes).
    static let securityStatusChunk = 32

    /// The read-back of ``writeLock()``: every block of `blocks` must report the lock bit (bit 0
    /// of its block security status, ISO/IEC 15693-3) and the CC's write access must read `11`b.
    /// Get Multiple Block Security Status (`2C`, or `3C` extended) is asked first; a chip that
    /// refuses it answers Read Single Block with the option flag (status byte first) instead.
    /// A chip that acknowledged LOCK BLOCK without locking is found here.
    /// - Throws: ``NFCTagError/Code/verificationFailed`` at the first block still unlocked (or
    ///   the CC's access byte); `connectionLost`, `tagResponse`.
    func verifyLocked(blocks: Range<Int>, blockSize: Int, cc: Type5CapabilityContainer) async throws(NFCTagError) {
        let (status, accessData) = try await securityStatus(blocks: blocks, blockSize: blockSize, cc: cc)
        if let index = status.firstIndex(where: { $0 & ISO15693Block.lockedStatus == 0 }) {
            let b = blocks.lowerBound + index
            throw NFCTagError(
                .verificationFailed, at: b * blockSize,
                "block \(b) reads back unlocked (security status \(hexByte(status[index]))) after LOCK BLOCK was acknowledged")
        }
        let access = try await accessBits(accessData, blockSize: blockSize, cc: cc)
        guard access == Type5CapabilityContainer.writeAccessNever else {
            throw NFCTagError(.verificationFailed, at: 1, "the CC's write access reads back \(access), not 3 (never), after the lock")
        }
    }

    /// The CC's write access bits as read (from `known`, the access block's data when already
    /// read, else read now).
    private func accessBits(_ known: Bytes?, blockSize: Int, cc: Type5CapabilityContainer) async throws(NFCTagError) -> UInt8 {
        let accessBlock = 1 / blockSize
        let data: Bytes
        if let known { data = known } else { data = try await readBlock(accessBlock, extended: cc.usesExtendedCommands).data }
        guard data.count == blockSize else {
            throw NFCTagError(.tagResponse, at: accessBlock * blockSize, "block \(accessBlock) came back with \(data.count) bytes, not \(blockSize)")
        }
        return data[1 % blockSize] & 0x03
    }

    /// What keeps the tag from being physically read-only (``NFCNDEFTag/readOnlyGaps()``): the
    /// CC's write access other than 3 (never), and each block of the CC and the NDEF area whose
    /// block security status lacks the lock bit (ISO/IEC 15693-3). Reads only.
    public func readOnlyGaps() async throws(NFCTagError) -> [String] {
        let loaded: (snapshot: Snapshot, area: Type5TLVArea)
        do {
            loaded = try await load()
        } catch where error.code == .notNDEFFormatted {
            return ["the tag holds no NDEF (\(error.reason))"]
        }
        let cc = loaded.area.capabilityContainer
        let size = loaded.snapshot.blockSize
        let ccBlocks = (cc.size + size - 1) / size
        let areaEnd = min(cc.areaEnd, memoryEnd ?? Int.max)
        let blocks = 0..<max(ccBlocks, (areaEnd + size - 1) / size)
        let (status, accessData) = try await securityStatus(blocks: blocks, blockSize: size, cc: cc)
        var gaps: [String] = []
        let access = try await accessBits(accessData, blockSize: size, cc: cc)
        if access != Type5CapabilityContainer.writeAccessNever { gaps.append("the CC's write access is \(access), not 3 (never)") }
        let unlocked = status.indices.filter { status[$0] & ISO15693Block.lockedStatus == 0 }.map { blocks.lowerBound + $0 }
        if !unlocked.isEmpty {
            gaps.append("blocks \(Type2Tag.ranges(unlocked)) of the CC and NDEF area are not locked (block security status)")
        }
        return gaps
    }

    /// The block security status of `blocks` (Get Multiple Block Security Status, else Read
    /// Single Block with the option flag), and the CC access block's data when it was read
    /// on the way.
    private func securityStatus(
        blocks: Range<Int>, blockSize: Int, cc: Type5CapabilityContainer
    ) async throws(NFCTagError) -> (status: [UInt8], accessData: Bytes?) {
        let extended = cc.usesExtendedCommands
        // CC byte 1 is in block 0 unless blocks are a single byte long.
        let accessBlock = 1 / blockSize
        var status: [UInt8] = []
        var accessData: Bytes?
        var refused = false
        while status.count < blocks.count, !refused {
            let first = blocks.lowerBound + status.count
            let chunk = first..<min(blocks.upperBound, first + Self.securityStatusChunk)
            do throws(NFCTagError) {
                status += extended
                    ? try await tag.extendedGetMultipleBlockSecurityStatus(chunk) : try await tag.getMultipleBlockSecurityStatus(chunk)
            } catch where Snapshot.refusesCommand(error) {
                refused = true
            }
        }
        while status.count < blocks.count {
            let b = blocks.lowerBound + status.count
            let block = try await readBlock(b, extended: extended)
            status.append(block.securityStatus ?? 0)
            if b == accessBlock { accessData = block.data }
        }
        return (status, accessData)
    }

    /// Throws `notSupported` when neither the CC (feature bit 3) nor the chip has Lock Block,
    /// or when the reader cannot carry Lock Block (a PC/SC reader's generic profile). A blank
    /// tag (no CC) is judged by the chip, as ``format(force:)`` sets feature bit 3 for a chip
    /// known to have Lock Block. Reads only.
    /// A block behind a password (``writeProtection(blocks:)``) refuses Lock Block: such a tag
    /// is refused too (`passwordRequired`), so that a lock is never left half done.
    public func checkLockable() async throws(NFCTagError) {
        let loaded: (snapshot: Snapshot, area: Type5TLVArea)
        do {
            loaded = try await load()
        } catch where error.code == .notNDEFFormatted {
            guard chipHasLockBlock else { throw Self.noLockBlock }
            return
        }
        try await checkLockable(loaded.area.capabilityContainer, snapshot: loaded.snapshot)
    }

    /// The blocks ``writeLock()`` locks: the CC's, and the area as the CC states it, cut at the
    /// chip's memory (MLEN may overstate it: locking blocks past the memory would fail half-way,
    /// or lock the SLIX2's counter block).
    private func lockedBlocks(_ cc: Type5CapabilityContainer, blockSize size: Int) -> (cc: Range<Int>, area: Range<Int>) {
        let ccBlocks = 0..<((cc.size + size - 1) / size)
        let areaEnd = min(cc.areaEnd, memoryEnd ?? Int.max)
        return (ccBlocks, ccBlocks.upperBound..<max(ccBlocks.upperBound, (areaEnd + size - 1) / size))
    }

    /// The Lock Block checks of ``checkLockable()`` for a tag whose CC is `cc`.
    private func checkLockable(_ cc: Type5CapabilityContainer, snapshot: Snapshot) async throws(NFCTagError) {
        guard cc.supportsLockBlock || chipHasLockBlock else { throw Self.noLockBlock }
        // A reader that cannot carry Lock Block is found out before the CC is written.
        let lockCommand = cc.usesExtendedCommands ? ISO15693Command.extendedLockBlock : ISO15693Command.lockBlock
        let lockParameters = cc.usesExtendedCommands ? try ISO15693Tag.extendedBlockBytes(0) : [UInt8(0)]
        do {
            try await tag.reader.checkCanSend(Bytes(commands(for: cc).frame(lockCommand, lockParameters)), mode: .standard)
        } catch {
            throw NFCTagError(error, during: "LOCK BLOCK (checked before anything was written; the tag was not changed)")
        }
        let (ccBlocks, areaBlocks) = lockedBlocks(cc, blockSize: snapshot.blockSize)
        try await refuseProtected(
            (Array(ccBlocks) + Array(areaBlocks)).filter { !snapshot.isLocked($0) }, blockSize: snapshot.blockSize, locking: true)
    }

    /// Neither the CC nor the chip offers Lock Block.
    private static let noLockBlock = NFCTagError(
        .notSupported, "neither the CC (feature bit 3) nor the chip offers Lock Block; the tag was not changed")

    /// Formats the tag for NDEF (Type 5 Tag 1.0, 4.3 and 4.4): from Get system information, a CC
    /// (`E1`, version 1.0, read/write, MLEN = the largest whole 8-byte T5T area after it; 4-byte
    /// form up to 2040 bytes, else 8-byte), then an empty NDEF TLV `03 00` and a Terminator
    /// `FE`. Feature bits: Read Multiple Blocks when the chip answered it while memory was read,
    /// Lock Block when the chip is known to have it, Special Frame when its writes need the
    /// option flag (``ISO15693Tag/writeOptionFlag``).
    ///
    /// Memory (the CC and area to be) is read first: a tag holding anything but zeros or an
    /// empty NDEF message (with nothing but NULL TLVs before it) is refused unless `force`.
    /// Blocks are written TLV first and the CC block last, so that an interruption leaves the
    /// old state or an empty NDEF tag; blocks that already hold the wanted bytes are not
    /// written. The block count comes from Get system information, or its extended form when
    /// the first has none (``systemMemory()``), or, for a chip that answers neither (TI Tag-it
    /// HF-I Standard and Pro), from ``ISO15693ChipTable/modelMemory(uid:)``; past 256 blocks the CC is `E2` in its 8-byte form
    /// (on an ST25DV64K `E2 40 00 09 00 00 03 FF`: MLEN `03FF`) and blocks are written with the
    /// extended commands.
    /// - Throws: ``NFCTagError`` `alreadyFormatted` (data present, not forced; nothing written);
    ///   `notSupported` when system information has no memory size; `readOnly` when a block to
    ///   write is locked, `passwordRequired` when it needs a password (nothing written);
    ///   `connectionLost`, `tagResponse`.
    public func format(force: Bool) async throws(NFCTagError) {
        let memory = try await systemMemory()
        guard let blockCount = memory.blockCount, let blockSize = memory.blockSize, blockCount * blockSize >= 16 else {
            throw NFCTagError(.notSupported, "system information gives no memory size to format")
        }
        var features = chipHasLockBlock ? Type5CapabilityContainer.featureLockBlock : 0
        // A chip whose writes need the option flag (TI Tag-it) says so to other readers: CC
        // feature bit 4, special frame for write-alike commands (AOSP reads it the same way).
        if tag.writeOptionFlag { features |= Type5CapabilityContainer.featureSpecialFrame }
        var cc = Type5CapabilityContainer.forMemory(size: blockCount * blockSize, features: 0)
        // Past 256 blocks, block numbers take 2 bytes: magic E2 and the extended commands.
        if blockCount > 256 { cc.magic = Type5CapabilityContainer.magicTwoByteAddress }
        // Read what the CC and the area will cover, with each block's security status.
        var snapshot = Snapshot(memory: [], blockSize: blockSize, lockedBlocks: [], capabilityContainer: nil)
        let multipleWorks = try await snapshot.extendProbingReadMultiple(through: cc.areaEnd - 1, using: self, extended: cc.usesExtendedCommands)
        if multipleWorks { features |= Type5CapabilityContainer.featureReadMultipleBlocks }
        cc.features = features
        let holdsData: Bool
        switch Type5TLVArea.parseOrNeedMore(memory: snapshot.memory) {
        case .success(let area):
            // A message, or any TLV before the NDEF TLV other than NULL, is data.
            holdsData = area.messageLength > 0 || snapshot.memory[area.capabilityContainer.size..<area.ndefTLVAddress].contains { $0 != 0 }
        default: holdsData = snapshot.memory.contains { $0 != 0 }
        }
        if holdsData && !force {
            throw NFCTagError(.alreadyFormatted, "the tag holds data; format(force: true) erases it")
        }
        var final = snapshot.memory
        let layout = cc.bytes + [Type5TLVType.ndefMessage, 0x00, Type5TLVType.terminator]
        final.replaceSubrange(0..<layout.count, with: layout)
        func block(_ memory: [UInt8], _ b: Int) -> [UInt8] { Array(memory[(b * blockSize)..<((b + 1) * blockSize)]) }
        let touched = Array(0...((layout.count - 1) / blockSize))
        let changing = touched.filter { block(final, $0) != block(snapshot.memory, $0) }
        if let locked = changing.first(where: { snapshot.isLocked($0) }) {
            throw NFCTagError(.readOnly, at: locked * blockSize, "block \(locked) is locked (Lock Block); nothing was written")
        }
        try await refuseProtected(changing, blockSize: blockSize)
        // When the CC spans several blocks, block 0 loses its magic first so that no half-old
        // CC is ever read.
        let ccBlocks = (cc.size + blockSize - 1) / blockSize
        var wrote = false
        do throws(NFCTagError) {
            if ccBlocks > 1, changing.contains(where: { $0 > 0 && $0 < ccBlocks }), snapshot.memory[0] != 0 {
                var invalid = block(snapshot.memory, 0)
                invalid[0] = 0
                try await write(block: 0, invalid, cc: cc)
                wrote = true
            }
            for b in changing.reversed() {
                try await write(block: b, block(final, b), cc: cc)
                wrote = true
            }
        } catch {
            throw refusedWrite(
                error, snapshot: snapshot,
                tagHolds: wrote ? "blocks past the CC may hold the new empty NDEF TLV; the CC block is written last, so the tag is not yet formatted anew"
                    : "nothing was written: the tag holds what it held")
        }
    }

    /// The memory's shape: GET SYSTEM INFORMATION, or EXTENDED GET SYSTEM INFORMATION when
    /// the first is refused, has no memory size (an ST25DV16K/64K, past 256 blocks) or reports
    /// 256 blocks, the most one byte counts (an NTAG 5 link or boost says `FF` for 512).
    func systemMemory() async throws(NFCTagError) -> ISO15693ChipMemory {
        // A chip that answers neither (Tag-it HF-I Standard, Pro): its model's memory, unasked.
        if let modelMemory = ISO15693ChipTable.modelMemory(uid: tag.target.uid) { return modelMemory }
        var plain: ISO15693ChipMemory?
        do throws(NFCTagError) {
            plain = ISO15693ChipMemory(try await tag.getSystemInfo())
        } catch where Snapshot.refusesCommand(error) {
            plain = nil
        }
        if let plain, let count = plain.blockCount, count < 256 { return plain }
        do throws(NFCTagError) {
            var extended = ISO15693ChipMemory(try await tag.extendedGetSystemInfo())
            extended.icReference = extended.icReference ?? plain?.icReference
            return extended
        } catch where Snapshot.refusesCommand(error) {
            return plain ?? ISO15693ChipMemory(icReference: nil, blockCount: nil, blockSize: nil)
        }
    }

    // MARK: - Memory

    /// Tag memory read so far, from block 0, with the lock state of each block read.
    struct Snapshot {
        var memory: [UInt8]
        var blockSize: Int
        var lockedBlocks: [Bool]
        /// Known once parsed: says whether Read Multiple Blocks and the extended commands apply.
        var capabilityContainer: Type5CapabilityContainer?
        /// Set when the chip refused Read Multiple Blocks although the CC announced it.
        var readMultipleRefused = false

        func isLocked(_ block: Int) -> Bool { block < lockedBlocks.count && lockedBlocks[block] }

        mutating func append(_ blocks: [ISO15693Block]) throws(NFCTagError) {
            for b in blocks {
                guard b.data.count == blockSize else {
                    throw NFCTagError(
                        .tagResponse, at: b.number * blockSize,
                        "block \(b.number) came back with \(b.data.count) bytes where blocks are \(blockSize) bytes long")
                }
                memory += b.data.array
                if lockedBlocks.count < b.number { lockedBlocks += [Bool](repeating: false, count: b.number - lockedBlocks.count) }
                lockedBlocks.append(b.isLocked)
            }
        }

        /// Reads on until `memory` covers `address` (and, with `ahead`, up to that address when
        /// Read Multiple Blocks applies, so as to save a later command).
        mutating func extend(through address: Int, ahead: Int? = nil, using tag: Type5Tag) async throws(NFCTagError) {
            guard address >= memory.count else { return }
            var multiple = (capabilityContainer?.supportsReadMultipleBlocks ?? false) && tag.maxBlocksPerRead > 1
                && !readMultipleRefused
            let extended = capabilityContainer?.usesExtendedCommands ?? false
            var target = multiple ? max(address, ahead ?? address) : address
            while memory.count <= target {
                let first = memory.count / blockSize
                let last = target / blockSize
                if multiple && last > first {
                    let end = min(last, first + tag.maxBlocksPerRead - 1)
                    do throws(NFCTagError) {
                        try append(try await tag.readBlocks(first...end, extended: extended))
                    } catch where Self.refusesCommand(error) {
                        // The CC promised Read Multiple Blocks but the chip refuses it: single
                        // blocks from now on, and no read-ahead.
                        multiple = false
                        readMultipleRefused = true
                        target = address
                    } catch where error.code == .passwordRequired && target > address {
                        // The read-ahead reached read-protected blocks: only the blocks needed.
                        target = address
                    }
                } else {
                    try append([try await tag.readBlock(first, extended: extended)])
                }
            }
        }

        /// Whether `error` is the tag refusing a command (error `01`, `02` or `03`).
        static func refusesCommand(_ error: NFCTagError) -> Bool {
            guard error.code == .tagResponse, let code = ISO15693Error.code(in: error) else { return false }
            return [ISO15693Error.commandNotSupported, ISO15693Error.commandNotRecognized, ISO15693Error.optionNotSupported].contains(code)
        }

        /// Reads through `address` trying Read Multiple Blocks first; when the tag answers it
        /// with an error (not supported), goes on with single blocks. Returns whether it worked.
        mutating func extendProbingReadMultiple(through address: Int, using tag: Type5Tag, extended: Bool) async throws(NFCTagError) -> Bool {
            var works = tag.maxBlocksPerRead > 1
            while memory.count <= address {
                let first = memory.count / blockSize
                let last = address / blockSize
                if works && last > first {
                    do throws(NFCTagError) {
                        try append(try await tag.readBlocks(first...min(last, first + tag.maxBlocksPerRead - 1), extended: extended))
                        continue
                    } catch where Self.refusesCommand(error) {
                        works = false
                    }
                }
                try append([try await tag.readBlock(first, extended: extended)])
            }
            return works
        }
    }

    /// Reads block 0, then on until the T5T area parses (the detection procedure).
    func load() async throws(NFCTagError) -> (snapshot: Snapshot, area: Type5TLVArea) {
        let first = try await readBlock(0, extended: false)
        guard !first.data.isEmpty else { throw NFCTagError(.tagResponse, at: 0, "READ SINGLE BLOCK 0 answered no data") }
        var snapshot = Snapshot(memory: [], blockSize: first.data.count, lockedBlocks: [], capabilityContainer: nil)
        try snapshot.append([first])
        while true {
            switch Type5TLVArea.parseOrNeedMore(memory: snapshot.memory, memoryEnd: memoryEnd) {
            case .success(var area):
                snapshot.capabilityContainer = area.capabilityContainer
                area.memoryEnd = memoryEnd
                return (snapshot, area)
            case .failure(let error): throw error
            case .needMore(let address):
                if snapshot.capabilityContainer == nil, case .success(let cc) = Type5CapabilityContainer.parse(Array(snapshot.memory.prefix(8))) {
                    snapshot.capabilityContainer = cc
                }
                let ahead = snapshot.capabilityContainer.map { cc in
                    min(cc.areaEnd - 1, (address / snapshot.blockSize + readAheadBlocks) * snapshot.blockSize - 1)
                }
                try await snapshot.extend(through: address, ahead: ahead, using: self)
            }
        }
    }

    /// Read single block with its security status (extended form for `E2`).
    /// A refusal that means `passwordRequired` (``isReadPasswordRefusal(_:)``) becomes that code.
    func readBlock(_ number: Int, extended: Bool) async throws(NFCTagError) -> ISO15693Block {
        do throws(NFCTagError) {
            if !extended { return try await tag.readSingleBlockWithSecurityStatus(number) }
            let answer = try await tag.send(
                ISO15693Command.extendedReadSingleBlock, try ISO15693Tag.extendedBlockBytes(number), option: true,
                what: "EXTENDED READ SINGLE BLOCK \(number)")
            guard answer.count > 1 else {
                throw NFCTagError(.tagResponse, "EXTENDED READ SINGLE BLOCK \(number) answered \(answer.count) bytes")
            }
            return ISO15693Block(number: number, data: Bytes(answer.dropFirst()), securityStatus: answer[0])
        } catch {
            throw readRefusal(error, blocks: number...number)
        }
    }

    /// Read multiple blocks with their security status (extended form for `E2`); a refusal that
    /// means `passwordRequired` becomes that code.
    func readBlocks(_ range: ClosedRange<Int>, extended: Bool) async throws(NFCTagError) -> [ISO15693Block] {
        do throws(NFCTagError) {
            return try await tag.readMultiple(range.lowerBound..<(range.upperBound + 1), extended: extended, securityStatus: true)
        } catch {
            throw readRefusal(error, blocks: range)
        }
    }

    /// `error` as `passwordRequired` when the chip's answer means a read-protected block.
    private func readRefusal(_ error: NFCTagError, blocks: ClosedRange<Int>) -> NFCTagError {
        guard error.code == .tagResponse, isReadPasswordRefusal(ISO15693Error.code(in: error)) else { return error }
        let which = blocks.count == 1 ? "block \(blocks.lowerBound)" : "blocks \(blocks.lowerBound)–\(blocks.upperBound)"
        return NFCTagError(
            .passwordRequired, at: error.offset,
            "\(error.reason): \(which) read-protected, reading needs the chip's password "
                + "(remove the protection with 'nfctool unprotect')", readerError: error.readerError)
    }

    /// How far a message write got before a refusal: the length zeroed (the tag reads empty),
    /// blocks of the new message written.
    struct WriteProgress {
        /// The tag reads as an empty NDEF message (it did before, or L was zeroed).
        var emptied: Bool
        /// A block of the new message was sent.
        var written = false

        /// What the tag holds, in words.
        var text: String {
            if !emptied && !written { return "nothing was written: the tag holds its old message" }
            return "the tag holds an empty NDEF message (the old one is gone, the new one was not finished; the writes are tear-safe)"
        }
    }

    /// A write refused half-way, with what the tag holds now; `12` or `0F` on a block not
    /// locked with Lock Block, on a chip with memory passwords, is ``NFCTagError/Code/passwordRequired``.
    private func refusedWrite(_ error: NFCTagError, snapshot: Snapshot, tagHolds: String) -> NFCTagError {
        let block = error.offset.map { $0 / snapshot.blockSize }
        var code = error.code
        var why = ""
        if code == .readOnly || code == .tagResponse, let block, !snapshot.isLocked(block), isPasswordRefusal(ISO15693Error.code(in: error)) {
            code = .passwordRequired
            why = " (block \(block) needs a password: it is not locked with Lock Block; remove the protection with 'nfctool unprotect')"
        }
        return NFCTagError(code, at: error.offset, "\(error.reason)\(why); \(tagHolds)", readerError: error.readerError)
    }

    /// The tag's commands as `cc` asks: the option flag on write-alike commands when the CC
    /// wants the special frame (feature bit 4: the tag answers after the reader's EOF).
    func commands(for cc: Type5CapabilityContainer) -> ISO15693Tag {
        var io = tag
        if cc.needsSpecialFrame { io.writeOptionFlag = true }
        return io
    }

    /// Write single block (extended form for `E2`, option flag for the special frame), with the
    /// block's byte address on errors.
    func write(block: Int, _ data: [UInt8], cc: Type5CapabilityContainer) async throws(NFCTagError) {
        let io = commands(for: cc)
        do {
            if cc.usesExtendedCommands {
                try await io.extendedWriteSingleBlock(block, data: Bytes(data))
            } else {
                try await io.writeSingleBlock(block, data: Bytes(data))
            }
        } catch {
            var located = error
            located.offset = located.offset ?? block * data.count
            throw located
        }
    }
}
