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
/// then `AF` ‖ ek(RndA ‖ RndB′), answered `00` ‖ ek(RndA′), AES-128-CBC from a zero IV each).
/// Rules: static lock bits and the OTP page as on other Type 2 chips; AUTH0 and PROT enforced
/// until a DataProtKey authentication succeeds; a written key counting from the next
/// activation; AUTH_LIM: once that many authentications in a row have failed, AUTHENTICATE is
/// refused for good (the failure count is kept after the 240 memory bytes in the tag file).
/// Not modelled: secure messaging (SEC_MSG_ACT is stored, commands stay plain), random ID,
/// LOCK_KEYS, the counters, READ_SIG, the dynamic lock bits' effect (the bytes are stored).
public final class UltralightAESTag: PersistentVirtualTag, ActivatableVirtualTag, NDEFPreloadable {
    /// The registry name, stored in tag files.
    public static let modelKey = "ultralight-aes"

    /// The 7-byte UID.
    public let uid: [UInt8]
    /// All 60 pages as stored (the key pages with their real bytes), then the two bytes of the
    /// failed-authentication count, for tests and tag files.
    public private(set) var memory: [UInt8]
    /// Where RndB comes from (16 bytes each call); the system's secure source unless a test
    /// replays fixed values.
    public var random: () -> [UInt8] = UltralightAESAuthentication.systemRandom
    /// Grows with every change to persistent state.
    public private(set) var stateRevision = 0

    // Volatile state.
    private var idle = false
    private var authenticated = false
    /// The key number, RndB and the key between the two AUTHENTICATE steps.
    private var pendingAuthentication: (keyNumber: UInt8, rndB: [UInt8], key: [UInt8])?
    /// The keys as they were at the last activation: a written key counts from the next one.
    private var activeKeys: [[UInt8]] = []
    private var activeStaticLock: [UInt8] = [0, 0]

    /// The memory bytes of the 60 pages.
    static let pageBytes = UltralightAESMemory.totalPages * 4
    /// Where the failed-authentication count is kept (not readable by any command).
    static let failureCountOffset = pageBytes

    /// A factory-fresh chip with a 7-byte UID.
    /// - Precondition: `uid` has 7 bytes.
    public init(uid: [UInt8]) {
        precondition(uid.count == 7, "an Ultralight AES UID has 7 bytes")
        self.uid = uid
        var memory = [UInt8](repeating: 0, count: Self.pageBytes + 2)
        memory.replaceSubrange(0..<9, with: Type2Chip.serialNumberBytes(uid: uid))
        memory[9] = 0x48  // internal byte
        memory[UltralightAESMemory.cfg0Page * 4 + 3] = UltralightAESMemory.auth0Unprotected
        memory[UltralightAESMemory.cfg1Page * 4 + 1] = 0x05  // VCTID as the Flipper generator sets it
        self.memory = memory
        activate()
    }

    /// Restores a chip from a tag file's state; nil when its UID or memory does not fit.
    public init?(state: TagState) {
        guard state.model == Self.modelKey, let uid = try? Hex.decode(state.uid), uid.count == 7,
              let memory = try? Hex.decode(state.memory), memory.count == Self.pageBytes + 2,
              Array(memory[0..<9]) == Type2Chip.serialNumberBytes(uid: uid)
        else { return nil }
        self.uid = uid
        self.memory = memory
        activate()
    }

    /// The AES key four key pages hold: their 16 bytes reversed (page 30h byte 0 is the key's
    /// last byte). Stated here apart from ``UltralightAESKey/pageImage`` so the two check each
    /// other.
    static func key(fromPages image: ArraySlice<UInt8>) -> [UInt8] { image.reversed() }

    /// `MIFARE Ultralight AES (MF0AES20)`.
    public var modelName: String { "\(ChipIdentification.ultralightAESModel) (MF0AES20)" }
    /// ATQA `44 00`, SAK `00`, the 7-byte UID, as every NXP Ultralight.
    public var targetInfo: TargetInfo {
        .iso14443A(ISO14443ATarget(uid: Bytes(uid), atqa: [0x44, 0x00], sak: 0x00))
    }
    /// The state a tag file stores.
    public var tagState: TagState { TagState(model: Self.modelKey, uid: Hex.encode(uid), memory: Hex.encode(memory)) }
    /// Whether a DataProtKey authentication succeeded since the last activation.
    public var isAuthenticated: Bool { authenticated }
    /// Failed authentications since the last successful one.
    public var failedAuthentications: Int {
        Int(memory[Self.failureCountOffset]) | Int(memory[Self.failureCountOffset + 1]) << 8
    }

    /// Entering the field.
    public func powerOn() { activate() }
    /// HLTA: nothing is answered until the chip is activated again.
    public func halt() {
        activate()
        idle = true
    }
    /// REQA/WUPA and selection: authentication reset, lock bits and written keys take effect.
    public func activate() {
        idle = false
        authenticated = false
        pendingAuthentication = nil
        activeKeys = [UltralightAESMemory.dataProtectionKeyPages, UltralightAESMemory.uidRetrievalKeyPages, UltralightAESMemory.originalityKeyPages]
            .map { Self.key(fromPages: memory[($0.lowerBound * 4)..<($0.upperBound * 4)]) }
        activeStaticLock = [memory[10], memory[11]]
    }

    /// Stores `message` in an NDEF TLV at page 4 with a capability container for 144 bytes
    /// (`E1 10 12 00`), as a vendor delivers a formatted chip. False when it does not fit.
    @discardableResult
    public func setNDEFMessage(_ message: [UInt8]) -> Bool {
        let length: [UInt8] =
            message.count < 0xFF ? [UInt8(message.count)] : [0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        let tlv = [0x03] + length + message + [0xFE]
        let start = UltralightAESMemory.userPages.lowerBound * 4, end = UltralightAESMemory.userPages.upperBound * 4
        guard start + tlv.count <= end else { return false }
        memory.replaceSubrange(12..<16, with: [0xE1, 0x10, UInt8(UltralightAESMemory.userPages.count * 4 / 8), 0x00])
        memory.replaceSubrange(start..<end, with: tlv + [UInt8](repeating: 0, count: end - start - tlv.count))
        stateRevision += 1
        return true
    }

    // MARK: - Commands

    /// Answers a frame (without CRC). A NAK sends the chip idle, authentication lost.
    public func respond(to frame: [UInt8]) -> TagAnswer {
        let answer = execute(frame)
        if case .nak = answer {
            idle = true
            authenticated = false
            pendingAuthentication = nil
        }
        return answer
    }

    private func execute(_ frame: [UInt8]) -> TagAnswer {
        if idle { return .silence }
        if let pending = pendingAuthentication {
            pendingAuthentication = nil
            guard frame.count == 33, frame[0] == UltralightAESCommand.authenticateContinue else { return goIdle() }
            return finishAuthentication(pending, Array(frame[1...]))
        }
        guard let command = frame.first else { return goIdle() }
        switch (command, frame.count) {
        case (Type2Command.getVersion, 1):
            return .data(UltralightAESCommand.versionMF0AES20)
        case (Type2Command.read, 2):
            return read(from: Int(frame[1]))
        case (Type2Command.write, 6):
            return write(page: Int(frame[1]), Array(frame[2..<6]))
        case (UltralightAESCommand.authenticate, 2):
            guard let keyNumber = UltralightAESKeyNumber(rawValue: frame[1]) else { return .nak(NTAGAcknowledge.invalidArgument) }
            return startAuthentication(keyNumber)
        default:
            return .nak(NTAGAcknowledge.invalidArgument)
        }
    }

    private func goIdle() -> TagAnswer {
        idle = true
        authenticated = false
        return .silence
    }

    // MARK: access

    private var auth0: Int { max(Int(memory[UltralightAESMemory.cfg0Page * 4 + 3]), UltralightAESMemory.auth0Lowest) }
    private var authenticationLimit: Int {
        Int(memory[UltralightAESMemory.cfg1Page * 4 + 2]) | Int(memory[UltralightAESMemory.cfg1Page * 4 + 3] & 0x03) << 8
    }
    private var readProtected: Bool {
        memory[UltralightAESMemory.cfg1Page * 4] & UltralightAESMemory.protBit != 0
            && !authenticated && auth0 < UltralightAESMemory.totalPages
    }

    /// READ: four pages from `start`, rolling over to page 0 past page 3Bh — or past AUTH0−1
    /// when reading is protected. Key pages read as 00.
    private func read(from start: Int) -> TagAnswer {
        guard start < UltralightAESMemory.totalPages else { return .nak(NTAGAcknowledge.invalidArgument) }
        var end = UltralightAESMemory.totalPages
        if readProtected {
            guard start < auth0 else { return .nak(NTAGAcknowledge.invalidArgument) }
            end = auth0
        }
        var out = [UInt8]()
        for i in 0..<4 {
            let page = (start + i) % end
            out += UltralightAESMemory.keyPages.contains(page) ? [0, 0, 0, 0] : Array(memory[(page * 4)..<(page * 4 + 4)])
        }
        return .data(out)
    }

    /// WRITE of one page.
    private func write(page: Int, _ data: [UInt8]) -> TagAnswer {
        guard page >= 2, page < UltralightAESMemory.totalPages, !UltralightAESMemory.originalityKeyPages.contains(page) else {
            return .nak(NTAGAcknowledge.invalidArgument)
        }
        if page >= auth0, !authenticated { return .nak(NTAGAcknowledge.invalidArgument) }
        if (3...15).contains(page), Type2StaticLock.locks(page: page, lockBytes: (activeStaticLock[0], activeStaticLock[1])) {
            return .nak(NTAGAcknowledge.invalidArgument)
        }
        let offset = page * 4
        switch page {
        case 2:
            let (lock0, lock1) = Type2StaticLock.afterWrite(of: (data[2], data[3]), over: (memory[10], memory[11]))
            memory[10] = lock0
            memory[11] = lock1
        case 3, UltralightAESMemory.lockPage:
            for i in 0..<4 { memory[offset + i] |= data[i] }
        default:
            memory.replaceSubrange(offset..<(offset + 4), with: data)
        }
        stateRevision += 1
        return .ack
    }

    // MARK: authentication

    private func startAuthentication(_ keyNumber: UltralightAESKeyNumber) -> TagAnswer {
        let limit = authenticationLimit
        guard limit == 0 || failedAuthentications < limit else { return .nak(NTAGAcknowledge.invalidArgument) }
        let rndB = random()
        let key = activeKeys[Int(keyNumber.rawValue)]
        guard rndB.count == UltralightAESAuthentication.randomSize,
              let encrypted = try? AES128.encryptCBC(key: Bytes(key), iv: Bytes(Self.zeroIV), Bytes(rndB))
        else { return .nak(NTAGAcknowledge.invalidArgument) }
        pendingAuthentication = (keyNumber.rawValue, rndB, key)
        return .data([UltralightAESCommand.authenticateContinue] + encrypted.array)
    }

    /// Deciphers ek(RndA ‖ RndB′), checks RndB′, and answers ek(RndA′); a wrong RndB′ (a wrong
    /// key) is a NAK and counts against AUTH_LIM.
    private func finishAuthentication(_ pending: (keyNumber: UInt8, rndB: [UInt8], key: [UInt8]), _ message: [UInt8]) -> TagAnswer {
        guard let plain = try? AES128.decryptCBC(key: Bytes(pending.key), iv: Bytes(Self.zeroIV), Bytes(message)).array,
              plain.count == 32
        else { return .nak(NTAGAcknowledge.invalidArgument) }
        let rndA = Array(plain[0..<16]), rotatedRndB = Array(plain[16..<32])
        guard rotatedRndB == Array(pending.rndB[1...]) + [pending.rndB[0]] else {
            setFailedAuthentications(min(failedAuthentications + 1, 0xFFFF))
            return .nak(NTAGAcknowledge.invalidArgument)
        }
        guard let answer = try? AES128.encryptCBC(key: Bytes(pending.key), iv: Bytes(Self.zeroIV), Bytes(Array(rndA[1...]) + [rndA[0]]))
        else { return .nak(NTAGAcknowledge.invalidArgument) }
        if failedAuthentications != 0 { setFailedAuthentications(0) }
        authenticated = pending.keyNumber == UltralightAESKeyNumber.dataProtection.rawValue
        return .data([UltralightAESCommand.authenticateDone] + answer.array)
    }

    private func setFailedAuthentications(_ count: Int) {
        memory[Self.failureCountOffset] = UInt8(count & 0xFF)
        memory[Self.failureCountOffset + 1] = UInt8(count >> 8)
        stateRevision += 1
    }

    private static let zeroIV = [UInt8](repeating: 0, count: 16)
}
