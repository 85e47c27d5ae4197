import NFCCore
import NFCCrypto
public import NFCTags

/// The chip model the MIFARE Ultralight C (``UltralightCTag``) and Ultralight AES
/// (``UltralightAESTag``) share, written once against their ``UltralightKeyScheme``: the 7-byte
/// UID and memory image, activation and HLTA, the NAK that sends the chip idle, READ with
/// roll-over and read protection from AUTH0, WRITE with the static lock bits and the OTP page,
/// AUTH0 guarding writes until the mutual authentication succeeds, the authentication's state
/// machine on the chip's side (`1A kk` → `AF` ‖ ek(RndB); `AF` ‖ ek(RndA ‖ RndB′) → `00` ‖
/// ek(RndA′), IVs as the scheme says), and an NDEF message preloaded as a vendor delivers it.
///
/// What differs — the memory map, where AUTH0 and read protection live, the key pages, the
/// extra commands and special pages — each subclass says by overriding the hooks below.
public class UltralightKeyedTag<Scheme: UltralightKeyScheme>: PersistentVirtualTag, ActivatableVirtualTag, NDEFPreloadable {
    /// The 7-byte UID.
    public let uid: [UInt8]
    /// The memory as stored (the key pages with their real bytes, and any state the subclass
    /// keeps after the pages), for tests and tag files.
    public internal(set) var memory: [UInt8]
    /// Where RndB comes from (one cipher block each call); the system's secure source unless a
    /// test replays fixed values.
    public var random: () -> [UInt8] = UltralightMutualAuthentication<Scheme>.systemRandom
    /// Grows with every change to persistent state.
    public internal(set) var stateRevision = 0

    /// The registry name tag files store (the subclass's `modelKey`).
    let modelKey: String
    /// Pages in memory, key pages included.
    let totalPages: Int

    // Volatile state.
    var idle = false
    var authenticated = false
    /// The key number, RndB, ek(RndB) and the key between the two AUTHENTICATE steps.
    var pendingAuthentication: (keyNumber: UInt8, rndB: [UInt8], encrypted: [UInt8], key: [UInt8])?
    /// The static lock bytes as they were at the last activation.
    var activeStaticLock: [UInt8] = [0, 0]

    /// A factory-fresh chip: `memory` is the image the subclass built.
    init(uid: [UInt8], memory: [UInt8], modelKey: String, totalPages: Int) {
        self.uid = uid
        self.memory = memory
        self.modelKey = modelKey
        self.totalPages = totalPages
        activate()
    }

    /// Restores a chip from a tag file's state; nil when its model, UID or memory size does
    /// not fit.
    init?(state: TagState, modelKey: String, totalPages: Int, memoryBytes: Int) {
        guard state.model == modelKey, let uid = try? Hex.decode(state.uid), uid.count == 7,
              let memory = try? Hex.decode(state.memory), memory.count == memoryBytes,
              Array(memory[0..<9]) == Type2Chip.serialNumberBytes(uid: uid)
        else { return nil }
        self.uid = uid
        self.memory = memory
        self.modelKey = modelKey
        self.totalPages = totalPages
        activate()
    }

    /// A blank image of `bytes` bytes holding `uid`'s serial number bytes and the internal byte.
    static func blankMemory(uid: [UInt8], bytes: Int) -> [UInt8] {
        var memory = [UInt8](repeating: 0, count: bytes)
        memory.replaceSubrange(0..<9, with: Type2Chip.serialNumberBytes(uid: uid))
        memory[9] = 0x48  // internal byte
        return memory
    }

    /// The chip's name (the subclass's).
    public var modelName: String { "" }
    /// ATQA `44 00`, SAK `00`, the 7-byte UID, as every NXP Ultralight.
    public var targetInfo: TargetInfo {
        .iso14443A(ISO14443ATarget(uid: Bytes(uid), atqa: [0x44, 0x00], sak: 0x00))
    }
    /// The state a tag file stores.
    public var tagState: TagState { TagState(model: modelKey, uid: Hex.encode(uid), memory: Hex.encode(memory)) }
    /// Whether the mutual authentication (with the key that opens memory) succeeded since the
    /// last activation.
    public var isAuthenticated: Bool { authenticated }

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
        resetSession()
        activeStaticLock = [memory[10], memory[11]]
        activateState()
    }

    /// Stores `message` in an NDEF TLV at page 4 with the capability container of AN1303 for
    /// 144 bytes (`E1 10 12 00`, read/write), as a vendor delivers a formatted chip. False when
    /// it does not fit.
    @discardableResult
    public func setNDEFMessage(_ message: [UInt8]) -> Bool {
        let length: [UInt8] =
            message.count < 0xFF ? [UInt8(message.count)] : [0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        let tlv = [0x03] + length + message + [0xFE]
        let start = userPages.lowerBound * 4, end = userPages.upperBound * 4
        guard start + tlv.count <= end else { return false }
        memory.replaceSubrange(12..<16, with: [0xE1, 0x10, UInt8(userPages.count * 4 / 8), 0x00])
        memory.replaceSubrange(start..<end, with: tlv + [UInt8](repeating: 0, count: end - start - tlv.count))
        stateRevision += 1
        return true
    }

    // MARK: - hooks (overridden by the two chips)

    /// The user memory pages.
    var userPages: Range<Int> { 0x04..<0x28 }
    /// The first page that needs authentication (AUTH0, at least its lowest value).
    var auth0: Int { totalPages }
    /// Whether reads from AUTH0 on need authentication too (and it has not happened).
    var readProtected: Bool { false }
    /// Pages no READ returns (they read as 00 when a roll-over reaches them).
    var secretPages: Range<Int> { totalPages..<totalPages }
    /// Whether a READ may start at `page` (before read protection is checked).
    func readable(from page: Int) -> Bool { page < totalPages }
    /// Whether WRITE may touch `page` at all (before AUTH0 and lock bits).
    func writable(page: Int) -> Bool { page >= 2 && page < totalPages }
    /// Whether active lock bits beyond the static ones make `page` read-only.
    func isLockedBeyondStatic(page: Int) -> Bool { false }
    /// Stores a WRITE to a page with rules of its own; nil for an ordinary page.
    func writeSpecial(page: Int, _ data: [UInt8]) -> TagAnswer? { nil }
    /// Answers a command the shared part does not know; nil for a NAK.
    func executeOther(_ frame: [UInt8]) -> TagAnswer? { nil }
    /// Answers a frame before anything else looks at it (a pending two-part command); nil when
    /// the frame is not for it.
    func interceptPending(_ frame: [UInt8]) -> TagAnswer? { nil }
    /// Volatile state a NAK, HLTA or activation clears.
    func resetSession() {
        authenticated = false
        pendingAuthentication = nil
    }
    /// Takes the keys and lock bits from memory (a written key counts from the next activation).
    func activateState() {}
    /// The active key AUTHENTICATE `keyNumber` uses; nil refuses it (NAK).
    func authenticationKey(_ keyNumber: UInt8) -> [UInt8]? { nil }
    /// The second step failed (a wrong key).
    func authenticationFailed() {}
    /// The second step succeeded under `keyNumber`: sets ``authenticated`` when that key opens
    /// memory.
    func authenticationSucceeded(_ keyNumber: UInt8, rndA: [UInt8], rndB: [UInt8], key: [UInt8]) { authenticated = true }

    // MARK: - commands

    /// Answers a frame (without CRC). A NAK sends the chip idle, authentication lost.
    public func respond(to frame: [UInt8]) -> TagAnswer {
        let answer = execute(frame)
        if case .nak = answer {
            idle = true
            resetSession()
        }
        return answer
    }

    func execute(_ frame: [UInt8]) -> TagAnswer {
        if idle { return .silence }
        let blockSize = Scheme.blockSize
        if let pending = pendingAuthentication {
            pendingAuthentication = nil
            guard frame.count == 1 + 2 * blockSize, frame[0] == UltralightCCommand.authenticateContinue else { return goIdle() }
            return finishAuthentication(pending, Array(frame[1...]))
        }
        if let answer = interceptPending(frame) { return answer }
        guard let command = frame.first else { return goIdle() }
        switch (command, frame.count) {
        case (Type2Command.read, 2):
            return read(from: Int(frame[1]))
        case (Type2Command.write, 6):
            return write(page: Int(frame[1]), Array(frame[2..<6]))
        case (UltralightCCommand.authenticate, 2):
            return startAuthentication(frame[1])
        default:
            return executeOther(frame) ?? .nak(NTAGAcknowledge.invalidArgument)
        }
    }

    func goIdle() -> TagAnswer {
        idle = true
        authenticated = false
        return .silence
    }

    /// READ: four pages from `start`, rolling over to page 0 past the last page — or past
    /// AUTH0−1 when reading is protected. Secret pages read as 00.
    func read(from start: Int) -> TagAnswer {
        guard readable(from: start) else { return .nak(NTAGAcknowledge.invalidArgument) }
        var end = totalPages
        if readProtected {
            guard start < auth0 else { return .nak(NTAGAcknowledge.invalidArgument) }
            end = auth0
        }
        var out = [UInt8]()
        for i in 0..<4 {
            let page = (start + i) % end
            out += secretPages.contains(page) ? [0, 0, 0, 0] : Array(memory[(page * 4)..<(page * 4 + 4)])
        }
        return .data(out)
    }

    /// WRITE (and COMPATIBILITY_WRITE) of one page.
    func write(page: Int, _ data: [UInt8]) -> TagAnswer {
        guard writable(page: page) else { return .nak(NTAGAcknowledge.invalidArgument) }
        if page >= auth0, !authenticated { return .nak(NTAGAcknowledge.invalidArgument) }
        if (3...15).contains(page), Type2StaticLock.locks(page: page, lockBytes: (activeStaticLock[0], activeStaticLock[1])) {
            return .nak(NTAGAcknowledge.invalidArgument)
        }
        if isLockedBeyondStatic(page: page) { return .nak(NTAGAcknowledge.invalidArgument) }
        if let answer = writeSpecial(page: page, data) { return answer }
        let offset = page * 4
        switch page {
        case 2:
            let (lock0, lock1) = Type2StaticLock.afterWrite(of: (data[2], data[3]), over: (memory[10], memory[11]))
            memory[10] = lock0
            memory[11] = lock1
        case 3:
            for i in 0..<4 { memory[offset + i] |= data[i] }
        default:
            memory.replaceSubrange(offset..<(offset + 4), with: data)
        }
        stateRevision += 1
        return .ack
    }

    // MARK: - authentication

    private var zeroIV: [UInt8] { [UInt8](repeating: 0, count: Scheme.blockSize) }

    func startAuthentication(_ keyNumber: UInt8) -> TagAnswer {
        guard let key = authenticationKey(keyNumber) else { return .nak(NTAGAcknowledge.invalidArgument) }
        let rndB = random()
        guard rndB.count == Scheme.blockSize, let encrypted = try? Scheme.encrypt(key: key, iv: zeroIV, rndB)
        else { return .nak(NTAGAcknowledge.invalidArgument) }
        pendingAuthentication = (keyNumber, rndB, encrypted, key)
        return .data([UltralightCCommand.authenticateContinue] + encrypted)
    }

    /// Deciphers ek(RndA ‖ RndB′) (IV ek(RndB) when the scheme chains IVs), checks RndB′, and
    /// answers ek(RndA′) (IV the last block received when chained); a wrong RndB′ (a wrong
    /// key) is a NAK.
    func finishAuthentication(_ pending: (keyNumber: UInt8, rndB: [UInt8], encrypted: [UInt8], key: [UInt8]), _ message: [UInt8]) -> TagAnswer {
        let size = Scheme.blockSize
        guard let plain = try? Scheme.decrypt(key: pending.key, iv: Scheme.chainsIV ? pending.encrypted : zeroIV, message),
              plain.count == 2 * size
        else { return .nak(NTAGAcknowledge.invalidArgument) }
        let rndA = Array(plain[0..<size]), rotatedRndB = Array(plain[size...])
        guard rotatedRndB == UltralightMutualAuthentication<Scheme>.rotated(pending.rndB) else {
            authenticationFailed()
            return .nak(NTAGAcknowledge.invalidArgument)
        }
        let iv = Scheme.chainsIV ? Array(message.suffix(size)) : zeroIV
        guard let answer = try? Scheme.encrypt(key: pending.key, iv: iv, UltralightMutualAuthentication<Scheme>.rotated(rndA))
        else { return .nak(NTAGAcknowledge.invalidArgument) }
        authenticationSucceeded(pending.keyNumber, rndA: rndA, rndB: pending.rndB, key: pending.key)
        return .data([UltralightCCommand.authenticateDone] + answer)
    }
}
