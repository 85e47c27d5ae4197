import Foundation
import NDEF
import NFCCore
import NFCTestSupport
import Testing
@testable import NFCToolCore

@Suite("nfctool ndef encode and decode", .timeLimit(.minutes(5)))
struct NDEFCommandTests {
    @Test("encode prints hex of records in the order of their flags")
    func encodeOrder() async throws {
        let run = await runNFCTool(["ndef", "encode", "--url", "https://example.com", "--text", "Hallo", "--lang", "de", "--url", "tel:+1555"])
        #expect(run.status == .success)
        #expect(run.standardError.isEmpty)
        let message = try NDEFMessage(bytes: Hex.decode(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(try message.records.map { try $0.content() } == [
            .uri("https://example.com"), .text(.init(text: "Hallo", language: "de")), .uri("tel:+1555"),
        ])
    }

    @Test("every record flag builds its record")
    func everyKind() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = dir.appendingPathComponent("key.txt")
        try Data("secret123\n".utf8).write(to: key)
        let vcard = dir.appendingPathComponent("card.vcf")
        try Data("BEGIN:VCARD\r\nEND:VCARD\r\n".utf8).write(to: vcard)
        let run = await runNFCTool([
            "ndef", "encode",
            "--mime", "text/vcard", "--data-file", vcard.path,
            "--external", "example.com:serial", "--data-hex", "0102", "--id", "s1",
            "--absolute-uri", "https://example.com/schema",
            "--aar", "com.example.app",
            "--wifi-ssid", "Guest", "--wifi-auth", "wpa2-personal", "--wifi-key-file", key.path,
            "--smart-poster", "https://nfc.example", "--title", "Hello", "--title", "Bonjour", "--lang", "fr", "--action", "save",
            "--bluetooth", "00:1A:7D:DA:71:13", "--bt-name", "Speaker", "--bt-class", "0x240404",
            "--text", "wide", "--utf16",
            "--json",
        ])
        #expect(run.status == .success, "\(run.standardError)")
        let message = try JSONDecoder().decode(NDEFMessage.self, from: Data(run.standardOutput.utf8))
        let contents = try message.records.map { try $0.content() }
        #expect(contents.map(\.kind) == ["mime", "external", "absolute-uri", "android-app", "wifi", "smart-poster", "bluetooth", "text"])
        #expect(contents[0] == .mime(type: "text/vcard", data: Bytes(utf8: "BEGIN:VCARD\r\nEND:VCARD\r\n")))
        #expect(message.records[1].identifier == Bytes(utf8: "s1"))
        guard case .wifi(let w) = contents[4] else { Issue.record("not wifi"); return }
        #expect(w.networkKey == Bytes(utf8: "secret123"))  // newline stripped
        #expect(w.encryption == .aes)
        guard case .smartPoster(let p) = contents[5] else { Issue.record("not a smart poster"); return }
        #expect(p.titles == [.init(text: "Hello", language: "en"), .init(text: "Bonjour", language: "fr")])
        #expect(p.action == .save)
        #expect(contents[6] == .bluetooth(.init(address: [0x00, 0x1A, 0x7D, 0xDA, 0x71, 0x13], localName: "Speaker", deviceClass: 0x240404)))
        #expect(contents[7] == .text(.init(text: "wide", language: "en", encoding: .utf16)))
    }

    @Test("the Wi-Fi key comes from NFCTOOL_WIFI_KEY when no key file is given")
    func wifiKeyFromEnvironment() async throws {
        let run = await runNFCTool(["ndef", "encode", "--wifi-ssid", "Guest", "--json"], environment: ["NFCTOOL_WIFI_KEY": "pw12345678"])
        #expect(run.status == .success)
        let message = try JSONDecoder().decode(NDEFMessage.self, from: Data(run.standardOutput.utf8))
        guard case .wifi(let w) = try message.records[0].content() else { Issue.record("not wifi"); return }
        #expect(w.networkKey == Bytes(utf8: "pw12345678"))
        #expect(w.authentication == .wpa2Personal)
    }

    @Test("a Wi-Fi record without a key is refused (64) unless --wifi-auth open is given: no silent open network")
    func wifiWithoutKeyIsRefused() async throws {
        let refused = await runNFCTool(["ndef", "encode", "--wifi-ssid", "Guest", "--json"])
        #expect(refused.status == .usage)
        #expect(JSONAnswer.answer(refused.standardOutput).isEmpty)
        #expect(refused.standardError.contains("wpa2-personal needs a network key"), "\(refused.standardError)")
        #expect(refused.standardError.contains("--wifi-auth open"), "\(refused.standardError)")
        let open = await runNFCTool(["ndef", "encode", "--wifi-ssid", "Cafe", "--wifi-auth", "open", "--json"])
        #expect(open.status == .success)
        let message = try JSONDecoder().decode(NDEFMessage.self, from: Data(open.standardOutput.utf8))
        guard case .wifi(let w) = try message.records[0].content() else { Issue.record("not wifi"); return }
        #expect(w.authentication == .open)
        #expect(w.networkKey.isEmpty)
    }

    @Test("bad input is a usage error (64) that says what is wrong", arguments: [
        (["ndef", "encode"], "no record given"),
        (["ndef", "encode", "--url", "example.com"], "needs a scheme"),
        (["ndef", "encode", "--url", "https://"], "needs a host"),
        (["ndef", "encode", "--url", "https://a b.com"], "space"),
        (["ndef", "encode", "--text", "x", "--lang", String(repeating: "a", count: 64)], "at most 63"),
        (["ndef", "encode", "--wifi-ssid", "x", "--wifi-auth", "wpa3"], "wpa2-personal"),
        (["ndef", "encode", "--wifi-ssid", "x", "--wifi-auth", "wpa2-personal"], "needs a network key"),
        (["ndef", "encode", "--wifi-ssid", String(repeating: "s", count: 33), "--wifi-auth", "open"], "1 to 32 bytes"),
        (["ndef", "encode", "--lang", "en", "--url", "https://a.b"], "must follow --text or --title"),
        (["ndef", "encode", "--url", "https://a.b", "--data", "x"], "must follow --mime"),
        (["ndef", "encode", "--mime", "nope", "--data", "x"], "type/subtype"),
        (["ndef", "encode", "--mime", "a/b", "--data", "x", "--data", "y"], "already has its data"),
        (["ndef", "encode", "--mime", "a/b", "--data-hex", "zz"], "not a hex digit"),
        (["ndef", "encode", "--external", "nocolon"], "domain:type"),
        (["ndef", "encode", "--aar", "not a package"], "package name"),
        (["ndef", "encode", "--bluetooth", "00:11"], "6 hex bytes"),
        (["ndef", "encode", "--smart-poster", "https://a.b", "--action", "jump"], "do, save or edit"),
        (["ndef", "encode", "--url", "https://a.b", "--chunk-size", "0"], "chunk-size"),
        (["ndef", "encode", "--url", "https://a.b", "--json", "--raw"], "cannot be used together"),
        (["ndef", "encode", "--json-file", "/nonexistent/x.json"], "No such file or directory"),
        (["ndef", "decode", "zz"], "not a hex digit"),
    ] as [([String], String)])
    func usageErrors(arguments: [String], expected: String) async {
        let run = await runNFCTool(arguments)
        if expected == "No such file or directory" {
            #expect(run.status == .failure)
        } else {
            #expect(run.status == .usage, "\(run.standardError)")
        }
        #expect(run.standardError.hasPrefix("Error: "), "\(run.standardError)")
        #expect(run.standardError.contains(expected), "\(run.standardError)")
        #expect(JSONAnswer.answer(run.standardOutput).isEmpty)
    }

    @Test("decode shows one block per record with its fields")
    func decodeHuman() async {
        let run = await runNFCTool(["ndef", "decode", "d1010c5504 6578616d706c652e636f6d"])
        #expect(run.status == .success)
        #expect(run.standardOutput == """
            NDEF message: 1 record, 16 bytes

            Record 1: URI (well-known "U"), payload 12 bytes
              uri:        https://example.com

            """)
    }

    @Test("decode reads raw bytes or hex text from standard input and --input")
    func decodeInputs() async throws {
        let bytes = try NDEFMessage(records: [.wellKnownTypeTextPayload(string: "hi", locale: "en")]).encoded()
        let fromRaw = await runNFCTool(["ndef", "decode", "--json"], standardInput: bytes)
        #expect(fromRaw.status == .success)
        #expect(fromRaw.standardOutput.contains(#""text" : "hi""#))
        let fromHex = await runNFCTool(["ndef", "decode", "--json"], standardInput: Array((Hex.encode(bytes) + "\n").utf8))
        #expect(fromHex.standardOutput == fromRaw.standardOutput)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-\(UUID().uuidString).ndef")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(bytes).write(to: file)
        let fromFile = await runNFCTool(["ndef", "decode", "--json", "--input", file.path])
        #expect(fromFile.standardOutput == fromRaw.standardOutput)
    }

    @Test("malformed data exits 65 with the offset; --lenient shows what can be read")
    func decodeMalformed() async {
        let damaged = "91010c5504 6578616d706c652e636f6d 51010455036162"  // second record cut short
        let strict = await runNFCTool(["ndef", "decode", damaged])
        #expect(strict.status == .dataError)
        #expect(strict.standardError.contains("at byte 18:"), "\(strict.standardError)")
        #expect(strict.standardError.contains("--lenient"))
        let lenient = await runNFCTool(["ndef", "decode", "--lenient", damaged])
        #expect(lenient.status == .success)
        #expect(lenient.standardOutput.contains("https://example.com"))
        #expect(lenient.standardError.contains("warning: at byte 18:"))
        let lenientJSON = await runNFCTool(["ndef", "decode", "--lenient", "--json", damaged])
        #expect(lenientJSON.standardOutput.contains(#""code" : "lengthPastEnd""#))
        let badPayload = await runNFCTool(["ndef", "decode", "d101025530 61"])
        #expect(badPayload.status == .dataError)
        #expect(badPayload.standardError.contains("reservedURIPrefix"))
    }

    @Test("encode --output writes raw bytes that decode --input reads back, --json-file reads JSON")
    func fileRoundTrip() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("m.ndef").path
        let encode = await runNFCTool(["ndef", "encode", "--url", "https://example.com/a", "--chunk-size", "4", "-o", out])
        #expect(encode.status == .success)
        #expect(encode.standardOutput.isEmpty)
        #expect(encode.standardError.contains("Wrote"))
        let json = await runNFCTool(["ndef", "decode", "--input", out, "--json"])
        #expect(json.status == .success)
        let jsonPath = dir.appendingPathComponent("m.json")
        try Data(json.standardOutput.utf8).write(to: jsonPath)
        let again = await runNFCTool(["ndef", "encode", "--json-file", jsonPath.path])
        let direct = await runNFCTool(["ndef", "encode", "--url", "https://example.com/a"])
        #expect(again.standardOutput == direct.standardOutput)
    }

    @Test("ndef help lists encode and decode; encode --help lists every record flag")
    func help() async {
        let group = await runNFCTool(["ndef", "--help"])
        #expect(group.status == .success)
        #expect(group.standardOutput.contains("encode"))
        #expect(group.standardOutput.contains("decode"))
        let encode = await runNFCTool(["help", "ndef", "encode"])
        #expect(encode.standardOutput == (await runNFCTool(["ndef", "encode", "-h"])).standardOutput)
        for flag in ["--url", "--text", "--mime", "--external", "--aar", "--wifi-ssid", "--smart-poster", "--json-file", "--lang"] {
            #expect(encode.standardOutput.contains(flag))
        }
    }
}
