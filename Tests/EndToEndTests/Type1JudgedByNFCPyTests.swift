import Foundation
import NFCTestSupport
import Testing

/// nfcpy (an independent NFC Forum Type 1 implementation: `nfc/tag/tt1.py`, `tt1_broadcom.py`)
/// as the judge of a Topaz 96 through the PN532 emulator: it detects the tag as nfcpy does on a
/// real PN532 (InListPassiveTarget at 106A finds nothing, CIU_FIFOData does not hold the
/// SENS_REQ, InListPassiveTarget BrTy 4, RID by InDataExchange, SENS_RES `0C 00` naming Type 1),
/// reads with RALL what nfctool wrote and writes with WRITE-E; a fresh nfctool reads that back.
@Suite("Type 1 (Topaz 96) judged by nfcpy through the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(5)))
struct Type1JudgedByNFCPyTests {
    @Test("nfcpy reads the URL nfctool wrote to a Topaz 96; nfctool reads the URL nfcpy wrote back", ExternalTool.nfcpy.trait)
    func nfcpyReadsAndWrites() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("topaz96.json").path
        let device = "sim:topaz96?file=\(file)"
        let written = try await runBuiltNFCTool(["write", "--device", device, "--url", "https://example.com/topaz-nfcpy"])
        #expect(written.status == 0, "\(written.output)")

        let read = try await runNFCPy(model: "topaz96", tagFile: file, """
            print('type', tag.type)
            print('capacity', tag.ndef.capacity)
            print('writeable', tag.ndef.is_writeable)
            print('uri', tag.ndef.records[0].iri)
            import ndef
            tag.ndef.records = [ndef.UriRecord('https://example.org/from-nfcpy-t1')]
            print('rewritten')
            """, timeout: 60)
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output.contains("type Type1Tag"), "\(read.output)")
        // nfcpy counts a Topaz 96's data area as nfctool does: 90 bytes (blocks 1–C after the CC).
        #expect(read.output.contains("capacity 90"), "\(read.output)")
        #expect(read.output.contains("writeable True"), "\(read.output)")
        #expect(read.output.contains("uri https://example.com/topaz-nfcpy"), "\(read.output)")
        #expect(read.output.contains("rewritten"), "\(read.output)")

        let back = try await runBuiltNFCTool(["read", "--device", device])
        #expect(back.status == 0, "\(back.output)")
        #expect(back.standardOutput.contains("https://example.org/from-nfcpy-t1"), "\(back.standardOutput)")
    }
}
