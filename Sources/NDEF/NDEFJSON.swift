import NFCCore

// The JSON form of NDEF messages (docs/ndef.md, "JSON form").
//
// A message is `{"records": [record, …]}`. On output every record carries its raw fields —
// `tnf`, `type` (or `typeHex` when the type is not printable ASCII/UTF-8), `id` (or `idHex`),
// `payload` (hex) — so decoding the JSON gives back exactly the same record, and also its
// decoded meaning: `kind` plus the kind's own keys (`uri`, `text`/`lang`/`encoding`,
// `smartPoster`, `wifi`, `bluetooth`, `mime`, `absoluteURI`, `aar`, `external`), or `error`
// when the payload breaks its type's rules.
//
// On input a record with `payload` is taken raw (the decoded keys are then ignored); a record
// without it is built from exactly one of the kind keys, so people and batch manifests can
// write `{"uri": "https://example.com"}`.

/// A JSON object key.
struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension NDEFMessage: Codable {
    /// Writes `{"records": [...]}` as described in docs/ndef.md.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.encode(records, forKey: JSONKey("records"))
    }

    /// Reads `{"records": [...]}` (or a bare array of records).
    public init(from decoder: any Decoder) throws {
        if let c = try? decoder.container(keyedBy: JSONKey.self), c.contains(JSONKey("records")) {
            self.records = try c.decode([NDEFPayload].self, forKey: JSONKey("records"))
        } else {
            var a = try decoder.unkeyedContainer()
            var records = [NDEFPayload]()
            while !a.isAtEnd { records.append(try a.decode(NDEFPayload.self)) }
            self.records = records
        }
    }
}

/// Keys that make a record on input, one per kind.
let jsonKindKeys = ["uri", "text", "smartPoster", "wifi", "bluetooth", "mime", "absoluteURI", "aar", "external", "empty"]

extension NDEFPayload: Codable {
    /// Writes the raw fields and the decoded meaning, as described in docs/ndef.md.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.encode(typeNameFormat.name, forKey: JSONKey("tnf"))
        try encodeText(type, key: "type", into: &c)
        if !identifier.isEmpty { try encodeText(identifier, key: "id", into: &c) }
        try c.encode(Hex.encode(payload), forKey: JSONKey("payload"))
        let decoded: NDEFContent
        do {
            decoded = try content()
        } catch {
            try c.encode(error.description, forKey: JSONKey("error"))
            return
        }
        try c.encode(decoded.kind, forKey: JSONKey("kind"))
        switch decoded {
        case .empty, .unknown, .otherWellKnown: break
        case .uri(let uri): try c.encode(uri, forKey: JSONKey("uri"))
        case .text(let t):
            try c.encode(t.text, forKey: JSONKey("text"))
            try c.encode(t.language, forKey: JSONKey("lang"))
            try c.encode(t.encoding.rawValue, forKey: JSONKey("encoding"))
        case .smartPoster(let p): try c.encode(JSONSmartPoster(p), forKey: JSONKey("smartPoster"))
        case .wifi(let w): try c.encode(JSONWiFi(w), forKey: JSONKey("wifi"))
        case .bluetooth(let b): try c.encode(JSONBluetooth(b), forKey: JSONKey("bluetooth"))
        case .mime(let type, _): try c.encode(type, forKey: JSONKey("mime"))
        case .absoluteURI(let uri, _): try c.encode(uri, forKey: JSONKey("absoluteURI"))
        case .androidApplication(let name): try c.encode(name, forKey: JSONKey("aar"))
        case .external(let type, _): try c.encode(type, forKey: JSONKey("external"))
        }
    }

    /// Reads a raw record (with `payload`) or builds one from a kind key.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        func fail(_ message: String) -> DecodingError {
            .dataCorrupted(.init(codingPath: c.codingPath, debugDescription: message))
        }
        func build(_ make: () throws(NDEFError) -> NDEFPayload) throws -> NDEFPayload {
            do { return try make() } catch { throw fail(error.description) }
        }
        let identifier = try decodeText(c, key: "id") ?? Bytes()

        if c.contains(JSONKey("payload")) {
            let tnfName = try c.decodeIfPresent(String.self, forKey: JSONKey("tnf")) ?? "well-known"
            guard let tnf = NDEFTypeNameFormat(name: tnfName) else {
                throw fail("unknown tnf \"\(tnfName)\"; use one of \(NDEFTypeNameFormat.allCases.map(\.name).joined(separator: ", "))")
            }
            let type = try decodeText(c, key: "type") ?? Bytes()
            let payload = try decodeHex(c, key: "payload")
            self.init(format: tnf, type: type, identifier: identifier, payload: payload)
            return
        }

        let present = jsonKindKeys.filter { c.contains(JSONKey($0)) }
        guard present.count == 1, let kind = present.first else {
            throw fail(present.isEmpty
                ? "a record needs \"payload\" (raw) or one of: \(jsonKindKeys.joined(separator: ", "))"
                : "a record may have only one of \(present.joined(separator: ", "))")
        }
        func data() throws -> Bytes {
            if c.contains(JSONKey("dataHex")) { return try decodeHex(c, key: "dataHex") }
            return Bytes(utf8: try c.decodeIfPresent(String.self, forKey: JSONKey("data")) ?? "")
        }
        var record: NDEFPayload
        switch kind {
        case "uri":
            let uri = try c.decode(String.self, forKey: JSONKey("uri"))
            record = try build { () throws(NDEFError) in try .wellKnownTypeURIPayload(url: uri) }
        case "text":
            let t = try JSONTitle(from: decoder).content(fail)
            record = try build { () throws(NDEFError) in try .textPayload(t) }
        case "smartPoster":
            let p = try c.decode(JSONSmartPoster.self, forKey: JSONKey("smartPoster")).content(fail)
            record = try build { () throws(NDEFError) in try .smartPosterPayload(p) }
        case "wifi":
            let w = try c.decode(JSONWiFi.self, forKey: JSONKey("wifi")).content(fail)
            record = try build { () throws(NDEFError) in try .wifiCredentialPayload(w) }
        case "bluetooth":
            let b = try c.decode(JSONBluetooth.self, forKey: JSONKey("bluetooth")).content(fail)
            record = try build { () throws(NDEFError) in try .bluetoothOOBPayload(b) }
        case "mime":
            let type = try c.decode(String.self, forKey: JSONKey("mime"))
            let d = try data()
            record = try build { () throws(NDEFError) in try .mimeTypePayload(type: type, data: d) }
        case "absoluteURI":
            let uri = try c.decode(String.self, forKey: JSONKey("absoluteURI"))
            let d = try data()
            record = try build { () throws(NDEFError) in try .absoluteURIPayload(uri: uri, data: d) }
        case "aar":
            let name = try c.decode(String.self, forKey: JSONKey("aar"))
            record = try build { () throws(NDEFError) in try .androidApplicationRecord(packageName: name) }
        case "external":
            let type = try c.decode(String.self, forKey: JSONKey("external"))
            let d = try data()
            record = try build { () throws(NDEFError) in try .externalTypePayload(type: type, data: d) }
        default:
            record = .empty
        }
        if !identifier.isEmpty {
            guard record.typeNameFormat != .empty else { throw fail("an empty record cannot have an id") }
            record.identifier = identifier
        }
        self = record
    }
}

/// Writes bytes under `key` when they are printable UTF-8 text, else under `key + "Hex"`.
private func encodeText(_ bytes: Bytes, key: String, into c: inout KeyedEncodingContainer<JSONKey>) throws {
    if case .success(let s) = UnicodeValidation.decodeUTF8(bytes),
       !s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
        try c.encode(s, forKey: JSONKey(key))
    } else {
        try c.encode(Hex.encode(bytes), forKey: JSONKey(key + "Hex"))
    }
}

/// Reads `key` (text) or `key + "Hex"` (hex), or `nil` when neither is there.
private func decodeText(_ c: KeyedDecodingContainer<JSONKey>, key: String) throws -> Bytes? {
    if let s = try c.decodeIfPresent(String.self, forKey: JSONKey(key)) { return Bytes(utf8: s) }
    if c.contains(JSONKey(key + "Hex")) { return try decodeHex(c, key: key + "Hex") }
    return nil
}

private func decodeHex(_ c: KeyedDecodingContainer<JSONKey>, key: String) throws -> Bytes {
    let text = try c.decode(String.self, forKey: JSONKey(key))
    do {
        return Bytes(try Hex.decode(text))
    } catch {
        throw DecodingError.dataCorruptedError(forKey: JSONKey(key), in: c, debugDescription: "\"\(key)\": \(error)")
    }
}

/// `{"text": …, "lang": …, "encoding": "utf-8"|"utf-16"}`
struct JSONTitle: Codable {
    var text: String
    var lang: String?
    var encoding: String?

    init(_ t: NDEFText) {
        text = t.text
        lang = t.language
        encoding = t.encoding == .utf8 ? nil : t.encoding.rawValue
    }

    func content(_ fail: (String) -> DecodingError) throws -> NDEFText {
        let enc = encoding ?? "utf-8"
        guard let e = NDEFText.Encoding(rawValue: enc.lowercased()) else {
            throw fail("text encoding \"\(enc)\" is not utf-8 or utf-16")
        }
        return NDEFText(text: text, language: lang ?? "en", encoding: e)
    }
}

/// `{"uri", "titles": [title], "action": "do"|"save"|"edit", "size", "type", "icons": [{"type", "dataHex"}]}`
struct JSONSmartPoster: Codable {
    struct Icon: Codable {
        var type: String
        var dataHex: String
    }
    var uri: String
    var titles: [JSONTitle]?
    var action: String?
    var size: UInt32?
    var type: String?
    var icons: [Icon]?

    init(_ p: NDEFSmartPoster) {
        uri = p.uri
        titles = p.titles.isEmpty ? nil : p.titles.map(JSONTitle.init)
        action = p.action?.name
        size = p.size
        type = p.mimeType
        icons = p.icons.isEmpty ? nil : p.icons.map { Icon(type: $0.mimeType, dataHex: Hex.encode($0.data)) }
    }

    func content(_ fail: (String) -> DecodingError) throws -> NDEFSmartPoster {
        var action: NDEFSmartPoster.Action? = nil
        if let name = self.action {
            guard let a = NDEFSmartPoster.Action(name: name) else {
                throw fail("Smart Poster action \"\(name)\" is not do, save, edit or 0-255")
            }
            action = a
        }
        var icons = [NDEFSmartPoster.Icon]()
        for icon in self.icons ?? [] {
            guard let data = try? Hex.decode(icon.dataHex) else { throw fail("Smart Poster icon dataHex is not hex") }
            icons.append(.init(mimeType: icon.type, data: Bytes(data)))
        }
        return NDEFSmartPoster(uri: uri, titles: try (titles ?? []).map { try $0.content(fail) },
                               action: action, size: size, mimeType: type, icons: icons)
    }
}

/// `{"ssid" | "ssidHex", "auth", "encryption", "key" | "keyHex", "mac"}`
struct JSONWiFi: Codable {
    var ssid: String?
    var ssidHex: String?
    var auth: String
    var encryption: String
    var key: String?
    var keyHex: String?
    var mac: String?

    init(_ w: WiFiCredential) {
        if let s = w.ssidString { ssid = s } else { ssidHex = Hex.encode(w.ssid) }
        auth = w.authentication.name
        encryption = w.encryption.name
        if case .success(let k) = UnicodeValidation.decodeUTF8(w.networkKey) { key = k } else { keyHex = Hex.encode(w.networkKey) }
        mac = Hex.encode(w.macAddress, uppercase: true, separator: ":")
    }

    func content(_ fail: (String) -> DecodingError) throws -> WiFiCredential {
        guard let a = WiFiCredential.Authentication(name: auth) else {
            throw fail("unknown Wi-Fi authentication \"\(auth)\"; use one of \(WiFiCredential.Authentication.names.map(\.0).joined(separator: ", "))")
        }
        guard let e = WiFiCredential.Encryption(name: encryption) else {
            throw fail("unknown Wi-Fi encryption \"\(encryption)\"; use one of \(WiFiCredential.Encryption.names.map(\.0).joined(separator: ", "))")
        }
        let ssidBytes: Bytes
        if let ssid { ssidBytes = Bytes(utf8: ssid) } else if let ssidHex, let b = try? Hex.decode(ssidHex) { ssidBytes = Bytes(b) } else {
            throw fail("Wi-Fi needs \"ssid\" (or \"ssidHex\")")
        }
        var keyBytes = Bytes()
        if let key { keyBytes = Bytes(utf8: key) } else if let keyHex {
            guard let b = try? Hex.decode(keyHex) else { throw fail("Wi-Fi keyHex is not hex") }
            keyBytes = Bytes(b)
        }
        var macBytes: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        if let mac {
            guard let b = try? Hex.decode(mac), b.count == 6 else { throw fail("Wi-Fi mac \"\(mac)\" is not 6 hex bytes") }
            macBytes = b
        }
        return WiFiCredential(ssid: ssidBytes, authentication: a, encryption: e, networkKey: keyBytes, macAddress: macBytes)
    }
}

/// `{"address": "AA:BB:CC:DD:EE:FF", "name", "class"}` (class as a number)
struct JSONBluetooth: Codable {
    var address: String
    var name: String?
    var `class`: UInt32?

    init(_ b: BluetoothOOB) {
        address = b.addressString
        name = b.localName
        `class` = b.deviceClass
    }

    func content(_ fail: (String) -> DecodingError) throws -> BluetoothOOB {
        guard let a = BluetoothOOB.parseAddress(address) else {
            throw fail("Bluetooth address \"\(address)\" is not 6 hex bytes like 00:1A:7D:DA:71:13")
        }
        return BluetoothOOB(address: a, localName: name, deviceClass: `class`)
    }
}
