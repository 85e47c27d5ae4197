public import NFCCore

// MIFARE Classic commands on a selected tag (NXP MF1S50yyX/V1 section 10; MF1S70yyX/V1 for the
// 4K). Authentication runs in the reader (Crypto-1 in the PN532 firmware); READ, WRITE and the
// value commands then go through the reader seam as plain frames.

extension MiFareTag {
    /// The sector geometry of this card, from its identification (1K unless the model says Mini
    /// or 4K).
    public var classicLayout: ClassicLayout { ClassicLayout(identity: identity) }

    /// Authenticates `sector` with a key (MF1S50yyX/V1, 10.1): later READ/WRITE/value commands
    /// on that sector's blocks are granted per its access bits. The authentication is sent for
    /// the sector's trailer block.
    ///
    /// A card that refuses a key stops answering until it is selected again (it drops to IDLE);
    /// the tag is then selected again (deselect and poll) so that later commands find it.
    /// - Throws: ``NFCTagError`` `invalidParameter` (sector out of range, key not 6 bytes; nothing
    ///   sent), `authenticationFailed` (the key was refused; the key itself is never put in the
    ///   error), `connectionLost`.
    public func authenticate(sector: Int, keyType: ClassicKeyType, key: Bytes) async throws(NFCTagError) {
        let layout = classicLayout
        guard (0..<layout.sectorCount).contains(sector) else {
            throw NFCTagError(.invalidParameter, "sector \(sector) is outside 0…\(layout.sectorCount - 1)")
        }
        guard key.count == 6 else {
            throw NFCTagError(.invalidParameter, "a MIFARE Classic key is 6 bytes, not \(key.count)")
        }
        let block = layout.trailerBlock(ofSector: sector)
        let name = keyType == .a ? "A" : "B"
        do {
            try await reader.authenticateClassic(block: UInt8(block), keyType: keyType, key: key, uid: target.uid)
        } catch where error.code == .authenticationFailed {
            try await reselect()
            throw NFCTagError(
                .authenticationFailed, at: block * ClassicLayout.blockSize,
                "sector \(sector) refused key \(name)", readerError: nil)
        } catch {
            throw NFCTagError(error, during: "authentication of sector \(sector) with key \(name)")
        }
    }

    /// Selects the card again after it dropped to IDLE (a refused key): deselect, then poll for
    /// the same UID.
    /// - Throws: ``NFCTagError`` `connectionLost` when the card does not come back.
    func reselect() async throws(NFCTagError) {
        try? await reader.deselect()
        let info: TargetInfo?
        do {
            info = try await reader.poll(for: [.iso14443A], timeout: commandTimeout)
        } catch {
            throw NFCTagError(error, during: "selecting the card again after a refused key")
        }
        guard case .iso14443A(let again)? = info, again.uid == target.uid else {
            throw NFCTagError(.connectionLost, "the card did not answer again after a refused key")
        }
    }

    /// READ (`30`, block): the 16 bytes of a block of the authenticated sector. In a trailer,
    /// key A reads as zeros and key B / access bits as the access conditions allow.
    /// - Throws: ``NFCTagError`` `invalidParameter` (block out of range), `tagResponse` (NAK:
    ///   not authenticated for that sector or not permitted; the card drops the authentication),
    ///   `connectionLost`.
    public func readBlock(_ block: Int) async throws(NFCTagError) -> [UInt8] {
        try checkBlock(block)
        let answer = try await exchange([ClassicCommand.read, UInt8(block)], what: "READ block \(block)")
        guard answer.count == ClassicLayout.blockSize else {
            throw NFCTagError(
                .tagResponse, at: block * ClassicLayout.blockSize, "READ block \(block) answered \(answer.count) bytes, not 16")
        }
        return answer.array
    }

    /// WRITE (`A0`, block, 16 bytes): one block of the authenticated sector. The reader sends
    /// the two phases of the datasheet (a PN532 takes the 18 bytes in one InDataExchange).
    /// Writing a trailer changes only the parts its access conditions let the key write.
    /// - Throws: ``NFCTagError`` `invalidParameter` (block out of range or 0, data not 16
    ///   bytes; nothing sent), `tagResponse` (NAK), `connectionLost`.
    public func writeBlock(_ block: Int, _ data: [UInt8]) async throws(NFCTagError) {
        try checkBlock(block)
        guard block != 0 else { throw NFCTagError(.invalidParameter, "block 0 is the manufacturer block") }
        guard data.count == ClassicLayout.blockSize else {
            throw NFCTagError(.invalidParameter, "a block is 16 bytes, not \(data.count)")
        }
        try await expectAcknowledge(
            try await exchange([ClassicCommand.write, UInt8(block)] + data, what: "WRITE block \(block)"), block: block,
            what: "WRITE")
    }

    /// Reads a block in value-block format.
    /// - Throws: as ``readBlock(_:)``, and `malformedTag` (offset of the faulty byte) when the
    ///   block breaks the value-block format.
    public func readValue(block: Int) async throws(NFCTagError) -> ClassicValueBlock {
        let bytes = try await readBlock(block)
        return try ClassicValueBlock(bytes: bytes, blockAddress: block * ClassicLayout.blockSize)
    }

    /// Writes `value` in value-block format (address byte `address`, by default the block number).
    /// - Throws: as ``writeBlock(_:_:)``.
    public func writeValue(_ value: Int32, block: Int, address: UInt8? = nil) async throws(NFCTagError) {
        try await writeBlock(block, ClassicValueBlock(value: value, address: address ?? UInt8(truncatingIfNeeded: block)).bytes)
    }

    /// INCREMENT (`C1`, block, 4-byte operand): value + `amount` into the transfer buffer;
    /// ``transfer(block:)`` stores it.
    /// - Throws: ``NFCTagError`` `invalidParameter`, `tagResponse` (NAK: not a value block, not
    ///   permitted), `connectionLost`.
    public func increment(block: Int, by amount: Int32) async throws(NFCTagError) {
        try await valueOperation(ClassicCommand.increment, block: block, operand: amount, what: "INCREMENT")
    }

    /// DECREMENT (`C0`, block, 4-byte operand): value − `amount` into the transfer buffer.
    /// - Throws: as ``increment(block:by:)``.
    public func decrement(block: Int, by amount: Int32) async throws(NFCTagError) {
        try await valueOperation(ClassicCommand.decrement, block: block, operand: amount, what: "DECREMENT")
    }

    /// RESTORE (`C2`, block, 4 ignored bytes): the block's value into the transfer buffer (to
    /// copy a value block with ``transfer(block:)``).
    /// - Throws: as ``increment(block:by:)``.
    public func restore(block: Int) async throws(NFCTagError) {
        try await valueOperation(ClassicCommand.restore, block: block, operand: 0, what: "RESTORE")
    }

    /// TRANSFER (`B0`, block): the transfer buffer into `block`.
    /// - Throws: as ``increment(block:by:)``.
    public func transfer(block: Int) async throws(NFCTagError) {
        try checkBlock(block)
        try await expectAcknowledge(
            try await exchange([ClassicCommand.transfer, UInt8(block)], what: "TRANSFER block \(block)"), block: block,
            what: "TRANSFER")
    }

    // MARK: - Private

    private func checkBlock(_ block: Int) throws(NFCTagError) {
        guard (0..<classicLayout.blockCount).contains(block) else {
            throw NFCTagError(.invalidParameter, "block \(block) is outside 0…\(classicLayout.blockCount - 1)")
        }
    }

    private func exchange(_ command: [UInt8], what: String) async throws(NFCTagError) -> Bytes {
        do {
            return try await reader.transceive(Bytes(command), mode: .standard, timeout: commandTimeout)
        } catch {
            throw NFCTagError(error, during: what)
        }
    }

    private func expectAcknowledge(_ answer: Bytes, block: Int, what: String) async throws(NFCTagError) {
        guard answer.isEmpty || answer.array == [Type2Command.ack] else {
            throw NFCTagError(.tagResponse, at: block * ClassicLayout.blockSize, "\(what) block \(block) answered \(answer.description)")
        }
    }

    private func valueOperation(_ code: UInt8, block: Int, operand: Int32, what: String) async throws(NFCTagError) {
        try checkBlock(block)
        let raw = UInt32(bitPattern: operand)
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: raw >> (8 * $0)) }
        try await expectAcknowledge(
            try await exchange([code, UInt8(block)] + bytes, what: "\(what) block \(block)"), block: block, what: what)
    }
}
