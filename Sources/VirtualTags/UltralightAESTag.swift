import NFCCore
import NFCCrypto
public import NFCTags

/// An NXP MIFARE Ultralight AES (MF0AES20), built from what public implementations that cite its
/// data sheet agree on (docs/tags.md, "MIFARE Ultralight AES"; the data sheet's own text was not
/// at hand, and what it alone would settle is marked there).
///
/// Memory: 60 pages — UID and static lock bytes (pages 0–2), the OTP page 3, user memory
/// 04h–27h, dynamic lock bytes (28h), CFG0 (29h: SEC_MSG_ACT, AUTH0 in byte 3), CFG1 (2Ah: PROT
/// in byte 0 bit 7, VCTID, AUTH_LIM), pages 2Bh–2Fh kept as written, and the three AES keys
/// (30h–3Bh: DataProtKey, UIDRetrKey, originality key; each byte-reversed, never readable).
/// Delivered with user memory zero, AUTH0 3Ch (nothing protected), zero keys; not NDEF
/// formatted unless a message is preloaded.
///
/// Commands: GET_VERSION (MF0AES20's answer), READ (roll-over), WRITE and AUTHENTICATE (`1A kk`,
/// then `AF` ‖ ek(RndA ‖ RndB′), answered `00` ‖ ek(RndA′), AES-128-CBC from a zero IV each);
/// READ_SIG (`3C 00`: the 48-byte ``originalitySignature``); READ_CNT and INCR_CNT on three
/// 24-bit one-way counters (counter 2 needs the DataProtKey unless CFG1's CNT_RD_EN /
/// CNT_INC_EN opens it; counters 0 and 1 are open — an assumption, docs/tags.md).
/// Rules: static lock bits and the OTP page as on other Type 2 chips; AUTH0 and PROT enforced
/// until a DataProtKey authentication succeeds; a written key counting from the next
/// activation; AUTH_LIM: once that many authentications in a row have failed, AUTHENTICATE is
/// refused for good (the failure count is kept after the 240 memory bytes in the tag file).
/// Secure messaging: with SEC_MSG_ACT on at activation, an authentication starts a session
/// (``UltralightAESSecureMessaging``) and every later command and answer carries its MAC.
/// CFGLCK (CFG1 bit 6) makes CFG0 and CFG1 read-only from the next activation.
/// Not modelled: random ID, LOCK_KEYS, the dynamic lock bits' effect (the bytes are stored,
/// OR-ed).
/// The shared part (READ, WRITE, AUTH0, the authentication's state machine) is
/// ``UltralightKeyedTag``; this class adds GET_VERSION, the three keys, PROT and AUTH_LIM.
public final class UltralightAESTag: UltralightKeyedTag<UltralightAES128> {
    /// The registry name, stored in tag files.
    public static let modelKey = "ultralight-aes"

    /// The keys as they were at the last activation: a written key counts from the next one.
    private var activeKeys: [[UInt8]] = []
    /// CFGLCK as it was at the last activation.
    private var activeConfigurationLock = false
    /// SEC_MSG_ACT as it was at the last activation.
    private var activeSecureMessaging = false
    /// The secure-messaging session an authentication with SEC_MSG_ACT on started: every
    /// command and answer until the next activation carries a MAC.
    private var session: UltralightAESSecureMessaging?

    /// The memory bytes of the 60 pages.
    static let pageBytes = UltralightAESMemory.totalPages * 4
    /// Where the failed-authentication count is kept (not readable by any command).
    static let failureCountOffset = pageBytes
    /// The tag-file attribute holding the originality signature, in hex.
    static let signatureAttribute = "signature"

    /// The 48-byte originality signature READ_SIG answers: 48 zero bytes (a signature never
    /// programmed, which no key accepts) unless one is given (`signature=` in a `sim:` string,
    /// `attributes.signature` in a tag file).
    public var originalitySignature = [UInt8](repeating: 0, count: UltralightAESCommand.signatureLength) {
        didSet { stateRevision += 1 }
    }
    /// The three 24-bit one-way counters.
    public private(set) var counters: [UInt32] = [0, 0, 0]

    /// A factory-fresh chip with a 7-byte UID.
    /// - Precondition: `uid` has 7 bytes.
    public init(uid: [UInt8]) {
        precondition(uid.count == 7, "an Ultralight AES UID has 7 bytes")
        var memory = Self.blankMemory(uid: uid, bytes: Self.pageBytes + 2)
        memory[UltralightAESMemory.cfg0Page * 4 + 3] = UltralightAESMemory.auth0Unprotected
        memory[UltralightAESMemory.cfg1Page * 4 + 1] = 0x05  // VCTID as the Flipper generator sets it
        super.init(uid: uid, memory: memory, modelKey: Self.modelKey, totalPages: UltralightAESMemory.totalPages)
    }

    /// Restores a chip from a tag file's state; nil when its UID, memory, counters or signature
    /// does not fit (a file without counters or signature, as written before they were
    /// modelled, gets zero counters and the zero signature).
    public init?(state: TagState) {
        super.init(state: state, modelKey: Self.modelKey, totalPages: UltralightAESMemory.totalPages, memoryBytes: Self.pageBytes + 2)
        if let stored = state.counters {
            guard stored.count == UltralightAESCommand.counterCount, stored.allSatisfy({ $0 <= 0xFF_FFFF }) else { return nil }
            counters = stored
        }
        if let text = state.attributes?[Self.signatureAttribute] {
            guard let signature = try? Hex.decode(text), signature.count == UltralightAESCommand.signatureLength else { return nil }
            originalitySignature = signature
        }
        stateRevision = 0
    }

    /// The state a tag file stores: memory, counters and (when not the zero one) the signature.
    override public var tagState: TagState {
        var state = super.tagState
        state.counters = counters
        if originalitySignature.contains(where: { $0 != 0 }) {
            state.attributes = [Self.signatureAttribute: Hex.encode(originalitySignature)]
        }
        return state
    }

    /// The AES key four key pages hold: their 16 bytes reversed (page 30h byte 0 is the key's
    /// last byte). Stated here apart from ``UltralightSecretKey/pageImage`` so the two check each
    /// other.
    static func key(fromPages image: ArraySlice<UInt8>) -> [UInt8] { image.reversed() }

    /// `MIFARE Ultralight AES (MF0AES20)`.
    override public var modelName: String { "\(ChipIdentification.ultralightAESModel) (MF0AES20)" }

    /// Failed authentications since the last successful one.
    public var failedAuthentications: Int {
        Int(memory[Self.failureCountOffset]) | Int(memory[Self.failureCountOffset + 1]) << 8
    }

    // MARK: - hooks

    override var auth0: Int { max(Int(memory[UltralightAESMemory.cfg0Page * 4 + 3]), UltralightAESMemory.auth0Lowest) }
    private var authenticationLimit: Int {
        Int(memory[UltralightAESMemory.cfg1Page * 4 + 2]) | Int(memory[UltralightAESMemory.cfg1Page * 4 + 3] & 0x03) << 8
    }
    /// PROT (CFG1 byte 0 bit 7): reads from AUTH0 on need the key too.
    override var readProtected: Bool {
        memory[UltralightAESMemory.cfg1Page * 4] & UltralightAESMemory.protBit != 0
            && !authenticated && auth0 < UltralightAESMemory.totalPages
    }
    override var secretPages: Range<Int> { UltralightAESMemory.keyPages }
    /// The originality key is never written.
    override func writable(page: Int) -> Bool {
        page >= 2 && page < UltralightAESMemory.totalPages && !UltralightAESMemory.originalityKeyPages.contains(page)
    }

    override func activateState() {
        activeSecureMessaging = memory[UltralightAESMemory.cfg0Page * 4] & UltralightAESMemory.secureMessagingBit != 0
        activeConfigurationLock = memory[UltralightAESMemory.cfg1Page * 4] & UltralightAESMemory.configurationLockBit != 0
        activeKeys = [UltralightAESMemory.dataProtectionKeyPages, UltralightAESMemory.uidRetrievalKeyPages, UltralightAESMemory.originalityKeyPages]
            .map { Self.key(fromPages: memory[($0.lowerBound * 4)..<($0.upperBound * 4)]) }
    }

    /// CFGLCK set (at the last activation, as lock bits take effect): CFG0 and CFG1 are
    /// read-only for good.
    override func isLockedBeyondStatic(page: Int) -> Bool {
        activeConfigurationLock && (page == UltralightAESMemory.cfg0Page || page == UltralightAESMemory.cfg1Page)
    }

    /// GET_VERSION: MF0AES20's answer; READ_SIG; READ_CNT; INCR_CNT.
    override func executeOther(_ frame: [UInt8]) -> TagAnswer? {
        guard let command = frame.first else { return nil }
        switch (command, frame.count) {
        case (Type2Command.getVersion, 1):
            return .data(UltralightAESCommand.versionMF0AES20)
        case (Type2Command.readSignature, 2) where frame[1] == 0x00:
            return .data(originalitySignature)
        case (Type2Command.readCounter, 2):
            let number = Int(frame[1])
            guard number < counters.count, counterOpen(number, bit: UltralightAESMemory.counterReadOpenBit) else { return nil }
            let value = counters[number]
            return .data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)])
        case (Type2Command.incrementCounter, 6):
            let number = Int(frame[1])
            guard number < counters.count, counterOpen(number, bit: UltralightAESMemory.counterIncrementOpenBit) else { return nil }
            let increment = UInt32(frame[2]) | UInt32(frame[3]) << 8 | UInt32(frame[4]) << 16
            guard counters[number] + increment <= 0xFF_FFFF else { return .nak(NTAGAcknowledge.counterOverflow) }
            counters[number] += increment
            stateRevision += 1
            return .ack
        default:
            return nil
        }
    }

    /// Counters 0 and 1 are open; counter 2 needs the DataProtKey unless `bit` (CNT_RD_EN or
    /// CNT_INC_EN) of CFG1 byte 0 is set.
    private func counterOpen(_ number: Int, bit: UInt8) -> Bool {
        number != 2 || authenticated || memory[UltralightAESMemory.cfg1Page * 4] & bit != 0
    }

    /// The dynamic lock bytes: bits only set.
    override func writeSpecial(page: Int, _ data: [UInt8]) -> TagAnswer? {
        guard page == UltralightAESMemory.lockPage else { return nil }
        for i in 0..<4 { memory[page * 4 + i] |= data[i] }
        stateRevision += 1
        return .ack
    }

    /// Key numbers 00h–02h; none once AUTH_LIM failures in a row are reached.
    override func authenticationKey(_ keyNumber: UInt8) -> [UInt8]? {
        let limit = authenticationLimit
        guard limit == 0 || failedAuthentications < limit, let number = UltralightAESKeyNumber(rawValue: keyNumber) else { return nil }
        return activeKeys[Int(number.rawValue)]
    }

    /// A wrong key counts against AUTH_LIM.
    override func authenticationFailed() {
        setFailedAuthentications(min(failedAuthentications + 1, 0xFFFF))
    }

    /// Success clears the failure count; only the DataProtKey opens memory. With SEC_MSG_ACT on,
    /// a session starts (its counter at 0).
    override func authenticationSucceeded(_ keyNumber: UInt8, rndA: [UInt8], rndB: [UInt8], key: [UInt8]) {
        if failedAuthentications != 0 { setFailedAuthentications(0) }
        authenticated = keyNumber == UltralightAESKeyNumber.dataProtection.rawValue
        if activeSecureMessaging, let aesKey = try? UltralightAESKey(bytes: key) {
            session = try? UltralightAESSecureMessaging(key: aesKey, rndA: rndA, rndB: rndB)
        }
    }

    override func resetSession() {
        super.resetSession()
        session = nil
    }

    /// With a session running, a command other than AUTHENTICATE must end in its MAC (counter
    /// n): a missing or wrong one is a NAK. The answer gets its MAC (counter n + 1); an ACK
    /// becomes the MAC alone. Without a session, commands are plain.
    override public func respond(to frame: [UInt8]) -> TagAnswer {
        guard var current = session, !idle, pendingAuthentication == nil, frame.first != UltralightAESCommand.authenticate else {
            return super.respond(to: frame)
        }
        guard frame.count > UltralightAESSecureMessaging.macSize, let command = try? current.open(frame) else {
            idle = true
            resetSession()
            return .nak(NTAGAcknowledge.invalidArgument)
        }
        let answer = super.respond(to: command)
        guard session != nil else { return answer }
        let data: [UInt8]
        switch answer {
        case .data(let bytes): data = bytes
        case .ack: data = []
        default:
            session = current
            return answer
        }
        guard let protected = try? current.protect(data) else { return .silence }
        session = current
        return .data(protected)
    }

    private func setFailedAuthentications(_ count: Int) {
        memory[Self.failureCountOffset] = UInt8(count & 0xFF)
        memory[Self.failureCountOffset + 1] = UInt8(count >> 8)
        stateRevision += 1
    }
}
