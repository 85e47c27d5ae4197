public import NDEF

/// Whether a tag holds an NDEF area and what may be done with it, as CoreNFC's
/// `queryNDEFStatus` reports it (NFC Forum Type 2 Tag 1.2, 5.4 "NDEF Detection Procedure").
public enum NDEFStatus: String, Sendable, Hashable {
    /// No NDEF area: no capability container magic `E1`, an unknown major version, no NDEF TLV,
    /// or read access refused (CC3 upper nibble not 0).
    case notSupported
    /// NDEF readable and writable (CC3 lower nibble 0x0).
    case readWrite
    /// NDEF readable only (CC3 lower nibble 0xF, or any proprietary write access value).
    case readOnly
}

/// The answer to ``NFCNDEFTag/queryNDEFStatus()``: CoreNFC's `(status, capacity)` plus the length of
/// the message stored now.
public struct NDEFQuery: Sendable, Hashable {
    /// What the tag allows.
    public var status: NDEFStatus
    /// The longest NDEF message, in bytes, that ``Type2Tag/writeNDEF(_:verify:)`` can store
    /// (TLV overhead and reserved areas already taken off; 0 when not supported).
    public var capacity: Int
    /// The length of the NDEF message now stored (the NDEF TLV's L field); 0 for an empty tag.
    public var messageLength: Int

    /// Creates a query result.
    public init(status: NDEFStatus, capacity: Int, messageLength: Int) {
        self.status = status
        self.capacity = capacity
        self.messageLength = messageLength
    }
}

/// What one reading of a tag found: its NDEF status and, when it holds NDEF, the stored
/// message (``NFCNDEFTag/readNDEFWithStatus()``).
public struct NDEFReading: Sendable, Hashable {
    /// The status, capacity and stored length, as ``NFCNDEFTag/queryNDEFStatus()`` gives them.
    public var query: NDEFQuery
    /// The stored message; `nil` when the status is ``NDEFStatus/notSupported``.
    public var message: NDEFMessage?
    /// Why the status is ``NDEFStatus/notSupported``, when the tag says more than "no NDEF": a
    /// Type 2 capability container refusing read access (CC3, with its byte). Nil otherwise.
    public var notSupportedReason: NFCTagError?

    /// Creates a reading.
    public init(query: NDEFQuery, message: NDEFMessage?, notSupportedReason: NFCTagError? = nil) {
        self.query = query
        self.message = message
        self.notSupportedReason = notSupportedReason
    }
}
