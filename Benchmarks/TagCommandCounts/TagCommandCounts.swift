// Counts the RF commands each NDEF operation sends on each tag platform, on the in-process
// simulator (the same code drives libnfc), next to the fewest the datasheets allow: the
// "Commands per operation" table of docs/benchmarks.md. Shared by tag-commands-bench (which
// writes the table) and the tests (which fail when the docs disagree with their own count).
import Foundation
import NDEF
import NFCCore
import NFCTags
public import VirtualTags

/// One platform's measurement set-up.
public struct Platform: Sendable {
    /// The row label.
    public var label: String
    /// A fresh tag as delivered for NDEF (formatted and empty, or formatted by `format()` first
    /// when `formatFirst`).
    public var formatted: @Sendable () -> any VirtualTag
    /// Whether `formatted` is a blank tag that `format()` prepares first.
    public var formatFirst = false
    /// A blank chip for the `format` row, when the platform can format one; else the row formats
    /// (forced) a tag holding the message.
    public var blank: (@Sendable () -> any VirtualTag)?
    /// Datasheet minimum per operation (nil: the operation does not exist) and what our extra
    /// commands buy.
    public var minimum: [String: (Int?, String)]
}

let url = "https://example.com/abc"  // a 20-byte URI record
/// The 20-byte URI record every row stores or reads.
let message: NDEFMessage = {
    do { return NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: url)]) } catch { preconditionFailure("\(error)") }
}()

/// The tag made by `make`, connected and re-selected, formatted first and holding `stored` when
/// asked; the tracing reader's log is then emptied.
func connect(_ make: () -> any VirtualTag, format: Bool, stored: NDEFMessage?) async throws -> (TracingReader, NFCTag) {
    let reader = await TracingReader(SimulatedReader(tags: [make()], emptyFieldWait: .zero))
    func select() async throws -> TargetInfo {
        guard let target = try await reader.poll(for: Modulation.allCases, timeout: .zero) else {
            throw NFCTagError(.connectionLost, "the simulated tag did not answer the poll")
        }
        return target
    }
    let tag = try await NFCTag.connect(to: try await select(), on: reader)
    _ = try await select()
    if format { try await tag.ndef.format(force: false) }
    if let stored { try await tag.ndef.writeNDEF(stored) }
    _ = try await select()
    await reader.reset()
    return (reader, tag)
}

/// The NXP Type 2 blank chip, FeliCa Lite-S with block 0 and SYS_OP cleared, an all-zero SLIX2.
let blankLiteS: @Sendable () -> any VirtualTag = {
    var memory = FeliCaLiteS(idm: TagModel.named("felica-lite-s")?.defaultUID ?? []).memory
    memory.replaceSubrange(0..<16, with: [UInt8](repeating: 0, count: 16))
    if let mc = FeliCaLiteS.blockNumbers.firstIndex(of: 0x88) { memory[mc * FeliCaLiteS.blockSize + 3] = 0 }
    return FeliCaLiteS(idm: TagModel.named("felica-lite-s")?.defaultUID ?? [], memory: memory)
}

func model(_ name: String) -> @Sendable () -> any VirtualTag {
    { guard let entry = TagModel.named(name) else { preconditionFailure("no model \(name)") }
      return entry.make(entry.defaultUID, TagModelOptions()) }
}

/// The platforms measured, one row group each.
public let platforms: [Platform] = [
    Platform(
        label: "Type 2: NTAG215 (format: blank MF0UL21)", formatted: model("ntag215"), blank: model("ultralight-ev1-mf0ul21"),
        minimum: [
            "query": (1, "–"),
            "read": (1, "–"),
            "write": (7, "+1 FAST_READ of CFG0/CFG1 (password check before writing); +1 FAST_READ verify; no length-0 WRITE first: the empty tag's length 0 stands while the other pages are written (tear safety)"),
            "writeLock": (4, "+1 FAST_READ (is it NDEF?), +1 READ (lock bytes and CFG in one), +2 READs verify"),
            "format": (2, "+3 FAST_READs (refuse a chip holding data; CFG), +1 READ verify"),
            "format (forced, over a message)": (1, "+1 FAST_READ (TLV), +1 FAST_READ of CFG0/CFG1 (password), +1 FAST_READ verify"),
        ]),
    Platform(
        label: "Type 3: FeliCa Lite-S", formatted: model("felica-lite-s"), blank: blankLiteS,
        minimum: [
            "query": (1, "–"),
            "read": (1, "–"),
            "write": (4, "+1 WRITE: attribute block with WriteF 0F first (the spec's tear guard); +1 READ verify"),
            "writeLock": (3, "+1 READ verify of block 0 and MC"),
            "format": (3, "+4 READs: prove the S_PADs blank before writing"),
            "format (forced, over a message)": (2, "+1 READ (attribute block), +1 READ verify"),
        ]),
    Platform(
        label: "Type 4: NDEF application, 2 KiB file", formatted: model("type4"),
        minimum: [
            "query": (5, "–"),
            "read": (6, "−1: NLEN and the message come in one READ BINARY"),
            "write": (5, "+1 READ BINARY of the last byte to write (the file is as large as the CC says); +2 UPDATE BINARY: NLEN 0 first and NLEN last (tear safety); +1 READ BINARY verify"),
            "writeLock": (nil, "no permanent lock exists in Type 4: refused, nothing sent"),
            "format (forced, over a message)": (6, "–: detection, then NLEN 0"),
        ]),
    Platform(
        label: "Type 5: ICODE SLIX2 (format: blank)", formatted: model("slix2"),
        blank: { ICodeSLIX2(uid: TagModel.named("slix2")?.defaultUID ?? [], memory: [UInt8](repeating: 0, count: 320)) },
        minimum: [
            "query": (1, "+1: READ MULTIPLE is used only once the CC says the chip has it"),
            "read": (1, "+1: as query"),
            "write": (6, "+2 READs (CC, TLV area), +1 GET MULTIPLE BLOCK PROTECTION STATUS (no block behind a password), +1 READ MULTIPLE verify"),
            "writeLock": (80, "+2 READs (CC, TLV area), +3 GET MULTIPLE BLOCK PROTECTION STATUS (no block to lock behind a password); 79 LOCK BLOCKs + CC write is the mechanism; +4 read-back: 3 GET MULTIPLE BLOCK SECURITY STATUS, 1 READ (CC)"),
            "format": (3, "+3 READ MULTIPLE: refuse a chip holding data, +1 GET MULTIPLE BLOCK PROTECTION STATUS (GET SYSTEM INFO + 2 WRITEs are the minimum)"),
            "format (forced, over a message)": (2, "re-initialised like a blank tag (TLV block, then CC): +1 GET SYSTEM INFO (size for the CC), +3 READ MULTIPLE (every block's lock status, before any write), +1 GET MULTIPLE BLOCK PROTECTION STATUS"),
        ]),
    Platform(
        label: "MIFARE Classic 1K (MAD, 15 NDEF sectors)", formatted: model("classic1k"), formatFirst: true,
        blank: model("classic1k"),
        minimum: [
            "query": (5, "+2 READs of the sector trailers' GPB, which detection needs"),
            "read": (6, "+2 GPB READs, as query"),
            "write": (7, "+1 WRITE: length 0 first; +3 READs (detection, GPB); +2 READs verify"),
            "writeLock": (32, "+7 detection; +32: every trailer AUTH'd with key B and read before the first write; −1 AUTH reused; +16 READs: each trailer read back after its write"),
            "format": (35, "+1 AUTH probing for a MAD; +79 AUTH/READs proving every sector blank and its keys before the first write; −1 AUTH reused"),
            "format (forced, over a message)": (2, "AUTH + WRITE of the TLV length; +6 detection READs/AUTH (MAD, GPB, TLV), +1 READ verify"),
        ]),
]

/// The commands `operation` sends on a fresh tag, or "refused" when the platform does not
/// support it.
func measure(
    _ make: () -> any VirtualTag, formatFirst: Bool, stored: NDEFMessage?, printsTrace: Bool,
    _ operation: @Sendable (any NFCNDEFTag) async throws(NFCTagError) -> Void
) async throws -> String {
    let (reader, tag) = try await connect(make, format: formatFirst, stored: stored)
    var refused = false
    do {
        try await operation(tag.ndef)
    } catch {
        guard error.code == .notSupported else { throw error }
        refused = true
    }
    let count = await reader.commands.count
    if printsTrace {
        for command in await reader.commands { print("    ", Hex.encode(command.command.prefix(12))) }
    }
    return refused ? "refused (\(count) sent)" : String(count)
}

let operations: [(String, @Sendable (any NFCNDEFTag) async throws(NFCTagError) -> Void)] = [
    ("query", { tag throws(NFCTagError) in _ = try await tag.queryNDEFStatus() }),
    ("read", { tag throws(NFCTagError) in _ = try await tag.readNDEF() }),
    ("write", { tag throws(NFCTagError) in try await tag.writeNDEF(message) }),
    ("writeLock", { tag throws(NFCTagError) in try await tag.writeLock() }),
    ("format", { tag throws(NFCTagError) in try await tag.format(force: false) }),
    ("format (forced, over a message)", { tag throws(NFCTagError) in try await tag.format(force: true) }),
]


/// One row of the table.
public struct CommandCountRow: Sendable, Hashable {
    /// The platform label.
    public var platform: String
    /// The operation.
    public var operation: String
    /// NFCKit's command count, or "refused (n sent)".
    public var commands: String
    /// The datasheet minimum, if the operation exists.
    public var minimum: Int?
    /// What the difference buys.
    public var why: String

    /// The Markdown row.
    public var markdown: String {
        "| \(platform) | \(operation) | \(commands) | \(minimum.map(String.init) ?? "–") | \(why) |"
    }
}

/// Measures every row; with `printsTrace`, prints each operation's commands in hex.
public func measureCommandCounts(printsTrace: Bool = false) async throws -> [CommandCountRow] {
    var rows: [CommandCountRow] = []
    for platform in platforms {
        for (name, operation) in operations {
            // "format" needs a blank chip; "format (forced…)" runs on every platform over a message.
            if name == "format" && platform.blank == nil { continue }
            let stored: NDEFMessage? = ["read", "writeLock", "format (forced, over a message)"].contains(name) ? message : nil
            let make = name == "format" ? (platform.blank ?? platform.formatted) : platform.formatted
            let formatFirst = platform.formatFirst && name != "format"
            let shown = try await measure(make, formatFirst: formatFirst, stored: stored, printsTrace: printsTrace, operation)
            let (minimum, why) = platform.minimum[name] ?? (nil, "")
            rows.append(CommandCountRow(platform: platform.label, operation: name, commands: shown, minimum: minimum, why: why))
        }
    }
    return rows
}

/// The Markdown table of `rows`, header included.
public func commandCountTable(_ rows: [CommandCountRow]) -> String {
    (["| platform | operation | NFCKit commands | datasheet minimum | what the difference buys |", "|---|---|---:|---:|---|"]
        + rows.map(\.markdown)).joined(separator: "\n")
}
