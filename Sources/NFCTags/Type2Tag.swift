public import NDEF
import NFCCore

/// Type 2 Tag commands used by the NDEF mapping (Type 2 Tag 1.2, 5; NTAG213/215/216 datasheet 10).
public enum Type2Command {
    /// GET_VERSION (0x60): 8 bytes naming vendor, type and storage size (NTAG21x 10.1;
    /// MF0ULx1 9.2).
    public static let getVersion: UInt8 = 0x60
    /// READ_CNT (0x39, counter): a 24-bit counter, least significant byte first (NTAG21x 10.6;
    /// MF0ULx1 9.10).
    public static let readCounter: UInt8 = 0x39
    /// INCR_CNT (0xA5, counter, 4 bytes): adds to a one-way counter (MF0ULx1 9.11 only).
    public static let incrementCounter: UInt8 = 0xA5
    /// CHECK_TEARING_EVENT (0x3E, counter): whether the last increment was torn; BDh = not
    /// torn (MF0ULx1 9.12 only).
    public static let checkTearingEvent: UInt8 = 0x3E
    /// VCSL (0x4B + 16-byte installation identifier + 4-byte PCD capabilities): answers the
    /// VCTID byte (MF0ULx1 9.13 only).
    public static let virtualCardSelectLast: UInt8 = 0x4B
    /// READ (0x30, page): 16 bytes, four pages from `page` (T2T 1.2, 5.1; NTAG21x 10.2).
    public static let read: UInt8 = 0x30
    /// WRITE (0xA2, page, 4 bytes): one page, answered by an ACK (T2T 1.2, 5.2; NTAG21x 10.4).
    public static let write: UInt8 = 0xA2
    /// COMPATIBILITY_WRITE (0xA0, page), then 16 bytes of which the first 4 are written: the
    /// MIFARE Classic-shaped write of Ultralight and NTAG21x (NTAG21x 10.5).
    public static let compatibilityWrite: UInt8 = 0xA0
    /// The 4-bit ACK (0xA) some readers hand back as a byte; others return an empty answer.
    public static let ack: UInt8 = 0x0A
    /// FAST_READ (0x3A, start page, end page): pages start…end in one answer (NTAG21x 10.3).
    public static let fastRead: UInt8 = 0x3A
    /// The most pages one FAST_READ asks for here: 16 pages = 64 bytes, an answer every reader
    /// frame buffer holds (a PN532 carries up to 262 bytes; 64 stays well inside).
    public static let fastReadMaxPages = 16
    /// Bytes in a page.
    public static let pageSize = 4
    /// Bytes answered by one READ.
    public static let readSize = 16
    /// The last page of the FAST_READ a detection before a write starts with: the lock bytes
    /// (page 2), the CC (page 3) and the first page of the TLV area (page 4), which on a blank
    /// tag holds the empty NDEF TLV (T2T 1.2, 6.4.1). A TLV area needing more is read on.
    public static let writeDetectionLastPage = 4
}

/// NDEF on an NFC Forum Type 2 Tag (NTAG21x, MIFARE Ultralight…) over the reader seam: the
/// NDEF detection, read and write procedures of Type 2 Tag 1.2, 5.4–5.6, with the tear-safe
/// write order of ARCHITECTURE.md.
///
/// Holds the reader with its target already selected. Each call reads what it needs afresh
/// (nothing is cached between calls: the tag may have changed).
public struct Type2Tag: NFCNDEFTag {
    /// The reader whose selected target is this tag.
    public let reader: any NFCReader
    /// The timeout of each command.
    public var commandTimeout: Duration
    /// Whether the chip has FAST_READ (NTAG21x, Ultralight EV1: GET_VERSION tells): ranges longer
    /// than 16 bytes are then read with FAST_READ, up to ``Type2Command/fastReadMaxPages`` per
    /// command; otherwise READ, 4 pages per command.
    public var usesFastRead: Bool
    /// The chip's lock, configuration and factory layout, when the model is known: needed by
    /// ``writeLock()``, ``format(force:)`` and the password functions, and to tell whether a
    /// write reaches password-protected pages.
    public var profile: Type2ChipProfile?
    /// The NTAG21x / Ultralight EV1 password: when set, every operation starts with PWD_AUTH
    /// (PACK checked), so protected pages can be read and written.
    public var password: NTAGPassword?
    /// The MIFARE Ultralight C 3DES key: when set, every operation starts with the mutual
    /// authentication (MF0ICU2 7.5.6), so protected pages can be read and written.
    public var ultralightCKey: UltralightCKey? = nil
    /// Whether identification named the chip a MIFARE Ultralight C (it answered AUTHENTICATE).
    public var isUltralightC = false
    /// The MIFARE Ultralight AES DataProtKey: when set, every operation starts with the AES
    /// mutual authentication, so protected pages can be read and written.
    public var ultralightAESKey: UltralightAESKey? = nil
    /// Whether identification named the chip a MIFARE Ultralight AES (by GET_VERSION).
    public var isUltralightAES = false
    /// The Ultralight AES secure-messaging state (SEC_MSG_ACT), shared by this tag's copies:
    /// READ and WRITE are MACed while a session runs.
    let ultralightAESSession = UltralightAESSessionBox()
    /// The UID the tag was selected with, when known: a re-selection (after a refused key, or
    /// to make a new Ultralight C key take effect) checks the same tag answers.
    public var uid: [UInt8]? = nil

    /// A Type 2 tag on `reader` (already polled and selected).
    public init(
        reader: any NFCReader, usesFastRead: Bool = false, profile: Type2ChipProfile? = nil,
        password: NTAGPassword? = nil, commandTimeout: Duration = .seconds(1)
    ) {
        self.reader = reader
        self.usesFastRead = usesFastRead
        self.profile = profile
        self.password = password
        self.commandTimeout = commandTimeout
    }

    /// Whether this tag is still in the field: ``NFCReader/isTargetPresent()`` of its reader.
    public func isPresent() async -> Bool { await reader.isTargetPresent() }

    /// The NDEF detection procedure (Type 2 Tag 1.2, 5.4): reads the CC and the TLV area up to
    /// the NDEF TLV with READ commands (16 bytes each).
    /// - Returns: `.notSupported` (capacity 0) when the CC or the TLV area says not NDEF;
    ///   `.readWrite`/`.readOnly` from CC3 with the capacity (``Type2TLVArea/capacity``) and the
    ///   stored message length.
    /// - Throws: ``NFCTagError`` `malformedTag` (with the byte address), `connectionLost`,
    ///   `tagResponse`.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery {
        try await detectNDEF().query
    }

    /// Reads the stored NDEF message (Type 2 Tag 1.2, 5.5). An NDEF TLV of length 0 (an
    /// initialised, empty tag) gives ``NDEFMessage/empty``, as CoreNFC returns an empty message
    /// rather than an error.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`; `malformedTag`; `malformedMessage` when the
    ///   stored bytes do not decode (offset = tag memory address of the faulty byte);
    ///   `connectionLost`, `tagResponse`.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage {
        try await authenticateIfPasswordSet()
        let snapshot = try await load()
        let area = snapshot.area
        guard area.messageLength > 0 else { return .empty }
        let addresses = area.messageAddresses
        let bytes = addresses.map { snapshot.memory[$0] }
        do {
            return try NDEFMessage(bytes: bytes)
        } catch {
            let offset = error.offset.flatMap { $0 < addresses.count ? addresses[addresses.startIndex + $0] : addresses.last }
            return try fail(NFCTagError(.malformedMessage, at: offset, "stored NDEF message does not decode: \(error.reason)"))
        }
    }

    private func fail<T>(_ error: NFCTagError) throws(NFCTagError) -> T { throw error }

    /// Writes `message` in place of the stored one (Type 2 Tag 1.2, 5.6).
    ///
    /// Every check comes first — NDEF formatted, CC3 write access, message ≤ capacity, no changed
    /// page locked by the static lock bits (or the dynamic lock bits of a known NTAG21x /
    /// Ultralight EV1, or an Ultralight C's lock byte 2) — and a failed
    /// check sends no WRITE. Then, so that a tag pulled away at any moment holds the old
    /// message, an empty one or the new one: (1) the page holding the first L byte is written
    /// with L = 0 (`03 00` reads as an empty NDEF TLV), (2) the other pages whose content
    /// changes, (3) that page again with the real length. When a single page changes in all, it
    /// is written once (one page write goes from old to new). A Terminator TLV follows the message when a byte is left in the data area;
    /// the bytes after it in its page are written 00 (they are not part of the NDEF area's
    /// content): the write reads none of the pages it overwrites, but for a page holding a
    /// reserved byte (a Lock or Memory Control TLV's area) not read yet, which it keeps.
    /// With `verify`, the written range is read back and compared.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`, `readOnly`, `capacityExceeded` ("by N
    ///   bytes"), `invalidMessage`, `malformedTag` (a TLV area that does not parse, or a CC
    ///   announcing more than the identified chip's user memory) — nothing written;
    ///   `connectionLost`, `tagResponse` (the tag
    ///   holds the old, an empty or the new message); `verificationFailed`.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) {
        let encoded = try message.encodedForTag()
        try await authenticateIfPasswordSet()
        let snapshot = try await load()
        try await writeTLV(message: encoded, on: snapshot, verify: verify)
    }

    /// The checks of ``writeTLV(message:on:verify:keepingMirror:)``, which write nothing: the CC
    /// allows writing, `encoded` fits, and its pages are not locked (nor, without the password,
    /// write-protected). Returns the TLV, the addresses it goes to, and the configuration when
    /// it was read (a known chip and no password).
    func checkTLV(
        message encoded: [UInt8], on snapshot: Snapshot
    ) async throws(NFCTagError) -> (tlv: [UInt8], addresses: [Int], configuration: Type2Configuration?) {
        let area = snapshot.area
        guard area.capabilityContainer.isWritable else {
            throw NFCTagError(
                .readOnly, at: Type2CapabilityContainer.address + 3,
                "tag is read-only (CC3 = \(hexByte(area.capabilityContainer.access)))")
        }
        try NFCTagError.checkCapacity(encoded.count, fits: area.capacity)
        // Lay out the new TLV on the usable addresses.
        let tlv = NDEFTLV.wrap(encoded, room: area.ndefAddresses.count)
        guard area.ndefAddresses.count >= tlv.count else {
            throw NFCTagError(.capacityExceeded, "NDEF TLV of \(tlv.count) bytes does not fit \(area.ndefAddresses.count) usable bytes")
        }
        let addresses = Array(area.ndefAddresses[0..<tlv.count])
        let changing = Self.changedPages(tlv, at: addresses, memory: snapshot.memory)
        try Self.requireUnlocked(pages: changing, memory: snapshot.memory)
        try await requireUltralightCUnlocked(pages: changing)
        var cache = Type2PageCache()
        try await requireDynamicUnlocked(pages: changing, memory: snapshot.memory, cache: &cache)
        var configuration: Type2Configuration?
        if let profile, password == nil, !addresses.isEmpty {
            let read = try await cache.configuration(profile, on: self)
            configuration = read
            try requireWriteAccess(toPages: Set(addresses.map { $0 / Type2Command.pageSize }).sorted(), configuration: read)
        }
        return (tlv, addresses, configuration)
    }

    /// The pages a TLV written at `addresses` changes, ascending: those where a byte differs
    /// from `memory` (a byte beyond what `memory` holds counts as changing) and, whenever any
    /// page changes, the length page (the tear-safe order writes it first, with L = 0).
    static func changedPages(_ tlv: [UInt8], at addresses: [Int], memory: [UInt8]) -> [Int] {
        guard addresses.count > 1 else { return [] }
        var changing = Set<Int>()
        for (address, byte) in zip(addresses, tlv) where address >= memory.count || memory[address] != byte {
            changing.insert(address / Type2Command.pageSize)
        }
        if !changing.isEmpty { changing.insert(addresses[1] / Type2Command.pageSize) }
        return changing.sorted()
    }

    /// Refuses, before any WRITE, a TLV whose ``changedPages(_:at:memory:)`` include a page the
    /// static lock bits lock: the tear-safe order writes the length page first (L = 0), so a
    /// locked page met later would leave the tag holding an empty message for good.
    static func requireUnlocked(pages changing: [Int], memory: [UInt8]) throws(NFCTagError) {
        let lockAddress = Type2StaticLock.address
        guard memory.count > lockAddress + 1 else { return }
        let lockBytes = (memory[lockAddress], memory[lockAddress + 1])
        guard let locked = changing.first(where: { Type2StaticLock.locks(page: $0, lockBytes: lockBytes) }) else { return }
        throw NFCTagError(
            .readOnly, at: locked < 8 ? lockAddress : lockAddress + 1,
            "page \(locked) is locked by the static lock bits (\(hexByte(lockBytes.0)) \(hexByte(lockBytes.1))) although CC3 says writable: the message cannot be written; nothing was written")
    }

    /// The check of ``requireUnlocked(pages:memory:)`` for the dynamic lock bits of a known
    /// NTAG21x or Ultralight EV1 (``Type2ChipProfile/dynamicLockLocks(page:lockBytes:)``): when
    /// a changing page lies from page 16 on and the dynamic lock page is not in `memory`, that
    /// page is read into `cache` (one READ, which also brings CFG0 and CFG1 on these chips, so
    /// the configuration check that follows sends nothing more) and a locked page refused,
    /// before any WRITE. Nothing is sent for a message within pages 4–15 or on other chips.
    /// - Throws: ``NFCTagError`` `readOnly` (nothing written); `passwordRequired` when the lock
    ///   page is read-protected and no password is given; `connectionLost`, `tagResponse`.
    func requireDynamicUnlocked(pages changing: [Int], memory: [UInt8], cache: inout Type2PageCache) async throws(NFCTagError) {
        guard let profile, let lockPage = profile.dynamicLockPage,
              changing.contains(where: { $0 >= Type2ChipProfile.dynamicLockFirstPage })
        else { return }
        let address = lockPage * Type2Command.pageSize
        let lockBytes: [UInt8]
        if memory.count >= address + Type2Command.pageSize {
            lockBytes = Array(memory[address..<(address + Type2Command.pageSize)])
        } else {
            do {
                lockBytes = try await cache.page(lockPage, on: self, limit: profile.totalPages)
            } catch where password == nil && (error.readerError?.code == .nak || error.readerError?.code == .authenticationFailed) {
                throw NFCTagError(
                    .passwordRequired, at: address,
                    "the dynamic lock page (\(lockPage)) is read-protected: the tag's password is needed")
            }
        }
        guard let locked = changing.first(where: { profile.dynamicLockLocks(page: $0, lockBytes: lockBytes) }) else { return }
        throw NFCTagError(
            .readOnly, at: address,
            "page \(locked) is locked by the dynamic lock bits (page \(lockPage): \(Hex.encode(Array(lockBytes.prefix(3)), uppercase: true, separator: " "))) although CC3 says writable: the message cannot be written; nothing was written")
    }

    /// The check of ``requireUnlocked(pages:memory:)`` for a MIFARE Ultralight C's lock byte 2
    /// (page 28h byte 0), which locks pages 10h–27h in groups of 4
    /// (``UltralightCMemory/lockByte2Locks(page:lockByte2:)``): when a changing page lies from
    /// 10h on, page 28h is read (one READ; with the key when one is given) and a locked page
    /// refused, before any WRITE. Lock byte 3 locks pages from 28h on, which no NDEF write
    /// reaches (user memory ends at 27h). Nothing is sent on other chips or for a message
    /// within pages 04h–0Fh.
    /// - Throws: ``NFCTagError`` `readOnly` (nothing written); `passwordRequired` when page 28h
    ///   is read-protected and no key is given; `connectionLost`, `tagResponse`.
    func requireUltralightCUnlocked(pages changing: [Int]) async throws(NFCTagError) {
        guard isUltralightC, changing.contains(where: { $0 >= UltralightCMemory.lockByte2FirstPage }) else { return }
        let lockPage = try await read(page: UltralightCMemory.lockPage)
        let lockByte2 = lockPage[0]
        guard let locked = changing.first(where: { UltralightCMemory.lockByte2Locks(page: $0, lockByte2: lockByte2) }) else { return }
        throw NFCTagError(
            .readOnly, at: UltralightCMemory.lockPage * Type2Command.pageSize,
            "page \(locked) (\(Hex.number(locked, width: 2))h) is locked by lock byte 2 (page 28h: \(Hex.encode(Array(lockPage.prefix(2)), uppercase: true, separator: " "))) although CC3 says writable: the message cannot be written; nothing was written")
    }

    /// Lays `encoded` out as the NDEF TLV of `snapshot`'s area and writes it in the tear-safe
    /// order of ``writeNDEF(_:verify:)``, after the write-access, capacity and password checks.
    /// Unless `keepingMirror` (the mirror write, which has set the mirror aside itself), an
    /// NTAG213/215/216 mirror that is on is turned off after the checks and before the first
    /// data WRITE (``turnMirrorOff(configuration:sparing:)``), and memory read again.
    func writeTLV(message encoded: [UInt8], on snapshot: Snapshot, verify: Bool, keepingMirror: Bool = false) async throws(NFCTagError) {
        var snapshot = snapshot
        let checked = try await checkTLV(message: encoded, on: snapshot)
        var (tlv, addresses) = (checked.tlv, checked.addresses)
        if !keepingMirror, try await turnMirrorOff(configuration: checked.configuration, sparing: addresses) {
            // Memory read so far showed the mirror, not what is stored.
            snapshot = try await load()
            (tlv, addresses, _) = try await checkTLV(message: encoded, on: snapshot)
        }
        let area = snapshot.area
        guard let lastAddress = addresses.last else { return }
        // The pages written hold, besides the TLV, bytes after its end (after the Terminator TLV,
        // not part of the NDEF area's content: Type 2 Tag 1.2, 2.3), written 00 rather than read
        // first; a page still unread is written whether or not it changes. Only a page with a
        // reserved byte (a Lock or Memory Control TLV's area) not read yet is read, to keep it.
        var readEnd = snapshot.memory.count
        let pagesEnd = (lastAddress / Type2Command.pageSize + 1) * Type2Command.pageSize
        if pagesEnd > readEnd {
            let written = Set(addresses)
            let free = Set(area.ndefAddresses.drop { $0 <= lastAddress })
            if (readEnd..<pagesEnd).allSatisfy({ written.contains($0) || free.contains($0) }) {
                snapshot.memory += [UInt8](repeating: 0, count: pagesEnd - readEnd)
            } else {
                try await snapshot.extend(through: lastAddress, using: self)
                readEnd = snapshot.memory.count
            }
        }

        var final = snapshot.memory
        for (address, byte) in zip(addresses, tlv) { final[address] = byte }
        let lengthAddress = addresses[1]
        let lengthPage = lengthAddress / Type2Command.pageSize
        var zeroed = final
        zeroed[lengthAddress] = 0
        let pages = Set(addresses.map { $0 / Type2Command.pageSize }).sorted()
        func page(_ memory: [UInt8], _ p: Int) -> [UInt8] {
            Array(memory[(p * Type2Command.pageSize)..<((p + 1) * Type2Command.pageSize)])
        }
        let others = pages.filter {
            $0 != lengthPage && (($0 + 1) * Type2Command.pageSize > readEnd || page(final, $0) != page(snapshot.memory, $0))
        }
        var current = page(snapshot.memory, lengthPage)
        if others.count == 1, current == page(final, lengthPage) {
            // One page changes: one WRITE takes the tag from the old message to the new.
            try await write(page: others[0], page(final, others[0]))
        } else if !others.isEmpty {
            // Tear safety: the length reads 0 while the other pages are written, so a tag torn
            // meanwhile holds an empty message, never part of one. When the tag already holds an
            // NDEF TLV of length 0 where the new one goes (a blank tag), it is left as it is: the
            // pages written before the length are past that empty message.
            let alreadyEmpty = addresses.prefix(2).allSatisfy { snapshot.memory[$0] == zeroed[$0] }
            if !alreadyEmpty, current != page(zeroed, lengthPage) {
                try await write(page: lengthPage, page(zeroed, lengthPage))
                current = page(zeroed, lengthPage)
            }
            for p in others { try await write(page: p, page(final, p)) }
        }
        if current != page(final, lengthPage) { try await write(page: lengthPage, page(final, lengthPage)) }

        guard verify else { return }
        var check = Snapshot(memory: [], area: area)
        try await check.extend(through: lastAddress, using: self, from: pages[0])
        for address in addresses where check.memory[address] != final[address] {
            throw NFCTagError(
                .verificationFailed, at: address,
                "read back \(hexByte(check.memory[address])) where \(hexByte(final[address])) was written")
        }
    }

    /// A Type 2 tag on `reader`, using FAST_READ when `identity` names a chip that has it (the
    /// NTAG21x family (NTAG210…216, datasheet 10.3) and MIFARE Ultralight EV1 (MF0ULx1 datasheet
    /// 9)) and the chip's ``Type2ChipProfile``. Identities come from
    /// ``ChipIdentification/identify(_:on:)``.
    public init(
        reader: any NFCReader, identity: ChipIdentity, password: NTAGPassword? = nil, commandTimeout: Duration = .seconds(1)
    ) {
        self.init(
            reader: reader, usesFastRead: Self.hasFastRead(identity),
            profile: identity.platform == .type2 ? Type2ChipProfile.named(identity.model) : nil,
            password: password, commandTimeout: commandTimeout)
        isUltralightC = identity.family == .ultralightC
        isUltralightAES = identity.family == .ultralightAES
    }

    /// Whether the identified chip has FAST_READ (NTAG21x, Ultralight EV1).
    public static func hasFastRead(_ identity: ChipIdentity) -> Bool {
        identity.platform == .type2
            && (identity.family == .ntag21x || identity.family == .ultralightEV1)
    }

    // MARK: - Commands

    /// The memory read so far (from address 0) and the TLV area found in it.
    struct Snapshot: Sendable {
        var memory: [UInt8]
        var area: Type2TLVArea

        /// Reads on until `memory` covers `address`; with `from`, starts an empty snapshot at
        /// that page (bytes before it are zero).
        mutating func extend(through address: Int, using tag: Type2Tag, from firstPage: Int? = nil) async throws(NFCTagError) {
            if let firstPage, memory.isEmpty { memory = [UInt8](repeating: 0, count: firstPage * Type2Command.pageSize) }
            memory += try await tag.read(fromPage: memory.count / Type2Command.pageSize, through: address)
        }
    }

    /// The byte address just past the chip's user memory, when its profile is known or the chip
    /// is a MIFARE Ultralight C or AES (pages 04h–27h; no ``Type2ChipProfile``, whose NTAG
    /// configuration layout they do not share): a CC that announces more is refused
    /// (``Type2TLVArea/parse(memory:userMemoryEnd:)``), so nothing is read past it as NDEF data
    /// and no write sized from it is sent (it would reach their lock, counter, configuration and
    /// key pages).
    var userMemoryEnd: Int? {
        if let profile { return profile.userPages.upperBound * Type2Command.pageSize }
        if isUltralightC { return UltralightCMemory.userPages.upperBound * Type2Command.pageSize }
        if isUltralightAES { return UltralightAESMemory.userPages.upperBound * Type2Command.pageSize }
        return nil
    }

    /// Reads until the TLV area parses, starting from `initial` (memory from address 0 already
    /// read). With FAST_READ, the first command reads pages 0 to `firstReadEnd`.
    func load(startingWith initial: [UInt8] = [], firstReadEnd: Int = Type2Command.fastReadMaxPages - 1) async throws(NFCTagError) -> Snapshot {
        var memory = initial
        if usesFastRead, memory.isEmpty {
            // One FAST_READ of pages 0–15 holds the CC and the start of the TLV area: what most
            // tags need, in one command instead of up to four READs.
            memory = try await fastRead(from: 0, to: firstReadEnd)
        }
        while true {
            switch Type2TLVArea.parseOrNeedMore(memory: memory, userMemoryEnd: userMemoryEnd) {
            case .success(let area): return Snapshot(memory: memory, area: area)
            case .failure(let error):
                if error.code == .notNDEFFormatted, let refusal = try await ultralightCCCReadRefusal(memory) { throw refusal }
                throw error
            case .needMore(let address):
                memory += try await read(fromPage: memory.count / Type2Command.pageSize, through: address)
            }
        }
    }

    /// Why a MIFARE Ultralight C read without its key seems to hold no NDEF, when the reason is
    /// its read protection: with AUTH0 at 03h (or below, which the chip takes as 03h) and AUTH1
    /// bit 0 clear, the READ of page 0 rolls over at AUTH0 (the virtual chip's rule, docs/tags.md)
    /// and its fourth page repeats page 0 instead of holding the CC. Only then is page 3 read on
    /// its own (one READ): refused, the CC is read-protected and the key is needed
    /// (`passwordRequired`, returned); answered, the tag really holds no NDEF (nil). Nothing is
    /// sent on other chips, with a key, or when page 3 differs from page 0.
    func ultralightCCCReadRefusal(_ memory: [UInt8]) async throws(NFCTagError) -> NFCTagError? {
        let cc = Type2CapabilityContainer.address
        guard isUltralightC, ultralightCKey == nil, memory.count >= cc + Type2Command.pageSize,
              memory[cc..<(cc + Type2Command.pageSize)].elementsEqual(memory[0..<Type2Command.pageSize])
        else { return nil }
        do {
            _ = try await read(page: cc / Type2Command.pageSize)
        } catch where error.code == .passwordRequired {
            return error
        }
        return nil
    }

    /// Memory from `firstPage` on, at least through byte `address` (empty when `address` lies
    /// before `firstPage`): FAST_READ for the whole pages when the chip has it and more than one
    /// READ would be needed, else READs of 4 pages.
    func read(fromPage firstPage: Int, through address: Int) async throws(NFCTagError) -> [UInt8] {
        var bytes: [UInt8] = []
        var page = firstPage
        let lastPage = address / Type2Command.pageSize
        while page <= lastPage {
            let remaining = lastPage - page + 1
            if usesFastRead, remaining > Type2Command.readSize / Type2Command.pageSize {
                let end = page + min(remaining, Type2Command.fastReadMaxPages) - 1
                bytes += try await fastRead(from: page, to: end)
                page = end + 1
            } else {
                bytes += try await read(page: page)
                page += Type2Command.readSize / Type2Command.pageSize
            }
        }
        return bytes
    }

    /// FAST_READ (0x3A): pages `start`…`end`.
    func fastRead(from start: Int, to end: Int) async throws(NFCTagError) -> [UInt8] {
        guard start >= 0, start <= end, end <= 0xFF else {
            throw NFCTagError(.malformedTag, at: end * Type2Command.pageSize, "page \(end) is beyond a FAST_READ's reach")
        }
        let answer: Bytes
        do {
            answer = try await reader.transceive(
                Bytes([Type2Command.fastRead, UInt8(start), UInt8(end)]), mode: .standard, timeout: commandTimeout)
        } catch where error.code == .nak && profile != nil && password == nil {
            throw Self.readProtected(at: start, readerError: error)
        } catch {
            throw NFCTagError(error, during: "FAST_READ pages \(start)–\(end)", exchange: .read)
        }
        let expected = (end - start + 1) * Type2Command.pageSize
        guard answer.count == expected else {
            throw NFCTagError(
                .tagResponse, at: start * Type2Command.pageSize,
                "FAST_READ pages \(start)–\(end) answered \(answer.count) bytes, not \(expected)")
        }
        return answer.array
    }

    /// READ (0x30): 16 bytes from `page`.
    func read(page: Int) async throws(NFCTagError) -> [UInt8] {
        guard (0...0xFF).contains(page) else {
            throw NFCTagError(.malformedTag, at: page * Type2Command.pageSize, "page \(page) is beyond a READ's reach")
        }
        let command = Bytes(try ultralightAESSession.protect([Type2Command.read, UInt8(page)]))
        let raw: Bytes
        do {
            raw = try await reader.transceive(command, mode: .standard, timeout: commandTimeout)
        } catch where error.code == .nak && isUltralightC && ultralightCKey == nil {
            throw NFCTagError(
                .passwordRequired, at: page * Type2Command.pageSize,
                "the tag refused to read page \(page): it is read-protected, and its 3DES key is needed (--keys FILE)", readerError: error)
        } catch where error.code == .nak && isUltralightAES && ultralightAESKey == nil {
            throw NFCTagError(
                .passwordRequired, at: page * Type2Command.pageSize,
                "the tag refused to read page \(page): it is read-protected, and its AES key is needed (--keys FILE)", readerError: error)
        } catch where error.code == .nak && profile != nil && password == nil {
            throw Self.readProtected(at: page, readerError: error)
        } catch {
            throw NFCTagError(error, during: "READ page \(page)", exchange: .read)
        }
        let answer = Bytes(try ultralightAESSession.open(raw.array))
        guard answer.count == Type2Command.readSize else {
            throw NFCTagError(.tagResponse, at: page * Type2Command.pageSize, "READ page \(page) answered \(answer.count) bytes, not 16")
        }
        return answer.array
    }

    /// A READ from `page` refused (NAK) by an identified NTAG21x / Ultralight EV1 while no
    /// password is set: its pages from AUTH0 on are read-protected (PROT), the only reason such
    /// a chip refuses a READ of a page it has.
    static func readProtected(at page: Int, readerError: NFCReaderDeviceError) -> NFCTagError {
        NFCTagError(
            .passwordRequired, at: page * Type2Command.pageSize,
            "the tag refused to read page \(page): it is read-protected, and its password is needed", readerError: readerError)
    }

    /// WRITE (0xA2): 4 bytes to `page`; an empty answer or an ACK (0x0A) is success.
    func write(page: Int, _ data: [UInt8]) async throws(NFCTagError) {
        guard (0...0xFF).contains(page) else {
            throw NFCTagError(.malformedTag, at: page * Type2Command.pageSize, "page \(page) is beyond a WRITE's reach")
        }
        let command = Bytes(try ultralightAESSession.protect([Type2Command.write, UInt8(page)] + data))
        let raw: Bytes
        do {
            raw = try await reader.transceive(command, mode: .standard, timeout: commandTimeout)
        } catch where error.code == .nak && isUltralightC && ultralightCKey == nil {
            throw NFCTagError(
                .passwordRequired, at: page * Type2Command.pageSize,
                "the tag refused to write page \(page): it is locked, or protected and its 3DES key is needed (--keys FILE)",
                readerError: error)
        } catch where error.code == .nak && isUltralightAES && ultralightAESKey == nil {
            throw NFCTagError(
                .passwordRequired, at: page * Type2Command.pageSize,
                "the tag refused to write page \(page): it is locked, or protected and its AES key is needed (--keys FILE)",
                readerError: error)
        } catch {
            throw NFCTagError(error, during: "WRITE page \(page)", exchange: .write)
        }
        let answer = Bytes(try ultralightAESSession.open(raw.array))
        guard answer.isEmpty || answer.array == [Type2Command.ack] else {
            throw NFCTagError(.tagResponse, at: page * Type2Command.pageSize, "WRITE page \(page) answered \(answer.description)")
        }
    }
}
