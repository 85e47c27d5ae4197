import NFCCore

/// Pages read so far in one operation: a READ answers four pages, so the lock page's READ also
/// brings CFG0 and CFG1 on NTAG21x, and page 2's READ brings the CC.
struct Type2PageCache {
    private var pages: [Int: [UInt8]] = [:]

    /// Seeds the cache with `memory` read from address 0.
    init(memory: [UInt8] = []) {
        for page in 0..<(memory.count / Type2Command.pageSize) {
            pages[page] = Array(memory[(page * 4)..<(page * 4 + 4)])
        }
    }

    /// Page `page`, READ (four pages from it) when not known yet; pages past `limit` (roll-over)
    /// are not kept.
    mutating func page(_ page: Int, on tag: Type2Tag, limit: Int?) async throws(NFCTagError) -> [UInt8] {
        if let known = pages[page] { return known }
        let bytes = try await tag.read(page: page)
        for index in 0..<4 where page + index < (limit ?? page + 4) {
            pages[page + index] = Array(bytes[(index * 4)..<(index * 4 + 4)])
        }
        return Array(bytes[0..<4])
    }

    /// Page `page` when it has been read, nil otherwise (nothing is sent).
    func known(_ page: Int) -> [UInt8]? { pages[page] }

    /// The configuration (CFG0, CFG1) of `profile`, from the cache or READ.
    mutating func configuration(_ profile: Type2ChipProfile, on tag: Type2Tag) async throws(NFCTagError) -> Type2Configuration {
        do {
            if tag.usesFastRead, known(profile.configurationPage) == nil, known(profile.accessPage) == nil {
                // FAST_READ of exactly CFG0 and CFG1 (NTAG21x 10.3, MF0ULx1 9.4): 8 bytes where a
                // READ answers 16.
                let bytes = try await tag.fastRead(from: profile.configurationPage, to: profile.accessPage)
                pages[profile.configurationPage] = Array(bytes[0..<4])
                pages[profile.accessPage] = Array(bytes[4..<8])
            }
            let cfg0 = try await page(profile.configurationPage, on: tag, limit: profile.totalPages)
            let cfg1 = try await page(profile.accessPage, on: tag, limit: profile.totalPages)
            return try Type2Configuration(bytes: cfg0 + cfg1, page: profile.configurationPage)
        } catch where tag.password == nil && (error.readerError?.code == .nak || error.readerError?.code == .authenticationFailed) {
            throw NFCTagError(
                .passwordRequired, at: profile.configurationPage * Type2Command.pageSize,
                "the configuration pages are read-protected: the tag's password is needed")
        }
    }
}

/// Type 2 writeLock and format.
extension Type2Tag {
    /// One page write of a plan.
    struct PageWrite: Hashable {
        var page: Int
        var data: [UInt8]
    }

    /// Makes the tag permanently read-only (Type 2 Tag 1.2, 8.2 "transition to read-only"):
    /// (1) CC3 write access = 0Fh, so NDEF readers see read-only at once; (2) the dynamic lock
    /// bits — at the model's dynamic lock page with its block-locking bits when the chip is known,
    /// else where the Lock Control TLV or the default dynamic lock area says; (3) the static lock
    /// bytes `FF FF` (pages 3–15 and their block-locking bits); (4) CFGLCK on NTAG21x / Ultralight
    /// EV1, so AUTH0 and ACCESS cannot change either. Each step is skipped when already done, so
    /// running it again after an interruption completes it. Lock bits take effect when the tag
    /// is next activated; they are read back to verify.
    /// On a MIFARE Ultralight C, step (2) sets all of lock byte 2 (page 28h byte 0); a MIFARE
    /// Ultralight AES is locked by ``writeUltralightAESLock()`` (static bits and CFGLCK only).
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`, `passwordRequired` (nothing written);
    ///   `notSupported` on a MIFARE Ultralight AES whose message reaches page 10h (nothing
    ///   written);
    ///   `connectionLost` (the tag is partly locked: run again), `verificationFailed`.
    public func writeLock() async throws(NFCTagError) {
        if isUltralightAES { return try await writeUltralightAESLock() }
        try await checkLockable()
        try await authenticateIfPasswordSet()
        let snapshot = try await load()
        let memory = snapshot.memory
        var cache = Type2PageCache(memory: memory)
        var plan: [PageWrite] = []
        let cc = Array(memory[Type2CapabilityContainer.address..<(Type2CapabilityContainer.address + 4)])
        if cc[3] & 0x0F != Type2CapabilityContainer.writeAccessDenied {
            plan.append(PageWrite(page: 3, data: [cc[0], cc[1], cc[2], cc[3] | Type2CapabilityContainer.writeAccessDenied]))
        }
        plan += try await dynamicLockWrites(area: snapshot.area, cache: &cache)
        let lockAddress = Type2StaticLock.address
        if memory[lockAddress] != 0xFF || memory[lockAddress + 1] != 0xFF {
            plan.append(PageWrite(page: 2, data: [memory[8], memory[9], 0xFF, 0xFF]))
        }
        var configuration: Type2Configuration?
        if let profile {
            let current = try await cache.configuration(profile, on: self)
            configuration = current
            if !current.isLocked {
                plan.append(PageWrite(
                    page: profile.accessPage, data: [current.access | Type2Configuration.configurationLockBit] + current.cfg1[1...]))
            }
        }
        try requireWriteAccess(toPages: plan.map(\.page), configuration: configuration)
        try requireLockable(plan, memory: memory, cache: &cache)
        for step in plan { try await write(page: step.page, step.data) }
        try await verifyBits(plan)
    }

    /// Refuses a lock plan, before its first (irreversible) write, when a lock bit it sets would
    /// stay clear: a block-locking bit already set freezes it, so the pages it covers would stay
    /// writable after CC3, the other lock bits and CFGLCK were set for good. Works on the bytes
    /// already read (page 2; the dynamic lock page in `cache`).
    /// - Throws: ``NFCTagError`` `notSupported` naming the frozen bits and the pages left
    ///   writable.
    func requireLockable(_ plan: [PageWrite], memory: [UInt8], cache: inout Type2PageCache) throws(NFCTagError) {
        let lockAddress = Type2StaticLock.address
        if let step = plan.first(where: { $0.page == 2 }) {
            let current = (memory[lockAddress], memory[lockAddress + 1])
            let after = Type2StaticLock.afterWrite(of: (step.data[2], step.data[3]), over: current)
            let writable = Type2StaticLock.unlockedPages(lockBytes: after)
            if !writable.isEmpty {
                throw NFCTagError(
                    .notSupported, at: lockAddress,
                    "the static lock bytes are \(hexByte(current.0)) \(hexByte(current.1)): their block-locking bits freeze the lock bits of pages \(Self.ranges(writable)), which would stay writable; the tag cannot be locked, and nothing was written")
            }
        }
        guard let profile, let page = profile.dynamicLockPage,
              let step = plan.first(where: { $0.page == page }), let current = cache.known(page) else { return }
        var frozen: [Int] = []
        for bit in 0..<profile.dynamicLockBits where step.data[bit / 8] & (1 << UInt8(bit % 8)) != 0 {
            let set = current[bit / 8] & (1 << UInt8(bit % 8)) != 0
            if !set, current[2] & (1 << UInt8(bit / 2)) != 0 { frozen.append(bit) }
        }
        guard !frozen.isEmpty else { return }
        throw NFCTagError(
            .notSupported, at: page * Type2Command.pageSize + 2,
            "the dynamic lock bytes are \(Hex.encode(Array(current.prefix(3)), uppercase: true, separator: " ")): their block-locking bits freeze dynamic lock bits \(Self.ranges(frozen)), whose pages (from page 16 on) would stay writable; the tag cannot be locked, and nothing was written")
    }

    /// `3–7, 9` for 3, 4, 5, 6, 7, 9.
    static func ranges(_ pages: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        while index < pages.count {
            var end = index
            while end + 1 < pages.count, pages[end + 1] == pages[end] + 1 { end += 1 }
            parts.append(end == index ? "\(pages[index])" : "\(pages[index])–\(pages[end])")
            index = end + 1
        }
        return parts.joined(separator: ", ")
    }

    /// Throws `notSupported` when the chip model is unknown because the reader cannot send
    /// GET_VERSION (a PC/SC reader's generic profile), not because the chip lacks it: the NFC
    /// Forum default lock area would then miss an NTAG21x's dynamic lock bytes. Sends nothing.
    public func checkLockable() async throws(NFCTagError) {
        guard profile == nil else { return }
        do {
            try await reader.checkCanSend(Bytes([0x60]), mode: .raw)
        } catch {
            throw NFCTagError(
                .notSupported,
                "lock needs the chip model, which this reader cannot learn (GET_VERSION): \(error.reason); the tag was not changed",
                readerError: error)
        }
    }

    /// The writes that set the dynamic lock bits (and, for a known chip, its block-locking bits),
    /// OR-ed into what the lock bytes hold now. Empty when the chip has no dynamic lock bits or
    /// they are all set.
    func dynamicLockWrites(area: Type2TLVArea, cache: inout Type2PageCache) async throws(NFCTagError) -> [PageWrite] {
        var wanted: [Int: UInt8] = [:]  // byte address → bits to set
        func setBits(_ count: Int, from address: Int) {
            for bit in 0..<count { wanted[address + bit / 8, default: 0] |= 1 << UInt8(bit % 8) }
        }
        if let profile {
            guard let page = profile.dynamicLockPage else { return [] }
            let address = page * Type2Command.pageSize
            setBits(profile.dynamicLockBits, from: address)
            wanted[address + 2, default: 0] |= UInt8(truncatingIfNeeded: (1 << profile.dynamicBlockLockBits) - 1)
        } else if isUltralightC {
            // MF0ICU2 7.5.3: lock byte 2 (page 28h byte 0) locks pages 10h–27h in groups of 4
            // (bits 1–3, 5–7) with its two block-locking bits (0, 4): all 8 set. With the static
            // bytes that covers every user page; lock byte 3 (pages from 28h on) is left alone.
            wanted[UltralightCMemory.lockPage * Type2Command.pageSize] = 0xFF
        } else if let lockArea = area.reservedAreas.first(where: { $0.kind == .lockBits && $0.bitCount > 0 }) {
            // A Lock Control TLV is tag data: it may not point at the UID, static lock or CC pages,
            // nor past the last page a WRITE reaches.
            guard lockArea.addresses.lowerBound >= Type2CapabilityContainer.dataAreaAddress,
                  lockArea.addresses.upperBound <= 0x100 * Type2Command.pageSize
            else {
                throw NFCTagError(
                    .malformedTag, at: lockArea.addresses.lowerBound,
                    "the Lock Control TLV points at bytes \(lockArea.addresses.lowerBound)..<\(lockArea.addresses.upperBound), outside the tag's data memory")
            }
            setBits(lockArea.bitCount, from: lockArea.addresses.lowerBound)
        } else {
            return []
        }
        var writes: [PageWrite] = []
        for page in Set(wanted.keys.map { $0 / Type2Command.pageSize }).sorted() {
            let current = try await cache.page(page, on: self, limit: profile?.totalPages)
            var data = current
            for index in 0..<Type2Command.pageSize {
                data[index] |= wanted[page * Type2Command.pageSize + index] ?? 0
            }
            if data != current { writes.append(PageWrite(page: page, data: data)) }
        }
        return writes
    }

    /// Reads back the pages of a lock plan (a READ brings four pages, so one READ often checks
    /// several): every bit written must be set.
    func verifyBits(_ plan: [PageWrite]) async throws(NFCTagError) {
        var cache = Type2PageCache()
        for step in plan.sorted(by: { $0.page < $1.page }) {
            let read = try await cache.page(step.page, on: self, limit: profile?.totalPages)
            for index in 0..<Type2Command.pageSize {
                // Page 2 bytes 0–1 are UID/internal: the chip ignores what is written there.
                if step.page == 2, index < 2 { continue }
                guard read[index] & step.data[index] == step.data[index] else {
                    throw NFCTagError(
                        .verificationFailed, at: step.page * Type2Command.pageSize + index,
                        "lock byte read back as \(hexByte(read[index])) after \(hexByte(step.data[index])) was written")
                }
            }
        }
    }

    /// Initialises the tag for NDEF with an empty message.
    ///
    /// A blank chip (capability container all zero, as Ultralight EV1 and unformatted NTAGs come)
    /// gets the model's empty TLV area (NTAG213: its Lock Control TLV first, as NXP delivers it),
    /// then the CC last — `E1 10 size 00` — so that an interrupted format leaves a tag that is
    /// still not NDEF formatted. A formatted tag holding a message is emptied (one page write)
    /// when `force` is set. The CC is one-time programmable: a CC holding anything else cannot be
    /// formatted.
    /// - Throws: ``NFCTagError`` `alreadyFormatted` (data present, not forced), `notSupported`
    ///   (unknown model on a blank tag, or a CC that cannot become an NDEF CC), `readOnly`,
    ///   `passwordRequired` — nothing written; `connectionLost`, `verificationFailed`.
    public func format(force: Bool) async throws(NFCTagError) {
        try await authenticateIfPasswordSet()
        let head = usesFastRead
            ? try await fastRead(from: 0, to: Type2Command.fastReadMaxPages - 1) : try await read(page: 0)
        let cc = Array(head[Type2CapabilityContainer.address..<(Type2CapabilityContainer.address + 4)])
        guard cc == [0, 0, 0, 0] else {
            try await reformat(cc: cc, head: head, force: force)
            return
        }
        guard let profile else {
            if let (userPages, totalPages) = keyProtectedUltralightLayout {
                try await formatBlank(userPages: userPages, totalPages: totalPages, head: head, cc: cc, force: force)
                return
            }
            throw NFCTagError(.notSupported, "the chip model is unknown, so is the memory size its capability container must declare")
        }
        // A blank chip: the rest of memory through CFG1 (user memory must be blank; is the area
        // password-protected?).
        let all = head + (try await read(
            fromPage: head.count / Type2Command.pageSize, through: profile.accessPage * Type2Command.pageSize + 3))
        var cache = Type2PageCache(memory: Array(all.prefix((profile.accessPage + 1) * Type2Command.pageSize)))
        let configuration = try await cache.configuration(profile, on: self)
        let userStart = profile.userPages.lowerBound * Type2Command.pageSize
        let user = Array(all[userStart..<(profile.userPages.upperBound * Type2Command.pageSize)])
        var content = profile.emptyTLVArea
        while content.count % Type2Command.pageSize != 0 { content.append(0) }
        let holdsData = user.enumerated().contains { index, byte in
            byte != 0 && byte != (index < content.count ? content[index] : 0)
        }
        if holdsData && !force {
            let first = user.firstIndex { $0 != 0 } ?? 0
            throw NFCTagError(
                .alreadyFormatted, at: userStart + first,
                "the tag is not NDEF formatted but holds data; formatting would overwrite it (force to do so)")
        }
        var plan: [PageWrite] = []
        for page in profile.userPages {
            let offset = (page - profile.userPages.lowerBound) * Type2Command.pageSize
            let current = Array(user[offset..<(offset + Type2Command.pageSize)])
            let wanted = (0..<Type2Command.pageSize).map { offset + $0 < content.count ? content[offset + $0] : 0 }
            // Only what the TLV area needs, plus any old data when forced.
            if current != wanted, offset < content.count || force { plan.append(PageWrite(page: page, data: wanted)) }
        }
        try Type2CapabilityContainer.requireReachable(profile.capabilityContainer, from: cc, for: "formatting")
        plan.append(PageWrite(page: 3, data: profile.capabilityContainer))
        try requireWriteAccess(toPages: plan.map(\.page), configuration: configuration)
        let addresses = plan.filter { $0.page >= profile.userPages.lowerBound }.flatMap { step in
            (0..<Type2Command.pageSize).map { step.page * Type2Command.pageSize + $0 }
        }
        _ = try await turnMirrorOff(configuration: configuration, sparing: addresses)
        for step in plan { try await write(page: step.page, step.data) }
        var check = Type2PageCache()
        for step in plan.sorted(by: { $0.page < $1.page }) {
            guard try await check.page(step.page, on: self, limit: profile.totalPages) == step.data else {
                throw NFCTagError(.verificationFailed, at: step.page * Type2Command.pageSize, "page \(step.page) read back differs from what was written")
            }
        }
    }

    /// The user pages and page count of a MIFARE Ultralight C or AES (no ``profile``: they have
    /// no CFG pages of the NTAG kind), nil for other chips.
    var keyProtectedUltralightLayout: (userPages: Range<Int>, totalPages: Int)? {
        if isUltralightC { return (UltralightCMemory.userPages, UltralightCMemory.totalPages) }
        if isUltralightAES { return (UltralightAESMemory.userPages, UltralightAESMemory.totalPages) }
        return nil
    }

    /// ``format(force:)`` of a blank MIFARE Ultralight C or AES: the empty NDEF TLV `03 00 FE`
    /// at page 4, then the CC `E1 10 12 00` last (144 bytes of data area: the whole user
    /// memory, MF0ICU2 7.5.9; AN1303's Type 2 mapping), each page read back. Protection (AUTH0)
    /// is the key's business: a protected tag needs ``ultralightCKey`` or ``ultralightAESKey``.
    private func formatBlank(userPages: Range<Int>, totalPages: Int, head: [UInt8], cc: [UInt8], force: Bool) async throws(NFCTagError) {
        let start = userPages.lowerBound * Type2Command.pageSize, end = userPages.upperBound * Type2Command.pageSize
        let all = head + (try await read(fromPage: head.count / Type2Command.pageSize, through: end - 1))
        let user = Array(all[start..<end])
        let content: [UInt8] = [Type2TLVType.ndefMessage, 0x00, Type2TLVType.terminator, 0x00]
        let holdsData = user.enumerated().contains { index, byte in
            byte != 0 && byte != (index < content.count ? content[index] : 0)
        }
        if holdsData && !force {
            let first = user.firstIndex { $0 != 0 } ?? 0
            throw NFCTagError(
                .alreadyFormatted, at: start + first,
                "the tag is not NDEF formatted but holds data; formatting would overwrite it (force to do so)")
        }
        var plan: [PageWrite] = []
        for page in userPages {
            let offset = (page - userPages.lowerBound) * Type2Command.pageSize
            let current = Array(user[offset..<(offset + Type2Command.pageSize)])
            let wanted = (0..<Type2Command.pageSize).map { offset + $0 < content.count ? content[offset + $0] : 0 }
            if current != wanted, offset < content.count || force { plan.append(PageWrite(page: page, data: wanted)) }
        }
        let capabilityContainer = Type2CapabilityContainer(
            version: 0x10, dataAreaSize: userPages.count * Type2Command.pageSize, access: Type2CapabilityContainer.writeAccessGranted).bytes
        try Type2CapabilityContainer.requireReachable(capabilityContainer, from: cc, for: "formatting")
        plan.append(PageWrite(page: Type2CapabilityContainer.address / Type2Command.pageSize, data: capabilityContainer))
        for step in plan { try await write(page: step.page, step.data) }
        var check = Type2PageCache()
        for step in plan.sorted(by: { $0.page < $1.page }) {
            guard try await check.page(step.page, on: self, limit: totalPages) == step.data else {
                throw NFCTagError(.verificationFailed, at: step.page * Type2Command.pageSize, "page \(step.page) read back differs from what was written")
            }
        }
    }

    /// ``format(force:)`` of a tag whose CC is not blank: an NDEF CC with a message is emptied
    /// when forced; an empty one is left as it is.
    private func reformat(cc: [UInt8], head: [UInt8], force: Bool) async throws(NFCTagError) {
        let container: Type2CapabilityContainer
        do {
            container = try Type2CapabilityContainer(bytes: cc)
        } catch {
            throw NFCTagError(
                .notSupported, at: Type2CapabilityContainer.address,
                "the capability container is one-time programmable and holds \(Hex.encode(cc)): this tag cannot be NDEF formatted")
        }
        guard container.isWritable else {
            throw NFCTagError(.readOnly, at: Type2CapabilityContainer.address + 3, "tag is read-only (CC3 = \(hexByte(container.access)))")
        }
        // The CC an NDEF tag needs grants reading and writing (CC3 = 00): read access refused
        // (CC3 F0) cannot be undone by a WRITE, which only sets bits.
        var needed = cc
        needed[3] = Type2CapabilityContainer.writeAccessGranted
        try Type2CapabilityContainer.requireReachable(needed, from: cc, for: "formatting")
        if let userMemoryEnd, Type2CapabilityContainer.dataAreaAddress + container.dataAreaSize > userMemoryEnd {
            throw NFCTagError(
                .malformedTag, at: Type2CapabilityContainer.address + 2,
                "the one-time programmable CC announces a \(container.dataAreaSize)-byte data area, more than the chip's user memory: this tag cannot be NDEF formatted")
        }
        let snapshot: Snapshot
        do {
            snapshot = try await load(startingWith: head)
        } catch where error.code == .malformedTag || error.code == .notNDEFFormatted {
            guard force else {
                throw NFCTagError(.alreadyFormatted, at: error.offset, "the TLV area does not parse (\(error.reason)); force to rewrite it")
            }
            let content = profile?.emptyTLVArea ?? [Type2TLVType.ndefMessage, 0x00, Type2TLVType.terminator]
            var padded = content
            while padded.count % Type2Command.pageSize != 0 { padded.append(0) }
            let pages = (0..<(padded.count / Type2Command.pageSize)).map {
                PageWrite(page: 4 + $0, data: Array(padded[($0 * 4)..<($0 * 4 + 4)]))
            }
            try await requireWriteAccess(toPages: pages.map(\.page))
            _ = try await turnMirrorOff(sparing: pages.flatMap { step in
                (0..<Type2Command.pageSize).map { step.page * Type2Command.pageSize + $0 }
            })
            for step in pages { try await write(page: step.page, step.data) }
            return
        }
        guard snapshot.area.messageLength > 0 else { return }
        guard force else {
            throw NFCTagError(
                .alreadyFormatted, at: snapshot.area.ndefTLVAddress,
                "the tag holds an NDEF message of \(snapshot.area.messageLength) bytes; force to erase it")
        }
        try await writeTLV(message: [], on: snapshot, verify: true)
    }
}

extension Type2Tag {
    /// What keeps this tag from being physically read-only (``NFCNDEFTag/readOnlyGaps()``):
    /// CC3 granting write access; the static lock bit of the CC page (L-CC) and of each data
    /// area page from 4 to 15; the dynamic lock bit of each data area page from 16 on (at the
    /// model's dynamic lock page, else the Lock Control TLV's or default area, taken as 2 pages a
    /// bit); CFGLCK on a chip with configuration pages. CC3 alone is not a lock: a WRITE still
    /// changes every page whose lock bit is clear. Reads only.
    /// - Throws: ``NFCTagError`` `connectionLost`, `tagResponse`, `malformedTag`.
    public func readOnlyGaps() async throws(NFCTagError) -> [String] {
        try await authenticateIfPasswordSet()
        let snapshot: Snapshot
        do {
            snapshot = try await load()
        } catch where error.code == .notNDEFFormatted {
            return ["the tag holds no NDEF (\(error.reason))"]
        }
        let memory = snapshot.memory
        let cc = snapshot.area.capabilityContainer
        var gaps: [String] = []
        if cc.isWritable { gaps.append("CC3 is \(hexByte(cc.access)): the CC grants write access") }
        let lockBytes = (memory[Type2StaticLock.address], memory[Type2StaticLock.address + 1])
        let staticText = "static lock bytes \(hexByte(lockBytes.0)) \(hexByte(lockBytes.1))"
        if !Type2StaticLock.locks(page: 3, lockBytes: lockBytes) { gaps.append("the CC page (3) is not locked (\(staticText))") }
        let dataPages = Type2CapabilityContainer.dataAreaAddress / Type2Command.pageSize
            ..< (Type2CapabilityContainer.dataAreaAddress + cc.dataAreaSize + Type2Command.pageSize - 1) / Type2Command.pageSize
        let staticPages = dataPages.filter { $0 <= 15 && !Type2StaticLock.locks(page: $0, lockBytes: lockBytes) }
        if !staticPages.isEmpty { gaps.append("pages \(Self.ranges(staticPages)) are not locked (\(staticText))") }
        let dynamicPages = dataPages.filter { $0 >= 16 }
        if !dynamicPages.isEmpty {
            var lockAddress: Int?
            var pagesPerBit = 2
            if let profile {
                lockAddress = profile.dynamicLockPage.map { $0 * Type2Command.pageSize }
                pagesPerBit = profile.dynamicLockPagesPerBit
            } else if let area = snapshot.area.reservedAreas.first(where: { $0.kind == .lockBits && $0.bitCount > 0 }) {
                lockAddress = area.addresses.lowerBound
            }
            if let lockAddress, lockAddress / Type2Command.pageSize <= 0xFF {
                let page = lockAddress / Type2Command.pageSize
                let bytes = lockAddress + 3 <= memory.count
                    ? Array(memory[(page * Type2Command.pageSize)..<(lockAddress + 3)]) : try await read(page: page)
                let offset = lockAddress % Type2Command.pageSize
                let unlocked = dynamicPages.filter { dataPage in
                    guard let bit = Type2ChipProfile.dynamicLockBit(page: dataPage, pagesPerBit: pagesPerBit) else { return true }
                    let index = offset + bit / 8
                    return index >= bytes.count || bytes[index] & (1 << UInt8(bit % 8)) == 0
                }
                if !unlocked.isEmpty {
                    gaps.append("pages \(Self.ranges(unlocked)) are not locked (dynamic lock bytes \(Hex.encode(Array(bytes[offset..<min(offset + 3, bytes.count)]), uppercase: true, separator: " ")))")
                }
            } else {
                gaps.append("pages \(Self.ranges(dynamicPages)) have no dynamic lock bits this tag names")
            }
        }
        if profile != nil {
            do {
                let configuration = try await readConfiguration()
                if !configuration.isLocked { gaps.append("CFGLCK is clear: AUTH0, ACCESS and the mirror can still change") }
            } catch where error.code == .passwordRequired {
                gaps.append("CFGLCK cannot be read: the configuration is read-protected (give the password)")
            }
        }
        return gaps
    }
}
