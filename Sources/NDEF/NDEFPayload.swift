public import NFCCore

/// One NDEF record: a type name format, a type, an optional identifier and a payload.
///
/// Named after CoreNFC's `NFCNDEFPayload`. Chunked records are reassembled on decode, so a
/// value of this type is always a whole record. The typed builders
/// (``wellKnownTypeURIPayload(url:)``, ``wellKnownTypeTextPayload(string:locale:)``, …) make
/// records that follow their record type definitions; ``content()`` reads them back.
public struct NDEFPayload: Sendable, Hashable {
    /// How ``type`` is to be read.
    public var typeNameFormat: NDEFTypeNameFormat
    /// The record type (at most 255 bytes).
    public var type: Bytes
    /// The record identifier, often empty (at most 255 bytes).
    public var identifier: Bytes
    /// The payload.
    public var payload: Bytes

    /// Creates a record from its parts. Nothing is checked until the record is encoded.
    public init(format: NDEFTypeNameFormat, type: Bytes, identifier: Bytes = Bytes(), payload: Bytes) {
        self.typeNameFormat = format
        self.type = type
        self.identifier = identifier
        self.payload = payload
    }

    /// Creates a record whose type and identifier are given as text.
    public init(format: NDEFTypeNameFormat, type: String, identifier: String = "", payload: Bytes) {
        self.init(format: format, type: Bytes(utf8: type), identifier: Bytes(utf8: identifier), payload: payload)
    }

    /// The TNF-empty record; the message made of it alone encodes as `D0 00 00`.
    public static let empty = NDEFPayload(format: .empty, type: Bytes(), payload: Bytes())

    /// The type as text, if it is valid UTF-8.
    public var typeString: String? {
        if case .success(let s) = UnicodeValidation.decodeUTF8(type) { return s }
        return nil
    }

    /// Whether this record has the given TNF and type. External types (TNF 0x04) and
    /// media types (TNF 0x02) compare case-insensitively, as NDEF and RFC 2045 require.
    public func hasType(_ format: NDEFTypeNameFormat, _ name: String) -> Bool {
        guard typeNameFormat == format, type.count == name.utf8.count else { return false }
        switch format {
        case .nfcExternal, .media:
            return zip(type, name.utf8).allSatisfy { asciiLower($0) == asciiLower($1) }
        default:
            return type.elementsEqual(name.utf8)
        }
    }

    /// Checks the rules of NDEF 1.0 that a single record must meet to be encoded.
    /// - Throws: ``NDEFError`` with code `emptyRecordNotEmpty`, `unexpectedType`, `missingType`,
    ///   `unchangedOutsideChunk` or `fieldTooLong`.
    public func validate() throws(NDEFError) {
        switch typeNameFormat {
        case .empty:
            guard type.isEmpty, identifier.isEmpty, payload.isEmpty else {
                throw NDEFError(.emptyRecordNotEmpty, "a TNF-empty record must have no type, ID or payload")
            }
        case .unknown:
            guard type.isEmpty else { throw NDEFError(.unexpectedType, "a TNF-unknown record must have no type") }
        case .unchanged:
            throw NDEFError(.unchangedOutsideChunk, "TNF unchanged is only for chunks, which the encoder makes itself")
        case .nfcWellKnown, .media, .absoluteURI, .nfcExternal:
            guard !type.isEmpty else {
                throw NDEFError(.missingType, "a \(typeNameFormat.name) record needs a type")
            }
        }
        guard type.count <= 255 else { throw NDEFError(.fieldTooLong, "type is \(type.count) bytes; at most 255") }
        guard identifier.count <= 255 else {
            throw NDEFError(.fieldTooLong, "ID is \(identifier.count) bytes; at most 255")
        }
        guard UInt64(payload.count) <= UInt64(UInt32.max) else {
            throw NDEFError(.fieldTooLong, "payload is \(payload.count) bytes; at most 4294967295")
        }
    }
}

/// Alias for readers who think in records rather than CoreNFC's payloads.
public typealias NDEFRecord = NDEFPayload

@inline(__always)
func asciiLower(_ c: UInt8) -> UInt8 {
    (c >= 0x41 && c <= 0x5A) ? c | 0x20 : c
}
