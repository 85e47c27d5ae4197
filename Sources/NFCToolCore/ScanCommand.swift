import CommandLineKit
import Foundation
import NFCCore
import NFCKit
import NFCTags

/// `nfctool scan`: waits for a tag and says what it is.
struct ScanCommand: ToolCommand {
    static let timeout = TypedOption(
        .option("timeout", short: "t", valueName: "s",
                help: "How long to wait for a tag (default 10); with --continuous, how long to run (default: until interrupted)."),
        .seconds(upTo: 86_400))
    static let continuous = CommandOption.flag(
        "continuous", help: "Report tags as they arrive and leave, one line each, until the timeout or Ctrl-C.")
    static let json = CommandOption.flag("json", help: "Print JSON (one object per line with --continuous).")

    /// `--continuous` writes one line per tag as it goes.
    static func streamsOutput(_ arguments: ParsedArguments) -> Bool { arguments.contains(continuous) }

    static let configuration = CommandConfiguration(
        name: "scan",
        abstract: "Wait for a tag; show its UID, model and NDEF state.",
        discussion: """
            Identifies the chip from ATQA/SAK and GET_VERSION (NTAG21x, Ultralight), the FeliCa \
            PMm, the ICODE UID or the Type 4 NDEF application. Lists every tag that answers \
            together, as nfc-list does (several ISO 14443-A tags on a PN532; with --json, the \
            first tag's object with tagsInField and otherTags). Exits 2 when no tag comes within \
            the timeout.

            Examples:
              nfctool scan --device sim:ntag215
              nfctool scan --device pn532_uart:/dev/ttyUSB0 --json
              nfctool scan --continuous --timeout 60
            """,
        options: TagCommandSupport.readerOptions + [timeout.option, continuous, json]
    )

    let connection: String?
    let timeoutSeconds: Double?
    let isContinuous: Bool
    let printsJSON: Bool
    let trace: ReaderTraceOptions

    init(_ arguments: ParsedArguments) throws(CommandError) {
        connection = arguments.value(of: TagCommandSupport.device)
        trace = try ReaderTraceOptions(arguments)
        timeoutSeconds = try arguments.value(of: Self.timeout)
        isContinuous = arguments.contains(Self.continuous)
        printsJSON = arguments.contains(Self.json)
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        try await TagCommandSupport.withReader(TagCommandSupport.connection(connection, context.environment), trace: trace, context) {
            (reader) async throws(CommandError) in
            try await isContinuous ? watch(reader, context) : scanOnce(reader, context)
        }
    }

    private func scanOnce(_ reader: any NFCReader, _ context: CommandContext) async throws(CommandError) {
        let target = try await TagCommandSupport.waitForTarget(reader, await reader.connectionString, seconds: timeoutSeconds ?? 10)
        // Every tag in the field, as nfc-list lists them: the first is identified as it was
        // found, each other after selecting it.
        let all = (try? await reader.tagsInField(with: target)) ?? [target]
        var report = await ScanReport.identifying(target, on: reader, event: nil)
        var others: [ScanReport] = []
        for other in all.dropFirst() {
            guard (try? await reader.select(other)) != nil else { continue }
            others.append(await ScanReport.identifying(other, on: reader, event: nil))
        }
        if others.isEmpty {
            context.io.write(printsJSON ? try toolJSON(report) : report.text)
            return
        }
        if printsJSON {
            report.tagsInField = others.count + 1
            report.otherTags = others
            context.io.write(try toolJSON(report))
        } else {
            context.io.write("\(others.count + 1) tags in the field\n" + ([report] + others).map(\.text).joined())
        }
    }

    private func watch(_ reader: any NFCReader, _ context: CommandContext) async throws(CommandError) {
        let clock = ContinuousClock()
        let end = timeoutSeconds.map { clock.now.advanced(by: .milliseconds(Int($0 * 1000))) }
        let modulations = Self.modulations(await reader.supportedModulations)
        while end.map({ clock.now < $0 }) ?? true {
            let target: TargetInfo?
            do {
                target = try await reader.poll(for: modulations, timeout: .milliseconds(500))
            } catch {
                throw .failure("polling failed on \(await reader.connectionString): \(error)")
            }
            guard let target else { continue }
            var report = await ScanReport.identifying(target, on: reader, event: "arrived")
            context.io.write(printsJSON ? try toolJSON(report, pretty: false) : report.line)
            // Reported once; again only after it has left the field (the reader's removal event
            // on PC/SC, a presence check every 100 ms elsewhere).
            waiting: while true {
                let slice = end.map { max(.zero, $0 - clock.now) } ?? .seconds(5)
                switch await reader.waitForRemoval(timeout: slice, checkInterval: .milliseconds(100)) {
                case .removed: break waiting
                case .stillPresent, .cancelled:
                    if let end, clock.now >= end { return }
                    if Task.isCancelled { return }
                }
            }
            report.event = "left"
            context.io.write(printsJSON ? try toolJSON(report, pretty: false) : report.line)
        }
    }

    /// What to poll for: everything the reader can.
    static func modulations(_ supported: [Modulation]) -> [Modulation] {
        supported.isEmpty ? [.iso14443A] : supported
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// One tag as `scan` reports it.
struct ScanReport: Encodable {
    /// Where it was found and what it is (the keys `info` shares).
    var id: TagIdentification
    /// ISO 14443-B: the ATQB's application data and protocol info, as nfc-list shows them.
    var applicationData: String?, protocolInfo: String?
    var ndef: Bool?
    var event: String?
    /// How many tags answered together, when more than one did (this one first).
    var tagsInField: Int?
    /// The other tags that answered with this one, each identified as this one is.
    var otherTags: [ScanReport]?

    init(reader: String, target: TargetInfo, identity: ChipIdentity, event: String?) {
        id = TagIdentification(reader: reader, target: target, identity: identity)
        ndef = identity.hasNDEF
        self.event = event
        if case .iso14443B(let b) = target {
            applicationData = Hex.encode(b.applicationData, uppercase: true)
            protocolInfo = Hex.encode(b.protocolInfo, uppercase: true)
        }
    }

    private enum CodingKeys: String, CodingKey { case applicationData, protocolInfo, ndef, event, tagsInField, otherTags }

    func encode(to encoder: any Encoder) throws {
        try id.encode(to: encoder, nulls: false)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(applicationData, forKey: .applicationData)
        try container.encodeIfPresent(protocolInfo, forKey: .protocolInfo)
        try container.encodeIfPresent(ndef, forKey: .ndef)
        try container.encodeIfPresent(event, forKey: .event)
        try container.encodeIfPresent(tagsInField, forKey: .tagsInField)
        try container.encodeIfPresent(otherTags, forKey: .otherTags)
    }

    /// The report of `target`, identified on `reader`.
    static func identifying(_ target: TargetInfo, on reader: any NFCReader, event: String?) async -> ScanReport {
        let identity = await ChipIdentification.identify(target, on: reader)
        var report = ScanReport(reader: await reader.connectionString, target: target, identity: identity, event: event)
        report.id.readerName = await ReaderLabel(reader).name
        return report
    }

    /// The block a person reads.
    var text: String {
        let id = self.id
        var lines = ["Tag on \(id.reader)", "  technology: \(id.technology)", "  UID:        \(spacedHex(id.uid))"]
        if let atqa = id.atqa { lines.append("  ATQA:       \(spacedHex(atqa))") }
        if let sak = id.sak { lines.append("  SAK:        \(sak)") }
        if let ats = id.ats { lines.append("  ATS:        \(spacedHex(ats))") }
        if let applicationData { lines.append("  app data:   \(spacedHex(applicationData))") }
        if let protocolInfo { lines.append("  protocol:   \(spacedHex(protocolInfo))") }
        if let pmm = id.pmm { lines.append("  PMm:        \(spacedHex(pmm))") }
        if let systemCode = id.systemCode { lines.append("  system:     \(systemCode)") }
        lines.append("  model:      \(id.model) (\(id.platform)\(id.memoryBytes.map { ", \($0) bytes" } ?? ""))")
        lines.append("  NDEF:       \(ndef.map { $0 ? "yes" : "no" } ?? "unknown")")
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line for `--continuous`.
    var line: String {
        "\(event ?? "found") \(id.technology) \(id.uid) \(id.model)\(ndef == true ? " NDEF" : "")\n"
    }
}
