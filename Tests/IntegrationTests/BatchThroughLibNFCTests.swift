import Foundation
import LibNFC
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Provisioning
import Testing
import VirtualTags

/// Batch provisioning through real libnfc and the PN532 emulator handing out a stack of
/// stickers: each deselect takes the tag away and brings the next, as an operator would.
@Suite("Batch provisioning through real libnfc and the PN532 emulator", .serialized, .timeLimit(.minutes(10)))
struct BatchThroughLibNFCTests {
    @Test("a stack of 5 NTAG215 in tag files: each written, verified and recorded; the files hold exactly the ledger's data")
    func stack() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        let emulator = try EmulatorProcess(["--tag", "ntag215*5:\(tags)", "--hand-out", "deselect"])
        defer { emulator.stop() }
        let reader = try await LibNFCReader.open(emulator.connectionString)
        let ledger = try Ledger(path: directory.appendingPathComponent("ledger.db").path)
        let template = try ProvisioningTemplate("https://ex.io/t/{uid}?n={n:04}")
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: try ledger.startRun(template: template.text, manifest: nil, readers: [emulator.connectionString]),
            source: .template(usesCounter: true, start: 1) { uid, n in
                NDEFMessage(records: [try .wellKnownTypeURIPayload(url: template.render(uid: uid, counter: n))])
            },
            options: BatchOptions(count: 5))
        await BatchWorker(reader: reader, coordinator: coordinator, events: { _ in }).run()
        await reader.close()
        emulator.stop()
        #expect(await coordinator.summary.done == 5)
        let attempts = try ledger.attempts()
        #expect(attempts.count == 5 && attempts.allSatisfy { $0.status == "done" })
        // Every tag file holds exactly what the ledger says it got.
        for attempt in attempts {
            let file = TagFile(path: tags + "/" + attempt.uid.lowercased() + ".json")
            let tag = try file.loadTag()
            let check = SimulatedReader(tags: [tag], emptyFieldWait: .zero)
            let target = try #require(try await check.poll(for: [.iso14443A], timeout: .zero))
            let read = try await NFCTag.connect(to: target, on: check).ndef.readNDEF()
            let expected = "https://ex.io/t/\(attempt.uid)?n=" + String(format: "%04d", attempt.counter ?? -1)
            #expect(read == NDEFMessage(records: [try .wellKnownTypeURIPayload(url: expected)]))
        }
    }
}
