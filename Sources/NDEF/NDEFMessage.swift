public import NFCCore

/// An NDEF message: the ordered records that a tag holds or a reader exchanges.
///
/// Named after CoreNFC's `NFCNDEFMessage`. Decode with ``init(bytes:)`` (strict) or
/// ``decodeLeniently(_:)`` (for damaged tags in the wild); encode with ``encoded(chunkSize:)``.
public struct NDEFMessage: Sendable, Hashable {
    /// The records, in order.
    public var records: [NDEFPayload]

    /// Creates a message from records.
    public init(records: [NDEFPayload]) { self.records = records }

    /// The empty NDEF message: one TNF-empty record, encoded `D0 00 00`.
    public static let empty = NDEFMessage(records: [.empty])

    /// Whether the message carries nothing: no records, or only TNF-empty ones.
    public var isEmpty: Bool { records.allSatisfy { $0.typeNameFormat == .empty } }

    /// Decodes a message strictly; the records share storage with `bytes` (no payload is copied).
    /// - Throws: ``NDEFError`` at the first rule of NDEF 1.0 the bytes break, with its offset.
    public init(bytes: Bytes) throws(NDEFError) {
        if let records = NDEFDecoder.decodeWellFormed(bytes) {
            self.records = records
            return
        }
        var decoder = NDEFDecoder(bytes, strict: true)
        let outcome = decoder.run()
        if let problem = outcome.problems.first { throw problem }
        self.records = outcome.records
    }

    /// Decodes a message strictly from a copy of `bytes`.
    /// - Throws: ``NDEFError`` at the first rule of NDEF 1.0 the bytes break, with its offset.
    public init(bytes: [UInt8]) throws(NDEFError) {
        try self.init(bytes: Bytes(bytes))
    }

    /// Decodes a message strictly from a copy of `bytes`.
    /// - Throws: ``NDEFError`` at the first rule of NDEF 1.0 the bytes break, with its offset.
    public init(bytes: ArraySlice<UInt8>) throws(NDEFError) {
        try self.init(bytes: Bytes(bytes))
    }

    /// Decodes what can be decoded of damaged bytes: every record that could be read, and a
    /// warning for each rule broken. Never fails; the records may be none.
    public static func decodeLeniently(_ bytes: Bytes) -> LenientDecoding {
        var decoder = NDEFDecoder(bytes, strict: false)
        let outcome = decoder.run()
        return LenientDecoding(message: NDEFMessage(records: outcome.records), warnings: outcome.problems)
    }

    /// Decodes what can be decoded of damaged bytes.
    public static func decodeLeniently(_ bytes: [UInt8]) -> LenientDecoding {
        decodeLeniently(Bytes(bytes))
    }

    /// The result of ``decodeLeniently(_:)``.
    public struct LenientDecoding: Sendable, Hashable {
        /// The records that could be read, in order.
        public var message: NDEFMessage
        /// Each rule the bytes broke, in the order found; empty when the bytes were valid.
        public var warnings: [NDEFError]
    }

    /// The number of bytes ``encoded(chunkSize:)`` produces without chunking.
    public var length: Int {
        if records.isEmpty { return 3 }
        var total = 0
        for record in records { total += record.encodedLength }
        return total
    }

    /// Encodes the message per NDEF 1.0: MB on the first record, ME on the last, short records
    /// (SR) where the payload is under 256 bytes, IL where there is an ID.
    ///
    /// - Parameter chunkSize: when given, every record whose payload is longer is split into
    ///   chunks of at most this many payload bytes (CF set, later chunks TNF unchanged).
    /// - Returns: the bytes; a message without records encodes as the empty message `D0 00 00`.
    /// - Throws: ``NDEFError`` when a record breaks a rule of ``NDEFPayload/validate()``, or
    ///   `invalidValue` for a chunk size below 1.
    public func encoded(chunkSize: Int? = nil) throws(NDEFError) -> [UInt8] {
        if records.isEmpty { return [0xD0, 0x00, 0x00] }
        if let chunkSize, chunkSize < 1 {
            throw NDEFError(.invalidValue, "chunk size must be at least 1, not \(chunkSize)")
        }
        // Check every record first: nothing is produced for a message with a bad record.
        var total = 0
        for index in records.indices {
            do {
                try records[index].validate()
            } catch {
                throw NDEFError(error.code, error.reason + " (record \(index + 1))")
            }
            total += records[index].encodedLength
        }
        if chunkSize == nil {
            // The common case: every record whole, written once into a buffer of the exact size.
            return records.withUnsafeBufferPointer { records in
                [UInt8](unsafeUninitializedCapacity: total) { out, initialized in
                    var at = 0
                    for index in 0..<records.count {
                        records[index].write(into: out, at: &at, first: index == 0, last: index == records.count - 1)
                    }
                    initialized = at
                }
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(total + 8)
        let last = records.count - 1
        for index in records.indices {
            records[index].append(to: &out, first: index == 0, last: index == last, chunkSize: chunkSize)
        }
        return out
    }
}

extension NDEFMessage: ExpressibleByArrayLiteral {
    /// `let message: NDEFMessage = [uriRecord, textRecord]`
    public init(arrayLiteral elements: NDEFPayload...) { self.init(records: elements) }
}

// MARK: - Record encoding

/// Header flag bits of NDEF 1.0 section 3.2.
enum NDEFFlag {
    static let messageBegin: UInt8 = 0x80  // MB
    static let messageEnd: UInt8 = 0x40  // ME
    static let chunk: UInt8 = 0x20  // CF
    static let shortRecord: UInt8 = 0x10  // SR
    static let idLength: UInt8 = 0x08  // IL
    static let tnfMask: UInt8 = 0x07
}

extension NDEFPayload {
    /// Encoded size of this record as one unchunked record.
    var encodedLength: Int {
        let payloadCount = storage.count - typeLength - identifierLength
        return 2 + (payloadCount < 256 ? 1 : 4) + (identifierLength == 0 ? 0 : 1) + storage.count
    }

    /// Writes this record, already validated, unchunked, at `at` (advanced past it). `out` has
    /// room: the caller sized it from ``encodedLength``.
    @inline(__always)
    func write(into out: UnsafeMutableBufferPointer<UInt8>, at: inout Int, first: Bool, last: Bool) {
        let payloadCount = storage.count &- typeLength &- identifierLength
        let short = payloadCount < 256
        var header = (first ? NDEFFlag.messageBegin : 0) | (last ? NDEFFlag.messageEnd : 0) | typeNameFormat.rawValue
        if short { header |= NDEFFlag.shortRecord }
        if identifierLength != 0 { header |= NDEFFlag.idLength }
        out[at] = header
        out[at &+ 1] = UInt8(truncatingIfNeeded: typeLength)
        at &+= 2
        if short {
            out[at] = UInt8(truncatingIfNeeded: payloadCount)
            at &+= 1
        } else {
            out[at] = UInt8(truncatingIfNeeded: payloadCount >> 24)
            out[at &+ 1] = UInt8(truncatingIfNeeded: payloadCount >> 16)
            out[at &+ 2] = UInt8(truncatingIfNeeded: payloadCount >> 8)
            out[at &+ 3] = UInt8(truncatingIfNeeded: payloadCount)
            at &+= 4
        }
        if identifierLength != 0 {
            out[at] = UInt8(truncatingIfNeeded: identifierLength)
            at &+= 1
        }
        storage.withUnsafeBytes { body in
            if body.count > 0 {
                UnsafeMutableRawPointer(out.baseAddress! + at).copyMemory(from: body.baseAddress!, byteCount: body.count)
            }
        }
        at &+= storage.count
    }

    /// Encodes this record, already validated, as one record or as chunks.
    func append(to out: inout [UInt8], first: Bool, last: Bool, chunkSize: Int?) {
        let payloadCount = storage.count - typeLength - identifierLength
        if let chunkSize, payloadCount > chunkSize {
            var start = 0
            var chunkIndex = 0
            while start < payload.count {
                let end = min(start + chunkSize, payload.count)
                let isFinal = end == payload.count
                appendRecord(
                    to: &out,
                    flags: (first && chunkIndex == 0 ? NDEFFlag.messageBegin : 0)
                        | (last && isFinal ? NDEFFlag.messageEnd : 0)
                        | (isFinal ? 0 : NDEFFlag.chunk),
                    tnf: chunkIndex == 0 ? typeNameFormat.rawValue : NDEFTypeNameFormat.unchanged.rawValue,
                    type: chunkIndex == 0 ? type : Bytes(),
                    identifier: chunkIndex == 0 ? identifier : Bytes(),
                    payload: payload[start..<end])
                start = end
                chunkIndex += 1
            }
        } else {
            // One record: the header, then type, ID and payload straight from storage.
            let short = payloadCount < 256
            var header = (first ? NDEFFlag.messageBegin : 0) | (last ? NDEFFlag.messageEnd : 0) | typeNameFormat.rawValue
            if short { header |= NDEFFlag.shortRecord }
            if identifierLength != 0 { header |= NDEFFlag.idLength }
            out.append(header)
            out.append(UInt8(truncatingIfNeeded: typeLength))
            if short {
                out.append(UInt8(truncatingIfNeeded: payloadCount))
            } else {
                out.appendUInt32BE(UInt32(truncatingIfNeeded: payloadCount))
            }
            if identifierLength != 0 { out.append(UInt8(truncatingIfNeeded: identifierLength)) }
            out.append(contentsOf: storage)
        }
    }
}

@inline(__always)
private func appendRecord(
    to out: inout [UInt8], flags: UInt8, tnf: UInt8, type: Bytes, identifier: Bytes, payload: Bytes
) {
    let short = payload.count < 256
    var header = flags | tnf
    if short { header |= NDEFFlag.shortRecord }
    if !identifier.isEmpty { header |= NDEFFlag.idLength }
    out.append(header)
    out.append(UInt8(truncatingIfNeeded: type.count))
    if short {
        out.append(UInt8(truncatingIfNeeded: payload.count))
    } else {
        out.appendUInt32BE(UInt32(truncatingIfNeeded: payload.count))
    }
    if !identifier.isEmpty { out.append(UInt8(truncatingIfNeeded: identifier.count)) }
    out.append(contentsOf: type)
    out.append(contentsOf: identifier)
    out.append(contentsOf: payload)
}
