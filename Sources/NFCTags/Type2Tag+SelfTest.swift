/// What a reader self-test (`nfctool selftest`) asks of a Type 2 tag beyond reading and writing
/// its message: each raw read path on its own, and putting user-memory pages back exactly as
/// they were after a reversible write.
extension Type2Tag {
    /// The first page of user memory (NFC Forum Type 2 Tag 1.0 §2.1: pages 0–3 hold the UID,
    /// the static lock bytes and the capability container).
    public static let firstUserPage = 4

    /// READ (0x30) of the 16 bytes from `page`, on its own (no FAST_READ).
    /// - Throws: ``NFCTagError`` `tagResponse` for a NAK or a short answer, `connectionLost`.
    public func readFourPages(from page: Int) async throws(NFCTagError) -> [UInt8] {
        try await read(page: page)
    }

    /// FAST_READ (0x3A) of pages `start` through `end`, on its own.
    /// - Throws: ``NFCTagError`` `malformedTag` for a range FAST_READ cannot reach,
    ///   `tagResponse` for a NAK or an answer of the wrong length, `connectionLost`.
    public func fastReadPages(from start: Int, through end: Int) async throws(NFCTagError) -> [UInt8] {
        try await fastRead(from: start, to: end)
    }

    /// The bytes of `count` pages from `firstPage` on, read with READ (and FAST_READ where the
    /// chip has it), exactly `count` × 4 bytes.
    /// - Throws: as ``readFourPages(from:)``; `invalidParameter` for an empty or negative range.
    public func readPages(from firstPage: Int, count: Int) async throws(NFCTagError) -> [UInt8] {
        guard firstPage >= 0, count > 0 else { throw NFCTagError(.invalidParameter, "no pages to read") }
        let bytes = try await read(fromPage: firstPage, through: (firstPage + count) * Type2Command.pageSize - 1)
        return Array(bytes.prefix(count * Type2Command.pageSize))
    }

    /// Writes back, page by page, the user-memory pages from `firstPage` whose content differs
    /// from `saved` (as ``readPages(from:count:)`` returned it before a change), so the tag's
    /// memory is byte for byte what it was. Pages before ``firstUserPage`` (UID, lock bytes,
    /// capability container) are never written.
    /// - Returns: how many pages were written.
    /// - Throws: ``NFCTagError`` `invalidParameter` for a range starting before user memory or
    ///   not a whole number of pages; what READ and WRITE throw.
    public func restorePages(_ saved: [UInt8], from firstPage: Int) async throws(NFCTagError) -> Int {
        guard firstPage >= Self.firstUserPage, !saved.isEmpty, saved.count % Type2Command.pageSize == 0 else {
            throw NFCTagError(.invalidParameter, "only whole pages of user memory (page 4 on) are restored")
        }
        let count = saved.count / Type2Command.pageSize
        let now = try await readPages(from: firstPage, count: count)
        var written = 0
        for index in 0..<count {
            let range = index * Type2Command.pageSize..<(index + 1) * Type2Command.pageSize
            guard now[range] != saved[range] else { continue }
            try await write(page: firstPage + index, Array(saved[range]))
            written += 1
        }
        return written
    }
}
