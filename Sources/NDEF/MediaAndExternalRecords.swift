public import NFCCore

extension NDEFPayload {
    /// A MIME media record (TNF 0x02), e.g. `text/vcard` or `application/json`.
    ///
    /// - Throws: ``NDEFError`` `invalidMIMEType` unless the type is `type/subtype` made of
    ///   RFC 2045 token characters, optionally followed by `; parameter=value` parts.
    public static func mimeTypePayload(type: String, data: Bytes) throws(NDEFError) -> NDEFPayload {
        try validateMIMEType(type)
        return NDEFPayload(format: .media, type: type, payload: data)
    }

    /// An absolute-URI record (TNF 0x03): the URI is the record type; the payload is optional.
    /// - Throws: ``NDEFError`` `invalidURI` for an empty URI, one without a scheme, or one
    ///   with spaces or control characters; `fieldTooLong` over 255 bytes.
    public static func absoluteURIPayload(uri: String, data: Bytes = Bytes()) throws(NDEFError) -> NDEFPayload {
        let utf8 = Array(uri.utf8)
        try validateURIText(utf8, what: "absolute URI")
        guard schemeLength(utf8) != nil else {
            throw NDEFError(.invalidURI, "absolute URI \"\(uri)\" has no scheme (e.g. \"https:\")")
        }
        guard utf8.count <= 255 else {
            throw NDEFError(.fieldTooLong, "absolute URI is \(utf8.count) bytes; a record type holds at most 255")
        }
        return NDEFPayload(format: .absoluteURI, type: Bytes(utf8), payload: data)
    }

    /// An NFC Forum external type record (TNF 0x04), `domain:type` (NFC RTD 1.0, 3.4).
    ///
    /// The name is kept as given; external type names compare case-insensitively
    /// (see ``hasType(_:_:)``).
    /// - Throws: ``NDEFError`` `invalidExternalType` unless the name has a non-empty domain, a
    ///   colon and a non-empty type, in URN-safe ASCII; `fieldTooLong` over 255 bytes.
    public static func externalTypePayload(type: String, data: Bytes) throws(NDEFError) -> NDEFPayload {
        try validateExternalType(type)
        return NDEFPayload(format: .nfcExternal, type: type, payload: data)
    }

    /// An Android Application Record: external type `android.com:pkg` holding a package name,
    /// which makes Android open (or offer to install) that app.
    /// - Throws: ``NDEFError`` `invalidValue` for a name that is not a Java-style package name.
    public static func androidApplicationRecord(packageName: String) throws(NDEFError) -> NDEFPayload {
        try validatePackageName(packageName)
        return NDEFPayload(format: .nfcExternal, type: androidApplicationRecordType, payload: Bytes(utf8: packageName))
    }
}

/// The external type of an Android Application Record.
let androidApplicationRecordType = "android.com:pkg"

/// The length of a URI's scheme and colon (`https:` → 6), or `nil` (RFC 3986, 3.1).
func schemeLength(_ utf8: [UInt8]) -> Int? {
    guard let first = utf8.first, isASCIILetter(first) else { return nil }
    for (i, c) in utf8.enumerated().dropFirst() {
        if c == UInt8(ascii: ":") { return i + 1 }
        guard isASCIILetter(c) || isASCIIDigit(c) || c == 0x2B || c == 0x2D || c == 0x2E else { return nil }
    }
    return nil
}

@inline(__always) func isASCIILetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
@inline(__always) func isASCIIDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

/// RFC 2045 5.1 `token`: printable ASCII except space and the tspecials `()<>@,;:\\"/[]?=`,
/// as a bitmap over 0x00-0x7F (bit c of the 128 bits set when c is a token character).
/// `MIMETypeTests` checks these two words against the rule character by character.
let mimeTokenBitsLow: UInt64 = 0x03ff_6cfa_0000_0000
let mimeTokenBitsHigh: UInt64 = 0x7fff_ffff_c7ff_fffe

@inline(__always) func isMIMETokenCharacter(_ c: UInt8) -> Bool {
    c < 64 ? (mimeTokenBitsLow >> UInt64(c)) & 1 != 0 : c < 128 && (mimeTokenBitsHigh >> UInt64(c &- 64)) & 1 != 0
}

/// `type/subtype` with token characters, then optional `; name=value` (value a token or a
/// quoted string), as RFC 2045 5.1 defines a Content-Type.
func validateMIMEType(_ text: String) throws(NDEFError) {
    var text = text
    let failure = text.withUTF8 { mimeTypeProblem($0) }
    if let (offset, expected) = failure {
        throw NDEFError(.invalidMIMEType, at: offset, "MIME type \"\(text)\": \(expected) at byte \(offset)")
    }
    if text.utf8.count > 255 {
        throw NDEFError(.fieldTooLong, "MIME type is \(text.utf8.count) bytes; a record type holds at most 255")
    }
}

/// Where and why `utf8` is not a MIME type, or `nil`: one pass, no allocation.
private func mimeTypeProblem(_ utf8: UnsafeBufferPointer<UInt8>) -> (Int, String)? {
    let n = utf8.count
    var i = 0
    @inline(__always) func skipToken() -> Bool {
        let start = i
        while i < n, isMIMETokenCharacter(utf8[i]) { i += 1 }
        return i > start
    }
    guard skipToken() else { return (i, "expected a type such as \"text\"") }
    guard i < n, utf8[i] == UInt8(ascii: "/") else { return (i, "expected '/' (the form is type/subtype)") }
    i += 1
    guard skipToken() else { return (i, "expected a subtype after '/'") }
    while true {
        while i < n, utf8[i] == 0x20 || utf8[i] == 0x09 { i += 1 }
        if i == n { return nil }
        guard utf8[i] == UInt8(ascii: ";") else { return (i, "unexpected character") }
        i += 1
        while i < n, utf8[i] == 0x20 || utf8[i] == 0x09 { i += 1 }
        guard skipToken() else { return (i, "expected a parameter name") }
        guard i < n, utf8[i] == UInt8(ascii: "=") else { return (i, "expected '=' after the parameter name") }
        i += 1
        if i < n, utf8[i] == UInt8(ascii: "\"") {
            i += 1
            while i < n, utf8[i] != UInt8(ascii: "\"") {
                if utf8[i] == UInt8(ascii: "\\") { i += 1 }
                i += 1
            }
            guard i < n else { return (n, "unterminated quoted value") }
            i += 1
        } else {
            guard skipToken() else { return (i, "expected a parameter value") }
        }
    }
}

/// NFC RTD 1.0 section 3.4: `domain ":" type`, case-insensitive, URN NSS characters.
func validateExternalType(_ text: String) throws(NDEFError) {
    let utf8 = Array(text.utf8)
    guard utf8.count <= 255 else {
        throw NDEFError(.fieldTooLong, "external type is \(utf8.count) bytes; a record type holds at most 255")
    }
    guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else {
        throw NDEFError(.invalidExternalType, "external type \"\(text)\" needs the form domain:type (e.g. example.com:mytype)")
    }
    guard colon > 0 else { throw NDEFError(.invalidExternalType, at: 0, "external type \"\(text)\" has an empty domain") }
    guard colon < utf8.count - 1 else {
        throw NDEFError(.invalidExternalType, at: colon, "external type \"\(text)\" has an empty type after ':'")
    }
    for (i, c) in utf8.enumerated() {
        let allowed = isASCIILetter(c) || isASCIIDigit(c) || "-.:_()+,=@;$'!*%".utf8.contains(c)
        guard allowed else {
            throw NDEFError(.invalidExternalType, at: i,
                            "external type \"\(text)\": character at byte \(i) is not allowed in a URN")
        }
    }
}

/// A Java package name: dot-separated identifiers of letters, digits and `_`, each starting
/// with a letter or `_`.
func validatePackageName(_ name: String) throws(NDEFError) {
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    guard !name.isEmpty, parts.allSatisfy({ part in
        guard let f = part.utf8.first, isASCIILetter(f) || f == 0x5F else { return false }
        return part.utf8.allSatisfy { isASCIILetter($0) || isASCIIDigit($0) || $0 == 0x5F }
    }) else {
        throw NDEFError(.invalidValue, "\"\(name)\" is not an Android package name (e.g. com.example.app)")
    }
}
