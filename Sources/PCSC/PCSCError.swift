import NFCCore
/// A pcsc-lite return code other than `SCARD_S_SUCCESS`, with its PC/SC name
/// (`SCARD_E_NO_SMARTCARD`, `SCARD_W_REMOVED_CARD`…) and the call that returned it.
public struct PCSCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The return code as an unsigned 32-bit value (`0x8010000C`).
    public var code: UInt32
    /// The `SCard*` function that returned it (`dlopen` or `dlsym` when pcsc-lite itself could
    /// not be loaded).
    public var call: String
    /// What happened, in words, when the code alone does not say it: set when pcsc-lite cannot
    /// be loaded (code `SCARD_E_NO_SERVICE`), nil for a code pcsc-lite returned.
    public var detail: String?

    /// Creates an error.
    public init(code: UInt32, call: String, detail: String? = nil) {
        self.code = code
        self.call = call
        self.detail = detail
    }

    /// The card or reader went away (removed, reset, no card, reader unavailable), or an
    /// exchange with it broke off (`SCARD_E_NOT_TRANSACTED`: what a card taken away in the
    /// middle of an APDU gives).
    public var meansCardGone: Bool {
        [Self.noSmartcard, Self.removedCard, Self.resetCard, Self.unpoweredCard, Self.readerUnavailable, Self.unresponsiveCard, Self.notTransacted]
            .contains(code)
    }

    /// `SCARD_F_INTERNAL_ERROR`.
    public static let internalError: UInt32 = 0x8010_0001
    /// `SCARD_E_CANCELLED`.
    public static let cancelled: UInt32 = 0x8010_0002
    /// `SCARD_E_INVALID_HANDLE`.
    public static let invalidHandle: UInt32 = 0x8010_0003
    /// `SCARD_E_INVALID_PARAMETER`.
    public static let invalidParameter: UInt32 = 0x8010_0004
    /// `SCARD_E_NO_MEMORY`.
    public static let noMemory: UInt32 = 0x8010_0006
    /// `SCARD_E_INSUFFICIENT_BUFFER`.
    public static let insufficientBuffer: UInt32 = 0x8010_0008
    /// `SCARD_E_UNKNOWN_READER`.
    public static let unknownReader: UInt32 = 0x8010_0009
    /// `SCARD_E_TIMEOUT`.
    public static let timeout: UInt32 = 0x8010_000A
    /// `SCARD_E_SHARING_VIOLATION`.
    public static let sharingViolation: UInt32 = 0x8010_000B
    /// `SCARD_E_NO_SMARTCARD`.
    public static let noSmartcard: UInt32 = 0x8010_000C
    /// `SCARD_E_PROTO_MISMATCH`.
    public static let protocolMismatch: UInt32 = 0x8010_000F
    /// `SCARD_E_NOT_READY`.
    public static let notReady: UInt32 = 0x8010_0010
    /// `SCARD_E_INVALID_VALUE`.
    public static let invalidValue: UInt32 = 0x8010_0011
    /// `SCARD_F_COMM_ERROR`.
    public static let communicationError: UInt32 = 0x8010_0013
    /// `SCARD_E_NOT_TRANSACTED`.
    public static let notTransacted: UInt32 = 0x8010_0016
    /// `SCARD_E_READER_UNAVAILABLE`.
    public static let readerUnavailable: UInt32 = 0x8010_0017
    /// `SCARD_E_NO_SERVICE`: pcscd is not running.
    public static let noService: UInt32 = 0x8010_001D
    /// `SCARD_E_SERVICE_STOPPED`.
    public static let serviceStopped: UInt32 = 0x8010_001E
    /// `SCARD_E_NO_READERS_AVAILABLE`.
    public static let noReadersAvailable: UInt32 = 0x8010_002E
    /// `SCARD_E_UNSUPPORTED_FEATURE`.
    public static let unsupportedFeature: UInt32 = 0x8010_001F
    /// `SCARD_W_UNRESPONSIVE_CARD`.
    public static let unresponsiveCard: UInt32 = 0x8010_0066
    /// `SCARD_W_UNPOWERED_CARD`.
    public static let unpoweredCard: UInt32 = 0x8010_0067
    /// `SCARD_W_RESET_CARD`.
    public static let resetCard: UInt32 = 0x8010_0068
    /// `SCARD_W_REMOVED_CARD`.
    public static let removedCard: UInt32 = 0x8010_0069

    /// The PC/SC names of the codes above.
    static let names: [UInt32: String] = [
        internalError: "SCARD_F_INTERNAL_ERROR", cancelled: "SCARD_E_CANCELLED", invalidHandle: "SCARD_E_INVALID_HANDLE",
        invalidParameter: "SCARD_E_INVALID_PARAMETER", noMemory: "SCARD_E_NO_MEMORY",
        insufficientBuffer: "SCARD_E_INSUFFICIENT_BUFFER", unknownReader: "SCARD_E_UNKNOWN_READER", timeout: "SCARD_E_TIMEOUT",
        sharingViolation: "SCARD_E_SHARING_VIOLATION", noSmartcard: "SCARD_E_NO_SMARTCARD",
        protocolMismatch: "SCARD_E_PROTO_MISMATCH", notReady: "SCARD_E_NOT_READY", invalidValue: "SCARD_E_INVALID_VALUE",
        communicationError: "SCARD_F_COMM_ERROR", notTransacted: "SCARD_E_NOT_TRANSACTED",
        readerUnavailable: "SCARD_E_READER_UNAVAILABLE", noService: "SCARD_E_NO_SERVICE", serviceStopped: "SCARD_E_SERVICE_STOPPED",
        noReadersAvailable: "SCARD_E_NO_READERS_AVAILABLE", unsupportedFeature: "SCARD_E_UNSUPPORTED_FEATURE",
        unresponsiveCard: "SCARD_W_UNRESPONSIVE_CARD", unpoweredCard: "SCARD_W_UNPOWERED_CARD", resetCard: "SCARD_W_RESET_CARD",
        removedCard: "SCARD_W_REMOVED_CARD",
    ]

    /// The PC/SC name, or `0x…` for a code without one here.
    public var name: String { Self.names[code] ?? "0x" + Hex.number(code) }

    /// "SCardConnect: SCARD_E_NO_SMARTCARD", or the detail when there is one.
    public var description: String { detail ?? "\(call): \(name)" }
}
