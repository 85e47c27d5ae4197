import NFCCore

/// An NTAG21x / MIFARE Ultralight EV1 password: the 4-byte PWD sent with PWD_AUTH and the 2-byte
/// PACK the tag answers when it is right (NTAG213/215/216 datasheet 8.8; MF0ULx1 8.8).
///
/// Its description never shows the bytes, so a password cannot leak into logs or error messages.
public struct NTAGPassword: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// PWD, 4 bytes.
    public let password: [UInt8]
    /// PACK, 2 bytes: the answer to a right PWD_AUTH.
    public let acknowledge: [UInt8]

    /// A password and its acknowledge.
    /// - Throws: ``NFCTagError/Code/invalidParameter`` unless PWD has 4 bytes and PACK 2.
    public init(password: some Collection<UInt8>, acknowledge: some Collection<UInt8>) throws(NFCTagError) {
        guard password.count == 4 else {
            throw NFCTagError(.invalidParameter, "an NTAG password has 4 bytes, not \(password.count)")
        }
        guard acknowledge.count == 2 else {
            throw NFCTagError(.invalidParameter, "an NTAG PACK has 2 bytes, not \(acknowledge.count)")
        }
        self.password = Array(password)
        self.acknowledge = Array(acknowledge)
    }

    /// Parses `PWD[:PACK]` in hex (`12345678:ABCD`); PACK defaults to `0000`. Spaces are ignored.
    /// - Throws: ``NFCTagError/Code/invalidParameter`` for anything else; the message never
    ///   repeats the input.
    public init(hex text: String) throws(NFCTagError) {
        let parts = text.filter { !$0.isWhitespace }.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2,
              let pwd = try? Hex.decode(String(parts[0])),
              let pack = parts.count == 2 ? try? Hex.decode(String(parts[1])) : [0, 0]
        else {
            throw NFCTagError(.invalidParameter, "a password is 8 hex digits, optionally followed by ':' and a 4-digit PACK")
        }
        try self.init(password: pwd, acknowledge: pack)
    }

    /// The factory state: PWD `FFFFFFFF`, PACK `0000`.
    public static let factoryDefault = NTAGPassword(uncheckedPassword: [0xFF, 0xFF, 0xFF, 0xFF], acknowledge: [0, 0])

    private init(uncheckedPassword: [UInt8], acknowledge: [UInt8]) {
        password = uncheckedPassword
        self.acknowledge = acknowledge
    }

    /// `NTAGPassword(redacted)`.
    public var description: String { "NTAGPassword(redacted)" }
    /// `NTAGPassword(redacted)`.
    public var debugDescription: String { description }
}

/// How a password protects an NTAG21x / Ultralight EV1 (CFG0 AUTH0, CFG1 ACCESS).
public struct NTAGProtection: Sendable, Hashable {
    /// AUTH0: the first page that needs the password; 4 protects all user memory (the NDEF area
    /// included) while leaving the capability container readable and unchanged, which phones need.
    public var firstProtectedPage: Int
    /// PROT: whether reading needs the password too. Off by default: phones then still read the
    /// NDEF message (they cannot authenticate), only writing is refused.
    public var readProtected: Bool
    /// AUTHLIM: wrong attempts after which PWD_AUTH is disabled for good (1…7), or 0 for no limit.
    public var authenticationLimit: Int

    /// Creates a protection.
    public init(firstProtectedPage: Int = 4, readProtected: Bool = false, authenticationLimit: Int = 0) {
        self.firstProtectedPage = firstProtectedPage
        self.readProtected = readProtected
        self.authenticationLimit = authenticationLimit
    }
}

/// CFG0 and CFG1 of an NTAG21x / Ultralight EV1, as READ returns them.
public struct Type2Configuration: Sendable, Hashable {
    /// ACCESS bit 7: reads need the password too.
    public static let protBit: UInt8 = NTAGAccess.readProtection
    /// ACCESS bit 6: CFG0/CFG1 are locked for good.
    public static let configurationLockBit: UInt8 = NTAGAccess.configurationLock
    /// ACCESS bits 2–0: AUTHLIM.
    public static let authenticationLimitMask: UInt8 = NTAGAccess.authenticationLimitMask

    /// CFG0: `MIRROR/MOD, RFUI, MIRROR_PAGE, AUTH0`.
    public var cfg0: [UInt8]
    /// CFG1: `ACCESS, …`.
    public var cfg1: [UInt8]

    /// AUTH0: the first page needing the password (past the end: no protection).
    public var auth0: Int { Int(cfg0[3]) }
    /// ACCESS.
    public var access: UInt8 { cfg1[0] }
    /// Whether reads of protected pages need the password.
    public var readProtected: Bool { access & Self.protBit != 0 }
    /// Whether CFGLCK froze the configuration.
    public var isLocked: Bool { access & Self.configurationLockBit != 0 }

    /// Decodes the 8 bytes at CFG0.
    /// - Throws: ``NFCTagError/Code/tagResponse`` when fewer than 8 bytes came.
    public init(bytes: [UInt8], page: Int) throws(NFCTagError) {
        guard bytes.count >= 8 else {
            throw NFCTagError(.tagResponse, at: page * 4 + bytes.count, "configuration pages answered \(bytes.count) bytes, not 8")
        }
        cfg0 = Array(bytes[0..<4])
        cfg1 = Array(bytes[4..<8])
    }

    /// Whether `page` needs the password to be written.
    public func protects(page: Int) -> Bool { page >= auth0 }
}
