public import NFCCore

/// What a record means, read per its record type definition: the typed view of an
/// ``NDEFPayload``. ``NDEFPayload/content()`` decodes it; ``NDEFPayload/init(content:)`` builds it.
public enum NDEFContent: Sendable, Hashable {
    /// A TNF-empty record.
    case empty
    /// A well-known URI record (`U`).
    case uri(String)
    /// A well-known Text record (`T`).
    case text(NDEFText)
    /// A Smart Poster (`Sp`).
    case smartPoster(NDEFSmartPoster)
    /// A Wi-Fi Simple Configuration credential (`application/vnd.wfa.wsc`).
    case wifi(WiFiCredential)
    /// Bluetooth BR/EDR out-of-band pairing data (`application/vnd.bluetooth.ep.oob`).
    case bluetooth(BluetoothOOB)
    /// Any other MIME media record.
    case mime(type: String, data: Bytes)
    /// An absolute-URI record: the URI is the type.
    case absoluteURI(String, data: Bytes)
    /// An Android Application Record (`android.com:pkg`).
    case androidApplication(packageName: String)
    /// Any other NFC Forum external type.
    case external(type: String, data: Bytes)
    /// A well-known type this library does not model (e.g. `Hs`, `Sig`), kept raw.
    case otherWellKnown(type: String, data: Bytes)
    /// A TNF-unknown record.
    case unknown(data: Bytes)

    /// A short name of the kind: `uri`, `text`, `smart-poster`, `wifi`, `bluetooth`, `mime`,
    /// `absolute-uri`, `android-app`, `external`, `well-known`, `unknown`, `empty`.
    public var kind: String {
        switch self {
        case .empty: "empty"
        case .uri: "uri"
        case .text: "text"
        case .smartPoster: "smart-poster"
        case .wifi: "wifi"
        case .bluetooth: "bluetooth"
        case .mime: "mime"
        case .absoluteURI: "absolute-uri"
        case .androidApplication: "android-app"
        case .external: "external"
        case .otherWellKnown: "well-known"
        case .unknown: "unknown"
        }
    }
}

extension NDEFPayload {
    /// Reads the record per its record type definition.
    /// - Throws: ``NDEFError`` when the payload breaks its type's rules (a URI record with a
    ///   reserved prefix code, a Text record that is not valid UTF-8, a Smart Poster without a
    ///   URI, …), with the offset within the payload; or when a type is not valid UTF-8.
    public func content() throws(NDEFError) -> NDEFContent {
        switch typeNameFormat {
        case .empty:
            return .empty
        case .unknown, .unchanged:
            return .unknown(data: payload)
        case .nfcWellKnown:
            if typeIs(0x55) { return .uri(try decodeURIPayload()) }  // "U"
            if typeIs(0x54) { return .text(try decodeTextPayload()) }  // "T"
            if typeIs(0x53, 0x70) { return .smartPoster(try decodeSmartPosterPayload()) }  // "Sp"
            return .otherWellKnown(type: try typeText(), data: payload)
        case .media:
            let t = try typeText()
            if hasType(.media, wifiSimpleConfigMIMEType) { return .wifi(try decodeWiFiPayload()) }
            if hasType(.media, bluetoothOOBMIMEType) { return .bluetooth(try decodeBluetoothPayload()) }
            return .mime(type: t, data: payload)
        case .absoluteURI:
            return .absoluteURI(try typeText(), data: payload)
        case .nfcExternal:
            let t = try typeText()
            if hasType(.nfcExternal, androidApplicationRecordType) {
                switch UnicodeValidation.decodeUTF8(payload) {
                case .success(let name): return .androidApplication(packageName: name)
                case .failure(let e): throw NDEFError(.invalidUTF8, at: e.offset, "Android package name is not UTF-8")
                }
            }
            return .external(type: t, data: payload)
        }
    }

    /// Builds the record that holds `content`.
    /// - Throws: ``NDEFError`` from the builder for that kind of content.
    public init(content: NDEFContent) throws(NDEFError) {
        switch content {
        case .empty: self = .empty
        case .uri(let uri): self = try .wellKnownTypeURIPayload(url: uri)
        case .text(let text): self = try .textPayload(text)
        case .smartPoster(let poster): self = try .smartPosterPayload(poster)
        case .wifi(let credential): self = try .wifiCredentialPayload(credential)
        case .bluetooth(let oob): self = try .bluetoothOOBPayload(oob)
        case .mime(let type, let data): self = try .mimeTypePayload(type: type, data: data)
        case .absoluteURI(let uri, let data): self = try .absoluteURIPayload(uri: uri, data: data)
        case .androidApplication(let name): self = try .androidApplicationRecord(packageName: name)
        case .external(let type, let data): self = try .externalTypePayload(type: type, data: data)
        case .otherWellKnown(let type, let data):
            guard !type.isEmpty, type.utf8.count <= 255 else {
                throw NDEFError(.missingType, "a well-known type must be 1 to 255 bytes")
            }
            self = NDEFPayload(format: .nfcWellKnown, type: type, payload: data)
        case .unknown(let data): self = NDEFPayload(format: .unknown, type: Bytes(), payload: data)
        }
    }

    private func typeText() throws(NDEFError) -> String {
        switch UnicodeValidation.decodeUTF8(type) {
        case .success(let s): return s
        case .failure(let e): throw NDEFError(.invalidUTF8, at: e.offset, "record type is not valid UTF-8")
        }
    }
}
