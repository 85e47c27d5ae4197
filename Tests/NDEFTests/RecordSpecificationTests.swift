import Foundation
import NFCCore
import NFCTestSupport
import Testing
@testable import NDEF

/// `NDEFRecordSpecification`: reading fields given in order, the checks that used to live in
/// the command line, and the errors naming the field at fault.
@Suite("Record specifications: fields read in order, total builder, errors naming the field", .timeLimit(.minutes(2)))
struct RecordSpecificationTests {
    typealias Spec = NDEFRecordSpecification

    static func read(_ fields: [(Spec.Field, String)], key: Bytes? = nil) throws(NDEFSpecificationError) -> [Spec] {
        try Spec.specifications(from: fields.map { ($0.0, .text($0.1)) }, defaultNetworkKey: key)
    }

    static func failure(_ body: () throws(NDEFSpecificationError) -> Void) -> NDEFSpecificationError? {
        do { try body() } catch { return error }
        return nil
    }

    @Test("fields read in order make the typed specifications a person would write out")
    func readsFields() throws {
        let specs = try Self.read([
            (.uri, "https://example.com"), (.text, "Hallo"), (.language, "de"), (.mimeType, "a/b"), (.dataHex, "0102"),
            (.identifier, "m1"), (.smartPoster, "tel:+1555"), (.title, "Call"), (.title, "Appel"), (.language, "fr"),
            (.utf16, ""), (.action, "save"), (.ssid, "Guest"), (.authentication, "open"), (.macAddress, "00:11:22:33:44:55"),
            (.bluetoothAddress, "00:1A:7D:DA:71:13"), (.deviceName, "Speaker"), (.deviceClass, "0x240404"),
            (.packageName, "com.example.app"), (.externalType, "example.com:t"), (.data, "hi"),
        ])
        #expect(specs == [
            Spec(.uri("https://example.com")),
            Spec(.text(NDEFText(text: "Hallo", language: "de"))),
            Spec(.mime(type: "a/b", data: [0x01, 0x02]), identifier: "m1"),
            Spec(.smartPoster(NDEFSmartPoster(
                uri: "tel:+1555", titles: [NDEFText(text: "Call", language: "en"), NDEFText(text: "Appel", language: "fr", encoding: .utf16)],
                action: .save))),
            Spec(.wifi(.init(ssid: "Guest", authentication: .open, macAddress: [0x00, 0x11, 0x22, 0x33, 0x44, 0x55]))),
            Spec(.bluetooth(BluetoothOOB(address: [0x00, 0x1A, 0x7D, 0xDA, 0x71, 0x13], localName: "Speaker", deviceClass: 0x240404))),
            Spec(.androidApplication(packageName: "com.example.app")),
            Spec(.external(type: "example.com:t", data: Bytes(utf8: "hi"))),
        ])
    }

    @Test("a URI record encodes to the RTD-URI bytes with the https:// abbreviation (RTD-URI table 3, code 0x04)")
    func uriBytes() throws {
        let records = try Spec.payloads(of: Self.read([(.uri, "https://example.com")]))
        #expect(try NDEFMessage(records: records).encoded() == hex("d1010c5504 6578616d706c652e636f6d"))
    }

    @Test("a URI needs a scheme, an http(s) URL a host: refused while reading and when building a typed one", arguments: [
        ("example.com", "needs a scheme"), ("https://", "needs a host"), ("http:///path", "needs a host"), ("1tel:+1", "needs a scheme"),
    ])
    func uriChecks(uri: String, reason: String) {
        let read = Self.failure { () throws(NDEFSpecificationError) in _ = try Self.read([(.text, "x"), (.uri, uri)]) }
        #expect(read?.field == .uri)
        #expect(read?.problem == .invalidValue)
        #expect(read?.position == 1)
        #expect(read?.error.reason.contains(reason) == true, "\(String(describing: read))")
        let built = Self.failure { () throws(NDEFSpecificationError) in _ = try Spec(.uri(uri)).payloads() }
        #expect(built?.field == .uri)
        #expect(built?.error.code == .invalidURI)
    }

    @Test("a Wi-Fi network that authenticates needs a key (missing, naming the key); open needs none; the default key fills in")
    func wifiKey() throws {
        let missing = Self.failure { () throws(NDEFSpecificationError) in _ = try Spec.payloads(of: Self.read([(.uri, "tel:1"), (.ssid, "Guest")])) }
        #expect(missing?.field == .networkKey)
        #expect(missing?.problem == .missing)
        #expect(missing?.record == 1)
        #expect(missing?.error.reason == "wpa2-personal needs a network key")
        let open = try Spec.payloads(of: Self.read([(.ssid, "Cafe"), (.authentication, "open")]))
        guard case .wifi(let credential) = try open[0].content() else { Issue.record("not Wi-Fi"); return }
        #expect(credential.encryption == .none)
        #expect(credential.networkKey.isEmpty)
        let defaulted = try Self.read([(.ssid, "Guest")], key: Bytes(utf8: "pw12345678"))
        #expect(defaulted == [Spec(.wifi(.init(ssid: "Guest", networkKey: Bytes(utf8: "pw12345678"))))])
        let given = try Spec.specifications(from: [(.ssid, .text("Guest")), (.networkKey, .bytes([0x61, 0x62]))], defaultNetworkKey: [0x7A])
        #expect(given == [Spec(.wifi(.init(ssid: "Guest", networkKey: [0x61, 0x62])))])
        let long = Self.failure { () throws(NDEFSpecificationError) in _ = try Spec(.wifi(.init(ssid: String(repeating: "s", count: 33), authentication: .open))).payloads() }
        #expect(long?.field == .ssid)
        #expect(long?.error.reason.contains("1 to 32 bytes") == true)
        let keyTooLong = Self.failure { () throws(NDEFSpecificationError) in
            _ = try Spec(.wifi(.init(ssid: "G", networkKey: Bytes([UInt8](repeating: 0x61, count: 65))))).payloads()
        }
        #expect(keyTooLong?.field == .networkKey)
        let badMAC = Self.failure { () throws(NDEFSpecificationError) in _ = try Spec(.wifi(.init(ssid: "G", authentication: .open, macAddress: [1, 2]))).payloads() }
        #expect(badMAC?.field == .macAddress)
    }

    @Test("a value that cannot be read names its field and position", arguments: [
        ([(Spec.Field.ssid, "G"), (.authentication, "wpa3")], Spec.Field.authentication, "wpa2-personal"),
        ([(.ssid, "G"), (.encryption, "rot13")], .encryption, "aes-tkip"),
        ([(.ssid, "G"), (.macAddress, "00:11")], .macAddress, "6 hex bytes"),
        ([(.mimeType, "a/b"), (.dataHex, "zz")], .dataHex, "not a hex digit"),
        ([(.bluetoothAddress, "00:11")], .bluetoothAddress, "6 hex bytes"),
        ([(.bluetoothAddress, "00:1A:7D:DA:71:13"), (.deviceClass, "0x1000000")], .deviceClass, "24-bit"),
        ([(.smartPoster, "tel:1"), (.action, "jump")], .action, "do, save or edit"),
    ] as [([(Spec.Field, String)], Spec.Field, String)])
    func unreadable(fields: [(Spec.Field, String)], field: Spec.Field, reason: String) {
        let error = Self.failure { () throws(NDEFSpecificationError) in _ = try Self.read(fields) }
        #expect(error?.field == field)
        #expect(error?.problem == .invalidValue)
        #expect(error?.position == fields.count - 1)
        #expect(error?.error.reason.contains(reason) == true, "\(String(describing: error))")
    }

    @Test("a field that changes a record must follow one it changes; data may be given once")
    func misplacedAndRepeated() {
        let first = Self.failure { () throws(NDEFSpecificationError) in _ = try Self.read([(.language, "en"), (.text, "x")]) }
        #expect(first?.problem == .misplaced(expected: [.text, .title], found: nil))
        #expect(first?.position == 0)
        let afterURI = Self.failure { () throws(NDEFSpecificationError) in _ = try Self.read([(.uri, "tel:1"), (.data, "x")]) }
        #expect(afterURI?.problem == .misplaced(expected: [.mimeType, .externalType, .absoluteURI], found: .uri))
        let untitled = Self.failure { () throws(NDEFSpecificationError) in _ = try Self.read([(.smartPoster, "tel:1"), (.language, "de")]) }
        #expect(untitled?.problem == .misplaced(expected: [.text, .title], found: .smartPoster))
        let orphanID = Self.failure { () throws(NDEFSpecificationError) in _ = try Self.read([(.identifier, "x")]) }
        #expect(orphanID?.problem == .misplaced(expected: [], found: nil))
        let twice = Self.failure { () throws(NDEFSpecificationError) in _ = try Self.read([(.mimeType, "a/b"), (.data, "x"), (.dataHex, "01")]) }
        #expect(twice?.problem == .repeated)
        #expect(twice?.field == .dataHex)
        #expect(twice?.position == 2)
        let records = Self.failure { () throws(NDEFSpecificationError) in _ = try Self.read([(.records, "{}")]) }
        #expect(records?.field == .records)
    }

    /// A Text record "a" in English, by its bytes (RTD-Text: status 0x02, "en", the text).
    static let textRecord = NDEFPayload(format: .nfcWellKnown, type: "T", payload: [0x02, 0x65, 0x6E, 0x61])

    @Test("what the record type forbids is found when building, naming the field and the record", arguments: [
        (Spec(.text(NDEFText(text: "x", language: String(repeating: "a", count: 64)))), Spec.Field.language, NDEFError.Code.invalidLanguageTag),
        (Spec(.text(NDEFText(text: "x", language: "e n"))), .language, .invalidLanguageTag),
        (Spec(.mime(type: "nope", data: [])), .mimeType, .invalidMIMEType),
        (Spec(.external(type: "nocolon", data: [])), .externalType, .invalidExternalType),
        (Spec(.absoluteURI("noscheme", data: [])), .absoluteURI, .invalidURI),
        (Spec(.androidApplication(packageName: "not a package")), .packageName, .invalidValue),
        (Spec(.uri("https://a b.com")), .uri, .invalidURI),
        (Spec(.smartPoster(NDEFSmartPoster(uri: "tel:1", titles: [NDEFText(text: "a", language: "en"), NDEFText(text: "b", language: "EN")]))), .smartPoster, .invalidValue),
        (Spec(.uri("tel:1"), identifier: String(repeating: "i", count: 256)), .identifier, .fieldTooLong),
        (Spec(.records([Self.textRecord, Self.textRecord]), identifier: "x"), .identifier, .invalidValue),
    ] as [(Spec, Spec.Field, NDEFError.Code)])
    func buildErrors(spec: Spec, field: Spec.Field, code: NDEFError.Code) {
        let error = Self.failure { () throws(NDEFSpecificationError) in _ = try Spec.payloads(of: [Spec(.uri("tel:0")), spec]) }
        #expect(error?.field == field, "\(String(describing: error))")
        #expect(error?.error.code == code, "\(String(describing: error))")
        #expect(error?.record == 1)
        #expect(error?.problem == .invalidValue)
    }

    @Test("built records pass through as they are, an ID goes on a single record")
    func recordsAndIdentifier() throws {
        let ready = try NDEFPayload.wellKnownTypeTextPayload(string: "hi", locale: "en")
        let built = try Spec(.records([ready]), identifier: "t1").payloads()
        #expect(built.count == 1)
        #expect(built[0].identifier == Bytes(utf8: "t1"))
        #expect(built[0].payload == ready.payload)
        #expect(try Spec(.records([ready, ready])).payloads().count == 2)
    }
}

/// ndeflib, an independent implementation, decodes what specifications build and must find the
/// fields the specification was written with (expected values written here by hand, not read
/// back through our decoder).
@Suite("Record specifications checked by ndeflib", ExternalTool.ndeflib.trait, .timeLimit(.minutes(5)))
struct RecordSpecificationOracleTests {
    typealias Spec = NDEFRecordSpecification

    @Test("every kind `ndef encode` offers decodes in ndeflib to the fields it was given")
    func everyKind() async throws {
        let cases: [([(Spec.Field, Spec.Value)], String)] = [
            ([(.uri, .text("https://example.com/t/42"))], #"{"kind":"uri","uri":"https://example.com/t/42"}"#),
            ([(.uri, .text("mailto:a@b.example")), (.identifier, .text("u1"))], #"{"kind":"uri","uri":"mailto:a@b.example","id":"u1"}"#),
            ([(.text, .text("Hallo")), (.language, .text("de"))], #"{"kind":"text","text":"Hallo","lang":"de","encoding":"utf-8"}"#),
            ([(.text, .text("Hello"))], #"{"kind":"text","text":"Hello","lang":"en","encoding":"utf-8"}"#),
            ([(.mimeType, .text("text/plain")), (.data, .text("hi"))], #"{"kind":"mime","mime":"text/plain","payload":"6869"}"#),
            ([(.mimeType, .text("application/octet-stream")), (.data, .bytes([0, 255]))], #"{"kind":"mime","mime":"application/octet-stream","payload":"00ff"}"#),
            ([(.externalType, .text("example.com:serial")), (.dataHex, .text("0102"))], #"{"kind":"external","external":"example.com:serial","payload":"0102"}"#),
            ([(.absoluteURI, .text("https://example.com/schema"))], #"{"kind":"absolute-uri","absoluteURI":"https://example.com/schema","payload":""}"#),
            ([(.packageName, .text("com.example.app"))], #"{"kind":"android-app","aar":"com.example.app"}"#),
            ([(.ssid, .text("Guest")), (.networkKey, .text("secret123"))],
             #"{"kind":"wifi","wifi":{"ssid":"Guest","auth":"wpa2-personal","encryption":"aes","key":"secret123","mac":"FF:FF:FF:FF:FF:FF"}}"#),
            ([(.ssid, .text("Cafe")), (.authentication, .text("open"))],
             #"{"kind":"wifi","wifi":{"ssid":"Cafe","auth":"open","encryption":"none","key":"","mac":"FF:FF:FF:FF:FF:FF"}}"#),
            ([(.ssid, .text("Lab")), (.authentication, .text("wpa-personal")), (.encryption, .text("tkip")), (.networkKey, .text("k3y-k3y-k3y")),
              (.macAddress, .text("00:11:22:33:44:55"))],
             #"{"kind":"wifi","wifi":{"ssid":"Lab","auth":"wpa-personal","encryption":"tkip","key":"k3y-k3y-k3y","mac":"00:11:22:33:44:55"}}"#),
            ([(.smartPoster, .text("https://nfc.example")), (.title, .text("Hello")), (.title, .text("Bonjour")), (.language, .text("fr")), (.action, .text("save"))],
             #"{"kind":"smart-poster","smartPoster":{"uri":"https://nfc.example","titles":[{"text":"Hello","lang":"en"},{"text":"Bonjour","lang":"fr"}],"action":"save"}}"#),
            ([(.bluetoothAddress, .text("00:1A:7D:DA:71:13")), (.deviceName, .text("Speaker")), (.deviceClass, .text("0x240404"))],
             #"{"kind":"bluetooth","bluetooth":{"address":"00:1A:7D:DA:71:13","name":"Speaker","class":2360324}}"#),
        ]
        var lines = ""
        for (fields, expected) in cases {
            let records = try Spec.payloads(of: Spec.specifications(from: fields))
            let bytes = try NDEFMessage(records: records).encoded()
            lines += #"{"hex":"\#(Hex.encode(bytes))","records":[\#(expected)]}"# + "\n"
        }
        // The whole message at once too: records in the order given.
        let all = try cases.flatMap { try Spec.payloads(of: Spec.specifications(from: $0.0)) }
        lines += #"{"hex":"\#(Hex.encode(try NDEFMessage(records: all).encoded()))","records":[\#(cases.map(\.1).joined(separator: ","))]}"# + "\n"
        let output = try await Oracle.run(["check"], input: lines)
        struct Report: Decodable {
            var checked: Int
            var mismatchCount: Int
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(output.utf8))
        #expect(report.checked == cases.count + 1)
        #expect(report.mismatchCount == 0, "ndeflib disagrees: \(output.prefix(20000))")
    }
}
