import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// Tearing through PC/SC: an NDEF write through pcscd and the virtual reader is cut at every
    /// point around its writes (the tag leaves the field right after command k, and the card the
    /// reader), and the tag left behind is read by the simulator in a fresh process: it holds the
    /// old message, an empty one or the new one, never a broken one.
    @Suite(
        "tearing sweeps through the real pcscd (Type 2, Type 5 and Type 1)", .tags(.pcsc, .endToEnd), .serialized, .timeLimit(.minutes(8)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct TearingThroughPCSCTests {
        static let old = "https://example.com/old-message"
        static let new = "https://example.com/the-new-message-written-through-pcscd"

        /// The APDUs of a run that reach the tag (GET DATA is the reader's own): their indices are
        /// the field's command numbers.
        static func tagCommands(_ apdus: [String]) -> [String] {
            apdus.filter { $0.hasPrefix("ffb0") || $0.hasPrefix("ffd6") || $0.hasPrefix("ffc20001") || $0.hasPrefix("ff000000") }
        }

        /// A Type 1 write in a transparent-session transceive object (`95 07` WRITE-E / WRITE-NE,
        /// `95 0E` WRITE-E8) or an ACR122U InDataExchange (`D4 40 01 53` / `1A`).
        static func isType1Write(_ apdu: String) -> Bool {
            ["950753", "95071a", "950e54", "d4400153", "d440011a"].contains { apdu.contains($0) }
        }

        /// Runs the sweep on `model` and returns outcome counts (and "cut points", "commands").
        func sweep(
            _ model: String, readerName: String? = nil, profile: String? = nil, new: String = Self.new,
            isWrite: (String) -> Bool = { $0.hasPrefix("ffd6") }, sampled: Bool = false
        ) async throws -> [String: Int] {
            let tool = try #require(Executables.built("nfctool"), "nfctool is not built").path
            let daemon = try await PrivatePCSCDaemon(friendlyName: readerName)
            defer { daemon.stop() }
            let base = daemon.directory.appendingPathComponent("base.json").path
            let seed = try await runTool(tool, ["write", "--device", "sim:\(model)?file=\(base)", "--url", Self.old], environment: daemon.environment, timeout: 30)
            try #require(seed.status == 0, "\(seed.output)")
            func copy(_ name: String) throws -> String {
                let path = daemon.directory.appendingPathComponent(name).path
                try? FileManager.default.removeItem(atPath: path)
                try FileManager.default.copyItem(atPath: base, toPath: path)
                return path
            }
            // The reference run: which tag commands are writes.
            let reference = try copy("reference.json")
            let reader = try await VirtualReaderProcess(tag: "sim:\(model)?file=\(reference)", daemon: daemon, profile: profile)
            let write = try await runTool(tool, ["write", "--device", "pcsc", "--url", new, "--timeout", "5"], environment: daemon.environment, timeout: 60)
            try #require(write.status == 0, "\(write.output)")
            let commands = Self.tagCommands(reader.receivedAPDUs)
            await reader.stopped()
            let writes = commands.indices.filter { isWrite(commands[$0]) }.map { $0 + 1 }
            let first = try #require(writes.first, "the write sent no write command")
            var outcomes: [String: Int] = ["commands": commands.count]
            // Sampled: before the first write, the first and last four writes and every eighth
            // between them (the in-process sweep of the same chip cuts at every command; through
            // pcscd each cut costs a reader and a tool process).
            let cuts = [first - 1] + (sampled
                ? writes.indices.filter { $0 < 4 || $0 >= writes.count - 4 || $0 % 8 == 0 }.map { writes[$0] }
                : writes)
            outcomes["cut points"] = cuts.count
            for k in cuts {
                let file = try copy("cut-\(k).json")
                let torn = try await VirtualReaderProcess(tag: "sim:\(model)?file=\(file)&leave-after=\(k)", daemon: daemon, profile: profile)
                let cut = try await runTool(tool, ["write", "--device", "pcsc", "--url", new, "--timeout", "3"], environment: daemon.environment, timeout: 60)
                await torn.stopped()
                #expect(cut.status != 0 || k == commands.count, "cut after command \(k): the write cannot have succeeded\n\(cut.output)")
                let back = try await runTool(tool, ["read", "--device", "sim:\(model)?file=\(file)"], environment: daemon.environment, timeout: 30)
                let outcome =
                    if back.output.contains(new) { "new" }
                    else if back.output.contains(Self.old) { "old" }
                    else if back.output.lowercased().contains("empty") { "empty" }
                    else { "corrupt" }
                #expect(outcome != "corrupt", "cut after command \(k) of \(commands.count) left: \(back.output)")
                outcomes[outcome, default: 0] += 1
            }
            return outcomes
        }

        @Test("NTAG215 (Type 2) through FF B0/FF D6: every cut around the writes leaves old, empty or new")
        func type2() async throws {
            let outcomes = try await sweep("ntag215")
            #expect(outcomes["old", default: 0] > 0 && outcomes["new", default: 0] > 0, "\(outcomes)")
            print("PC/SC tearing sweep ntag215: \(outcomes)")
        }

        @Test("ICODE SLIX2 (Type 5) through FF B0/FF D6: every cut around the writes leaves old, empty or new")
        func type5() async throws {
            let outcomes = try await sweep("slix2")
            #expect(outcomes["old", default: 0] > 0 && outcomes["new", default: 0] > 0, "\(outcomes)")
            print("PC/SC tearing sweep slix2: \(outcomes)")
        }

        @Test("Topaz 512 (Type 1) through the ACR1552U's transparent session, a message past byte 128 (WRITE-E and WRITE-E8): cuts before, at the first and last writes and every eighth between leave old, empty or new")
        func type1TransparentSession() async throws {
            let long = "https://example.com/" + String(repeating: "t", count: 150)
            let outcomes = try await sweep(
                "topaz512", readerName: "ACS ACR1552 1S CL Reader PICC", profile: "transparent-session", new: long, isWrite: Self.isType1Write,
                sampled: true)
            #expect(outcomes["old", default: 0] > 0 && outcomes["new", default: 0] > 0, "\(outcomes)")
            print("PC/SC tearing sweep topaz512 (transparent session): \(outcomes)")
        }

        @Test("Topaz 96 (Type 1) through the ACR122U's InDataExchange (WRITE-E, WRITE-NE): cuts before, at the first and last writes and every eighth between leave old, empty or new")
        func type1ACR122U() async throws {
            let outcomes = try await sweep("topaz96", readerName: "ACS ACR122U PICC Interface", profile: "acr122u", isWrite: Self.isType1Write,
                sampled: true)
            #expect(outcomes["old", default: 0] > 0 && outcomes["new", default: 0] > 0, "\(outcomes)")
            print("PC/SC tearing sweep topaz96 (ACR122U): \(outcomes)")
        }
    }
}
