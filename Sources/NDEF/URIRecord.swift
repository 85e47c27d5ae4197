import NFCCore

/// The URI abbreviation codes of the NFC Forum URI Record Type Definition (RTD-URI 1.0,
/// section 3.2.2, table 3): the first payload byte stands for one of these prefixes.
public enum URIPrefix {
    /// Prefixes indexed by their code, 0x00 (none) to 0x23 (`urn:nfc:`).
    public static let table: [String] = [
        "", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:",
        "ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://",
        "ftp://", "dav://", "news:", "telnet://", "imap:", "rtsp://", "urn:", "pop:", "sip:",
        "sips:", "tftp:", "btspp://", "btl2cap://", "btgoep://", "tcpobex://", "irdaobex://",
        "file://", "urn:epc:id:", "urn:epc:tag:", "urn:epc:pat:", "urn:epc:raw:", "urn:epc:",
        "urn:nfc:",
    ]

    /// The prefix of a code (0x00-0x23) as static text: its bytes are read in place.
    static func staticPrefix(_ code: UInt8) -> StaticString {
        switch code {
        case 0x01: "http://www."
        case 0x02: "https://www."
        case 0x03: "http://"
        case 0x04: "https://"
        case 0x05: "tel:"
        case 0x06: "mailto:"
        case 0x07: "ftp://anonymous:anonymous@"
        case 0x08: "ftp://ftp."
        case 0x09: "ftps://"
        case 0x0A: "sftp://"
        case 0x0B: "smb://"
        case 0x0C: "nfs://"
        case 0x0D: "ftp://"
        case 0x0E: "dav://"
        case 0x0F: "news:"
        case 0x10: "telnet://"
        case 0x11: "imap:"
        case 0x12: "rtsp://"
        case 0x13: "urn:"
        case 0x14: "pop:"
        case 0x15: "sip:"
        case 0x16: "sips:"
        case 0x17: "tftp:"
        case 0x18: "btspp://"
        case 0x19: "btl2cap://"
        case 0x1A: "btgoep://"
        case 0x1B: "tcpobex://"
        case 0x1C: "irdaobex://"
        case 0x1D: "file://"
        case 0x1E: "urn:epc:id:"
        case 0x1F: "urn:epc:tag:"
        case 0x20: "urn:epc:pat:"
        case 0x21: "urn:epc:raw:"
        case 0x22: "urn:epc:"
        case 0x23: "urn:nfc:"
        default: ""
        }
    }

    /// The code of the longest prefix of `uri` (its UTF-8 bytes), and that prefix's length.
    ///
    /// Only the prefixes that start with the URI's first byte are tried, longest last;
    /// `URIRecordTests` checks that this agrees with ``table`` for every code.
    static func longestPrefix(of uri: UnsafeBufferPointer<UInt8>) -> (code: UInt8, length: Int) {
        var best: (code: UInt8, length: Int) = (0, 0)
        guard let base = uri.baseAddress, let first = uri.first else { return best }
        func check(_ code: UInt8, _ prefix: StaticString) {
            let n = prefix.utf8CodeUnitCount
            if n > best.length && n <= uri.count && memcmpEqual(prefix.utf8Start, base, n) { best = (code, n) }
        }
        switch first {
        case UInt8(ascii: "h"):
            check(0x03, "http://"); check(0x04, "https://"); check(0x01, "http://www."); check(0x02, "https://www.")
        case UInt8(ascii: "t"):
            check(0x05, "tel:"); check(0x17, "tftp:"); check(0x10, "telnet://"); check(0x1B, "tcpobex://")
        case UInt8(ascii: "m"): check(0x06, "mailto:")
        case UInt8(ascii: "f"):
            check(0x0D, "ftp://"); check(0x09, "ftps://"); check(0x1D, "file://"); check(0x08, "ftp://ftp.")
            check(0x07, "ftp://anonymous:anonymous@")
        case UInt8(ascii: "s"): check(0x0B, "smb://"); check(0x15, "sip:"); check(0x16, "sips:"); check(0x0A, "sftp://")
        case UInt8(ascii: "n"): check(0x0C, "nfs://"); check(0x0F, "news:")
        case UInt8(ascii: "d"): check(0x0E, "dav://")
        case UInt8(ascii: "i"): check(0x11, "imap:"); check(0x1C, "irdaobex://")
        case UInt8(ascii: "r"): check(0x12, "rtsp://")
        case UInt8(ascii: "p"): check(0x14, "pop:")
        case UInt8(ascii: "b"): check(0x18, "btspp://"); check(0x19, "btl2cap://"); check(0x1A, "btgoep://")
        case UInt8(ascii: "u"):
            check(0x13, "urn:")
            if best.length == 4 {
                check(0x22, "urn:epc:"); check(0x23, "urn:nfc:")
                if best.length == 8 {
                    check(0x1E, "urn:epc:id:"); check(0x1F, "urn:epc:tag:"); check(0x20, "urn:epc:pat:"); check(0x21, "urn:epc:raw:")
                }
            }
        default: break
        }
        return best
    }
}

@inline(__always)
func memcmpEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    for i in 0..<count where a[i] != b[i] { return false }
    return true
}

extension NDEFPayload {
    /// A well-known URI record (type `U`) for a URI or IRI, with the longest abbreviation
    /// prefix of RTD-URI chosen. IRIs are stored as UTF-8.
    ///
    /// Named after CoreNFC's `wellKnownTypeURIPayload(url:)`, taking the URI as text.
    /// - Throws: ``NDEFError`` `invalidURI` for an empty URI or one that contains spaces or
    ///   control characters (no URI or IRI may hold them unescaped).
    public static func wellKnownTypeURIPayload(url: String) throws(NDEFError) -> NDEFPayload {
        var url = url
        url.makeContiguousUTF8()
        let built = url.utf8.withContiguousStorageIfAvailable { utf8 -> Result<NDEFPayload, NDEFError> in
            if let problem = uriTextProblem(utf8, what: "URI") { return .failure(problem) }
            let (code, length) = URIPrefix.longestPrefix(of: utf8)
            let rest = utf8.count - length
            return .success(NDEFPayload.wellKnown("U", payloadCount: 1 + rest) { out in
                out[0] = code
                if rest > 0 {
                    UnsafeMutableRawPointer(out.baseAddress! + 1).copyMemory(from: utf8.baseAddress! + length, byteCount: rest)
                }
            })
        } ?? .failure(NDEFError(.invalidURI, "URI text is not contiguous UTF-8"))
        switch built {
        case .success(let record):
            return record
        case .failure(let error):
            throw error
        }
    }

    /// The URI of a well-known URI record, prefix expanded; `nil` for any other record or a
    /// malformed one. ``content()`` says why a record is malformed.
    @_disfavoredOverload  // NFCKit adds CoreNFC's Foundation-typed version, preferred where both fit
    public func wellKnownTypeURIPayload() -> String? {
        guard typeNameFormat == .nfcWellKnown, typeIs(0x55) else { return nil }
        return try? decodeURIPayload()
    }

    /// Decodes this record's payload as RTD-URI.
    func decodeURIPayload() throws(NDEFError) -> String {
        // Validate the rest, then build prefix + rest in one allocation.
        let decoded = withPayloadBuffer { whole -> Result<String, NDEFError> in
            guard let code = whole.first else {
                return .failure(NDEFError(.invalidPayload, at: 0, "URI record with an empty payload (no prefix code)"))
            }
            guard code <= 0x23 else {
                return .failure(NDEFError(.reservedURIPrefix, at: 0,
                                          "URI prefix code 0x\(Hex.encode([code], uppercase: true)) is reserved (codes end at 0x23)"))
            }
            let rest = UnsafeBufferPointer(rebasing: whole[1...])
            if let bad = UnicodeValidation.firstInvalidUTF8Offset(rest) {
                return .failure(NDEFError(.invalidUTF8, at: 1 + bad, "URI is not valid UTF-8"))
            }
            let prefix = URIPrefix.staticPrefix(code)
            let prefixCount = prefix.utf8CodeUnitCount
            return .success(String(unsafeUninitializedCapacity: prefixCount + rest.count) { out in
                if prefixCount > 0 {
                    UnsafeMutableRawPointer(out.baseAddress!).copyMemory(from: prefix.utf8Start, byteCount: prefixCount)
                }
                if rest.count > 0 {
                    UnsafeMutableRawPointer(out.baseAddress! + prefixCount).copyMemory(from: rest.baseAddress!, byteCount: rest.count)
                }
                return prefixCount + rest.count
            })
        }
        return try decoded.get()
    }
}

/// `U`: the RTD-URI record type.
let wellKnownURIType: Bytes = [0x55]

/// Rejects URIs that no URI or IRI can be: empty, or holding spaces or control characters.
func validateURIText(_ utf8: [UInt8], what: StaticString) throws(NDEFError) {
    if let problem = utf8.withUnsafeBufferPointer({ uriTextProblem($0, what: what) }) { throw problem }
}

/// Why `utf8` cannot be a URI or IRI (empty, a space, a C0 or C1 control character, DEL, or a
/// bidirectional or line-separator control that would make it read otherwise than it is), or
/// `nil`.
func uriTextProblem(_ utf8: UnsafeBufferPointer<UInt8>, what: StaticString) -> NDEFError? {
    guard let offset = firstNonURIByte(utf8) else {
        // Characters beyond ASCII (an IRI): none may be a C1, bidirectional or separator control.
        guard utf8.contains(where: { $0 >= 0x80 }) else { return nil }
        var offset = 0
        for scalar in String(decoding: utf8, as: UTF8.self).unicodeScalars {
            if TerminalSafeText.isUnsafe(scalar) {
                let kind = scalar.value <= 0x9F ? "control character" : "bidirectional or separator control"
                let digits = String(scalar.value, radix: 16, uppercase: true)
                let code = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
                return NDEFError(.invalidURI, at: offset, "\(what) holds \(kind) U+\(code) at byte \(offset); percent-encode it")
            }
            offset += UTF8.width(scalar)
        }
        return nil
    }
    if offset < 0 { return NDEFError(.invalidURI, "\(what) is empty") }
    let c = utf8[offset]
    return NDEFError(.invalidURI, at: offset,
                     "\(what) holds \(c == 0x20 ? "a space" : "control character 0x\(Hex.encode([c]))") at byte \(offset); percent-encode it")
}

/// The offset of the first space, control character (below 0x20) or DEL in `utf8`; -1 when it
/// is empty; `nil` when there is none. Eight bytes at a time: a word has such a byte exactly
/// when one of its bytes is below 0x21 or equal to 0x7F.
@inline(__always)
func firstNonURIByte(_ utf8: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let base = utf8.baseAddress, utf8.count > 0 else { return -1 }
    let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
    var i = 0
    while i + 8 <= utf8.count {
        let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
        let below21 = (x &- ones &* 0x21) & ~x & highs
        let y = x ^ (ones &* 0x7F)
        let del = (y &- ones) & ~y & highs
        if below21 | del != 0 { break }
        i += 8
    }
    while i < utf8.count {
        let c = base[i]
        if c <= 0x20 || c == 0x7F { return i }
        i += 1
    }
    return nil
}
