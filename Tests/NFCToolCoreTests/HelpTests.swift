import Testing
@testable import NFCToolCore

@Suite("nfctool's help and version", .timeLimit(.minutes(5)))
struct HelpTests {
    static let rootHelp = HelpSnapshot.help("")

    static let devicesHelp = HelpSnapshot.help("devices")

    @Test("the root help, whole")
    func rootHelpText() async {
        let run = await runNFCTool(["--help"])
        #expect(run.standardOutput == Self.rootHelp)
        #expect(run.status == .success)
        #expect(run.standardError == "")
    }

    @Test("the devices help, whole")
    func devicesHelpText() async {
        let run = await runNFCTool(["devices", "--help"])
        #expect(run.standardOutput == Self.devicesHelp)
        #expect(run.status == .success)
        #expect(run.standardError == "")
    }

    @Test(
        "every way of asking for the root help prints the same text and succeeds",
        arguments: [["--help"], ["-h"], ["help"], ["help", "--help"], []])
    func rootHelpRequests(_ arguments: [String]) async {
        let run = await runNFCTool(arguments)
        #expect(run.standardOutput == Self.rootHelp)
        #expect(run.status == .success)
        #expect(run.standardError == "")
    }

    @Test(
        "every way of asking for a command's help prints the same text and succeeds",
        arguments: [
            ["devices", "--help"], ["devices", "-h"], ["help", "devices"], ["help", "devices", "-h"],
            ["devices", "--json", "-h"], ["devices", "--bogus", "--help"], ["devices", "-vh"],
        ])
    func devicesHelpRequests(_ arguments: [String]) async {
        let run = await runNFCTool(arguments)
        #expect(run.standardOutput == Self.devicesHelp)
        #expect(run.status == .success)
        #expect(run.standardError == "")
    }

    @Test("--version prints the tool's name and version")
    func version() async {
        let run = await runNFCTool(["--version"])
        #expect(run.standardOutput == "nfctool 0.1.0\n")
        #expect(run.standardOutput == "nfctool \(nfctoolVersion)\n")
        #expect(run.status == .success)
        #expect(run.standardError == "")
    }

    @Test("no help line is wider than 80 columns", arguments: CommandTree.all(from: NFCToolCommand.self))
    func helpFitsIn80Columns(_ command: CommandTree.Node) async {
        let run = await runNFCTool(Array(command.path.dropFirst()) + ["--help"])
        #expect(run.status == .success)
        for line in run.standardOutput.split(separator: "\n") {
            #expect(line.count <= 80, "\(line)")
        }
    }
}
