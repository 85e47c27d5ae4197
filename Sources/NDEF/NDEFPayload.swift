public import NFCCore

/// One NDEF record: a type name format, a type, an optional identifier and a payload.
///
/// Named after CoreNFC's `NFCNDEFPayload`. Chunked records are reassembled on decode, so a
/// value of this type is always a whole record. The typed builders
/// (``wellKnownTypeURIPayload(url:)``, ``wellKnownTypeTextPayload(string:locale:)``, …) make
/// records that follow their record type definitions; ``content()`` reads them back.
public struct NDEFPayload: Sendable {
    /// How ``type`` is to be read.
    public var typeNameFormat: NDEFTypeNameFormat
    /// The record's type, identifier and payload, one after the other, as NDEF lays them out:
    /// a decoded record shares this with the bytes it came from, and a record costs one
    /// reference however many of its fields it has.
    @usableFromInline
    internal var storage: Bytes
    /// Length of the type at the start of ``storage``.
    @usableFromInline
    internal var typeLength: Int
    /// Length of the identifier after the type.
    @usableFromInline
    internal var identifierLength: Int

    /// The record type (at most 255 bytes).
    public var type: Bytes {
        @inlinable get { storage[0..<typeLength] }
        set { self = NDEFPayload(format: typeNameFormat, type: newValue, identifier: identifier, payload: payload) }
    }

    /// The record identifier, often empty (at most 255 bytes).
    public var identifier: Bytes {
        @inlinable get { storage[typeLength..<(typeLength &+ identifierLength)] }
        set { self = NDEFPayload(format: typeNameFormat, type: type, identifier: newValue, payload: payload) }
    }

    /// The payload.
    public var payload: Bytes {
        @inlinable get { storage[(typeLength &+ identifierLength)..<storage.count] }
        set { self = NDEFPayload(format: typeNameFormat, type: type, identifier: identifier, payload: newValue) }
    }

    /// Creates a record from its parts. Nothing is checked until the record is encoded.
    public init(format: NDEFTypeNameFormat, type: Bytes, identifier: Bytes = Bytes(), payload: Bytes) {
        self.typeNameFormat = format
        self.typeLength = type.count
        self.identifierLength = identifier.count
        if type.isEmpty && identifier.isEmpty {
            storage = payload  // shared, not copied
        } else {
            storage = Bytes(count: type.count + identifier.count + payload.count) { out in
                let raw = UnsafeMutableRawBufferPointer(out)
                var at = 0
                func put(_ part: Bytes) {
                    part.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: raw[at..<(at + $0.count)]).copyMemory(from: $0) }
                    at += part.count
                }
                put(type)
                put(identifier)
                put(payload)
            }
        }
    }

    /// Creates a record whose type and identifier are given as text.
    public init(format: NDEFTypeNameFormat, type: String, identifier: String = "", payload: Bytes) {
        self.typeNameFormat = format
        var type = type, identifier = identifier
        let typeCount = type.utf8.count, idCount = identifier.utf8.count
        self.typeLength = typeCount
        self.identifierLength = idCount
        storage = Bytes(count: typeCount + idCount + payload.count) { out in
            let raw = UnsafeMutableRawBufferPointer(out)
            type.withUTF8 { UnsafeMutableRawBufferPointer(rebasing: raw[0..<typeCount]).copyMemory(from: UnsafeRawBufferPointer($0)) }
            identifier.withUTF8 {
                UnsafeMutableRawBufferPointer(rebasing: raw[typeCount..<(typeCount + idCount)]).copyMemory(from: UnsafeRawBufferPointer($0))
            }
            payload.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: raw[(typeCount + idCount)...]).copyMemory(from: $0) }
        }
    }

    /// A record over storage already laid out as type ‖ identifier ‖ payload.
    @usableFromInline
    internal init(format: NDEFTypeNameFormat, storage: Bytes, typeLength: Int, identifierLength: Int) {
        self.typeNameFormat = format
        self.storage = storage
        self.typeLength = typeLength
        self.identifierLength = identifierLength
    }

    /// Builds a record of a one- or two-letter well-known type whose payload is written by
    /// `body` into a buffer of exactly `payloadCount` bytes: one allocation for the whole record.
    static func wellKnown(_ type: StaticString, payloadCount: Int,
                          _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> NDEFPayload {
        let typeCount = type.utf8CodeUnitCount
        let bytes = Bytes(count: typeCount + payloadCount) { out in
            for i in 0..<typeCount { out[i] = type.utf8Start[i] }
            body(UnsafeMutableBufferPointer(rebasing: out[typeCount...]))
        }
        return NDEFPayload(format: .nfcWellKnown, storage: bytes, typeLength: typeCount, identifierLength: 0)
    }

    /// Calls `body` with the payload's bytes in memory (without building a ``Bytes``).
    @inlinable
    func withPayloadBuffer<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        storage.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(rebasing: all[(typeLength &+ identifierLength)...]))
        }
    }

    /// Whether the type is exactly these bytes (without building a ``Bytes``).
    @inlinable
    func typeIs(_ a: UInt8) -> Bool { typeLength == 1 && storage[0] == a }

    /// Whether the type is exactly these two bytes.
    @inlinable
    func typeIs(_ a: UInt8, _ b: UInt8) -> Bool {
        typeLength == 2 && storage[0] == a && storage[1] == b
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
        guard typeNameFormat == format, typeLength == name.utf8.count else { return false }
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
        let payloadCount = storage.count - typeLength - identifierLength
        switch typeNameFormat {
        case .empty:
            guard storage.isEmpty else {
                throw NDEFError(.emptyRecordNotEmpty, "a TNF-empty record must have no type, ID or payload")
            }
        case .unknown:
            guard typeLength == 0 else { throw NDEFError(.unexpectedType, "a TNF-unknown record must have no type") }
        case .unchanged:
            throw NDEFError(.unchangedOutsideChunk, "TNF unchanged is only for chunks, which the encoder makes itself")
        case .nfcWellKnown, .media, .absoluteURI, .nfcExternal:
            guard typeLength != 0 else {
                throw NDEFError(.missingType, "a \(typeNameFormat.name) record needs a type")
            }
        }
        guard typeLength <= 255 else { throw NDEFError(.fieldTooLong, "type is \(typeLength) bytes; at most 255") }
        guard identifierLength <= 255 else {
            throw NDEFError(.fieldTooLong, "ID is \(identifierLength) bytes; at most 255")
        }
        guard UInt64(payloadCount) <= UInt64(UInt32.max) else {
            throw NDEFError(.fieldTooLong, "payload is \(payloadCount) bytes; at most 4294967295")
        }
    }
}

extension NDEFPayload: Hashable {
    /// Records are equal when their TNF, type, identifier and payload are equal, wherever
    /// their bytes are stored.
    public static func == (lhs: NDEFPayload, rhs: NDEFPayload) -> Bool {
        lhs.typeNameFormat == rhs.typeNameFormat && lhs.typeLength == rhs.typeLength
            && lhs.identifierLength == rhs.identifierLength && lhs.storage == rhs.storage
    }

    /// Hashes the TNF and the bytes of each field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(typeNameFormat)
        hasher.combine(typeLength)
        hasher.combine(identifierLength)
        hasher.combine(storage)
    }
}

/// Alias for readers who think in records rather than CoreNFC's payloads.
public typealias NDEFRecord = NDEFPayload

@inline(__always)
func asciiLower(_ c: UInt8) -> UInt8 {
    (c >= 0x41 && c <= 0x5A) ? c | 0x20 : c
}
