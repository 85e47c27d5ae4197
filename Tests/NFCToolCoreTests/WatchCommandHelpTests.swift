import CommandLineKit
import NFCTestSupport
import Testing
@testable import NFCToolCore

/// `nfctool watch`'s whole help, and its option checks (in process).
@Suite("nfctool watch help and options", .timeLimit(.minutes(5)))
struct WatchCommandHelpTests {
    static let help = HelpSnapshot.help("watch")

    @Test("--help, -h and 'help watch' print the whole help, every line within 80 columns")
    func wholeHelp() async {
        for arguments in [["watch", "--help"], ["watch", "-h"], ["help", "watch"]] {
            let run = await runNFCTool(arguments)
            #expect(run.status == .success)
            #expect(run.standardOutput == Self.help, "\(arguments)")
        }
        #expect(Self.help.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    @Test("bad option values are usage errors", arguments: [
        ["--events", "leave,arrived"], ["--events", ""], ["--debounce", "x"], ["--debounce", "-1"],
        ["--handler-timeout", "0"], ["--timeout", "-2"], ["--exec", " "],
    ])
    func badValues(_ arguments: [String]) async {
        let run = await runNFCTool(["watch", "--device", "sim:empty"] + arguments)
        #expect(run.status == .usage, "\(run.standardError)")
    }

    /// Waits for the two departures rather than assuming they come within a --timeout on a
    /// loaded machine: the --timeout only bounds a watch that would never see them, and the
    /// watch is stopped by cancelling the task that runs it, as an interrupt stops it.
    @Test("in process: --events leave prints only departures; cancelling the command's task ends the watch with status 0")
    func leaveOnly() async {
        let io = CapturedIO()
        let watch = Task {
            await runTool(arguments: ["watch", "--device", "sim:ntag213*2?poll-wait=20", "--events", "leave", "--timeout", "120"], environment: [:], io: io)
        }
        let bothLeft = await eventually(within: .seconds(100)) { io.standardOutput.split(separator: "\n").count >= 2 }
        watch.cancel()
        let status = await watch.value
        #expect(bothLeft, "\(io.standardOutput)\(io.standardError)")
        #expect(status == .success, "\(io.standardError)")
        let lines = io.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix("left    0453494D00000") })
    }
}
