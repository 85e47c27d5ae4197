public import NFCTags
import NDEF
import NFCCore

/// A conformance run on a user's reader with a tag on it (`nfctool selftest`): the reader's
/// profile, identification, presence, every read path the tag has (NDEF, READ, FAST_READ, a
/// memory dump), removal and return, and reversible writes only — a test message written and
/// read back, then the old message restored and read back byte for byte (and, on a Type 2 tag,
/// every user-memory page the test touched put back as it was). Lock bits and passwords are
/// never touched; a tag without NDEF is written only with ``SelfTestOptions/formatsBlankTag``.
///
/// Run it through a recording reader and the trace of the whole run can be replayed
/// (`--device replay:FILE`) or turned into a fixture.
public enum ReaderSelfTest {
    /// The message written by the write step: a Text record, the same on every run so a trace
    /// of one run replays.
    public static func testMessage() throws(NDEFError) -> NDEFMessage {
        NDEFMessage(records: [try .wellKnownTypeTextPayload(string: "nfctool selftest", locale: "en")])
    }

    /// Runs every step on `reader` and returns the report; never throws (a failure is a failed
    /// step, after which the steps that need the tag are not run).
    /// - Parameters:
    ///   - reader: the reader to work with (a recording reader under a trace).
    ///   - profiled: the reader as it was opened, whose firmware and PC/SC profile are reported.
    ///   - options: how long to wait, whether to check removal and to format a blank tag.
    ///   - announce: says a line to the user (take the tag away, put it back).
    public static func run(
        on reader: any NFCReader, profiled: any NFCReader, options: SelfTestOptions,
        announce: @Sendable (String) async -> Void
    ) async -> SelfTestReport {
        let header = await ReaderConnection.traceHeader(for: profiled, tool: "", redacted: true)
        var run = Run(report: SelfTestReport(
            connection: await reader.connectionString, reader: await reader.name, firmware: header.firmware, profile: header.profile))
        let started = ContinuousClock.now
        let modulations = await reader.supportedModulations
        var profile = "\(header.reader); polls \(modulations.map(\.rawValue).joined(separator: ", "))"
        if let firmware = header.firmware { profile += "; firmware \(firmware)" }
        if let chosen = header.profile { profile += "; PC/SC profile \(chosen)" }
        if reader.listsSeveralTargets { profile += "; lists several tags" }
        run.record("reader", .passed, profile, since: started)

        guard var tag = await run.identify(reader, modulations: modulations, options: options) else { return run.report }
        run.report.model = tag.identity.model
        run.report.uid = Hex.encode(tag.identifier, uppercase: true)
        let presenceStart = ContinuousClock.now
        let present = await tag.isPresent()
        run.record("presence", present ? .passed : .failed, present ? "the tag answers" : "the tag does not answer", since: presenceStart)
        guard present else { return run.report }

        guard let reading = await run.readNDEF(tag) else { return run.report }
        guard await run.readPaths(tag, reader: reader) else { return run.report }
        if options.checksRemoval {
            guard let back = await run.removal(tag, reader: reader, modulations: modulations, options: options, announce: announce) else {
                return run.report
            }
            tag = back
        } else {
            run.record("removal", .skipped, "--no-removal", since: .now)
        }
        await run.writeAndRestore(tag, reading: reading, options: options)
        return run.report
    }
}

/// One self-test in progress: the report so far and the steps.
private struct Run {
    var report: SelfTestReport

    mutating func record(_ step: String, _ result: SelfTestOutcome, _ detail: String, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Int(elapsed.components.seconds) * 1000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
        report.steps.append(SelfTestStep(step: step, result: result, detail: detail, milliseconds: milliseconds))
    }

    /// Polls until a tag comes or `limit` has passed.
    static func poll(_ reader: any NFCReader, _ modulations: [Modulation], limit: Duration) async throws(NFCReaderDeviceError) -> TargetInfo? {
        let deadline = ContinuousClock.now + limit
        while true {
            let started = ContinuousClock.now
            if let target = try await reader.poll(for: modulations, timeout: max(deadline - started, .zero)) { return target }
            if ContinuousClock.now >= deadline || Task.isCancelled { return nil }
            if ContinuousClock.now - started < .milliseconds(10) { try? await Task.sleep(for: .milliseconds(10)) }
        }
    }

    mutating func identify(_ reader: any NFCReader, modulations: [Modulation], options: SelfTestOptions) async -> NFCTag? {
        let start = ContinuousClock.now
        do {
            guard let target = try await Self.poll(reader, modulations, limit: options.waitLimit) else {
                record("identify", .failed, "no tag came within \(options.waitLimit)", since: start)
                return nil
            }
            let tag = try await NFCTag.connect(to: target, on: reader)
            record("identify", .passed, "\(tag.identity.model), UID \(Hex.encode(tag.identifier, uppercase: true))", since: start)
            return tag
        } catch {
            record("identify", .failed, "\(error)", since: start)
            return nil
        }
    }

    mutating func readNDEF(_ tag: NFCTag) async -> NDEFReading? {
        let start = ContinuousClock.now
        do {
            let reading = try await tag.ndef.readNDEFWithStatus()
            let query = reading.query
            let detail = query.status == .notSupported
                ? "no NDEF on the tag (blank or not formatted)"
                : "NDEF \(query.status.rawValue), \(query.messageLength) of \(query.capacity) bytes used"
            record("ndef-read", .passed, detail, since: start)
            return reading
        } catch {
            record("ndef-read", .failed, "\(error)", since: start)
            return nil
        }
    }

    /// READ, FAST_READ (compared with READ) and the dump; false when one failed.
    mutating func readPaths(_ tag: NFCTag, reader: any NFCReader) async -> Bool {
        var start = ContinuousClock.now
        if case .miFare(let mifare) = tag, let type2 = mifare.type2 {
            let read: [UInt8]
            do {
                read = try await type2.readFourPages(from: 0)
                record("page-read", .passed, "READ page 0: 16 bytes", since: start)
            } catch {
                record("page-read", .failed, "\(error)", since: start)
                return false
            }
            start = .now
            if type2.usesFastRead {
                do {
                    let fast = try await type2.fastReadPages(from: 0, through: 3)
                    if fast == read {
                        record("fast-read", .passed, "FAST_READ pages 0–3: the bytes READ gave", since: start)
                    } else {
                        record("fast-read", .failed, "FAST_READ pages 0–3 gave \(Hex.encode(fast, uppercase: true)), READ \(Hex.encode(read, uppercase: true))", since: start)
                        return false
                    }
                } catch {
                    record("fast-read", .failed, "\(error)", since: start)
                    return false
                }
            } else {
                record("fast-read", .skipped, "the \(tag.identity.model) has no FAST_READ", since: start)
            }
        } else {
            record("page-read", .skipped, "not a Type 2 tag", since: start)
            record("fast-read", .skipped, "not a Type 2 tag", since: start)
        }
        start = .now
        do {
            let dump = try await TagMemoryDump.read(tag, reader: reader, classicKeys: [])
            let unread = dump.units.filter { $0.bytes == nil }.count
            if unread > 0, await !tag.isPresent() {
                record("dump", .failed, "the tag left the field during the dump (\(unread) \(dump.unit)s not read)", since: start)
                return false
            }
            record("dump", .passed, "\(dump.units.count) \(dump.unit)s" + (unread > 0 ? ", \(unread) not readable" : ""), since: start)
            return true
        } catch {
            record("dump", .failed, "\(error)", since: start)
            return false
        }
    }

    /// Asks for the tag to be taken away and put back, waiting for each event; the tag as it
    /// came back, nil when the step failed.
    mutating func removal(
        _ tag: NFCTag, reader: any NFCReader, modulations: [Modulation], options: SelfTestOptions,
        announce: @Sendable (String) async -> Void
    ) async -> NFCTag? {
        let start = ContinuousClock.now
        await announce("Take the tag away from the reader (waiting up to \(options.waitLimit)).")
        let removal = await reader.waitForRemoval(timeout: options.waitLimit)
        guard removal == .removed else {
            record("removal", .failed, "the tag was not taken away within \(options.waitLimit) (\(removal))", since: start)
            return nil
        }
        let gone = ContinuousClock.now - start
        await announce("Put the tag back on the reader.")
        do {
            guard let target = try await Self.poll(reader, modulations, limit: options.waitLimit) else {
                record("removal", .failed, "removal seen; the tag did not come back within \(options.waitLimit)", since: start)
                return nil
            }
            let back = try await NFCTag.connect(to: target, on: reader)
            guard back.identifier == tag.identifier else {
                record("removal", .failed, "removal seen; another tag came back (UID \(Hex.encode(back.identifier, uppercase: true)))", since: start)
                return nil
            }
            record("removal", .passed, "removal seen after \(gone), the tag back after \(ContinuousClock.now - start)", since: start)
            return back
        } catch {
            record("removal", .failed, "removal seen; putting it back failed: \(error)", since: start)
            return nil
        }
    }

    /// The test message written and read back, then the old one restored and read back.
    mutating func writeAndRestore(_ tag: NFCTag, reading: NDEFReading, options: SelfTestOptions) async {
        var start = ContinuousClock.now
        var old = reading.message
        switch reading.query.status {
        case .readOnly:
            record("write-test", .skipped, "the tag is read-only", since: start)
            record("restore", .skipped, "nothing written", since: start)
            return
        case .notSupported where !options.formatsBlankTag:
            record("write-test", .skipped, "no NDEF on the tag: nothing is written without --format --yes", since: start)
            record("restore", .skipped, "nothing written", since: start)
            return
        case .notSupported:
            do {
                try await tag.ndef.format()
                old = NDEFMessage(records: [])
            } catch {
                record("write-test", .failed, "formatting (--format) failed: \(error)", since: start)
                return
            }
        case .readWrite:
            break
        }
        // Nothing is written to a tag that has left: the old message stays as it is.
        guard await tag.isPresent() else {
            record("write-test", .failed, "the tag left the field: nothing written", since: start)
            return
        }
        let oldBytes: [UInt8]
        let test: NDEFMessage
        let testBytes: [UInt8]
        do {
            test = try ReaderSelfTest.testMessage()
            testBytes = try test.encoded()
            oldBytes = try (old ?? NDEFMessage(records: [])).encoded()
        } catch {
            record("write-test", .failed, "the messages cannot be encoded: \(error)", since: start)
            return
        }
        // On a Type 2 tag, the user pages the test can touch are saved to be put back exactly:
        // each TLV with its header and terminator, whichever is longer.
        var saved: (type2: Type2Tag, bytes: [UInt8])?
        if case .miFare(let mifare) = tag, let type2 = mifare.type2 {
            let pages = (max(oldBytes.count, testBytes.count) + 8 + 3) / 4
            do {
                saved = (type2, try await type2.readPages(from: Type2Tag.firstUserPage, count: pages))
            } catch {
                record("write-test", .failed, "reading the pages to keep failed: \(error)", since: start)
                return
            }
        }
        do {
            try await tag.ndef.writeNDEF(test, verify: true)
            let back = try await tag.ndef.readNDEF().encoded()
            guard back == testBytes else {
                record("write-test", .failed, "the test message read back differs: \(Hex.encode(back, uppercase: true))", since: start)
                return
            }
            record("write-test", .passed, "\(testBytes.count)-byte test message written and read back", since: start)
        } catch {
            record("write-test", .failed, "\(error)", since: start)
            await restore(tag, old: old, oldBytes: oldBytes, saved: saved, since: .now)
            return
        }
        start = .now
        await restore(tag, old: old, oldBytes: oldBytes, saved: saved, since: start)
    }

    mutating func restore(
        _ tag: NFCTag, old: NDEFMessage?, oldBytes: [UInt8], saved: (type2: Type2Tag, bytes: [UInt8])?, since start: ContinuousClock.Instant
    ) async {
        do {
            try await tag.ndef.writeNDEF(old ?? NDEFMessage(records: []), verify: true)
            var pages = 0
            if let saved {
                pages = try await saved.type2.restorePages(saved.bytes, from: Type2Tag.firstUserPage)
                let now = try await saved.type2.readPages(from: Type2Tag.firstUserPage, count: saved.bytes.count / 4)
                guard now == saved.bytes else {
                    record("restore", .failed, "user memory differs from what it was after restoring", since: start)
                    return
                }
            }
            let back = try await tag.ndef.readNDEF().encoded()
            guard back == oldBytes else {
                record("restore", .failed, "the message read back is not the old one: \(Hex.encode(back, uppercase: true))", since: start)
                return
            }
            let raw = saved == nil ? "" : "; user memory as it was (\(pages) page\(pages == 1 ? "" : "s") put back)"
            record("restore", .passed, "the old \(oldBytes.count)-byte message restored and read back byte for byte" + raw, since: start)
        } catch {
            record("restore", .failed, "\(error)", since: start)
        }
    }
}
