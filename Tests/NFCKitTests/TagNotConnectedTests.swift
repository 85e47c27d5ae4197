import NDEF
import NFCCore
import NFCKit
import NFCTags
import NFCTestSupport
import Testing

/// CoreNFC refuses a tag command before `connect(to:)` with `readerTransceiveErrorTagNotConnected`;
/// so does NFCKit, and the scripted reader's trace shows nothing was sent.
@Suite("A tag command before connect(to:)", .timeLimit(.minutes(2)))
struct TagNotConnectedTests {
    /// An NTAG215 as a reader sees it: ATQA 44 00, SAK 00, a 7-byte UID; GET_VERSION answers
    /// the NTAG215's version (NTAG213/215/216 datasheet §10.1); everything else times out.
    static func reader() -> ScriptedReader {
        let target = TargetInfo.iso14443A(
            ISO14443ATarget(uid: Bytes([0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]), atqa: Bytes([0x44, 0x00]), sak: 0x00, ats: Bytes()))
        return ScriptedReader(
            table: [[0x60]: .answer([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])], otherwise: .timeout, target: target)
    }

    @Test("readNDEF and writeNDEF before connect(to:) fail with TagNotConnected and send nothing; after connect the commands go out")
    func refusedBeforeConnect() async throws {
        let reader = Self.reader()
        let session = NFCTagReaderSession(pollingOption: [.iso14443], reader: reader)
        try await session.begin()
        var tags = session.tags.makeAsyncIterator()
        let tag = try #require(try await tags.next())
        let sentBefore = await reader.sent.count
        do {
            _ = try await tag.ndef.readNDEF()
            Issue.record("readNDEF before connect(to:) went through")
        } catch {
            let mapped = NFCReaderError(error)
            #expect(mapped.code == .readerTransceiveErrorTagNotConnected)
            #expect(mapped.errorCode == 104)
        }
        do {
            try await tag.ndef.writeNDEF(NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com")]))
            Issue.record("writeNDEF before connect(to:) went through")
        } catch {
            #expect((error as? NFCReaderError)?.code == .readerTransceiveErrorTagNotConnected)
        }
        #expect(await reader.sent.count == sentBefore)
        try await session.connect(to: tag)
        _ = try? await tag.ndef.readNDEF()
        #expect(await reader.sent.count > sentBefore)
        // After restartPolling the tag is no longer connected.
        try await session.restartPolling()
        let again = try #require(try await tags.next())
        let sentAfterRestart = await reader.sent.count
        do {
            _ = try await again.ndef.queryNDEFStatus()
            Issue.record("queryNDEFStatus after restartPolling, before connect(to:), went through")
        } catch {
            #expect(NFCReaderError(error).code == .readerTransceiveErrorTagNotConnected)
        }
        #expect(await reader.sent.count == sentAfterRestart)
        await session.invalidate()
    }
}
