import CommandLineKit
import Foundation
import NFCCore
import NFCKit
import NFCTags

/// `nfctool selftest`: a conformance run on the user's reader and tag (``ReaderSelfTest``),
/// its report printed and, with `--bundle`, written with the trace of the whole run.
struct SelfTestCommand: TagCommand {
    static let noRemoval = CommandOption.flag(
        "no-removal", help: "Skip the removal step (taking the tag away and putting it back), for scripts; it is reported as skipped.")
    static let format = CommandOption.flag(
        "format", help: "On a tag without NDEF, format it for the write steps (needs --yes); without it such a tag is only read.")
    static let bundle = CommandOption.option(
        "bundle", valueName: "dir",
        help: "Write the bundle to attach to a bug report into the directory DIR (created when missing): report.json and trace.jsonl, the redacted trace of the whole run.")

    static let configuration = CommandConfiguration(
        name: "selftest",
        abstract: "Check a reader with a tag on it, step by step, and bundle the run for a bug report.",
        discussion: """
            Runs, in order: the reader's profile; identification; presence; the NDEF read; \
            READ and FAST_READ of pages 0-3 (Type 2 tags, FAST_READ where the chip has it); a \
            memory dump; removal (take the tag away, put it back: each event is waited for up \
            to --timeout); then reversible writes only: a test message written and read back, \
            the old message restored and read back byte for byte (on a Type 2 tag every user \
            page the test touched is put back as it was). Lock bits and passwords are never \
            touched. A tag without NDEF is only read unless --format --yes is given. Each step \
            is printed with its result and time; exit 0 when no step failed (a skipped step is \
            listed), 1 otherwise. docs/hardware.md says how to send the bundle.

            Examples:
              nfctool selftest --device pn532_uart:/dev/ttyUSB0 --bundle selftest-acr122u
              nfctool selftest --device sim:ntag215 --no-removal --json
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, TagCommandSupport.json, noRemoval, format, TagWriteSupport.yes, bundle],
        exclusions: [CommandExclusion(bundle, ReaderTraceOptions.file)]
    )

    let options: TagCommandOptions

    func run(_ context: CommandContext) async throws(CommandError) {
        let formats = options.arguments.contains(Self.format)
        if formats && !options.arguments.contains(TagWriteSupport.yes) {
            throw .usage("--format writes the tag's one-time programmable capability container and cannot be undone: add --yes to confirm")
        }
        var bundle: SelfTestBundle?
        if let path = options.arguments.value(of: Self.bundle) { bundle = try SelfTestBundle(path) }
        let trace = bundle.map { ReaderTraceOptions(path: $0.tracePath) } ?? options.trace
        let selfTest = SelfTestOptions(
            waitLimit: .milliseconds(Int(options.seconds * 1000)), checksRemoval: !options.arguments.contains(Self.noRemoval),
            formatsBlankTag: formats)
        let connection = options.connection(context.environment)
        let opened = try await TagCommandSupport.openReader(connection, trace: trace, context)
        let io = context.io
        let report = await ReaderSelfTest.run(on: opened.reader, profiled: opened.opened, options: selfTest) { line in
            io.printErrorLine(line)
        }
        let (divergence, traceFailure) = await opened.close()
        if let divergence { throw divergence }
        if let traceFailure { throw traceFailure }
        let json = try toolJSON(report)
        try bundle?.writeReport(json)
        context.io.write(options.printsJSON ? json : Self.text(report))
        if let bundle, !options.printsJSON { context.say("Bundle written to \(TerminalSafeText.escaping(bundle.path)): attach it to an issue (docs/hardware.md).") }
        guard report.passed else {
            let failed = report.steps.filter { $0.result == .failed }.map(\.step)
            throw .failure("the self-test failed: \(failed.isEmpty ? "no step ran" : failed.joined(separator: ", "))")
        }
    }

    /// The report as text: one line a step (step, result, time, what it found).
    static func text(_ report: SelfTestReport) -> String {
        var text = "Self-test of \(TerminalSafeText.escaping(report.reader, newlines: .escape))"
        if let model = report.model, let uid = report.uid { text += " with \(model) \(uid)" }
        text += "\n"
        let width = report.steps.map(\.step.count).max() ?? 0
        for step in report.steps {
            let name = step.step.padding(toLength: width, withPad: " ", startingAt: 0)
            let result = step.result.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
            let time = "\(step.milliseconds) ms".leftPadded(to: 9)
            text += "\(name)  \(result) \(time)  \(TerminalSafeText.escaping(step.detail, newlines: .escape))\n"
        }
        return text + (report.passed ? "PASSED\n" : "FAILED\n")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
