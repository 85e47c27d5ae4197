public import NDEF

extension Type2Tag {
    /// Whether the identified chip has the UID and NFC counter mirror (NTAG213/215/216).
    public var hasMirror: Bool { profile?.hasMirror ?? false }

    /// Throws `notSupported` unless the chip has the mirror (``hasMirror``); sends nothing. The
    /// first check of ``writeNDEF(_:mirror:at:verify:)``, for callers that check everything
    /// before an earlier write of theirs (a format).
    public func checkMirror() throws(NFCTagError) {
        guard hasMirror else { throw Self.noMirror }
    }

    /// The chip has no mirror.
    private static let noMirror = NFCTagError(
        .notSupported, "only NTAG213, NTAG215 and NTAG216 mirror their UID and counter; nothing was written")

    /// Writes `message`, whose bytes from `mirrorOffset` hold `mirror`'s placeholder characters,
    /// and makes the chip mirror there (NTAG213/215/216 datasheet 8.7): MIRROR_CONF,
    /// MIRROR_BYTE and MIRROR_PAGE in CFG0, and NFC_CNT_EN in ACCESS when the counter is mirrored.
    ///
    /// Every check comes first, and a failed one writes nothing: the chip has a mirror, the
    /// message holds the placeholder at `mirrorOffset`, the configuration is not locked (CFGLCK),
    /// the usual NDEF checks (formatted, writable, fits), and the mirror's bytes, once the
    /// message is laid out in the NDEF TLV, are consecutive, start at page 4 or later and end
    /// inside user memory. Then: a mirror already on is turned off (so the old mirror cannot
    /// cover the new message, and the read-back sees memory), the message is written in the
    /// tear-safe order of ``writeNDEF(_:verify:)``, and CFG0 and ACCESS are written last and read
    /// back. An interruption leaves at worst the new message with its placeholder characters
    /// and no mirror; running again completes it.
    /// - Returns: where the mirror starts.
    /// - Throws: ``NFCTagError`` `notSupported` (no mirror on this chip), `invalidParameter` (the
    ///   placeholder is not at `mirrorOffset`, or the position is not allowed, with the address),
    ///   `readOnly` (CFGLCK), and those of ``writeNDEF(_:verify:)``.
    @discardableResult
    public func writeNDEF(
        _ message: NDEFMessage, mirror: NTAGMirror, at mirrorOffset: Int, verify: Bool
    ) async throws(NFCTagError) -> NTAGMirrorPosition {
        try checkMirror()
        guard let profile else { throw Self.noMirror }
        let encoded = try message.encodedForTag()
        guard mirrorOffset >= 0, mirrorOffset + mirror.length <= encoded.count,
              Array(encoded[mirrorOffset..<(mirrorOffset + mirror.length)]) == mirror.placeholder
        else {
            throw NFCTagError(.invalidParameter, "the message does not hold the mirror's placeholder at byte \(mirrorOffset); nothing was written")
        }
        try await authenticateIfPasswordSet()
        var configuration = try await readConfiguration()
        guard !configuration.isLocked else {
            throw NFCTagError(
                .readOnly, at: profile.accessPage * Type2Command.pageSize,
                "the configuration is locked (CFGLCK): the mirror cannot be set; nothing was written")
        }
        var snapshot = try await load()
        let area = snapshot.area
        let header = encoded.count < 0xFF ? 2 : 4
        let first = header + mirrorOffset
        guard first + mirror.length <= area.ndefAddresses.count else {
            try NFCTagError.checkCapacity(encoded.count, fits: area.capacity)
            throw NFCTagError(.capacityExceeded, "the message does not fit the NDEF area")
        }
        let addresses = Array(area.ndefAddresses[first..<(first + mirror.length)])
        let start = addresses[0]
        let position = NTAGMirrorPosition(address: start)
        guard addresses.last == start + mirror.length - 1 else {
            throw NFCTagError(
                .invalidParameter, at: start,
                "the mirror's \(mirror.length) bytes would straddle a reserved area of the tag; nothing was written")
        }
        guard position.page >= NTAGMirrorBits.firstPage, start + mirror.length <= profile.userPages.upperBound * Type2Command.pageSize else {
            throw NFCTagError(
                .invalidParameter, at: start,
                "a mirror of \(mirror.length) bytes at page \(position.page) byte \(position.byte) is outside user memory (pages \(profile.userPages.lowerBound)–\(profile.userPages.upperBound - 1)); nothing was written")
        }
        _ = try await checkTLV(message: encoded, on: snapshot)
        if NTAGMirror(mirrorByte: configuration.cfg0[0]) != nil {
            // Every check has passed. Turn the old mirror off: reads then show memory, not the
            // old mirror, so memory is read again for the tear-safe write and its read-back.
            var cfg0 = configuration.cfg0
            cfg0[0] &= ~NTAGMirrorBits.configurationMask
            try await write(page: profile.configurationPage, cfg0)
            configuration.cfg0 = cfg0
            snapshot = try await load()
        }
        try await writeTLV(message: encoded, on: snapshot, verify: verify, keepingMirror: true)
        var cfg0 = configuration.cfg0
        cfg0[0] = (cfg0[0] & ~(NTAGMirrorBits.configurationMask | NTAGMirrorBits.byteMask))
            | mirror.mirrorConfiguration | UInt8(position.byte) << NTAGMirrorBits.byteShift
        cfg0[NTAGMirrorBits.pageIndex] = UInt8(position.page)
        var cfg1 = configuration.cfg1
        if mirror.mirrorsCounter { cfg1[0] |= NTAGAccess.nfcCounterEnabled }
        if cfg1 != configuration.cfg1 { try await write(page: profile.accessPage, cfg1) }
        try await write(page: profile.configurationPage, cfg0)
        if verify {
            let after = try await readConfiguration()
            guard after.cfg0 == cfg0, after.cfg1[0] == cfg1[0] else {
                throw NFCTagError(
                    .verificationFailed, at: profile.configurationPage * Type2Command.pageSize,
                    "the mirror configuration read back differs from what was written")
            }
        }
        return position
    }

    /// For a write that keeps no mirror placeholder (``writeNDEF(_:verify:)``, ``format(force:)``,
    /// an erase): once that write's checks have passed and before its first data WRITE, turns an
    /// NTAG213/215/216's mirror off (MIRROR_CONF 00 in CFG0, the rest of CFG0 unchanged). While
    /// the mirror is on, READ shows the UID or counter in place of memory, so the new bytes
    /// would read back wrong, and the chip would go on covering the new message with them.
    ///
    /// Sends nothing on other chips or when the mirror is off. `configuration` is used when the
    /// caller has read it; otherwise it is read here.
    /// - Parameter addresses: the byte addresses the write will change: with the configuration
    ///   locked (CFGLCK) the mirror cannot be turned off, which is refused only when it covers
    ///   one of them (elsewhere it shows over free memory, not over the message).
    /// - Returns: whether CFG0 was written (memory read before then showed the mirror: read it
    ///   again).
    /// - Throws: ``NFCTagError`` `readOnly` (CFGLCK with the mirror over the new bytes),
    ///   `passwordRequired` (CFG0 lies at or past AUTH0 and no password is set) — nothing
    ///   written; `connectionLost`, `tagResponse`.
    func turnMirrorOff(
        configuration known: Type2Configuration? = nil, sparing addresses: [Int]
    ) async throws(NFCTagError) -> Bool {
        guard let profile, profile.hasMirror else { return false }
        let configuration: Type2Configuration
        if let known { configuration = known } else { configuration = try await readConfiguration() }
        guard let mirror = NTAGMirror(mirrorByte: configuration.cfg0[0]) else { return false }
        let page = Int(configuration.cfg0[NTAGMirrorBits.pageIndex])
        let start = page * Type2Command.pageSize + Int((configuration.cfg0[0] & NTAGMirrorBits.byteMask) >> NTAGMirrorBits.byteShift)
        let covered = start..<min(start + mirror.length, profile.userPages.upperBound * Type2Command.pageSize)
        if configuration.isLocked {
            guard page >= NTAGMirrorBits.firstPage, let hit = addresses.first(where: covered.contains) else { return false }
            throw NFCTagError(
                .readOnly, at: hit,
                "the chip's mirror shows \(mirror.length) characters over bytes \(covered.lowerBound)–\(covered.upperBound - 1) and its configuration is locked (CFGLCK), so the mirror cannot be turned off: the new bytes would not read back; nothing was written")
        }
        try requireWriteAccess(toPages: [profile.configurationPage], configuration: configuration)
        var cfg0 = configuration.cfg0
        cfg0[0] &= ~NTAGMirrorBits.configurationMask
        try await write(page: profile.configurationPage, cfg0)
        return true
    }
}
