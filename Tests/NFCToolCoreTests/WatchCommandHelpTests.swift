import CommandLineKit
import NFCTestSupport
import Testing
@testable import NFCToolCore

/// `nfctool watch`'s whole help, and its option checks (in process).
@Suite("nfctool watch help and options", .timeLimit(.minutes(5)))
struct WatchCommandHelpTests {
    static let help = """
        OVERVIEW: Report tags as they arrive and leave; run a handler for each.

        Runs until interrupted (Ctrl-C, SIGTERM) or the --timeout. Each arriving tag is
        identified and its NDEF message read, then released (a stack handed out on
        deselect presents its next tag); a tag that stays is reported once. An
        unreadable tag is reported with an error and the watch goes on. When the reader
        is lost (unplugged, emulator gone) it is opened again, waiting up to 5 s
        between attempts; this is said on standard error.

        Handlers run one at a time, in arrival order, while tags are still watched;
        their output goes to standard error. A handler that fails or is killed is
        reported on standard error and counted, never fatal. On interrupt the running
        handler may finish; those still queued are dropped.

        Examples:
          nfctool watch --device pn532_uart:/dev/ttyUSB0 --json
          nfctool watch --events arrive,leave --debounce 300
          nfctool watch --exec 'logger "tag $NFC_UID: $NFC_URL"'

        USAGE: nfctool watch [--device <conn>] [--json] [--events <list>]
                             [--debounce <ms>] [--exec <cmd>] [--handler-timeout <s>]
                             [--timeout <s>]

        OPTIONS:
          -d, --device <conn>     The reader: a libnfc connection string such as
                                  pn532_uart:/dev/ttyUSB0, 'default' for libnfc's
                                  default device, or sim:MODEL for the simulator
                                  (default: $NFCTOOL_DEVICE, else libnfc's default
                                  device).
          --json                  Print one JSON object per line on standard output.
          --events <list>         Which events to print: arrive, leave or arrive,leave
                                  (default arrive).
          --debounce <ms>         A tag missing for less than this has not left: no
                                  departure, and its return is no new arrival (default
                                  0).
          --exec <cmd>            Run this shell command (/bin/sh -c) for every
                                  arriving tag, with the tag's JSON on standard input
                                  and NFC_UID, NFC_TYPE, NFC_MODEL, NFC_URL in its
                                  environment.
          --handler-timeout <s>   Kill a handler still running after this many seconds
                                  (default 30).
          -t, --timeout <s>       Stop after this many seconds (default: run until
                                  interrupted).
          -h, --help              Show help information.


        """

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
