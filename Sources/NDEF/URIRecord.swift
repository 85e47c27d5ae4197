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

    /// The UTF-8 bytes of each prefix, for matching without building strings.
    static let utf8Table: [[UInt8]] = table.map { Array($0.utf8) }

    /// The code of the longest prefix of `uri` (its UTF-8 bytes), and that prefix's length.
    static func longestPrefix(of uri: ArraySlice<UInt8>) -> (code: UInt8, length: Int) {
        var best: (code: UInt8, length: Int) = (0, 0)
        guard let first = uri.first else { return best }
        for code in 1..<utf8Table.count {
            let prefix = utf8Table[code]
            // Every prefix starts with one of: h t m f s n d i r u p b.
            guard prefix[0] == first, prefix.count > best.length, prefix.count <= uri.count else { continue }
            if uri.starts(with: prefix) { best = (UInt8(code), prefix.count) }
        }
        return best
    }
}

extension NDEFPayload {
    /// A well-known URI record (type `U`) for a URI or IRI, with the longest abbreviation
    /// prefix of RTD-URI chosen. IRIs are stored as UTF-8.
    ///
    /// Named after CoreNFC's `wellKnownTypeURIPayload(url:)`, taking the URI as text.
    /// - Throws: ``NDEFError`` `invalidURI` for an empty URI or one that contains spaces or
    ///   control characters (no URI or IRI may hold them unescaped).
    public static func wellKnownTypeURIPayload(url: String) throws(NDEFError) -> NDEFPayload {
        var utf8 = Array(url.utf8)
        try validateURIText(utf8, what: "URI")
        let (code, length) = URIPrefix.longestPrefix(of: utf8[...])
        // Reuse the buffer: replace the prefix bytes with the one code byte.
        utf8.replaceSubrange(0..<length, with: CollectionOfOne(code))
        return NDEFPayload(format: .nfcWellKnown, type: wellKnownURIType, payload: Bytes(utf8))
    }

    /// The URI of a well-known URI record, prefix expanded; `nil` for any other record or a
    /// malformed one. ``content()`` says why a record is malformed.
    public func wellKnownTypeURIPayload() -> String? {
        guard typeNameFormat == .nfcWellKnown, type == wellKnownURIType else { return nil }
        return try? decodeURIPayload()
    }

    /// Decodes this record's payload as RTD-URI.
    func decodeURIPayload() throws(NDEFError) -> String {
        guard let code = payload.first else {
            throw NDEFError(.invalidPayload, at: 0, "URI record with an empty payload (no prefix code)")
        }
        guard Int(code) < URIPrefix.table.count else {
            throw NDEFError(.reservedURIPrefix, at: 0,
                            "URI prefix code 0x\(Hex.encode([code], uppercase: true)) is reserved (codes end at 0x23)")
        }
        switch UnicodeValidation.decodeUTF8(payload[1..<payload.count]) {
        case .success(let rest): return URIPrefix.table[Int(code)] + rest
        case .failure(let e):
            throw NDEFError(.invalidUTF8, at: 1 + e.offset, "URI is not valid UTF-8")
        }
    }
}

/// `U`: the RTD-URI record type.
let wellKnownURIType: Bytes = [0x55]

/// Rejects URIs that no URI or IRI can be: empty, or holding spaces or control characters.
func validateURIText(_ utf8: [UInt8], what: String) throws(NDEFError) {
    guard !utf8.isEmpty else { throw NDEFError(.invalidURI, "\(what) is empty") }
    for (i, c) in utf8.enumerated() where c <= 0x20 || c == 0x7F {
        throw NDEFError(.invalidURI, at: i,
                        "\(what) holds \(c == 0x20 ? "a space" : "control character 0x\(Hex.encode([c]))") at byte \(i); percent-encode it")
    }
}
