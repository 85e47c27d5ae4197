import Foundation
import NFCTestSupport
import NDEF
import NFCCore
import NFCTags
import Testing
@testable import NFCToolCore

/// `nfctool sun verify` through the built executable in a fresh process, judged by NXP's
/// published example: AN12196's SUN URL with all-zero keys
/// (`https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086`, PICC data
/// of UID 04DE5F1EACC040 and counter 61) is accepted, and refused with one character changed.
@Suite("nfctool sun verify, as a server runs it", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct SunVerifyCommandTests {
    static let publishedURL = "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
    static let zeroKey = String(repeating: "0", count: 32)
    static let keysText = "# AN12196's example keys\nsdmMetaRead = \(zeroKey)\nsdmFileRead = \(zeroKey)\n"

    /// A keys file in a fresh directory.
    func keysFile(_ text: String = SunVerifyCommandTests.keysText) throws -> String {
        let directory = try temporaryDirectory()
        let url = directory.appendingPathComponent("sun.keys")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test("AN12196's published URL is valid: UID 04DE5F1EACC040, counter 61, exit 0")
    func publishedURLIsValid() async throws {
        let run = try await runBuiltNFCTool(["sun", "verify", "--keys", try keysFile(), Self.publishedURL])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("uid:       04DE5F1EACC040"))
        #expect(run.standardOutput.contains("counter:   61"))
        #expect(!run.standardOutput.contains(Self.zeroKey) && !run.standardError.contains(Self.zeroKey))
    }

    @Test("file data that is not UTF-8 is shown as hex only, not as replacement characters")
    func fileDataNotUTF8() async throws {
        // AN12196 Table 6's layout, its plain text replaced by bytes no UTF-8 decoder accepts
        // (a tag's file holds whatever another tool wrote there).
        let template = try SDMURLTemplate("https://www.my424dna.com/?picc_data={sun:picc}&enc={sun:enc:xxxxxxxxxxxxxxxx}&cmac={sun:mac}")
        let range = try #require(template.layout.encryptedFileData)
        var file = template.file
        let plain: [UInt8] = [0xFF, 0xFE, 0xC0, 0x80, 0xED, 0xA0, 0x80, 0xF8, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48]
        file.replaceSubrange(range.offset..<(range.offset + plain.count), with: plain)
        let zero = Bytes([UInt8](repeating: 0, count: 16))
        let read = try template.layout.mirror(
            file: file, uid: hexBytes("04958CAA5C5E80"), counter: 8,
            keys: try SDMKeys(metaRead: zero, fileRead: zero), padding: [0x01, 0x02, 0x03, 0x04, 0x05])
        let url = try #require(try NDEFMessage(bytes: Array(read[2...])).records.first?.wellKnownTypeURIPayload()).absoluteString
        let run = try await runBuiltNFCTool([
            "sun", "verify", "--keys", try keysFile(), "--picc-param", "picc_data", "--enc-param", "enc", "--mac-param", "cmac", url,
        ])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("file data: not UTF-8 text (FFFEC080EDA080F84142434445464748)"), "\(run.standardOutput)")
        #expect(!run.standardOutput.contains("\u{FFFD}"))
    }

    @Test("one character changed (in the PICC data, or in the MAC) exits 8", arguments: [
        "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E89&c=94EED9EE65337086",
        "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337087",
        "https://ntag.nxp.com/424?e=FF963FF7828658A599F3041510671E88&c=94EED9EE65337086",
    ])
    func oneCharacterChanged(url: String) async throws {
        let run = try await runBuiltNFCTool(["sun", "verify", "--keys", try keysFile(), url])
        #expect(run.status == 8, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardError.contains("not a valid tap"))
    }

    @Test("--json: valid with UID and counter; invalid with the error code and the offset, exit 8")
    func json() async throws {
        let valid = try await runBuiltNFCTool(["sun", "verify", "--json", "--keys", try keysFile(), Self.publishedURL])
        #expect(valid.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(valid.standardOutput.utf8)) as? [String: Any])
        #expect(object["valid"] as? Bool == true)
        #expect(object["uid"] as? String == "04DE5F1EACC040")
        #expect(object["counter"] as? Int == 61)
        #expect(object["encryptedPICCData"] as? Bool == true)

        let altered = Self.publishedURL.replacingOccurrences(of: "c=94EED9EE65337086", with: "c=94EED9EE65337087")
        let invalid = try await runBuiltNFCTool(["sun", "verify", "--json", "--keys", try keysFile(), altered])
        #expect(invalid.status == 8)
        let refusal = try #require(try JSONSerialization.jsonObject(with: Data(JSONAnswer.answer(invalid.standardOutput).utf8)) as? [String: Any])
        #expect(refusal["valid"] as? Bool == false)
        #expect(refusal["error"] as? String == "macMismatch")
        #expect(refusal["offset"] as? Int == 62)
    }

    @Test("keys from the environment, never from the command line")
    func keysFromEnvironment() async throws {
        let run = try await runBuiltNFCTool(["sun", "verify", Self.publishedURL],
                                      environment: ["NFCTOOL_SUN_KEYS": "sdmMetaRead=\(Self.zeroKey);sdmFileRead=\(Self.zeroKey)"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("counter:   61"))
        let none = try await runBuiltNFCTool(["sun", "verify", Self.publishedURL], environment: ["NFCTOOL_SUN_KEYS": ""])
        #expect(none.status == 64)
        #expect(none.standardError.contains("needs keys"))
        let argv = try await runBuiltNFCTool(["sun", "verify", "--key", Self.zeroKey, Self.publishedURL])
        #expect(argv.status == 64)
    }

    @Test("a malformed keys file exits 65 naming the line, without showing the key")
    func badKeysFile() async throws {
        let secret = "0123456789ABCDEF0123456789ABCDE"  // 31 digits
        let run = try await runBuiltNFCTool(["sun", "verify", "--keys", try keysFile("sdmMetaRead = \(secret)\n"), Self.publishedURL])
        #expect(run.status == 65)
        #expect(run.standardError.contains("line 1"))
        #expect(!run.standardError.contains(secret))
    }

    @Test("custom parameter names: AN12196's my424dna.com URL with picc_data, enc and cmac")
    func customNames() async throws {
        let url = "https://www.my424dna.com/?picc_data=FD91EC264309878BE6345CBE53BADF40&enc=CEE9A53E3E463EF1F459635736738962&cmac=ECC1E7F6C6C73BF6"
        let run = try await runBuiltNFCTool(["sun", "verify", "--keys", try keysFile(), "--picc-param", "picc_data", "--mac-param", "cmac", url])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("uid:       04958CAA5C5E80"))
        #expect(run.standardOutput.contains("counter:   8"))
        #expect(run.standardOutput.contains("xxxxxxxxxxxxxxxx"))
        let defaults = try await runBuiltNFCTool(["sun", "verify", "--keys", try keysFile(), url])
        #expect(defaults.status == 8)
    }

    @Test("usage errors exit 64: no URL, a bad parameter name")
    func usage() async throws {
        #expect(try await runBuiltNFCTool(["sun", "verify", "--keys", try keysFile()]).status == 64)
        #expect(try await runBuiltNFCTool(["sun", "verify", "--keys", try keysFile(), "--mac-param", "c&d", Self.publishedURL]).status == 64)
    }
}
