import CommandLineKit
import Foundation
import NDEF
import NFCCore
import NFCTags
import Originality

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

    static let configuration = CommandConfiguration(
        name: "verify",
        abstract: "Check that a tag holds what is expected.",
        discussion: """
            Give one or more checks; all must hold. Exits 0 when the tag matches, 8 when it does \
            not, printing each check with what was expected and what was found.

            Examples:
              nfctool verify --expect-url https://example.com
              nfctool verify --expect-ndef message.ndef --expect-read-only
              nfctool verify --expect-model NTAG215 --json
              nfctool verify --expect-genuine
            """,
        options: [
            TagCommandSupport.device, TagCommandSupport.timeout, expectURL, expectNDEF, expectReadOnly, expectModel,
            expectGenuine, TagCommandSupport.json,
        ]
    )

    let options: TagCommandOptions
    let url: String?
    let ndefPath: String?
    let readOnly: Bool
    let model: String?
    let genuine: Bool

    init(_ arguments: ParsedArguments) throws(CommandError) {
        options = try TagCommandOptions(arguments)
        url = arguments.value(of: Self.expectURL)
        ndefPath = arguments.value(of: Self.expectNDEF)
        readOnly = arguments.contains(Self.expectReadOnly)
        model = arguments.value(of: Self.expectModel)
        genuine = arguments.contains(Self.expectGenuine)
        guard url != nil || ndefPath != nil || readOnly || model != nil || genuine else {
            throw .usage("nothing to verify: give --expect-url, --expect-ndef, --expect-read-only, --expect-model or --expect-genuine")
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
        var expectedMessage: NDEFMessage?
        var expectedBytes: [UInt8] = []
        if let ndefPath {
            expectedBytes = NDEFDecodeCommand.hexOrRaw(try readFileBytes(ndefPath, what: "expected NDEF file", limit: InputLimits.ndefMessage))
            do {
                expectedMessage = try NDEFMessage(bytes: expectedBytes)
            } catch {
                throw .ndef("\(ndefPath) is not an NDEF message: \(error)", error)
            }
        }
        let (url, readOnly, model, genuine) = (self.url, self.readOnly, self.model, self.genuine)
        let (checks, reader) = try await TagOperation(options, context).run { tag, _ in
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
            if url != nil || expectedMessage != nil {
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
                if let expectedMessage {
                    let expectedHex = Hex.encode(expectedBytes, uppercase: true)
                    let found = message.map { (try? Hex.encode($0.encoded(), uppercase: true)) ?? "unencodable" } ?? failure ?? "unknown"
                    checks.append(Check(check: "ndef", expected: expectedHex, found: found, ok: message == expectedMessage))
                }
            }
            return checks
        }
        let report = Report(match: checks.allSatisfy { $0.ok }, checks: checks)
        context.io.write(options.printsJSON ? try taggedJSON(reader, report) : checks.map(\.text).joined())
        if !report.match {
            let failed = checks.filter { !$0.ok }.map { $0.check }.joined(separator: ", ")
            throw CommandError("the tag does not match: \(failed)", exitCode: .verifyMismatch)
        }
    }
}
