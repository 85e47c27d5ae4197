import NFCCore
import NFCTags

/// The behaviour shared by NTAG21x and MIFARE Ultralight EV1, over a ``Type2Layout``: memory,
/// static and dynamic lock bits, the OTP capability container, password protection and
/// counters (NTAG213/215/216 datasheet sections 8.5–8.9 and 10; MF0ULx1 sections 8.5–8.8, 9).
struct Type2Chip {
    let layout: Type2Layout
    let uid: [UInt8]
    /// The 32-byte originality signature READ_SIG answers: a fixed invalid stand-in unless a
    /// signature was given (`signature=` in a `sim:` string, `attributes.signature` in a tag file).
    var signature: [UInt8]
    var memory: [UInt8]
    var counters: [UInt32]
    var authenticationFailures: Int
    var revision = 0

    // Volatile state.
    var authenticated = false
    var idle = false
    var counterCountedSincePowerOn = false
    var pendingCompatibilityWrite: Int?
    /// Lock bits as they were at the last activation: a lock bit takes effect at the next
    /// REQA/WUPA (NTAG21x 8.5.2).
    var activeStaticLock: [UInt8] = [0, 0]
    var activeDynamicLock: [UInt8] = [0, 0, 0]

    init(layout: Type2Layout, uid: [UInt8]) {
        self.layout = layout
        self.uid = uid
        self.signature = Type2Chip.fakeSignature(uid: uid)
        var memory = [UInt8](repeating: 0, count: layout.totalPages * 4)
        memory.replaceSubrange(0..<9, with: Type2Chip.serialNumberBytes(uid: uid))
        memory[9] = 0x48  // internal byte
        memory.replaceSubrange(12..<16, with: layout.factoryCapabilityContainer)
        memory.replaceSubrange(16..<(16 + layout.factoryUserData.count), with: layout.factoryUserData)
        if let page = layout.dynamicLockPage {
            memory.replaceSubrange((page * 4)..<(page * 4 + 4), with: layout.factoryDynamicLock)
        }
        let cfg = layout.configurationPage * 4
        memory.replaceSubrange(cfg..<(cfg + 8), with: layout.factoryConfiguration)
        let pwd = layout.passwordPage * 4
        memory.replaceSubrange(pwd..<(pwd + 4), with: [0xFF, 0xFF, 0xFF, 0xFF])
        self.memory = memory
        self.counters = layout.hasNFCCounter ? [0] : [0, 0, 0]
        self.authenticationFailures = 0
        activate()
    }

    /// Restores a chip from saved memory; nil when the sizes do not fit the layout.
    /// A chip restored from a tag file's state; nil when its UID or memory does not fit.
    init?(layout: Type2Layout, state: TagState) {
        guard let uid = try? Hex.decode(state.uid), let memory = try? Hex.decode(state.memory) else { return nil }
        self.init(layout: layout, uid: uid, memory: memory, counters: state.counters,
                  authenticationFailures: state.authenticationFailures)
        if let text = state.attributes?[Type2Chip.signatureAttribute] {
            guard let signature = try? Hex.decode(text), signature.count == 32 else { return nil }
            self.signature = signature
        }
    }

    init?(layout: Type2Layout, uid: [UInt8], memory: [UInt8], counters: [UInt32]?, authenticationFailures: Int?) {
        guard uid.count == 7, memory.count == layout.totalPages * 4 else { return nil }
        self.init(layout: layout, uid: uid)
        guard Array(memory[0..<9]) == Type2Chip.serialNumberBytes(uid: uid) else { return nil }
        self.memory = memory
        let expected = layout.hasNFCCounter ? 1 : 3
        if let counters {
            guard counters.count == expected, counters.allSatisfy({ $0 <= 0xFF_FFFF }) else { return nil }
            self.counters = counters
        }
        self.authenticationFailures = max(0, authenticationFailures ?? 0)
        activate()
    }

    /// The tag-file attribute holding a given originality signature, in hex.
    static let signatureAttribute = "signature"

    /// The attributes a tag file stores: the signature, when it is not the stand-in.
    var attributes: [String: String]? {
        signature == Type2Chip.fakeSignature(uid: uid) ? nil : [Type2Chip.signatureAttribute: Hex.encode(signature)]
    }

    /// UID0 UID1 UID2 BCC0 | UID3 UID4 UID5 UID6 | BCC1: BCC0 = CT (88h) ⊕ UID0 ⊕ UID1 ⊕ UID2,
    /// BCC1 = UID3 ⊕ UID4 ⊕ UID5 ⊕ UID6 (NTAG21x 8.5.1, ISO/IEC 14443-3).
    static func serialNumberBytes(uid: [UInt8]) -> [UInt8] {
        let bcc0 = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        let bcc1 = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        return [uid[0], uid[1], uid[2], bcc0, uid[3], uid[4], uid[5], uid[6], bcc1]
    }

    /// A fixed stand-in for the 32-byte ECC originality signature: derived from the UID so each
    /// tag has its own, and not a valid ECDSA signature.
    static func fakeSignature(uid: [UInt8]) -> [UInt8] {
        (0..<32).map { i in 0x5A ^ UInt8(truncatingIfNeeded: i &* 37) ^ uid[i % uid.count] }
    }

    // MARK: configuration

    func byte(page: Int, _ index: Int) -> UInt8 { memory[page * 4 + index] }
    var auth0: Int { Int(byte(page: layout.configurationPage, 3)) }
    var access: UInt8 { byte(page: layout.accessPage, 0) }
    var authenticationLimit: Int { Int(access & NTAGAccess.authenticationLimitMask) }
    var readProtected: Bool { access & NTAGAccess.readProtection != 0 && !authenticated && auth0 < layout.totalPages }

    // MARK: lifecycle

    mutating func activate() {
        authenticated = false
        idle = false
        pendingCompatibilityWrite = nil
        activeStaticLock = [memory[10], memory[11]]
        if let page = layout.dynamicLockPage {
            activeDynamicLock = [byte(page: page, 0), byte(page: page, 1), byte(page: page, 2)]
        }
    }

    mutating func powerOn() {
        activate()
        counterCountedSincePowerOn = false
    }

    mutating func halt() {
        activate()
        idle = true
    }

    // MARK: lock bits

    /// Whether lock bits (active since the last activation) make `page` read-only.
    func isLocked(page: Int) -> Bool {
        if (3...15).contains(page) {
            // Lock byte 0 bits 3…7 lock pages 3…7; lock byte 1 bits 0…7 lock pages 8…15.
            return page < 8
                ? activeStaticLock[0] & (1 << page) != 0 : activeStaticLock[1] & (1 << (page - 8)) != 0
        }
        if layout.dynamicLockPage != nil, page >= 16, page < layout.userPages.upperBound {
            let bit = (page - 16) / layout.dynamicLockPagesPerBit
            return activeDynamicLock[bit / 8] & (1 << (bit % 8)) != 0
        }
        return false
    }

    /// Static lock bytes after OR-ing `new` in, except bits frozen by block-locking bits:
    /// BL-CC (bit 0) freezes L-CC (bit 3); BL9-4 (bit 1) freezes L4…L7 and L8, L9; BL15-10
    /// (bit 2) freezes L10…L15 (NTAG21x 8.5.2). Block-locking bits themselves are OTP.
    func mergedStaticLock(_ new0: UInt8, _ new1: UInt8) -> (UInt8, UInt8) {
        let old0 = memory[10], old1 = memory[11]
        var allowed0: UInt8 = 0xFF, allowed1: UInt8 = 0xFF
        if old0 & 0x01 != 0 { allowed0 &= ~0x08 }
        if old0 & 0x02 != 0 { allowed0 &= ~0xF0; allowed1 &= ~0x03 }
        if old0 & 0x04 != 0 { allowed1 &= ~0xFC }
        return (old0 | (new0 & allowed0), old1 | (new1 & allowed1))
    }

    /// Dynamic lock bytes after OR-ing `new` in: lock bit n (byte n/8, bit n%8) locks
    /// `dynamicLockPagesPerBit` pages from page 16 + n·pagesPerBit; block-locking bit k of byte 2
    /// freezes lock bits 2k and 2k+1 (NTAG21x 8.5.3). Bits past the last lock bit are RFUI.
    func mergedDynamicLock(page: Int, _ new: [UInt8]) -> [UInt8] {
        let count = layout.dynamicLockBitCount
        var result = [byte(page: page, 0), byte(page: page, 1), byte(page: page, 2)]
        let blockLocks = result[2]
        for bit in 0..<count where new[bit / 8] & (1 << (bit % 8)) != 0 {
            if blockLocks & (1 << (bit / 2)) != 0 { continue }
            result[bit / 8] |= 1 << (bit % 8)
        }
        let blockLockBits = (count + 1) / 2
        let blockMask = UInt8(truncatingIfNeeded: (1 << blockLockBits) - 1)
        result[2] |= new[2] & blockMask
        return result
    }

    // MARK: commands

    /// Answers a frame. After a NAK the chip returns to IDLE (authentication lost) and answers
    /// nothing until activated again (NTAG21x 9.1, state diagram: a NAK leaves ACTIVE and
    /// AUTHENTICATED; readers see later commands time out).
    mutating func respond(to frame: [UInt8]) -> TagAnswer {
        let answer = execute(frame)
        if case .nak = answer {
            idle = true
            authenticated = false
            pendingCompatibilityWrite = nil
        }
        return answer
    }

    mutating func execute(_ frame: [UInt8]) -> TagAnswer {
        if idle { return .silence }
        if let page = pendingCompatibilityWrite {
            pendingCompatibilityWrite = nil
            guard frame.count == 16 else { return .nak(NTAGAcknowledge.invalidArgument) }
            return write(page: page, Array(frame[0..<4]))
        }
        guard let command = frame.first else { return goIdle() }
        switch (command, frame.count) {
        case (Type2Command.getVersion, 1):
            return .data(layout.version)
        case (Type2Command.read, 2):
            return read(from: Int(frame[1]))
        case (Type2Command.fastRead, 3):
            return fastRead(from: Int(frame[1]), to: Int(frame[2]))
        case (Type2Command.write, 6):
            return write(page: Int(frame[1]), Array(frame[2..<6]))
        case (Type2Command.compatibilityWrite, 2):
            let page = Int(frame[1])
            guard page >= 2, page < layout.totalPages else { return .nak(NTAGAcknowledge.invalidArgument) }
            pendingCompatibilityWrite = page
            return .ack
        case (Type2Command.readCounter, 2):
            return readCounter(Int(frame[1]))
        case (Type2Command.incrementCounter, 6) where !layout.hasNFCCounter:
            return incrementCounter(Int(frame[1]), Array(frame[2..<6]))
        case (Type2Command.checkTearingEvent, 2) where !layout.hasNFCCounter:
            guard frame[1] < 3 else { return .nak(NTAGAcknowledge.invalidArgument) }
            return .data([0xBD])  // the counters are never torn here
        case (Type2Command.virtualCardSelectLast, 21) where !layout.hasNFCCounter:
            return .data([byte(page: layout.accessPage, 1)])  // VCTID, CFG1 byte 1
        case (Type2Command.passwordAuthenticate, 5):
            return passwordAuthenticate(Array(frame[1..<5]))
        case (Type2Command.readSignature, 2):
            guard frame[1] == 0 else { return .nak(NTAGAcknowledge.invalidArgument) }
            return .data(signature)
        default:
            return goIdle()
        }
    }

    /// An unknown or malformed command: the chip goes to IDLE and answers nothing until it is
    /// activated again (NTAG21x 9.1, state diagram).
    mutating func goIdle() -> TagAnswer {
        idle = true
        authenticated = false
        return .silence
    }

    /// A page as READ/FAST_READ return it: PWD and PACK always read as zeros (NTAG21x 8.9.1).
    func readablePage(_ page: Int) -> [UInt8] {
        if page == layout.passwordPage || page == layout.packPage { return [0, 0, 0, 0] }
        return Array(memory[(page * 4)..<(page * 4 + 4)])
    }

    /// A page as READ/FAST_READ present it: ``readablePage(_:)`` with the ASCII mirror laid over
    /// it (NTAG21x 8.7): MIRROR_CONF in CFG0 byte 0 bits 7–6 selects UID, NFC counter or both
    /// (joined by `x`), from page MIRROR_PAGE (CFG0 byte 2, 4 or more), byte MIRROR_BYTE (bits
    /// 5–4), inside user memory only. The counter shown is the current one, after the
    /// increment of this read.
    func presentedPage(_ page: Int) -> [UInt8] {
        var bytes = readablePage(page)
        guard layout.hasNFCCounter, layout.userPages.contains(page) else { return bytes }
        let mirrorByte = byte(page: layout.configurationPage, 0)
        guard let mirror = NTAGMirror(mirrorByte: mirrorByte) else { return bytes }
        let mirrorPage = Int(byte(page: layout.configurationPage, NTAGMirrorBits.pageIndex))
        guard mirrorPage >= NTAGMirrorBits.firstPage else { return bytes }
        let start = mirrorPage * 4 + Int((mirrorByte & NTAGMirrorBits.byteMask) >> NTAGMirrorBits.byteShift)
        let end = min(start + mirror.length, layout.userPages.upperBound * 4)
        let text = mirror.presentation(uid: uid, counter: counters[0])
        for index in 0..<4 {
            let address = page * 4 + index
            if address >= start, address < end { bytes[index] = text[address - start] }
        }
        return bytes
    }

    mutating func countReadIfEnabled() {
        guard layout.hasNFCCounter, !counterCountedSincePowerOn, access & NTAGAccess.nfcCounterEnabled != 0 else {
            return
        }
        counterCountedSincePowerOn = true
        if counters[0] < 0xFF_FFFF {
            counters[0] += 1
            revision += 1
        }
    }

    /// READ: four pages from `start`, rolling over to page 0 past the last page — or past
    /// AUTH0−1 when reading is password protected (NTAG21x 10.2).
    mutating func read(from start: Int) -> TagAnswer {
        guard start < layout.totalPages else { return .nak(NTAGAcknowledge.invalidArgument) }
        var end = layout.totalPages
        if readProtected {
            guard start < auth0 else { return .nak(NTAGAcknowledge.invalidArgument) }
            end = auth0
        }
        countReadIfEnabled()
        var out = [UInt8]()
        out.reserveCapacity(16)
        for i in 0..<4 { out += presentedPage((start + i) % end) }
        return .data(out)
    }

    /// FAST_READ: pages `start`…`end`; NAK 0 when start > end, end is past the last page, or
    /// the range reaches protected pages (NTAG21x 10.3).
    mutating func fastRead(from start: Int, to end: Int) -> TagAnswer {
        guard start <= end, end < layout.totalPages else { return .nak(NTAGAcknowledge.invalidArgument) }
        if readProtected, end >= auth0 { return .nak(NTAGAcknowledge.invalidArgument) }
        countReadIfEnabled()
        var out = [UInt8]()
        out.reserveCapacity((end - start + 1) * 4)
        for page in start...end { out += presentedPage(page) }
        return .data(out)
    }

    /// WRITE and the second part of COMPATIBILITY_WRITE (NTAG21x 10.4, 10.5): NAK 0 for pages
    /// 0–1 and past the end, pages at or above AUTH0 without PWD_AUTH, pages under an active lock
    /// bit, CFG0/CFG1 under CFGLCK. Page 2 ORs the static lock bytes, page 3 ORs the CC (OTP),
    /// the dynamic lock page ORs its lock bytes.
    mutating func write(page: Int, _ data: [UInt8]) -> TagAnswer {
        guard page >= 2, page < layout.totalPages else { return .nak(NTAGAcknowledge.invalidArgument) }
        if page >= auth0, !authenticated { return .nak(NTAGAcknowledge.invalidArgument) }
        if isLocked(page: page) { return .nak(NTAGAcknowledge.invalidArgument) }
        if page == layout.configurationPage || page == layout.accessPage,
            access & NTAGAccess.configurationLock != 0
        {
            return .nak(NTAGAcknowledge.invalidArgument)
        }
        let offset = page * 4
        switch page {
        case 2:
            let (lock0, lock1) = mergedStaticLock(data[2], data[3])
            memory[10] = lock0
            memory[11] = lock1
        case 3:
            for i in 0..<4 { memory[offset + i] |= data[i] }
        case layout.dynamicLockPage:
            let merged = mergedDynamicLock(page: page, data)
            memory.replaceSubrange(offset..<(offset + 3), with: merged)
        default:
            memory.replaceSubrange(offset..<(offset + 4), with: data)
        }
        revision += 1
        return .ack
    }

    /// READ_CNT: NTAG21x reads the NFC counter at address 02h only, when NFC_CNT_EN is set
    /// (and after PWD_AUTH when NFC_CNT_PWD_PROT is set) (NTAG21x 10.6); Ultralight EV1 reads
    /// counter 0, 1 or 2 (MF0ULx1 9.10). 3 bytes, least significant first.
    func readCounter(_ address: Int) -> TagAnswer {
        let index: Int
        if layout.hasNFCCounter {
            guard address == 2, access & NTAGAccess.nfcCounterEnabled != 0 else {
                return .nak(NTAGAcknowledge.invalidArgument)
            }
            if access & NTAGAccess.nfcCounterPasswordProtected != 0, !authenticated {
                return .nak(NTAGAcknowledge.invalidArgument)
            }
            index = 0
        } else {
            guard address < 3 else { return .nak(NTAGAcknowledge.invalidArgument) }
            index = address
        }
        let value = counters[index]
        return .data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)])
    }

    /// INCR_CNT (Ultralight EV1 only): adds the 24-bit value of the first three data bytes; NAK 4
    /// when the counter would pass FFFFFFh (MF0ULx1 9.11).
    mutating func incrementCounter(_ address: Int, _ data: [UInt8]) -> TagAnswer {
        guard address < 3 else { return .nak(NTAGAcknowledge.invalidArgument) }
        let increment = UInt32(data[0]) | UInt32(data[1]) << 8 | UInt32(data[2]) << 16
        guard counters[address] + increment <= 0xFF_FFFF else { return .nak(NTAGAcknowledge.counterOverflow) }
        counters[address] += increment
        revision += 1
        return .ack
    }

    /// PWD_AUTH: the right password answers PACK and authenticates; a wrong one answers NAK 0
    /// and counts toward AUTHLIM; once AUTHLIM wrong passwords are counted every PWD_AUTH
    /// answers NAK 4 (NTAG21x 8.9.2, 10.7).
    mutating func passwordAuthenticate(_ password: [UInt8]) -> TagAnswer {
        let limit = authenticationLimit
        if limit != 0, authenticationFailures >= limit { return .nak(NTAGAcknowledge.counterOverflow) }
        let pwd = layout.passwordPage * 4
        guard Array(memory[pwd..<(pwd + 4)]) == password else {
            authenticated = false
            authenticationFailures += 1
            revision += 1
            return .nak(NTAGAcknowledge.invalidArgument)
        }
        authenticated = true
        if authenticationFailures != 0 {
            authenticationFailures = 0
            revision += 1
        }
        let pack = layout.packPage * 4
        return .data(Array(memory[pack..<(pack + 2)]))
    }
}
