import Foundation
import NFCTestSupport
import Testing

/// nfcpy (an independent NFC Forum Type 4 implementation) as the judge of a MIFARE DESFire EV1
/// that nfctool formatted as Type 4 (NXP AN11004): it finds the NDEF application through the
/// PN532 emulator and reads what nfctool wrote; what nfcpy writes, a fresh nfctool reads.
@Suite("MIFARE DESFire EV1 judged by nfcpy through the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(5)))
struct DESFireJudgedByNFCPyTests {
    @Test("nfcpy reads the URL nfctool wrote to a DESFire it formatted; nfctool reads the URL nfcpy wrote back", ExternalTool.nfcpy.trait)
    func nfcpyReadsAndWrites() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let device = "sim:desfire-ev1?file=\(file)"
        let formatted = try await runBuiltNFCTool(["format", "--device", device, "--yes", "--ndef-size", "1024"])
        #expect(formatted.status == 0, "\(formatted.output)")
        let written = try await runBuiltNFCTool(["write", "--device", device, "--url", "https://example.com/desfire-nfcpy"])
        #expect(written.status == 0, "\(written.output)")

        let read = try await runNFCPy(model: "desfire-ev1", tagFile: file, """
            print('type', tag.type)
            print('capacity', tag.ndef.capacity)
            print('writeable', tag.ndef.is_writeable)
            print('uri', tag.ndef.records[0].iri)
            import ndef
            tag.ndef.records = [ndef.UriRecord('https://example.org/from-nfcpy')]
            print('rewritten')
            """, timeout: 60)
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output.contains("type Type4Tag"), "\(read.output)")
        // The NDEF file of 1024 bytes holds 1022 bytes of message after its 2-byte length.
        #expect(read.output.contains("capacity 1022"), "\(read.output)")
        #expect(read.output.contains("writeable True"), "\(read.output)")
        #expect(read.output.contains("uri https://example.com/desfire-nfcpy"), "\(read.output)")
        #expect(read.output.contains("rewritten"), "\(read.output)")

        let back = try await runBuiltNFCTool(["read", "--device", device])
        #expect(back.status == 0, "\(back.output)")
        #expect(back.standardOutput.contains("https://example.org/from-nfcpy"), "\(back.standardOutput)")
    }
}
