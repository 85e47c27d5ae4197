// Counts the RF commands each NDEF operation sends on each tag platform, on the in-process
// simulator (the same code drives libnfc), next to the fewest the datasheets allow. Prints a
// Markdown table; Scripts/bench-commands writes it into docs/benchmarks.md.
import NDEF
import NFCCore
import NFCTags
import VirtualTags

/// One platform's measurement set-up.
struct Platform {
    /// The row label.
    var label: String
    /// The `sim:` model holding an NDEF-formatted, empty tag.
    var model: String
    /// The `sim:` model of a blank tag for `format`, when the platform has one here.
    var blankModel: String?
    /// Datasheet minimum per operation, with the reasoning, by operation name.
    var minimum: [String: (Int, String)]
}

let url = "https://example.com/abc"  // a 20-byte URI record
let message = NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: url)])

/// A fresh tag of `model` (holding `stored` when given), connected and re-selected; the tracing
/// reader's log is empty.
func connect(_ model: String, stored: NDEFMessage? = nil) async throws -> (TracingReader, NFCTag) {
    guard let entry = TagModel.named(model) else { fatalError("no model \(model)") }
    let reader = await TracingReader(SimulatedReader(tags: [entry.make(entry.defaultUID, TagModelOptions())], emptyFieldWait: .zero))
    guard let target = try await reader.poll(for: Modulation.allCases, timeout: .zero) else { fatalError("no tag") }
    let tag = try await NFCTag.connect(to: target, on: reader)
    _ = try await reader.poll(for: Modulation.allCases, timeout: .zero)
    if let stored { try await tag.ndef.writeNDEF(stored) }
    _ = try await reader.poll(for: Modulation.allCases, timeout: .zero)
    await reader.reset()
    return (reader, tag)
}

/// Runs `operation` on a fresh tag and returns the commands it sent (nil when unsupported).
func count(_ model: String, stored: NDEFMessage? = nil, _ operation: (any NFCNDEFTag) async throws(NFCTagError) -> Void) async throws -> Int? {
    let (reader, tag) = try await connect(model, stored: stored)
    do {
        try await operation(tag.ndef)
    } catch where error.code == .notSupported {
        return nil
    }
    return await reader.commands.count
}

let platforms: [Platform] = [
    Platform(
        label: "Type 2 (NTAG215)", model: "ntag215", blankModel: "ultralight-ev1-mf0ul21",
        minimum: [
            "query": (1, "one FAST_READ of pages 0–15 (CC + TLV area)"),
            "read": (1, "one FAST_READ covering CC and the 25-byte TLV"),
            "write": (8, "read CC/TLV, 6 WRITEs (pages 4–9), 1 FAST_READ verify; +1 WRITE for tear safety"),
            "writeLock": (4, "WRITE CC3, dynamic lock page, static lock page, CFG1 (CFGLCK)"),
            "format": (2, "WRITE page 4 (empty TLV), WRITE CC"),
        ]),
]

let operations: [(String, String?, NDEFMessage?, (any NFCNDEFTag) async throws(NFCTagError) -> Void)] = [
    ("query", nil, nil, { tag throws(NFCTagError) in _ = try await tag.queryNDEFStatus() }),
    ("read", nil, message, { tag throws(NFCTagError) in _ = try await tag.readNDEF() }),
    ("write", nil, nil, { tag throws(NFCTagError) in try await tag.writeNDEF(message) }),
    ("writeLock", nil, message, { tag throws(NFCTagError) in try await tag.writeLock() }),
    ("format", "blank", nil, { tag throws(NFCTagError) in try await tag.format(force: false) }),
]

print("| platform | operation | NFCKit commands | datasheet minimum | minimum's commands |")
print("|---|---|---:|---:|---|")
for platform in platforms {
    for (name, which, stored, operation) in operations {
        let model = which == "blank" ? platform.blankModel : platform.model
        guard let model else { continue }
        let sent = try await count(model, stored: stored, operation)
        let (minimum, why) = platform.minimum[name] ?? (0, "")
        let shown = sent.map(String.init) ?? "not supported"
        print("| \(platform.label)\(which == "blank" ? " (blank \(model))" : "") | \(name) | \(shown) | \(minimum == 0 ? "–" : String(minimum)) | \(why) |")
    }
}
