import Foundation
import NDEF
import NFCCore
import NFCKit
import NFCTags
import NFCTestSupport
import Testing

/// How long the examples' tests wait for a session to end (NFCTestSupport's `eventually`, on
/// the main actor where the examples live). Generous: at the start of a full run on a loaded
/// 2-core machine the process has been seen to get no time for 35–45 s.
let exampleLimit: Duration = .seconds(90)

/// The memory of a tag file (`sim:…?file=` or the emulator's `--tag MODEL:FILE`): the other side.
func tagFileMemory(_ path: String) throws -> [UInt8] {
    let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
    return try Hex.decode(try #require(state?["memory"] as? String))
}

/// The NDEF TLV value at page 4 of a Type 2 tag's memory.
func type2NDEFBytes(_ memory: [UInt8]) -> [UInt8]? {
    guard memory.count > 18, memory[16] == 0x03 else { return nil }
    let length = Int(memory[17])
    guard memory.count >= 18 + length else { return nil }
    return Array(memory[18..<(18 + length)])
}

/// The seeds' examples, ported (Tests/PortingExamplesTests/PortedExamples.swift), run against
/// the simulator and through real libnfc and the PN532 emulator.
@Suite("The seeds' CoreNFC examples, ported", .serialized, .timeLimit(.minutes(10)))
@MainActor
struct PortingExamplesTests {
    static let hello = NFCNDEFMessage(records: [
        NFCNDEFPayload.wellKnownTypeTextPayload(string: "Hello, NFC!", locale: Locale(identifier: "en"))
    ].compactMap { $0 })

    @Test("the read example: the delegate gets the message, then FirstNDEFTagRead, which the seed's filter treats as normal")
    func readExampleOnSimulator() async throws {
        let message = NFCNDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com/seed")])
        let hex = Hex.encode(try message.encoded())
        let reader = NDEFReader(connection: "sim:ntag215?ndef=\(hex)", invalidateAfterFirstRead: true)
        #expect(await reader.readingAvailable())
        reader.beginScanning()
        #expect(await eventually(within: exampleLimit) { reader.finished != nil })
        #expect(reader.log == ["active", "URL: https://example.com/seed"])
        #expect(reader.finished?.code == .readerSessionInvalidationErrorFirstNDEFTagRead)
        #expect(isNormalTermination(try #require(reader.finished)))
    }

    @Test("the write example writes the seed's Text record; the tag file holds exactly its encoding")
    func writeExampleOnSimulator() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        let writer = NDEFWriter(connection: "sim:ntag215?file=\(file)", message: Self.hello)
        writer.beginWrite()
        #expect(await eventually(within: exampleLimit) { writer.finished != nil })
        #expect(writer.log == ["detected 1", "status readWrite capacity 492", "written"])
        #expect(writer.finished?.code == .readerSessionInvalidationErrorUserCanceled)
        #expect(writer.alerts == ["Write NDEF message successful."])
        // The other side: the tag's memory, and the bytes NDEF 1.0 and RTD-Text give by hand
        // (D1 01 0E 54 02 'e' 'n' "Hello, NFC!").
        let written = try #require(type2NDEFBytes(try tagFileMemory(file)))
        #expect(written == [0xD1, 0x01, 0x0E, 0x54, 0x02, 0x65, 0x6E] + Array("Hello, NFC!".utf8))
    }

    @Test("the write example on a locked tag stops at readOnly; writeLock through the completion API locks for good")
    func lockExampleOnSimulator() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        let locker = NDEFWriter(connection: "sim:ntag215?file=\(file)", message: Self.hello, lockAfterWriting: true)
        locker.beginWrite()
        #expect(await eventually(within: exampleLimit) { locker.finished != nil })
        #expect(locker.log.last == "locked")
        let memory = try tagFileMemory(file)
        // Static lock bytes FF FF and CC3 (access) 0F: read-only (Type 2 Tag 1.2 §4.6, §6.4).
        #expect(memory[10] == 0xFF && memory[11] == 0xFF && memory[15] == 0x0F)
        let again = NDEFWriter(connection: "sim:ntag215?file=\(file)", message: Self.hello)
        again.beginWrite()
        #expect(await eventually(within: exampleLimit) { again.finished != nil })
        #expect(again.log.last == "status readOnly capacity 492")
        #expect(again.alerts == ["Tag is read only."])
    }

    @Test("a session invalidated by the app reports userCanceled through NFCReaderError, NSError and localizedDescription")
    func errorNamesMatch() async throws {
        let reader = NDEFReader(connection: "sim:empty")
        // Nothing in the field; the Cancel button.
        reader.beginScanning()
        reader.stopScanning()
        #expect(await eventually(within: exampleLimit) { reader.finished != nil })
        let error = try #require(reader.finished)
        #expect(error.code == .readerSessionInvalidationErrorUserCanceled)
        let bridged = error as NSError
        #expect(bridged.domain == "NFCError")
        #expect(bridged.code == NFCReaderError.readerSessionInvalidationErrorUserCanceled.rawValue)
        #expect(bridged.code == 200)
        #expect(error.localizedDescription == error.reason)
        #expect(!isSystemBusy(error))
        #expect(isSystemBusy(NFCReaderError(.readerSessionInvalidationErrorSystemIsBusy, "busy")))
    }

    @Test("begin() on an invalidated session is reported to the delegate, not thrown")
    func beginAfterInvalidation() async throws {
        let reader = NDEFReader(connection: "sim:empty")
        reader.beginScanning()
        reader.stopScanning()
        #expect(await eventually(within: exampleLimit) { reader.finished != nil })
        #expect(reader.finished?.code == .readerSessionInvalidationErrorUserCanceled)
        reader.scanAgainOnStaleSession()
        #expect(await eventually(within: exampleLimit) { reader.finished?.code == .readerTransceiveErrorSessionInvalidated })
    }

    @Test("restartPolling reports again a tag that stayed in the field, as CoreNFC does (simulator)")
    func restartPollingReportsStayingTag() async throws {
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: "sim:ntag215?poll-wait=20")
        try await session.begin()
        var iterator = session.tags.makeAsyncIterator()
        let first = try #require(try await iterator.next())
        try await session.restartPolling()
        let second = try #require(try await iterator.next())
        #expect(second.identifier == first.identifier)
        await session.invalidate()
    }

    @Test("URL and Locale builders: RTD-URI prefix 0x01 is http://www. (not https://www. as a seed says); en_US becomes en-US")
    func builders() throws {
        let httpURL = try #require(URL(string: "http://www.example.com"))
        let http = try #require(NFCNDEFPayload.wellKnownTypeURIPayload(url: httpURL))
        #expect(http.payload.array == [0x01] + Array("example.com".utf8))
        let httpsURL = try #require(URL(string: "https://www.example.com"))
        let https = try #require(NFCNDEFPayload.wellKnownTypeURIPayload(url: httpsURL))
        #expect(https.payload.array == [0x02] + Array("example.com".utf8))
        let text = try #require(NFCNDEFPayload.wellKnownTypeTextPayload(string: "Hi", locale: Locale(identifier: "en_US")))
        #expect(text.payload.array == [0x05] + Array("en-USHi".utf8))
        let apdu = try NFCISO7816APDU(
            instructionClass: 0x00, instructionCode: 0xA4, p1Parameter: 0x04, p2Parameter: 0x00,
            data: [0xA0, 0x00, 0x00, 0x03, 0x00, 0x00], expectedResponseLength: -1)
        #expect(apdu.expectedResponseLength == nil)
    }
}

/// The same examples through real libnfc and the PN532 emulator.
@Suite("The seeds' CoreNFC examples, ported, through libnfc and the PN532 emulator", .serialized, .timeLimit(.minutes(10)))
@MainActor
struct PortingExamplesThroughLibNFCTests {
    @Test("write, then read, then lock: the seeds' flows through libnfc; the emulator's tag file holds the result")
    func writeReadLock() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
        defer { emulator.stop() }

        let writer = NDEFWriter(connection: emulator.connectionString, message: PortingExamplesTests.hello)
        writer.beginWrite()
        #expect(await eventually(within: exampleLimit) { writer.finished != nil })
        #expect(writer.log == ["detected 1", "status readWrite capacity 492", "written"])

        let reader = NDEFReader(connection: emulator.connectionString, invalidateAfterFirstRead: true)
        #expect(await reader.readingAvailable())
        reader.beginScanning()
        #expect(await eventually(within: exampleLimit) { reader.finished != nil })
        #expect(reader.log == ["active", "Text (en): Hello, NFC!"])
        #expect(reader.finished?.code == .readerSessionInvalidationErrorFirstNDEFTagRead)

        let locker = NDEFWriter(connection: emulator.connectionString, message: PortingExamplesTests.hello, lockAfterWriting: true)
        locker.beginWrite()
        #expect(await eventually(within: exampleLimit) { locker.finished != nil })
        #expect(locker.log.last == "locked")
        emulator.stop()
        let memory = try tagFileMemory(file)
        #expect(type2NDEFBytes(memory) == [0xD1, 0x01, 0x0E, 0x54, 0x02, 0x65, 0x6E] + Array("Hello, NFC!".utf8))
        #expect(memory[10] == 0xFF && memory[11] == 0xFF && memory[15] == 0x0F)
    }

    @Test("restartPolling reports again a tag that stayed in the field, through libnfc")
    func restartPollingReportsStayingTag() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213"])
        defer { emulator.stop() }
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: emulator.connectionString)
        try await session.begin()
        var iterator = session.tags.makeAsyncIterator()
        let first = try #require(try await iterator.next())
        try await session.restartPolling()
        let second = try #require(try await iterator.next())
        #expect(second.identifier == first.identifier)
        await session.invalidate()
    }
}

/// The seeds' tag reader session example, on the simulator and through libnfc.
@Suite("The seeds' tag reader session example, ported", .serialized, .timeLimit(.minutes(5)))
@MainActor
struct TagReaderExampleTests {
    @Test("the TagReader delegate reads an NTAG's URL, then the session ends as userCanceled", arguments: [false, true])
    func readsMiFare(throughLibNFC: Bool) async throws {
        let message = NFCNDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com/tag")])
        let hex = Hex.encode(try message.encoded())
        let emulator = throughLibNFC ? try await EmulatorProcess.start(["--tag", "ntag215"]) : nil
        defer { emulator?.stop() }
        if let emulator {
            // The emulator's tag starts blank: the write example puts the message there first.
            let writer = NDEFWriter(connection: emulator.connectionString, message: message)
            writer.beginWrite()
            #expect(await eventually(within: exampleLimit) { writer.finished != nil })
            #expect(writer.log.last == "written")
            // The writer's session gives the reader back after it reported its end: on a loaded
            // machine the release can trail the report (seen as readerBusy in a full run).
            let connection = emulator.connectionString
            #expect(await eventuallyAsync(within: exampleLimit) { await NFCReaderAvailability.check(connection: connection).status == .available })
        }
        let reader = TagReader(connection: emulator?.connectionString ?? "sim:ntag215?ndef=\(hex)")
        reader.beginScanning()
        #expect(await eventually(within: exampleLimit) { reader.finished != nil })
        #expect(reader.log == ["URL: https://example.com/tag"])
        #expect(reader.finished?.code == .readerSessionInvalidationErrorUserCanceled)
    }

    @Test("the ISO 7816 branch SELECTs with Le -1 (no Le) and the card answers 90 00")
    func selectsWithNoLe() async throws {
        let reader = TagReader(connection: "sim:type4")
        reader.beginScanning()
        #expect(await eventually(within: exampleLimit) { reader.finished != nil })
        #expect(reader.log == ["SELECT SW1=90 SW2=0"])
    }
}
