import Foundation
import NDEF
import NFCCore
import NFCTestSupport
import Testing

/// What the Ultralight C and Ultralight AES end-to-end suites share: nfctool as a fresh process
/// against the PN532 emulator, and the opening steps of their protect run — a tag file with a
/// message, a key file and a wrong one, the emulator on it, `info` naming the chip and
/// `protect --plan` hiding the key and writing nothing.
struct KeyedUltralightThroughLibNFC {
    /// The directory the run's files live in (removed by the caller).
    let directory: URL
    /// The tag file the emulator plays.
    let tagFile: String
    /// The right key, with a comment line.
    let keyFile: URL
    /// A key of 16 bytes 5Ah.
    let wrongKeyFile: URL
    /// The emulator playing the tag file.
    let emulator: EmulatorProcess

    static let keyHex = "00112233445566778899AABBCCDDEEFF"

    static func nfctool(_ arguments: [String], _ emulator: EmulatorProcess) async throws -> ToolRun {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        var environment = emulator.libnfcEnvironment
        environment["LIBNFC_LOG_LEVEL"] = "0"
        return try await runTool(tool.path, arguments + ["--device", emulator.connectionString, "--timeout", "3"], environment: environment, timeout: 30)
    }

    /// Sets up the run for `model` (the emulator's tag name): `makeTagFile` writes the tag file
    /// holding `url`'s message in the directory.
    init(model: String, url: String, keyComment: String, makeTagFile: (URL, NDEFMessage) throws -> String) async throws {
        directory = try temporaryDirectory()
        let message = NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: url)])
        tagFile = try makeTagFile(directory, message)
        keyFile = directory.appendingPathComponent("\(model).key")
        try "# \(keyComment)\n\(Self.keyHex)\n".write(to: keyFile, atomically: true, encoding: .utf8)
        wrongKeyFile = directory.appendingPathComponent("wrong.key")
        try String(repeating: "5A", count: 16).write(to: wrongKeyFile, atomically: true, encoding: .utf8)
        emulator = try await EmulatorProcess.start(["--tag", "\(model):\(tagFile)"])
    }

    /// `info` names `modelName`; `protect --read-protect --plan` says `(cipher key, not shown)`,
    /// shows none of `keyPageBytes`, `unchanged` still holds afterwards and the tag file is
    /// byte-identical (an Ultralight AES's failed-authentication count included: the plan
    /// never authenticates with the key it only plans).
    func infoAndPlan(modelName: String, cipher: String, keyPageBytes: String, unchanged: () throws -> Bool) async throws {
        let info = try await Self.nfctool(["info"], emulator)
        #expect(info.status == 0, "\(info.output)")
        #expect(info.output.contains(modelName), "\(info.output)")
        _ = try await emulator.control("save")
        let before = try Data(contentsOf: URL(fileURLWithPath: tagFile))
        let plan = try await Self.nfctool(["protect", "--keys", keyFile.path, "--read-protect", "--plan"], emulator)
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.output.contains("\(cipher) key, not shown"), "\(plan.output)")
        #expect(!plan.output.contains(keyPageBytes), "the plan shows key bytes: \(plan.output)")
        #expect(try unchanged(), "--plan wrote")
        _ = try await emulator.control("save")
        #expect(try Data(contentsOf: URL(fileURLWithPath: tagFile)) == before, "--plan changed the tag file")
    }
}
