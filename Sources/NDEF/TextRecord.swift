import NFCCore

/// The content of a well-known Text record (NFC Forum RTD-Text 1.0).
public struct NDEFText: Sendable, Hashable {
    /// How the text is encoded in the payload (status byte bit 7).
    public enum Encoding: String, Sendable, Hashable, CaseIterable {
        /// UTF-8 (bit 7 clear).
        case utf8 = "utf-8"
        /// UTF-16 (bit 7 set). Encoded big-endian with a byte order mark; decoded by the BOM,
        /// or big-endian when there is none (RTD-Text 3.4).
        case utf16 = "utf-16"
    }

    /// The text.
    public var text: String
    /// The IANA language tag (RFC 5646), e.g. `en` or `de-CH`; at most 63 ASCII bytes.
    public var language: String
    /// The encoding used (or to use) in the payload.
    public var encoding: Encoding

    /// Creates Text record content.
    public init(text: String, language: String, encoding: Encoding = .utf8) {
        self.text = text
        self.language = language
        self.encoding = encoding
    }
}

extension NDEFPayload {
    /// A well-known Text record (type `T`).
    ///
    /// Named after CoreNFC's `wellKnownTypeTextPayload(string:locale:)`; the locale is an IANA
    /// language tag such as `en` or `fr-CA`.
    /// - Throws: ``NDEFError`` `invalidLanguageTag` for a tag that is empty, longer than 63
    ///   bytes, or holds anything but ASCII letters, digits and hyphens.
    public static func wellKnownTypeTextPayload(
        string: String, locale: String, encoding: NDEFText.Encoding = .utf8
    ) throws(NDEFError) -> NDEFPayload {
        try textPayload(NDEFText(text: string, language: locale, encoding: encoding))
    }

    /// A well-known Text record from its content.
    /// - Throws: ``NDEFError`` `invalidLanguageTag` as for ``wellKnownTypeTextPayload(string:locale:encoding:)``.
    public static func textPayload(_ content: NDEFText) throws(NDEFError) -> NDEFPayload {
        var language = content.language
        if let problem = language.withUTF8({ languageTagProblem($0) }) { throw problem }
        var text = content.text
        switch content.encoding {
        case .utf8:
            return language.withUTF8 { tag in
                text.withUTF8 { body in
                    NDEFPayload.wellKnown("T", payloadCount: 1 + tag.count + body.count) { out in
                        out[0] = UInt8(tag.count)
                        UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(out)[1...]).copyMemory(from: UnsafeRawBufferPointer(tag))
                        UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(out)[(1 + tag.count)...]).copyMemory(from: UnsafeRawBufferPointer(body))
                    }
                }
            }
        case .utf16:
            var payload = [UInt8]()
            payload.reserveCapacity(3 + language.utf8.count + text.utf16.count * 2)
            payload.append(0x80 | UInt8(language.utf8.count))
            payload.append(contentsOf: language.utf8)
            payload.append(contentsOf: [0xFE, 0xFF])
            for unit in text.utf16 { payload.appendUInt16BE(unit) }
            return NDEFPayload(format: .nfcWellKnown, type: wellKnownTextType, payload: Bytes(payload))
        }
    }

    /// The text and language of a well-known Text record; `(nil, nil)` for any other record
    /// or a malformed one.
    @_disfavoredOverload  // NFCKit adds CoreNFC's Foundation-typed version, preferred where both fit
    public func wellKnownTypeTextPayload() -> (String?, String?) {
        guard typeNameFormat == .nfcWellKnown, typeIs(0x54),
              let t = try? decodeTextPayload() else { return (nil, nil) }
        return (t.text, t.language)
    }

    /// Decodes this record's payload as RTD-Text.
    func decodeTextPayload() throws(NDEFError) -> NDEFText {
        let result = withPayloadBuffer { bytes -> Result<NDEFText, NDEFError> in
            guard let status = bytes.first else {
                return .failure(NDEFError(.invalidPayload, at: 0, "Text record with an empty payload (no status byte)"))
            }
            if status & 0x40 != 0 {
                return .failure(NDEFError(.invalidPayload, at: 0, "Text status byte has the reserved bit 6 set"))
            }
            let languageLength = Int(status & 0x3F)
            guard 1 + languageLength <= bytes.count else {
                return .failure(NDEFError(.lengthPastEnd, at: 0,
                                          "language tag of \(languageLength) bytes runs past the \(bytes.count)-byte payload"))
            }
            let languageBytes = UnsafeBufferPointer(rebasing: bytes[1..<(1 + languageLength)])
            for c in languageBytes where c <= 0x20 || c >= 0x7F {
                return .failure(NDEFError(.invalidLanguageTag, at: 1, "language tag is not printable ASCII"))
            }
            let language = String(decoding: languageBytes, as: UTF8.self)
            let textStart = 1 + languageLength
            let body = UnsafeBufferPointer(rebasing: bytes[textStart...])
            if status & 0x80 == 0 {
                switch UnicodeValidation.decodeUTF8(buffer: body) {
                case .success(let text): return .success(NDEFText(text: text, language: language, encoding: .utf8))
                case .failure(let e):
                    return .failure(NDEFError(.invalidUTF8, at: textStart + e.offset, "text is not valid UTF-8"))
                }
            }
            var bigEndian = true
            var start = 0
            if body.count >= 2 {
                if body[0] == 0xFE && body[1] == 0xFF { start = 2 }
                else if body[0] == 0xFF && body[1] == 0xFE { start = 2; bigEndian = false }
            }
            switch UnicodeValidation.decodeUTF16(Bytes(UnsafeBufferPointer(rebasing: body[start...])), bigEndian: bigEndian) {
            case .success(let text): return .success(NDEFText(text: text, language: language, encoding: .utf16))
            case .failure(let e):
                return .failure(NDEFError(.invalidUTF16, at: textStart + start + e.offset, "text is not valid UTF-16"))
            }
        }
        return try result.get()
    }
}

/// `T`: the RTD-Text record type.
let wellKnownTextType: Bytes = [0x54]

/// Why a language tag is not allowed, or `nil`. RTD-Text: the language code is 1 to 63 bytes of US-ASCII (RFC 5646 letters, digits, `-`).
func languageTagProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> NDEFError? {
    guard !bytes.isEmpty else { return NDEFError(.invalidLanguageTag, "language tag is empty; use e.g. \"en\"") }
    guard bytes.count <= 63 else {
        return NDEFError(.invalidLanguageTag, "language tag is \(bytes.count) bytes; at most 63")
    }
    for i in 0..<bytes.count {
        let c = bytes[i], lower = c | 0x20
        let ok = (c >= 0x30 && c <= 0x39) || (lower >= 0x61 && lower <= 0x7A) || c == 0x2D
        if !ok {
            return NDEFError(.invalidLanguageTag, at: i,
                             "language tag may hold only ASCII letters, digits and '-' (byte \(i))")
        }
    }
    return nil
}
