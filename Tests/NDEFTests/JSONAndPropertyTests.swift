import NFCTestSupport
import Foundation
import NFCCore
import Testing
@testable import NDEF

/// Builds a random record of every kind the library models.
func randomRecord(_ g: inout SeededGenerator) -> NDEFPayload {
    func bytes(_ max: Int) -> Bytes { Bytes((0..<Int.random(in: 0...max, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }) }
    func word() -> String { String((0..<Int.random(in: 1...12, using: &g)).map { _ in "abcdefghijklmnopqrstuvwxyzäö日🎉".randomElement(using: &g)! }) }
    let id: Bytes = Bool.random(using: &g) ? Bytes() : Bytes(utf8: "id\(Int.random(in: 0...99, using: &g))")
    var record: NDEFPayload
    do {
        switch Int.random(in: 0..<11, using: &g) {
        case 0: record = try .wellKnownTypeURIPayload(url: URIPrefix.table.randomElement(using: &g)! + "x" + word())
        case 1: record = try .wellKnownTypeTextPayload(string: word(), locale: ["en", "de-CH", "ja"].randomElement(using: &g)!,
                                                       encoding: NDEFText.Encoding.allCases.randomElement(using: &g)!)
        case 2: record = try .smartPosterPayload(.init(uri: "https://" + word(), titles: [.init(text: word(), language: "en")],
                                                       action: .edit, size: UInt32.random(in: 0...UInt32.max, using: &g)))
        case 3: record = try .mimeTypePayload(type: "application/octet-stream", data: bytes(Bool.random(using: &g) ? 20 : 600))
        case 4: record = try .externalTypePayload(type: "example.com:t", data: bytes(30))
        case 5: record = try .androidApplicationRecord(packageName: "com.example.app")
        case 6: record = try .wifiCredentialPayload(.init(ssid: Bytes(utf8: "net"), authentication: .wpa2Personal, encryption: .aes,
                                                          networkKey: Bytes(utf8: "k" + word())))
        case 7: record = try .bluetoothOOBPayload(.init(address: [1, 2, 3, 4, 5, 6], localName: word(), deviceClass: 0x1F00))
        case 8: record = try .absoluteURIPayload(uri: "https://example.com/schema/" + String(Int.random(in: 0...9, using: &g)), data: bytes(10))
        case 9: record = NDEFPayload(format: .unknown, type: Bytes(), payload: bytes(40))
        default: return .empty
        }
    } catch {
        fatalError("builder refused generated input: \(error)")
    }
    record.identifier = id
    return record
}

@Suite("Round trips and the JSON form", .timeLimit(.minutes(5)))
struct JSONAndPropertyTests {
    @Test("decode(encode(m)) == m for random messages, with and without chunking")
    func randomRoundTrips() throws {
        var g = SeededGenerator(seed: 0x4E46_434B)
        for _ in 0..<500 {
            let message = NDEFMessage(records: (0..<Int.random(in: 1...6, using: &g)).map { _ in randomRecord(&g) })
            let chunk: Int? = Bool.random(using: &g) ? Int.random(in: 1...50, using: &g) : nil
            let bytes = try message.encoded(chunkSize: chunk)
            #expect(try NDEFMessage(bytes: bytes) == message)
            #expect(NDEFMessage.decodeLeniently(bytes).warnings.isEmpty)
            if chunk == nil { #expect(bytes.count == message.length) }
            for record in message.records { #expect(try NDEFPayload(content: try record.content()).content() == record.content()) }
        }
    }

    @Test("the JSON form round-trips every random message exactly")
    func jsonRoundTrip() throws {
        var g = SeededGenerator(seed: 7)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for _ in 0..<300 {
            let message = NDEFMessage(records: (0..<Int.random(in: 1...5, using: &g)).map { _ in randomRecord(&g) })
            let json = try encoder.encode(message)
            #expect(try JSONDecoder().decode(NDEFMessage.self, from: json) == message)
        }
    }

    @Test("JSON output carries the raw fields and the decoded meaning")
    func jsonShape() throws {
        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com")])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(message), as: UTF8.self)
        #expect(text == #"{"records":[{"kind":"uri","payload":"046578616d706c652e636f6d","tnf":"well-known","type":"U","uri":"https://example.com"}]}"#)
    }

    @Test("JSON shorthand builds records of every kind")
    func jsonShorthand() throws {
        let json = """
        {"records": [
          {"uri": "https://example.com/a"},
          {"text": "Hallo", "lang": "de"},
          {"text": "Hi", "encoding": "utf-16", "id": "t1"},
          {"mime": "text/plain", "data": "hello"},
          {"mime": "application/octet-stream", "dataHex": "0001ff"},
          {"external": "example.com:x", "data": "1"},
          {"aar": "com.example.app"},
          {"absoluteURI": "urn:x:y"},
          {"wifi": {"ssid": "Guest", "auth": "wpa2-personal", "encryption": "aes", "key": "secret123"}},
          {"bluetooth": {"address": "00:1A:7D:DA:71:13", "name": "Speaker", "class": 2360324}},
          {"smartPoster": {"uri": "tel:+1555", "titles": [{"text": "Call", "lang": "en"}], "action": "do"}},
          {"tnf": "unknown", "payload": "abcd"},
          {"empty": true}
        ]}
        """
        let message = try JSONDecoder().decode(NDEFMessage.self, from: Data(json.utf8))
        let kinds = try message.records.map { try $0.content().kind }
        #expect(kinds == ["uri", "text", "text", "mime", "mime", "external", "android-app", "absolute-uri", "wifi",
                          "bluetooth", "smart-poster", "unknown", "empty"])
        #expect(message.records[2].identifier == Bytes(utf8: "t1"))
    }

    @Test("bad JSON records say what is wrong", arguments: [
        #"{"records":[{}]}"#,
        #"{"records":[{"uri":"a","text":"b"}]}"#,
        #"{"records":[{"uri":"has space"}]}"#,
        #"{"records":[{"text":"x","lang":""}]}"#,
        #"{"records":[{"wifi":{"ssid":"x","auth":"wpa9","encryption":"aes"}}]}"#,
        #"{"records":[{"tnf":"bogus","payload":""}]}"#,
        #"{"records":[{"tnf":"media","type":"a/b","payload":"zz"}]}"#,
        #"{"records":[{"mime":"nope","data":"x"}]}"#,
    ])
    func jsonErrors(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(NDEFMessage.self, from: Data(json.utf8)) }
    }

    @Test("records that break their type's rules are shown with an error in JSON, not dropped")
    func jsonErrorField() throws {
        let message = NDEFMessage(records: [NDEFPayload(format: .nfcWellKnown, type: "U", payload: [0x30])])
        let data = try JSONEncoder().encode(message)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let record = (object?["records"] as? [[String: Any]])?.first
        #expect((record?["error"] as? String)?.contains("reservedURIPrefix") == true)
        #expect(try JSONDecoder().decode(NDEFMessage.self, from: data) == message)
    }
}
