import CommandLineKit
import Foundation
import NDEF
import NFCCore
import NFCTags
import Originality
import Provisioning

/// `nfctool verify`: checks that the tag holds what is expected; exit 8 with a diff otherwise.
struct VerifyCommand: ToolCommand {
    static let expectURL = CommandOption.option(
        "expect-url", valueName: "url", help: "The first URI record must be this URL.")
    static let expectNDEF = CommandOption.option(
        "expect-ndef", valueName: "file", help: "The NDEF message must equal this one (raw bytes or hex text in the file).")
    static let expectReadOnly = CommandOption.flag(
        "expect-read-only", help: "The tag must be locked for good, not just say so (Type 2: CC3, the lock bit of the CC and of every NDEF page, CFGLCK; Type 5: the CC and every block's lock; FeliCa Lite-S: RWFlag and MC; Type 4: CC write access FF, and the NDEF file's access rights on an NTAG 424 DNA; MIFARE Classic: each NFC and MAD sector's access bits and GPB); each missing part is named.")
    static let expectModel = CommandOption.option(
        "expect-model", valueName: "model", help: "The chip must be this model, e.g. NTAG215 (case-insensitive).")
    static let expectGenuine = CommandOption.flag(
        "expect-genuine", help: "The chip's originality signature must be valid under one of NXP's public keys.")

    static let ledger = CommandOption.option(
        "ledger", valueName: "file|uri",
        help: "Check the tag against what this batch ledger recorded for its UID (SQLite file or postgresql://…): model, message, lock, password.")
    static let run = CommandOption.option(
        "run", valueName: "name", help: "With --ledger: only the named run's attempts (batch --run).")
    static let count = TypedOption(
        .option("count", short: "n", valueName: "n",
                help: "With --ledger: check n tags presented one after another (each waited for up to --timeout), then summarise."),
        .integer(in: 1...100_000, reason: "a number of tags from 1 to 100000"))

    static let configuration = CommandConfiguration(
        name: "verify",
        abstract: "Check that a tag holds what is expected, or what a batch ledger recorded.",
        discussion: """
            Give one or more checks; all must hold. Exits 0 when the tag matches, 8 when it does \
            not, printing each check with what was expected and what was found.

            With --ledger, the tag is compared with the latest done attempt the ledger has for \
            its UID (of --run NAME only, when given): the model, the message (the ledger keeps \
            its summary, each record's type and URI or text, and its size in bytes, not the \
            bytes themselves), whether it was locked (locked for good, as --expect-read-only \
            judges it) and whether a password was set. A UID the ledger has not done, or any \
            difference, exits 8. A mirror the chip shows (batch's {mirror:uid}) matches the \
            placeholder the ledger recorded; an NTAG 424 DNA's SUN message is not compared. The \
            ledger keeps no originality verdict for a done tag: add --expect-genuine to check \
            the chip. --count N checks N tags, one after another (take each away, present the \
            next), printing a line per tag and a summary: how many matched, and each UID that \
            did not with its differences; exit 8 when one did not, 2 when fewer than N came.

            Examples:
              nfctool verify --expect-url https://example.com
              nfctool verify --expect-ndef message.ndef --expect-read-only
              nfctool verify --expect-model NTAG215 --json
              nfctool verify --expect-genuine
              nfctool verify --ledger run.db
              nfctool verify --ledger run.db --run w26 --count 20 --expect-genuine
            """,
        options: TagCommandSupport.readerOptions + [
            TagCommandSupport.timeout, expectURL, expectNDEF, expectReadOnly, expectModel,
            expectGenuine, ledger, run, count.option, TagCommandSupport.json,
        ]
    )

    let options: TagCommandOptions
    let url: String?
    let ndefPath: String?
    let readOnly: Bool
    let model: String?
    let genuine: Bool
    let ledgerLocation: String?
    let runName: String?
    let tagCount: Int?

    init(_ arguments: ParsedArguments) throws(CommandError) {
        options = try TagCommandOptions(arguments)
        url = arguments.value(of: Self.expectURL)
        ndefPath = arguments.value(of: Self.expectNDEF)
        readOnly = arguments.contains(Self.expectReadOnly)
        model = arguments.value(of: Self.expectModel)
        genuine = arguments.contains(Self.expectGenuine)
        ledgerLocation = arguments.value(of: Self.ledger)
        runName = arguments.value(of: Self.run)
        tagCount = try arguments.value(of: Self.count)
        try LedgerCommand.checkRunName(runName)
        if ledgerLocation == nil {
            if runName != nil { throw .usage("--run needs --ledger") }
            if tagCount != nil { throw .usage("--count needs --ledger") }
        }
        guard url != nil || ndefPath != nil || readOnly || model != nil || genuine || ledgerLocation != nil else {
            throw .usage("nothing to verify: give --expect-url, --expect-ndef, --expect-read-only, --expect-model, --expect-genuine or --ledger")
        }
    }

    /// One check and its outcome.
    struct Check: Encodable, Sendable {
        var check: String
        var expected: String
        var found: String
        var ok: Bool

        /// `ok  check: found`, or `MISMATCH  check` with what was expected and found.
        var text: String {
            let (expected, found) = (TerminalSafeText.escaping(expected, newlines: .escape), TerminalSafeText.escaping(found, newlines: .escape))
            return ok ? "ok        \(check): \(found)\n" : "MISMATCH  \(check)\n  expected: \(expected)\n  found:    \(found)\n"
        }
    }

    /// What `--json` prints.
    struct Report: Encodable, Sendable {
        var match: Bool
        var checks: [Check]
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        var expected: ExpectedMessage?
        if let ndefPath {
            let bytes = NDEFDecodeCommand.hexOrRaw(try readFileBytes(ndefPath, what: "expected NDEF file", limit: InputLimits.ndefMessage))
            do {
                expected = ExpectedMessage(message: try NDEFMessage(bytes: bytes), bytes: bytes)
            } catch {
                throw .ndef("\(ndefPath) is not an NDEF message: \(error)", error)
            }
        }
        if let ledgerLocation {
            try await runAgainstLedger(ledgerLocation, expected: expected, context)
            return
        }
        let (checks, reader) = try await TagOperation(options, context).run { tag, _ in
            await expectationChecks(tag, expected: expected)
        }
        let report = Report(match: checks.allSatisfy { $0.ok }, checks: checks)
        context.io.write(options.printsJSON ? try taggedJSON(reader, report) : checks.map(\.text).joined())
        if !report.match {
            let failed = checks.filter { !$0.ok }.map { $0.check }.joined(separator: ", ")
            throw CommandError("the tag does not match: \(failed)", exitCode: .verifyMismatch)
        }
    }

    /// `--expect-ndef`'s message and its bytes.
    struct ExpectedMessage: Sendable {
        var message: NDEFMessage
        var bytes: [UInt8]
    }

    /// The `--expect-*` checks on `tag`, in the order of the options' listing.
    func expectationChecks(_ tag: NFCTag, expected: ExpectedMessage?) async -> [Check] {
        var checks: [Check] = []
        if let model {
            let found = tag.identity.model
            checks.append(Check(check: "model", expected: model, found: found, ok: found.caseInsensitiveCompare(model) == .orderedSame))
        }
        if readOnly {
            let found: String
            do {
                let gaps = try await tag.ndef.readOnlyGaps()
                found = gaps.isEmpty ? "read-only" : "not locked: " + gaps.joined(separator: "; ")
            } catch {
                found = unknown(error)
            }
            checks.append(Check(check: "read-only", expected: "read-only", found: found, ok: found == "read-only"))
        }
        if genuine {
            let verdict = await OriginalityVerifier().check(tag).verdict
            checks.append(Check(check: "genuine", expected: "yes", found: verdict.summary, ok: verdict.isGenuine == true))
        }
        if url != nil || expected != nil {
            let message: NDEFMessage?
            let failure: String?
            do throws(NFCTagError) {
                message = try await tag.ndef.readNDEF()
                failure = nil
            } catch {
                message = nil
                failure = error.code == .notNDEFFormatted ? "no NDEF" : unknown(error)
            }
            if let url {
                let found = message.map { $0.records.lazy.compactMap { record -> String? in record.wellKnownTypeURIPayload() }.first ?? "no URI record" } ?? failure ?? "unknown"
                // Bytes, not String ==: canonically equivalent URLs (é precomposed or not) differ.
                checks.append(Check(check: "url", expected: url, found: found, ok: Array(found.utf8) == Array(url.utf8)))
            }
            if let expected {
                let expectedHex = Hex.encode(expected.bytes, uppercase: true)
                let found = message.map { (try? Hex.encode($0.encoded(), uppercase: true)) ?? "unencodable" } ?? failure ?? "unknown"
                checks.append(Check(check: "ndef", expected: expectedHex, found: found, ok: message == expected.message))
            }
        }
        return checks
    }
}
