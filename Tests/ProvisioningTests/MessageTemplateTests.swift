import Foundation
import NDEF
import NFCCore
import NFCTestSupport
import Provisioning
import Testing

private let manifests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/manifests")

/// `MessageTemplate`: manifest columns and batch templates mapped onto NDEF's record specification.
@Suite("Message templates: manifest columns and placeholders onto record specifications", .timeLimit(.minutes(2)))
struct MessageTemplateTests {
    static let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]

    static func noFiles(_ path: String, _ field: NDEFRecordSpecification.Field) throws -> NDEFRecordSpecification.Value {
        Issue.record("no file expected, got \(path) for \(field)")
        return .text("")
    }

    static func contents(_ message: NDEFMessage) throws -> [NDEFContent] {
        try message.records.map { try $0.content() }
    }

    @Test("the fixture manifest's rows make their records in column order; uid and empty cells make none")
    func manifestRows() throws {
        let rows = try Manifest.parse(String(contentsOf: manifests.appendingPathComponent("three-rows.csv"), encoding: .utf8), format: .csv)
        let messages = try rows.map { try MessageTemplate(row: $0).message(uid: [], counter: nil, load: Self.noFiles) }
        #expect(try Self.contents(messages[0]) == [.uri("https://example.com/a"), .text(NDEFText(text: "Hello, world", language: "en"))])
        #expect(try Self.contents(messages[1]) == [.uri("https://example.com/b")])
        #expect(try Self.contents(messages[2]) == [.uri(#"https://example.com/c?x="q""#), .text(NDEFText(text: "line one", language: "en"))])
    }

    @Test("every column name maps to a field; modifiers change the record of the column before; values are literal")
    func columns() throws {
        let row = ManifestRow(index: 1, line: 2, fields: [
            ("URL", "https://ex.io/{uid}"), ("text", "wide"), ("lang", "de"), ("utf16", "yes"), ("id", "t1"),
            ("smart-poster", "tel:+1555"), ("title", "Call"), ("action", "do"),
            ("wifi-ssid", "Cafe"), ("wifi-auth", "open"), ("bluetooth", "00:1A:7D:DA:71:13"), ("bt-name", "Speaker"),
        ])
        let specifications = try MessageTemplate(row: row).specifications(uid: Self.uid, counter: 7, load: Self.noFiles)
        #expect(specifications == [
            NDEFRecordSpecification(.uri("https://ex.io/{uid}")),
            NDEFRecordSpecification(.text(NDEFText(text: "wide", language: "de", encoding: .utf16)), identifier: "t1"),
            NDEFRecordSpecification(.smartPoster(NDEFSmartPoster(uri: "tel:+1555", titles: [NDEFText(text: "Call", language: "en")], action: .doAction))),
            NDEFRecordSpecification(.wifi(.init(ssid: "Cafe", authentication: .open))),
            NDEFRecordSpecification(.bluetooth(BluetoothOOB(address: [0x00, 0x1A, 0x7D, 0xDA, 0x71, 0x13], localName: "Speaker"))),
        ])
        #expect(Set(MessageTemplate.columns.keys).count == 24)
    }

    @Test("a column that names no field is refused with its line")
    func unknownColumn() {
        let row = ManifestRow(index: 1, line: 5, fields: [("url", "https://ex.io"), ("colour", "red")])
        #expect(throws: ProvisioningInputError("column 'colour' is not a record option", line: 5)) { try MessageTemplate(row: row) }
    }

    @Test("placeholders fill per tag; a file field's filled path goes to the loader and its value into the record")
    func placeholdersAndFiles() throws {
        let template = MessageTemplate(entries: [
            .init(field: .uri, template: try ProvisioningTemplate("https://ex.io/{uid:lower}?n={n:03}"), label: "--url"),
            .init(field: .mimeType, template: ProvisioningTemplate(literal: "application/octet-stream"), label: "--mime"),
            .init(field: .data, source: .file, template: try ProvisioningTemplate("blobs/{uid}.bin"), label: "--data-file"),
        ])
        #expect(template.usesCounter)
        var asked: [String] = []
        let message = try template.message(uid: Self.uid, counter: 42) { path, field in
            asked.append("\(field):\(path)")
            return .bytes([0xCA, 0xFE])
        }
        #expect(asked == ["data:blobs/04A1B2C3D4E5F6.bin"])
        #expect(try Self.contents(message) == [.uri("https://ex.io/04a1b2c3d4e5f6?n=042"),
                                               .mime(type: "application/octet-stream", data: [0xCA, 0xFE])])
    }

    @Test("errors are told in the entries' own names: the record, the misplaced column, the bad value")
    func describeErrors() throws {
        func failure(_ fields: [(String, String)]) -> String? {
            let template: MessageTemplate
            do { template = try MessageTemplate(row: ManifestRow(index: 1, line: 2, fields: fields)) } catch { return "\(error)" }
            do {
                _ = try template.message(uid: [], counter: nil, load: Self.noFiles)
                return nil
            } catch let error as NDEFSpecificationError {
                return template.describe(error)
            } catch {
                return "\(error)"
            }
        }
        #expect(failure([("url", "example.com")]) == "url 'example.com': a URI needs a scheme, e.g. https://example.com")
        #expect(failure([("url", "https://ex.io"), ("title", "t")]) == "title must follow smart-poster, not url")
        #expect(failure([("lang", "de")]) == "lang must follow text or title")
        #expect(failure([("url", "tel:1"), ("wifi-ssid", "Guest")])
            == "record 2 (wifi-ssid): wpa2-personal needs a network key (give a wifi-key-file column, or wifi-auth open for an open network)")
        #expect(failure([("text", "x"), ("lang", "e n")])?.hasPrefix("record 1 (text): language tag may hold only") == true)
    }
}
