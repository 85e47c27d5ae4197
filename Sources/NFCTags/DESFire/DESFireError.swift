import NFCCore

/// Why a MIFARE DESFire operation failed: a native status the chip answered, an answer that
/// does not parse, a failed authentication, or the transport underneath.
public struct DESFireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable name.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The chip answered a status other than success (``DESFireError/status``).
        case status
        /// The chip's answer has the wrong length or shape.
        case malformed
        /// The key was refused, or the chip's confirmation did not prove it holds the key.
        case authenticationFailed
        /// An argument out of range (a key length, a file size, a DF name).
        case invalidParameter
        /// libcrypto failed.
        case crypto
        /// The exchange failed below the chip (``DESFireError/underlying``).
        case transport
        /// Formatting found applications other than the NDEF one and was not forced.
        case holdsApplications
    }

    /// The stable code.
    public var code: Code
    /// The native status, for `status`.
    public var status: UInt8?
    /// A human reason.
    public var reason: String
    /// The transport failure, for `transport`.
    public var underlying: NFCTagError?

    /// Creates an error.
    public init(_ code: Code, status: UInt8? = nil, _ reason: String, underlying: NFCTagError? = nil) {
        self.code = code
        self.status = status
        self.reason = reason
        self.underlying = underlying
    }

    /// "reason [code]".
    public var description: String { "\(reason) [\(code.rawValue)]" }

    /// Whether the chip refused a key: `authenticationFailed`, or the status `AE` (a first
    /// frame refused, as for a key of another type).
    public var refusedKey: Bool {
        code == .authenticationFailed || (code == .status && status == DESFire.Status.authenticationError.rawValue)
    }

    /// The error as the NDEF operations report it: a transport failure as it was, a refused key
    /// as `authenticationFailed`, a permission or authentication status as `passwordRequired`,
    /// a full chip as `capacityExceeded`, the rest as `tagResponse`.
    public var tagError: NFCTagError {
        if let underlying { return underlying }
        switch code {
        case .authenticationFailed: return NFCTagError(.authenticationFailed, reason)
        case .invalidParameter: return NFCTagError(.invalidParameter, reason)
        case .holdsApplications: return NFCTagError(.alreadyFormatted, reason)
        case .status:
            switch status.map(DESFire.Status.init(rawValue:)) {
            case .authenticationError?: return NFCTagError(.authenticationFailed, reason)
            case .permissionDenied?: return NFCTagError(.passwordRequired, reason)
            case .outOfEEPROM?: return NFCTagError(.capacityExceeded, reason)
            default: return NFCTagError(.tagResponse, reason)
            }
        case .malformed, .crypto, .transport: return NFCTagError(.tagResponse, reason)
        }
    }
}
