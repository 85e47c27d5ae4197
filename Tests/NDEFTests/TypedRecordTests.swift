import Foundation
import NFCCore
import NFCTestSupport
import Testing
@testable import NDEF

@Suite("URI records (RTD-URI 1.0)", .timeLimit(.minutes(5)))
struct URIRecordTests {
    @Test("all 36 abbreviation codes decode to their prefix", arguments: 0..<36)
    func everyPrefixDecodes(code: Int) throws {
        let payload = Bytes([UInt8(code)] + Array("x".utf8))
        let record = NDEFPayload(format: .nfcWellKnown, type: "U", payload: payload)
        #expect(record.wellKnownTypeURIPayload() == URIPrefix.table[code] + "x")
    }

    @Test("every prefix of the table is found by the encoder, as its own code", arguments: 1..<36)
    func everyPrefixEncodes(code: Int) throws {
        let record = try NDEFPayload.wellKnownTypeURIPayload(url: URIPrefix.table[code] + "x")
        #expect(record.payload[0] == UInt8(code))
        #expect(record.payload.count == 2)
        // A URI exactly equal to the prefix, too.
        let bare = try NDEFPayload.wellKnownTypeURIPayload(url: URIPrefix.table[code])
        #expect(bare.payload == [UInt8(code)])
    }

    @Test("encoding picks the longest matching prefix", arguments: [
        ("https://www.example.com", UInt8(0x02), "example.com"),
        ("http://example.com", 0x03, "example.com"),
        ("urn:epc:id:sgtin:1", 0x1E, "sgtin:1"),
        ("urn:epc:x", 0x22, "x"),
        ("urn:nfc:wkt:U", 0x23, "wkt:U"),
        ("urn:isbn:1", 0x13, "isbn:1"),
        ("ftp://anonymous:anonymous@host", 0x07, "host"),
        ("ftp://ftp.host", 0x08, "host"),
        ("ftp://host", 0x0D, "host"),
        ("sips:alice@x", 0x16, "alice@x"),
        ("HTTPS://EXAMPLE.COM", 0x00, "HTTPS://EXAMPLE.COM"),
        ("geo:47.1,8.2", 0x00, "geo:47.1,8.2"),
    ])
    func longestPrefix(uri: String, code: UInt8, rest: String) throws {
        let record = try NDEFPayload.wellKnownTypeURIPayload(url: uri)
        #expect(record.payload[0] == code)
        #expect(record.payload[1..<record.payload.count] == Bytes(utf8: rest))
        #expect(record.wellKnownTypeURIPayload() == uri)
    }

    @Test("a reserved prefix code above 0x23 is an error, not a guess")
    func reservedPrefix() {
        let record = NDEFPayload(format: .nfcWellKnown, type: "U", payload: [0x24, 0x61])
        #expect(record.wellKnownTypeURIPayload() == nil)
        #expect { try record.content() } throws: { ($0 as? NDEFError)?.code == .reservedURIPrefix }
    }

    @Test("URIs that no URI can be are refused, at the offset of the bad byte", arguments: [
        ("", nil), ("https://a b", 9), ("https://a\nb", 9), ("tel:\u{7F}", 4), ("https://example.com/long/path\t", 29),
        ("https://example.com/\u{1F}", 20), ("\u{00}https://example.com/pad", 0),
    ] as [(String, Int?)])
    func invalidURIs(uri: String, offset: Int?) {
        #expect { try NDEFPayload.wellKnownTypeURIPayload(url: uri) } throws: { e in
            let e = e as? NDEFError
            return e?.code == .invalidURI && e?.offset == offset
        }
    }

    @Test("IRIs with bytes above 0x7F and long ASCII URIs pass the word-at-a-time check")
    func validLongURIs() throws {
        for uri in ["https://münchen.de/straße/" + String(repeating: "ä", count: 20), "https://example.com/" + String(repeating: "a~!", count: 40)] {
            #expect(try NDEFPayload.wellKnownTypeURIPayload(url: uri).wellKnownTypeURIPayload() == uri)
        }
    }

    @Test("an empty URI payload and bad UTF-8 are errors with offsets")
    func malformedURIPayloads() {
        let empty = NDEFPayload(format: .nfcWellKnown, type: "U", payload: [])
        #expect { try empty.content() } throws: { ($0 as? NDEFError)?.code == .invalidPayload }
        let badUTF8 = NDEFPayload(format: .nfcWellKnown, type: "U", payload: [0x04, 0x61, 0xFF])
        #expect { try badUTF8.content() } throws: { e in
            let e = e as? NDEFError
            return e?.code == .invalidUTF8 && e?.offset == 2
        }
    }
}

@Suite("Text records (RTD-Text 1.0)", .timeLimit(.minutes(5)))
struct TextRecordTests {
    @Test("UTF-8 and UTF-16 texts round-trip with their language", arguments: NDEFText.Encoding.allCases)
    func roundTrip(encoding: NDEFText.Encoding) throws {
        for text in ["", "Hello", "Grüße aus Zürich", "日本語", "emoji 🎉 outside the BMP"] {
            let record = try NDEFPayload.wellKnownTypeTextPayload(string: text, locale: "de-CH", encoding: encoding)
            #expect(try record.content() == .text(.init(text: text, language: "de-CH", encoding: encoding)))
            let (t, l) = record.wellKnownTypeTextPayload()
            #expect(t == text)
            #expect(l == "de-CH")
        }
    }

    @Test("UTF-16 is written big-endian after a FE FF byte order mark")
    func utf16Layout() throws {
        let record = try NDEFPayload.wellKnownTypeTextPayload(string: "A", locale: "en", encoding: .utf16)
        #expect(record.payload == [0x82, 0x65, 0x6E, 0xFE, 0xFF, 0x00, 0x41])
    }

    @Test("language tags: 63 bytes allowed, 64 or empty or non-ASCII refused")
    func languageLimits() throws {
        _ = try NDEFPayload.wellKnownTypeTextPayload(string: "x", locale: String(repeating: "a", count: 63))
        for bad in [String(repeating: "a", count: 64), "", "e n", "ü"] {
            #expect { try NDEFPayload.wellKnownTypeTextPayload(string: "x", locale: bad) } throws: {
                ($0 as? NDEFError)?.code == .invalidLanguageTag
            }
        }
    }

    @Test("malformed Text payloads are typed errors", arguments: [
        ("", NDEFError.Code.invalidPayload),
        ("40", .invalidPayload),  // reserved bit 6
        ("05656e", .lengthPastEnd),  // language longer than the payload
        ("02656eff", .invalidUTF8),
        ("82656efeffd800", .invalidUTF16),  // unpaired surrogate
        ("82656e00", .invalidUTF16),  // odd byte
    ])
    func malformed(payloadHex: String, code: NDEFError.Code) {
        let record = NDEFPayload(format: .nfcWellKnown, type: "T", payload: Bytes(hex(payloadHex)))
        #expect { try record.content() } throws: { ($0 as? NDEFError)?.code == code }
    }
}

@Suite("Smart Poster, MIME, absolute URI, external, AAR", .timeLimit(.minutes(5)))
struct OtherRecordTests {
    @Test("a Smart Poster with every field round-trips")
    func smartPosterRoundTrip() throws {
        let poster = NDEFSmartPoster(
            uri: "https://nfc-forum.org",
            titles: [.init(text: "NFC Forum", language: "en"), .init(text: "Forum NFC", language: "fr", encoding: .utf16)],
            action: .save, size: 1234, mimeType: "text/html",
            icons: [.init(mimeType: "image/png", data: [0x89, 0x50, 0x4E, 0x47])])
        let record = try NDEFPayload.smartPosterPayload(poster)
        #expect(record.typeString == "Sp")
        let bytes = try NDEFMessage(records: [record]).encoded()
        let decoded = try NDEFMessage(bytes: bytes).records[0].content()
        #expect(decoded == .smartPoster(poster))
    }

    @Test("Smart Poster rules: exactly one URI, one title per language, sizes of act and s")
    func smartPosterRules() throws {
        let uri = try NDEFPayload.wellKnownTypeURIPayload(url: "https://a.b")
        func poster(_ records: [NDEFPayload]) throws -> NDEFPayload {
            NDEFPayload(format: .nfcWellKnown, type: "Sp", payload: Bytes(try NDEFMessage(records: records).encoded()))
        }
        let noURI = try poster([.wellKnownTypeTextPayload(string: "t", locale: "en")])
        #expect { try noURI.content() } throws: { ($0 as? NDEFError)?.code == .invalidPayload }
        let twoURIs = try poster([uri, uri])
        #expect { try twoURIs.content() } throws: { ($0 as? NDEFError)?.code == .invalidPayload }
        let badAction = try poster([uri, NDEFPayload(format: .nfcWellKnown, type: "act", payload: [0, 0])])
        #expect { try badAction.content() } throws: { ($0 as? NDEFError)?.code == .invalidPayload }
        let notNDEF = NDEFPayload(format: .nfcWellKnown, type: "Sp", payload: [0x01])
        #expect { try notNDEF.content() } throws: { _ in true }
        #expect {
            try NDEFPayload.smartPosterPayload(.init(uri: "https://a.b", titles: [.init(text: "a", language: "en"), .init(text: "b", language: "EN")]))
        } throws: { ($0 as? NDEFError)?.code == .invalidValue }
    }

    @Test("the token-character bitmap matches RFC 2045 for every byte")
    func mimeTokenBitmap() {
        let specials = Array("()<>@,;:\\\"/[]?=".utf8)
        for c in 0...255 {
            let byte = UInt8(c)
            let expected = byte > 0x20 && byte < 0x7F && !specials.contains(byte)
            #expect(isMIMETokenCharacter(byte) == expected, "byte 0x\(String(c, radix: 16))")
        }
    }

    @Test("MIME types are checked", arguments: [
        ("text/vcard", true), ("application/json", true), ("text/plain; charset=utf-8", true),
        ("text/plain;charset=\"a b\"", true), ("text", false), ("/plain", false), ("text/", false),
        ("te xt/plain", false), ("text/plain;", false), ("text/plain; a", false),
    ])
    func mimeSyntax(type: String, valid: Bool) {
        let result = Result { () throws(NDEFError) in try NDEFPayload.mimeTypePayload(type: type, data: []) }
        #expect((try? result.get()) != nil || !valid)
        if !valid, case .failure(let e) = result { #expect(e.code == .invalidMIMEType) }
    }

    @Test("external types need domain:type and compare case-insensitively")
    func externalTypes() throws {
        let record = try NDEFPayload.externalTypePayload(type: "Example.com:MyType", data: [1])
        #expect(record.hasType(.nfcExternal, "example.com:mytype"))
        #expect(!record.hasType(.nfcExternal, "example.com:other"))
        #expect(try record.content() == .external(type: "Example.com:MyType", data: [1]))
        for bad in ["nocolon", ":type", "domain:", "dom ain:t"] {
            #expect { try NDEFPayload.externalTypePayload(type: bad, data: []) } throws: {
                ($0 as? NDEFError)?.code == .invalidExternalType
            }
        }
    }

    @Test("an Android Application Record holds the package name")
    func aar() throws {
        let record = try NDEFPayload.androidApplicationRecord(packageName: "com.example.app")
        #expect(record.typeNameFormat == .nfcExternal)
        #expect(record.typeString == "android.com:pkg")
        #expect(try record.content() == .androidApplication(packageName: "com.example.app"))
        #expect(throws: NDEFError.self) { try NDEFPayload.androidApplicationRecord(packageName: "1com.x") }
        #expect(throws: NDEFError.self) { try NDEFPayload.androidApplicationRecord(packageName: "com..x") }
    }

    @Test("absolute-URI records put the URI in the type and need a scheme")
    func absoluteURI() throws {
        let record = try NDEFPayload.absoluteURIPayload(uri: "https://example.com/schema")
        #expect(record.typeNameFormat == .absoluteURI)
        #expect(try record.content() == .absoluteURI("https://example.com/schema", data: []))
        #expect { try NDEFPayload.absoluteURIPayload(uri: "no-scheme") } throws: { ($0 as? NDEFError)?.code == .invalidURI }
    }
}

@Suite("Wi-Fi Simple Configuration and Bluetooth OOB records", .timeLimit(.minutes(5)))
struct HandoverRecordTests {
    @Test("a WPA2 credential round-trips and has the WSC layout")
    func wifi() throws {
        let credential = WiFiCredential(ssid: Bytes(utf8: "Guest"), authentication: .wpa2Personal, encryption: .aes,
                                        networkKey: Bytes(utf8: "secret123"))
        let record = try NDEFPayload.wifiCredentialPayload(credential)
        #expect(record.typeString == "application/vnd.wfa.wsc")
        #expect(Array(record.payload.prefix(5)) == [0x10, 0x4A, 0x00, 0x01, 0x10])  // Version 1.0
        #expect(Array(record.payload[5..<7]) == [0x10, 0x0E])  // Credential
        #expect(try record.content() == .wifi(credential))
    }

    @Test("Wi-Fi values outside the rules are refused")
    func wifiRules() {
        let bad: [WiFiCredential] = [
            .init(ssid: Bytes(), authentication: .open, encryption: .none),
            .init(ssid: Bytes([UInt8](repeating: 0x61, count: 33)), authentication: .open, encryption: .none),
            .init(ssid: Bytes(utf8: "x"), authentication: .open, encryption: .none, networkKey: Bytes(utf8: "k")),
            .init(ssid: Bytes(utf8: "x"), authentication: .wpa2Personal, encryption: .aes, macAddress: [1, 2]),
        ]
        for c in bad {
            #expect { try NDEFPayload.wifiCredentialPayload(c) } throws: { ($0 as? NDEFError)?.code == .invalidValue }
        }
        #expect(WiFiCredential.Authentication(name: "wpa2-personal") == .wpa2Personal)
        #expect(WiFiCredential.Authentication(name: "wpa3") == nil)
        #expect(WiFiCredential.Encryption(name: "AES") == .aes)
    }

    @Test("a Wi-Fi record without a credential or cut short is an error")
    func wifiMalformed() throws {
        let noCredential = try NDEFPayload.mimeTypePayload(type: "application/vnd.wfa.wsc", data: [0x10, 0x4A, 0x00, 0x01, 0x10])
        #expect { try noCredential.content() } throws: { ($0 as? NDEFError)?.code == .invalidPayload }
        let cut = try NDEFPayload.mimeTypePayload(type: "application/vnd.wfa.wsc", data: [0x10, 0x4A, 0x00, 0x05, 0x10])
        #expect { try cut.content() } throws: { ($0 as? NDEFError)?.code == .lengthPastEnd }
    }

    @Test("Bluetooth OOB data round-trips with the address little-endian on the wire")
    func bluetooth() throws {
        let oob = BluetoothOOB(address: [0x00, 0x1A, 0x7D, 0xDA, 0x71, 0x13], localName: "Speaker", deviceClass: 0x240404)
        let record = try NDEFPayload.bluetoothOOBPayload(oob)
        #expect(Array(record.payload[2..<8]) == [0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00])
        #expect(Int(record.payload[0]) | Int(record.payload[1]) << 8 == record.payload.count)
        #expect(try record.content() == .bluetooth(oob))
        #expect(oob.addressString == "00:1A:7D:DA:71:13")
        #expect(BluetoothOOB.parseAddress("00:1a:7d:da:71:13") == oob.address)
        #expect(BluetoothOOB.parseAddress("00:1a") == nil)
    }

    @Test("Bluetooth OOB lengths that do not fit are errors")
    func bluetoothMalformed() throws {
        for payload in ["0800", "ff00112233445566", "0b00 112233445566 05 09 6162"] {
            let record = try NDEFPayload.mimeTypePayload(type: "application/vnd.bluetooth.ep.oob", data: Bytes(hex(payload)))
            #expect(throws: NDEFError.self) { try record.content() }
        }
    }
}
