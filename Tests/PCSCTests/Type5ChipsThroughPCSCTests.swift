import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// TI Tag-it HF-I Plus, NTAG 5 and ICODE DNA behind the real pcscd and the PC/SC reader
    /// emulator, in fresh nfctool processes; the tag files judged by ``T5TJudge``. A Tag-it's
    /// writes need the option flag, which UPDATE BINARY cannot ask for: they go through the
    /// transparent session (an ACR1552U) and are refused, nothing sent, by the generic profile.
    @Suite(
        "Tag-it HF-I Plus, NTAG 5 and ICODE DNA through the real pcscd", .tags(.pcsc, .endToEnd, .emulator), .serialized, .timeLimit(.minutes(5)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct Type5ChipsThroughPCSCTests {
        static let acr1552u = "ACS ACR1552 1S CL Reader PICC"

        @Test("Tag-it through an ACR1552U: format, write and lock go as transparent-session frames with the option flag (62 21 …, 62 22 …); the tag file holds the message and the locks")
        func tagItThroughTransparentSession() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("tagit.json").path
            let reader = try await VirtualReaderProcess(tag: "sim:tagit-hfi-plus?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            for arguments in [["format", "--yes"], ["write", "--url", "https://ti.example/pcsc"], ["lock", "--yes"]] {
                let run = try await runTool(tool, arguments + ["--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
                #expect(run.status == 0, "\(arguments): \(run.output)")
            }
            let apdus = reader.receivedAPDUs
            // Transceive data objects (5F46) of the session carrying WRITE SINGLE BLOCK and LOCK
            // BLOCK with flags 62 (high data rate, addressed, option).
            #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains("6221") }, "\(apdus)")
            #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains("6222") }, "\(apdus)")
            #expect(!apdus.contains { $0.hasPrefix("ffd6") }, "no UPDATE BINARY: it cannot carry the option flag")
            await reader.stopped()
            let tagFile = try T5TJudge.TagFile(path: file, blocks: 64)
            let judged = try #require(tagFile.judged)
            #expect(judged.writeAccess == 3 && judged.features & 0x10 == 0x10)
            #expect(String(decoding: (judged.message ?? []).dropFirst(5), as: UTF8.self) == "ti.example/pcsc")
            #expect(tagFile.lockedBlocks.prefix((4 + judged.area + 3) / 4).allSatisfy { $0 })
        }

        @Test("Tag-it HF-I Standard and Pro through an ACR1552U: format (sized by the model table), write and lock with the option flag; the tag file holds the message in the user blocks, locked, and nothing past them", arguments: [("tagit-hfi-standard", 11), ("tagit-hfi-pro", 12)])
        func tagItStandardProThroughTransparentSession(model: String, blocks: Int) async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("\(model).json").path
            let reader = try await VirtualReaderProcess(tag: "sim:\(model)?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            for arguments in [["format", "--yes"], ["write", "--url", "https://ti.example/s"], ["lock", "--yes"]] {
                let run = try await runTool(tool, arguments + ["--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
                #expect(run.status == 0, "\(arguments): \(run.output)")
            }
            let apdus = reader.receivedAPDUs
            #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains("6221") }, "\(apdus)")
            #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains("6222") }, "\(apdus)")
            await reader.stopped()
            let tagFile = try T5TJudge.TagFile(path: file, blocks: blocks)
            let judged = try #require(tagFile.judged)
            #expect(judged.area == 24 && judged.writeAccess == 3 && judged.features & 0x18 == 0x18, "MLEN 03: (32 − 4) / 8 whole units")
            #expect(String(decoding: (judged.message ?? []).dropFirst(5), as: UTF8.self) == "ti.example/s")
            #expect(tagFile.lockedBlocks.prefix(7).allSatisfy { $0 } && !tagFile.lockedBlocks.dropFirst(8).contains(true), "CC and area locked, nothing past the user area: \(tagFile.lockedBlocks)")
        }

        @Test("generic profile: a Tag-it write is refused before anything is written (the tag file unchanged); NTAG 5 switch, NTAG 5 link (2048 bytes: the E2 CC and P1-P2 block numbers) and ICODE DNA are written with UPDATE BINARY and read back in a new process")
        func genericProfile() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let tagIt = daemon.directory.appendingPathComponent("tagit.json").path
            // A formatted Tag-it, prepared through nfctool on the simulator.
            let format = try await runTool(tool, ["format", "--yes", "--device", "sim:tagit-hfi-plus?file=\(tagIt)"], environment: daemon.environment, timeout: 30)
            #expect(format.status == 0, "\(format.output)")
            let before = try Data(contentsOf: URL(fileURLWithPath: tagIt))
            var reader = try await VirtualReaderProcess(tag: "sim:tagit-hfi-plus?file=\(tagIt)", daemon: daemon, profile: "generic")
            defer { reader.stop() }
            let refused = try await runTool(tool, ["write", "--device", "pcsc", "--url", "https://no.example", "--timeout", "5"], environment: daemon.environment, timeout: 60)
            #expect(refused.status != 0, "\(refused.output)")
            #expect(!reader.receivedAPDUs.contains { $0.hasPrefix("ffd6") }, "nothing written: \(reader.receivedAPDUs)")
            await reader.stopped()
            #expect(try Data(contentsOf: URL(fileURLWithPath: tagIt)) == before)

            for (model, blocks) in [("ntag5", 128), ("ntag5-link", 512), ("icode-dna", 63)] {
                let file = daemon.directory.appendingPathComponent("\(model).json").path
                reader = try await VirtualReaderProcess(tag: "sim:\(model)?file=\(file)", daemon: daemon, profile: "generic")
                // The link's text runs past block 255: those blocks go as UPDATE BINARY with P1-P2.
                let text = "\(model) via pcscd" + (blocks > 256 ? String(repeating: ".", count: 1200) : "")
                let write = try await runTool(tool, ["write", "--device", "pcsc", "--text", text, "--timeout", "5"], environment: daemon.environment, timeout: 60)
                #expect(write.status == 0, "\(model): \(write.output)")
                let read = try await runTool(tool, ["read", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 60)
                #expect(read.output.contains("\(model) via pcscd"), "\(model): \(read.output)")
                if blocks > 256 { #expect(reader.receivedAPDUs.contains { $0.hasPrefix("ffd601") }, "a block past 255 written") }
                await reader.stopped()
                let judged = try #require(try T5TJudge.TagFile(path: file, blocks: blocks).judged)
                #expect(judged.text == text, "\(model): \(judged)")
            }
        }
    }
}
