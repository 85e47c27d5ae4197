import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// `nfctool batch` through pcscd: the virtual reader hands out a stack of stickers, each taken
    /// away when nfctool leaves it with a reset (its deselect) and the next laid on the reader.
    @Suite(
        "batch through the real pcscd and the virtual reader", .tags(.pcsc, .endToEnd), .serialized, .timeLimit(.minutes(5)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct BatchThroughPCSCTests {
        @Test("a batch of 20 ICODE SLIX2 stickers through pcscd: 20 distinct UIDs done in the ledger, each tag file (read by the simulator) holds its own URL")
        func twentySLIX2() async throws {
            let tool = try #require(Executables.built("nfctool"), "nfctool is not built").path
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let tags = daemon.directory.appendingPathComponent("tags").path
            let ledger = daemon.directory.appendingPathComponent("run.db").path
            let reader = try await VirtualReaderProcess(tag: "sim:slix2*20?dir=\(tags)", daemon: daemon, extra: ["--hand-out", "reset"])
            defer { reader.stop() }
            let started = Date()
            let run = try await runTool(
                tool, ["batch", "--device", "pcsc", "--url", "https://ex.io/s/{uid}?n={n:03}", "--count", "20", "--ledger", ledger, "--json", "--timeout", "10"],
                environment: daemon.environment, timeout: 240)
            let seconds = Date().timeIntervalSince(started)
            let controls = ((try? String(contentsOfFile: reader.logPath, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.hasPrefix("#") }
            #expect(run.status == 0, "\(run.output)\n\(reader.output)\n\(controls)")
            #expect(run.output.contains("\"done\" : 20"), "\(run.output)\n\(reader.output)\n\(controls)")
            // pcscd itself saw every sticker come as a new card and each handed-out one go: a
            // swap it missed left the old card's state in place for the next sticker, which then
            // changed under nfctool mid-operation.
            let pcscdLog = daemon.log
            #expect(pcscdLog.components(separatedBy: "Card inserted into \(daemon.readerName)").count - 1 == 20, "\(controls)")
            #expect(pcscdLog.components(separatedBy: "Card Removed From \(daemon.readerName)").count - 1 >= 19, "\(controls)")
            let export = try await runTool(tool, ["ledger", "export", ledger], environment: daemon.environment, timeout: 30)
            let rows = export.output.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
            #expect(rows.count == 20, "\(export.output)")
            let uids = Set(export.output.split(separator: "\n").dropFirst().compactMap { line in
                line.split(separator: ",").first { $0.count == 16 && $0.hasPrefix("E0") }.map(String.init)
            })
            #expect(uids.count == 20, "20 different stickers: \(uids)")
            await reader.stopped()
            for uid in uids {
                let file = tags + "/" + uid.lowercased() + ".json"
                let back = try await runTool(tool, ["read", "--device", "sim:slix2?file=\(file)"], environment: daemon.environment, timeout: 30)
                #expect(back.output.contains("https://ex.io/s/\(uid)?n="), "\(uid): \(back.output)")
            }
            print("batch of 20 SLIX2 through pcscd: \(String(format: "%.1f", seconds)) s")
        }
    }
}
