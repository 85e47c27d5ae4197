import CommandLineKit
import Foundation
import NFCCore
import NFCTags
import Provisioning

/// `verify --ledger [--run NAME] [--count N]`: the tag (or N tags, one after another) against
/// what the batch ledger recorded; the comparison is Provisioning's (``LedgerComparison``).
extension VerifyCommand {
    /// A ledger check, or an `--expect-*` check, as the library keeps it.
    typealias LedgerCheck = LedgerComparison.Check

    /// What `verify --ledger --count N --json` prints.
    struct SampleReport: Encodable, Sendable {
        /// Whether every one of the `count` tags came and matched.
        var match: Bool
        /// How many tags were asked for.
        var count: Int
        /// What was found.
        var summary: LedgerSampleSummary

        private enum CodingKeys: String, CodingKey { case match, count }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(match, forKey: .match)
            try container.encode(count, forKey: .count)
            try summary.encode(to: encoder)
        }
    }

    func runAgainstLedger(_ location: String, expected: ExpectedMessage?, _ context: CommandContext) async throws(CommandError) {
        let runName = self.runName
        let ledger = try await LedgerExecutor.shared.run { () throws(CommandError) -> any ProvisioningLedger in
            if !PostgreSQLLocation.isPostgreSQL(location), !FileManager.default.fileExists(atPath: location) {
                throw .usage("no such ledger: '\(location)'")
            }
            let ledger: any ProvisioningLedger
            do { ledger = try openLedger(location, readOnly: true) } catch { throw .ledger(error) }
            try LedgerCommand.requireRun(runName, in: ledger)
            return ledger
        }
        let attempts = LedgerAttempts(ledger: ledger, run: runName)
        try await attempts.reload()
        if let tagCount {
            try await checkSample(of: tagCount, attempts, expected: expected, context)
            return
        }
        let (comparison, reader) = try await TagOperation(options, context).run { tag, reader in
            await compare(tag, reader: reader, attempts, expected: expected)
        }
        context.io.write(options.printsJSON ? try taggedJSON(reader, comparison) : Self.text(comparison))
        if !comparison.matches {
            throw CommandError("the tag does not match the ledger: \(Self.differenceList(comparison))", exitCode: .verifyMismatch)
        }
    }

    /// The tag against the ledger, then the `--expect-*` checks.
    func compare(_ tag: NFCTag, reader: any NFCReader, _ attempts: LedgerAttempts, expected: ExpectedMessage?) async -> LedgerComparison {
        let state = await ProvisionedTagState.read(tag, reader: reader)
        var known = await attempts.current
        if LedgerComparison.recordedAttempt(uid: state.uid, in: known) == nil {
            // A run still going may have done it since the attempts were read.
            if (try? await attempts.reload()) != nil { known = await attempts.current }
        }
        var comparison = LedgerComparison(state, attempts: known)
        comparison.checks += await expectationChecks(tag, expected: expected).map {
            LedgerCheck(check: $0.check, expected: $0.expected, found: $0.found, ok: $0.ok)
        }
        return comparison
    }

    /// `--count N`: N tags, each waited for up to `--timeout`, each checked once per stay in the
    /// field (``TagPresenceTracker``: a tag left on the reader is not checked again).
    func checkSample(of count: Int, _ attempts: LedgerAttempts, expected: ExpectedMessage?, _ context: CommandContext) async throws(CommandError) {
        let connection = options.connection(context.environment)
        let seconds = options.seconds
        let (summary, reader, missing) = try await TagCommandSupport.withReader(connection, trace: options.trace, context) {
            (reader) async throws(CommandError) -> (LedgerSampleSummary, ReaderLabel, String?) in
            let modulations = ScanCommand.modulations(await reader.supportedModulations)
            var tracker = TagPresenceTracker()
            var summary = LedgerSampleSummary()
            let clock = ContinuousClock()
            while summary.checked < count {
                context.io.printErrorLine("waiting for tag \(summary.checked + 1) of \(count) on \(connection)…")
                let deadline = clock.now + .milliseconds(Int(seconds * 1000))
                var target: TargetInfo?
                while target == nil, clock.now < deadline, !Task.isCancelled {
                    do {
                        target = try await tracker.step(on: reader, for: modulations).arrival
                    } catch {
                        throw .failure("polling failed on \(connection): \(error)")
                    }
                }
                guard let target else {
                    return (summary, await ReaderLabel(reader), "no tag within \(ScanCommand.format(seconds)) s on \(connection)")
                }
                let comparison: LedgerComparison
                do {
                    let tag = try await NFCTag.connect(to: target, on: reader)
                    comparison = await compare(tag, reader: reader, attempts, expected: expected)
                } catch {
                    let uid = Hex.encode(target.identifier, uppercase: true)
                    comparison = LedgerComparison(uid: uid, attempt: nil, checks: [
                        LedgerCheck(check: "tag", expected: "read", found: "could not be read: \(error)", ok: false),
                    ])
                }
                summary.add(comparison)
                if !options.printsJSON { context.io.write(Self.line(comparison)) }
                context.io.printErrorLine("take tag \(summary.checked) of \(count) away")
                await tracker.release(on: reader)
            }
            return (summary, await ReaderLabel(reader), nil)
        }
        let report = SampleReport(match: missing == nil && summary.mismatched.isEmpty, count: count, summary: summary)
        context.io.write(options.printsJSON ? try taggedJSON(reader, report) : Self.summaryText(summary, count: count))
        if !summary.mismatched.isEmpty {
            let which = summary.mismatched.map { "\($0.uid) (\($0.differences.map(\.check).joined(separator: ", ")))" }
            throw CommandError(
                "\(summary.mismatched.count) of \(summary.checked) tags do not match the ledger: \(which.joined(separator: ", "))"
                    + (missing.map { "; then \($0)" } ?? ""),
                exitCode: .verifyMismatch)
        }
        if let missing { throw .noTag("\(missing): checked \(summary.checked) of \(count) tags, all matched") }
    }

    // MARK: - Text

    /// `checks` as `verify` prints them (`ok  lock: locked`, `MISMATCH  lock` with both sides).
    static func checkLines(_ checks: [LedgerCheck]) -> String {
        checks.map { Check(check: $0.check, expected: $0.expected, found: $0.found, ok: $0.ok).text }.joined()
    }

    /// One tag: a heading naming the attempt, then every check.
    static func text(_ comparison: LedgerComparison) -> String {
        let heading: String
        if let attempt = comparison.attempt {
            let run = attempt.runName.map { ", run \(TerminalSafeText.escaping($0, newlines: .escape))" } ?? ""
            heading = "\(spacedHex(comparison.uid)): \(comparison.matches ? "matches" : "does not match") the ledger's attempt \(attempt.id)\(run), \(attempt.finished)"
        } else {
            heading = "\(spacedHex(comparison.uid)): no done attempt in the ledger"
        }
        return heading + "\n" + checkLines(comparison.checks)
    }

    /// One tag of `--count`, on one line: `ok        04 53 …: matches attempt 3`, or
    /// `MISMATCH  04 53 …: lock (expected locked, found not locked)`.
    static func line(_ comparison: LedgerComparison) -> String {
        let uid = spacedHex(comparison.uid)
        if comparison.matches { return "ok        \(uid): matches attempt \(comparison.attempt?.id ?? 0)\n" }
        return "MISMATCH  \(uid): \(differenceList(comparison))\n"
    }

    /// `lock (expected locked, found not locked); password (…)`, terminal-safe.
    static func differenceList(_ comparison: LedgerComparison) -> String {
        comparison.differences.map { check in
            let (expected, found) = (TerminalSafeText.escaping(check.expected, newlines: .escape), TerminalSafeText.escaping(check.found, newlines: .escape))
            return "\(check.check) (expected \(expected), found \(found))"
        }.joined(separator: "; ")
    }

    /// The end of `--count`: how many matched, and each tag that did not.
    static func summaryText(_ summary: LedgerSampleSummary, count: Int) -> String {
        var text = "Checked \(summary.checked) of \(count) tags: \(summary.matched) matched the ledger, \(summary.mismatched.count) did not.\n"
        for comparison in summary.mismatched {
            text += "  \(spacedHex(comparison.uid)): \(differenceList(comparison))\n"
        }
        return text
    }
}

/// A ledger's attempts as `verify --ledger` last read them (of one run, when given), read
/// again on the ledger's thread when a tag's UID is not among them.
actor LedgerAttempts {
    let ledger: any ProvisioningLedger
    let run: String?
    private(set) var current: [LedgerAttempt] = []

    init(ledger: any ProvisioningLedger, run: String?) {
        self.ledger = ledger
        self.run = run
    }

    /// Reads the attempts again.
    func reload() async throws(CommandError) {
        let (ledger, run) = (self.ledger, self.run)
        do {
            current = try await ledger.perform { () throws(LedgerError) -> [LedgerAttempt] in try ledger.attempts(run: run) }
        } catch {
            throw .ledger(error)
        }
    }
}
