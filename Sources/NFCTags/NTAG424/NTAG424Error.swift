import NFCCore

/// NTAG 424 DNA's native status codes: the ones MIFARE DESFire shares (``NXPNativeStatus``).
public typealias NTAG424Status = NXPNativeStatus

/// Why an NTAG 424 DNA operation failed: a status the chip answered, a response that does not
/// verify or parse, or a transport failure; or why SDM data (a SUN URL, a `{sun:…}` template, a
/// keys file, PICC data, a file layout) could not be made or checked. ``code`` is stable;
/// ``reason`` names the command and, for a status, its status word; ``offset`` is the byte of the
/// response (or encoded structure) at fault, or for SDM data the place in the input (a character
/// in a URL or text, a byte in a file, a line of a keys file), when there is one. ``subject``
/// tells the two kinds apart.
public struct NTAG424Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The chip answered a status other than OPERATION_OK; ``NTAG424Error/status`` holds it.
        case status
        /// Authentication failed on the host side: the chip's answer did not prove the key
        /// (RndA' differs), or the chip answered `91 AE`.
        case authenticationFailed
        /// A response MAC did not verify, or a decrypted response had no valid padding.
        case integrity
        /// A response or structure of the wrong shape (length, fields); ``NTAG424Error/offset``
        /// points at the byte.
        case malformed
        /// A parameter out of range on the host side (a key of the wrong length, a file
        /// offset past the end); nothing was sent.
        case invalidParameter
        /// A command needing an authenticated session was asked for without one; nothing sent.
        case notAuthenticated
        /// The chip is not an NTAG 424 DNA (or does not answer as one).
        case notSupported
        /// The reader or the tag failed underneath (lost, timeout).
        case transport
        /// The cryptographic library failed.
        case crypto

        // SDM data (``Subject/sdmData``): a SUN URL, a template, a keys file, PICC data.

        /// Text that should be hex is not (a non-hex character, an odd count).
        case invalidHex
        /// A value of the wrong length (PICC data, MAC, UID, counter, key).
        case invalidLength
        /// A key that is missing or not 16 bytes.
        case invalidKey
        /// Decrypted PICC data that no chip produces (reserved bits, a UID length other than
        /// 7): the wrong SDMMetaReadKey, or altered data.
        case unsupportedPICCData
        /// The SDMMAC does not match: altered data or the wrong SDMFileReadKey.
        case macMismatch
        /// A URL without a parameter verification needs.
        case missingParameter
        /// A parameter that occurs more than once.
        case duplicateParameter
        /// A `{sun:…}` placeholder that is unknown, repeated, or missing its partner.
        case invalidPlaceholder
        /// Offsets the chip would refuse (outside the file, overlapping, out of order).
        case illegalLayout
        /// The read counter is at its limit.
        case counterExhausted
        /// The message cannot be encoded (NDEF refused it).
        case invalidMessage

        /// Whether the code is about SDM data only (every code from ``invalidHex`` on);
        /// ``crypto`` is shared by both subjects.
        public var isSDMData: Bool {
            switch self {
            case .status, .authenticationFailed, .integrity, .malformed, .invalidParameter, .notAuthenticated, .notSupported, .transport, .crypto:
                false
            case .invalidHex, .invalidLength, .invalidKey, .unsupportedPICCData, .macMismatch, .missingParameter, .duplicateParameter,
                .invalidPlaceholder, .illegalLayout, .counterExhausted, .invalidMessage:
                true
            }
        }
    }

    /// What an error is about, which also decides how ``description`` reads.
    public enum Subject: Sendable, Hashable {
        /// An exchange with the chip or its encoded structures: `reason at offset N [code]`.
        case chip
        /// SDM data on the host (a SUN URL, a template, a keys file, PICC data, a layout):
        /// `code at offset N: reason`, as `nfctool sun verify` and `ntag424 setup` print it.
        case sdmData
    }

    /// The stable code.
    public var code: Code
    /// The chip's status, for ``Code/status`` and ``Code/authenticationFailed`` from the chip.
    public var status: NTAG424Status?
    /// A sentence for people.
    public var reason: String
    /// The byte at fault, when there is one.
    public var offset: Int?
    /// The tag-layer error underneath a ``Code/transport`` failure.
    public var underlying: NFCTagError?
    /// What the error is about: the chip, or SDM data.
    public var subject: Subject

    /// Creates an error; its ``subject`` is ``Subject/sdmData`` for an SDM code
    /// (``Code/isSDMData``), else ``Subject/chip``.
    public init(_ code: Code, status: NTAG424Status? = nil, at offset: Int? = nil, _ reason: String, underlying: NFCTagError? = nil) {
        self.code = code
        self.status = status
        self.reason = reason
        self.offset = offset
        self.underlying = underlying
        self.subject = code.isSDMData ? .sdmData : .chip
    }

    /// Creates an error about SDM data, whatever its code (``Code/crypto`` is shared).
    public init(sdmData code: Code, at offset: Int? = nil, _ reason: String) {
        self.init(code, at: offset, reason)
        subject = .sdmData
    }

    /// About the chip: `reason [code]`, with the offset when known. About SDM data:
    /// `code at offset N: reason`, or `code: reason`.
    public var description: String {
        switch subject {
        case .chip:
            if let offset { return "\(reason) at offset \(offset) [\(code.rawValue)]" }
            return "\(reason) [\(code.rawValue)]"
        case .sdmData:
            if let offset { return "\(code.rawValue) at offset \(offset): \(reason)" }
            return "\(code.rawValue): \(reason)"
        }
    }

    /// The same failure as an ``NFCTagError`` for callers that match the tag layer's codes:
    /// statuses of refused access → `authenticationFailed` / `readOnly`, integrity →
    /// `tagResponse`, transport → the underlying error; SDM data at fault → `invalidParameter`,
    /// its reason the whole ``description``.
    public var tagError: NFCTagError {
        if let underlying { return underlying }
        if subject == .sdmData { return NFCTagError(.invalidParameter, description) }
        switch code {
        case .authenticationFailed: return NFCTagError(.authenticationFailed, at: offset, reason)
        case .status where status == .authenticationError: return NFCTagError(.passwordRequired, at: offset, reason)
        case .status where status == .permissionDenied: return NFCTagError(.passwordRequired, at: offset, reason)
        case .status, .integrity, .malformed, .crypto, .transport: return NFCTagError(.tagResponse, at: offset, reason)
        case .invalidParameter: return NFCTagError(.invalidParameter, at: offset, reason)
        case .notAuthenticated: return NFCTagError(.passwordRequired, at: offset, reason)
        case .notSupported: return NFCTagError(.notSupported, at: offset, reason)
        case .invalidHex, .invalidLength, .invalidKey, .unsupportedPICCData, .macMismatch, .missingParameter, .duplicateParameter,
            .invalidPlaceholder, .illegalLayout, .counterExhausted, .invalidMessage:
            return NFCTagError(.invalidParameter, description)
        }
    }
}
