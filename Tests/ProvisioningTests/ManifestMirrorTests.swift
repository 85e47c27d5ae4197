import NFCTags
import Provisioning
import Testing

/// NTAG21x mirror placeholders in a manifest's `url` column: each row may ask for its own
/// mirror; the cell is written with the datasheet's placeholder characters.
@Suite("Mirror placeholders in manifest rows", .timeLimit(.minutes(1)))
struct ManifestMirrorTests {
    static func row(_ fields: [(String, String)], line: Int = 2) -> ManifestRow {
        ManifestRow(index: line - 1, line: line, fields: fields.map { (name: $0.0, value: $0.1) })
    }

    @Test("a url cell with {mirror:…} gives the row its mirror and the placeholder characters", arguments: [
        ("https://ex.io/a?u={mirror:uid}", NTAGMirror.uid, "https://ex.io/a?u=00000000000000"),
        ("https://ex.io/b?c={mirror:counter}", NTAGMirror.counter, "https://ex.io/b?c=000000"),
        ("https://ex.io/{mirror:uid}x{mirror:counter}", NTAGMirror.uidAndCounter, "https://ex.io/00000000000000x000000"),
    ])
    func mirrorCell(url: String, mirror: NTAGMirror, written: String) throws {
        let template = try MessageTemplate(row: Self.row([("url", url), ("text", "{mirror:uid} stays literal in text")]))
        #expect(template.mirror == mirror)
        let message = try template.message(uid: [], counter: nil) { _, _ in .text("") }
        #expect(message.records.first?.wellKnownTypeURIPayload() == written)
        #expect(message.records.count == 2)
    }

    @Test("a row without a mirror has none; other braces stay literal")
    func noMirror() throws {
        let template = try MessageTemplate(row: Self.row([("url", "https://ex.io/{uid}")]))
        #expect(template.mirror == nil)
        #expect(try template.message(uid: [], counter: nil) { _, _ in .text("") }.records.first?.wellKnownTypeURIPayload() == "https://ex.io/{uid}")
    }

    @Test("a malformed mirror placeholder, or two mirrors in one row, is refused with the row's line")
    func refused() {
        #expect(throws: ProvisioningInputError.self) { try MessageTemplate(row: Self.row([("url", "https://ex.io/{mirror:serial}")], line: 9)) }
        let error = #expect(throws: ProvisioningInputError.self) {
            try MessageTemplate(row: Self.row([("url", "https://ex.io/{mirror:uid}"), ("url", "https://ex.io/{mirror:counter}")], line: 4))
        }
        #expect(error?.line == 4)
    }
}
