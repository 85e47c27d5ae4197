import NFCCore

/// The one NDEF 1.0 message decoder behind strict and lenient decoding.
///
/// Strict mode stops at the first broken rule; lenient mode records it as a warning and goes
/// on where the bytes still make sense. Lengths are checked against what is left before any
/// slice is taken, so no input can make it trap or allocate more than the input's size.
struct NDEFDecoder {
    private var cursor: ByteCursor
    private let strict: Bool
    private(set) var records: [NDEFPayload] = []
    private(set) var problems: [NDEFError] = []

    init(_ bytes: Bytes, strict: Bool) {
        self.cursor = ByteCursor(bytes)
        self.strict = strict
    }

    /// A chunked record being reassembled.
    private struct OpenChunk {
        var format: NDEFTypeNameFormat
        var type: Bytes
        var identifier: Bytes
        var parts: [Bytes]
        var headerOffset: Int
    }

    /// Notes a problem. Returns `true` when decoding must stop (always, in strict mode).
    private mutating func problem(_ code: NDEFError.Code, at offset: Int, _ reason: String) -> Bool {
        problems.append(NDEFError(code, at: offset, reason))
        return strict
    }

    mutating func run() -> (records: [NDEFPayload], problems: [NDEFError]) {
        if cursor.isAtEnd {
            problems.append(NDEFError(.emptyInput, at: 0, "no bytes: an NDEF message has at least one record"))
            return (records, problems)
        }
        records.reserveCapacity(cursor.buffer.withUnsafeBufferPointer { Self.countHeaders($0) })
        var chunk: OpenChunk? = nil
        var recordIndex = 0
        var sawEnd = false

        while !cursor.isAtEnd {
            let headerOffset = cursor.offset
            if sawEnd {
                _ = problem(.trailingBytes, at: headerOffset,
                            "\(cursor.remaining) byte(s) after the record with ME (message end)")
                return (records, problems)
            }
            guard let header = cursor.readUInt8() else { break }
            let messageBegin = header & NDEFFlag.messageBegin != 0
            let messageEnd = header & NDEFFlag.messageEnd != 0
            let chunkFlag = header & NDEFFlag.chunk != 0
            let short = header & NDEFFlag.shortRecord != 0
            let hasID = header & NDEFFlag.idLength != 0
            let tnfBits = header & NDEFFlag.tnfMask

            if recordIndex == 0 && !messageBegin {
                if problem(.missingMessageBegin, at: headerOffset, "the first record lacks the MB flag") { break }
            } else if recordIndex > 0 && messageBegin {
                if problem(.messageBeginTwice, at: headerOffset,
                           "record \(recordIndex + 1) has the MB flag; only the first may") { break }
            }
            recordIndex += 1

            // Header lengths.
            guard let typeLength = cursor.readUInt8() else {
                _ = problem(.truncatedHeader, at: cursor.offset, "type length byte missing")
                break
            }
            let payloadLengthOffset = cursor.offset
            let payloadLength: Int
            if short {
                guard let l = cursor.readUInt8() else {
                    _ = problem(.truncatedHeader, at: payloadLengthOffset, "payload length byte missing (SR set)")
                    break
                }
                payloadLength = Int(l)
            } else {
                guard let l = cursor.readUInt32BE() else {
                    _ = problem(.truncatedHeader, at: payloadLengthOffset,
                                "4-byte payload length cut short (SR clear), \(cursor.remaining) byte(s) left")
                    break
                }
                payloadLength = Int(l)
            }
            var idLength = 0
            if hasID {
                guard let l = cursor.readUInt8() else {
                    _ = problem(.truncatedHeader, at: cursor.offset, "ID length byte missing (IL set)")
                    break
                }
                idLength = Int(l)
            }
            let bodyOffset = cursor.offset
            let needed = Int(typeLength) + idLength + payloadLength
            guard needed <= cursor.remaining else {
                _ = problem(.lengthPastEnd, at: payloadLengthOffset,
                            "type \(typeLength) + ID \(idLength) + payload \(payloadLength) bytes run past the end: only \(cursor.remaining) byte(s) left at byte \(bodyOffset)")
                break
            }
            // Cannot fail: checked above. Type, ID and payload stay one slice of the input.
            let body = cursor.readBytes(needed) ?? Bytes()
            let typeLengthInt = Int(typeLength)

            // TNF rules.
            var format: NDEFTypeNameFormat
            if let f = NDEFTypeNameFormat(rawValue: tnfBits) {
                format = f
            } else {
                if problem(.reservedTypeNameFormat, at: headerOffset, "TNF 0x07 is reserved; read as unknown") { break }
                format = .unknown
            }
            switch format {
            case .empty:
                if typeLength != 0 || idLength != 0 || payloadLength != 0 {
                    if problem(.emptyRecordNotEmpty, at: headerOffset,
                               "TNF empty with type \(typeLength), ID \(idLength), payload \(payloadLength) bytes") { break }
                }
            case .unknown:
                if typeLength != 0 {
                    if problem(.unexpectedType, at: headerOffset, "TNF unknown with a \(typeLength)-byte type") { break }
                }
            case .unchanged:
                if typeLength != 0 {
                    if problem(.unexpectedType, at: headerOffset, "TNF unchanged with a \(typeLength)-byte type") { break }
                }
            case .nfcWellKnown, .media, .absoluteURI, .nfcExternal:
                if typeLength == 0 {
                    if problem(.missingType, at: headerOffset, "\(format.name) record without a type") { break }
                }
            }
            if strict && !problems.isEmpty { break }

            // Chunks (NDEF 1.0 section 2.3.3).
            if var open = chunk {
                if format != .unchanged {
                    if problem(.badChunkSequence, at: headerOffset,
                               "a middle or terminating chunk must have TNF unchanged, found \(format.name)") { break }
                    chunk = nil
                    // Lenient: treat this record as a fresh one below.
                } else {
                    if hasID {
                        if problem(.badChunkSequence, at: headerOffset, "only the first chunk may carry an ID") { break }
                    }
                    open.parts.append(body[from: typeLengthInt + idLength])
                    if chunkFlag {
                        if messageEnd {
                            if problem(.badChunkSequence, at: headerOffset, "ME set inside a chunked record") { break }
                            sawEnd = true
                        }
                        chunk = open
                    } else {
                        // Type, ID and the joined payload in one buffer, as a record stores them.
                        let pieces = [open.type, open.identifier] + open.parts
                        let joined = Bytes(count: pieces.reduce(0) { $0 + $1.count }) { out in
                            var at = 0
                            for piece in pieces {
                                piece.withUnsafeBufferPointer { src in
                                    for k in 0..<src.count { out[at + k] = src[k] }
                                }
                                at += piece.count
                            }
                        }
                        records.append(NDEFPayload(format: open.format, storage: joined,
                                                   typeLength: open.type.count, identifierLength: open.identifier.count))
                        chunk = nil
                        if messageEnd { sawEnd = true }
                    }
                    continue
                }
            }
            if format == .unchanged {
                if problem(.unchangedOutsideChunk, at: headerOffset, "TNF unchanged outside a chunked record") { break }
                if messageEnd { sawEnd = true }
                continue
            }
            if chunkFlag {
                if messageEnd {
                    if problem(.badChunkSequence, at: headerOffset, "ME set on the first chunk of a chunked record") { break }
                }
                let payloadStart = typeLengthInt + idLength
                chunk = OpenChunk(format: format, type: body[0..<typeLengthInt],
                                  identifier: body[typeLengthInt..<payloadStart],
                                  parts: [body[from: payloadStart]], headerOffset: headerOffset)
                if messageEnd { sawEnd = true }
                continue
            }
            records.append(NDEFPayload(format: format, storage: body, typeLength: typeLengthInt, identifierLength: idLength))
            if messageEnd { sawEnd = true }
        }

        if strict && !problems.isEmpty { return (records, problems) }
        if let open = chunk {
            _ = problem(.badChunkSequence, at: open.headerOffset, "chunked record never terminated")
        } else if !sawEnd && !stoppedEarly {
            _ = problem(.missingMessageEnd, at: cursor.offset, "the bytes end without a record with ME (message end)")
        }
        return (records, problems)
    }

    /// One record header read straight from memory.
    struct RawHeader {
        /// The flags and TNF byte.
        var flags: UInt8
        var typeLength: Int
        var idLength: Int
        var payloadLength: Int
        /// Where the type starts (the ID and payload follow it).
        var bodyStart: Int
        /// Just past the payload.
        var end: Int
    }

    /// Reads the header at `i`, or `nil` when its length fields are cut short. Whether the
    /// body fits is left to the caller (`end` may lie past the bytes).
    @inline(__always)
    static func rawHeader(_ p: UnsafeBufferPointer<UInt8>, at i: Int) -> RawHeader? {
        let count = p.count
        guard i + 3 <= count else { return nil }
        let flags = p[i]
        let typeLength = Int(p[i + 1])
        var j = i + 2
        let payloadLength: Int
        if flags & NDEFFlag.shortRecord != 0 {
            payloadLength = Int(p[j])
            j += 1
        } else {
            guard j + 4 <= count else { return nil }
            payloadLength = Int(p[j]) << 24 | Int(p[j + 1]) << 16 | Int(p[j + 2]) << 8 | Int(p[j + 3])
            j += 4
        }
        var idLength = 0
        if flags & NDEFFlag.idLength != 0 {
            guard j < count else { return nil }
            idLength = Int(p[j])
            j += 1
        }
        return RawHeader(flags: flags, typeLength: typeLength, idLength: idLength, payloadLength: payloadLength,
                         bodyStart: j, end: j + typeLength + idLength + payloadLength)
    }

    /// The records of a message that breaks no rule and has no chunked record, or `nil` for
    /// anything else, which the general decoder then reads (and explains).
    ///
    /// The common case on real tags, kept tight: headers are read straight from memory, and each
    /// record is one slice of the input (type, ID and payload are adjacent in NDEF).
    static func decodeWellFormed(_ bytes: Bytes) -> [NDEFPayload]? {
        var records = [NDEFPayload]()
        let ok = bytes.withUnsafeBufferPointer { p -> Bool in
            // First pass: validate every header and count the records.
            var i = 0
            var n = 0
            while true {
                guard let h = rawHeader(p, at: i), h.end <= p.count else { return false }
                let tnf = h.flags & NDEFFlag.tnfMask
                // MB exactly on the first record; no chunks; TNF 0-5 only.
                guard (h.flags & NDEFFlag.messageBegin != 0) == (n == 0), h.flags & NDEFFlag.chunk == 0, tnf <= 5 else {
                    return false
                }
                switch tnf {
                case 0: guard h.typeLength == 0, h.idLength == 0, h.payloadLength == 0 else { return false }
                case 5: guard h.typeLength == 0 else { return false }
                default: guard h.typeLength != 0 else { return false }
                }
                n += 1
                i = h.end
                if h.flags & NDEFFlag.messageEnd != 0 { break }
            }
            guard i == p.count else { return false }
            // Second pass: build the records, each one slice of the input.
            records.reserveCapacity(n)
            i = 0
            for _ in 0..<n {
                guard let h = rawHeader(p, at: i) else { return false }
                records.append(NDEFPayload(
                    format: NDEFTypeNameFormat(rawValue: h.flags & NDEFFlag.tnfMask) ?? .unknown,
                    storage: bytes[h.bodyStart..<h.end], typeLength: h.typeLength, identifierLength: h.idLength))
                i = h.end
            }
            return true
        }
        return ok ? records : nil
    }

    /// How many record headers the bytes hold, found by skipping from header to header, so the
    /// records array is allocated once at its final size. Stops where the lengths stop making
    /// sense; the decoder proper reports why.
    private static func countHeaders(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        var i = 0
        while let h = rawHeader(bytes, at: i) {
            count += 1
            if h.flags & NDEFFlag.messageEnd != 0 || h.end > bytes.count { break }
            i = h.end
        }
        return max(count, 1)
    }

    private var stoppedEarly: Bool {
        problems.contains { [.truncatedHeader, .lengthPastEnd].contains($0.code) }
    }
}
