import CommandLineKit
import Foundation
import NFCCore
import NFCTags

/// `nfctool dump`: the whole readable memory of a tag, as a hex listing or raw bytes.
struct DumpCommand: ToolCommand {
    static let output = CommandOption.option(
        "output", short: "o", valueName: "file", help: "Write the dump to this file rather than standard output.")
    static let binary = CommandOption.flag(
        "binary", help: "Write raw bytes: Type 2 in nfc-mfultralight's .mfd layout, Classic in nfc-mfclassic's.")
    static let key = TypedOption(
        .option("key", short: "k", valueName: "hex", help: "A MIFARE Classic key A (12 hex digits) to try before the default keys.",
                repeatable: true),
        ValueType(reason: "a key is 6 bytes, 12 hex digits") { (try? Hex.decode($0)).flatMap { $0.count == 6 ? $0 : nil } })

    static let configuration = CommandConfiguration(
        name: "dump",
        abstract: "Dump a tag's readable memory as a hex listing or raw bytes.",
        discussion: """
            Lists every page (Type 2, each outside the data area labelled with its region and \
            its bytes by the datasheet's names, as nfcpy's tagtool dump does: UID (UID0-UID2, \
            BCC0), check byte and static lock (BCC1, INT, LOCK0-LOCK1), CC, dynamic lock, \
            CFG0 (MIRROR, RFU, MIRROR_PAGE, AUTH0), CFG1 (ACCESS), PWD, PACK; JSON region and \
            fields), block (Type 3, Type 5, MIFARE Classic) or file (Type 4: \
            the CC and NDEF files) with its number; what the tag refuses to read is marked \
            unreadable. MIFARE Classic sectors are tried with --key, then FFFFFFFFFFFF, \
            A0A1A2A3A4A5 and D3F7D3F7D3F7 as key A. --binary writes the raw bytes (unreadable \
            ones as 00): for Type 2 the 4 bytes of each page from page 0, which \
            'nfc-mfultralight w' takes; for Classic the 1024-byte .mfd of nfc-mfclassic, key A \
            filled in with the key that opened the sector.

            A Type 2 page is shown only from a READ that can be trusted: a read-protected \
            NTAG21x rolls a READ over to page 0 at AUTH0, so pages from AUTH0 on are marked \
            unreadable, never shown with page 0's bytes. A tag still in the field that lets \
            nothing be read exits 9 when a password or key is missing (an NTAG21x protected \
            from page 0, a MIFARE Classic no key opens), else 1; exit 7 only when it left.

            Examples:
              nfctool dump --device sim:ntag215
              nfctool dump --binary --output tag.mfd
              nfctool dump --device sim:classic1k --key A0A1A2A3A4A5 --json
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, output, binary, key.option, TagCommandSupport.json],
        exclusions: [CommandExclusion(binary, TagCommandSupport.json, message: "--binary and --json cannot be combined")]
    )

    let options: TagCommandOptions
    let keys: [[UInt8]]

    init(_ arguments: ParsedArguments) throws(CommandError) {
        options = try TagCommandOptions(arguments)
        keys = try arguments.values(of: Self.key)
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let (writesBinary, outputPath) = (options.arguments.contains(Self.binary), options.arguments.value(of: Self.output))
        if writesBinary, outputPath == nil, context.io.isStandardOutputTerminal {
            throw .usage("--binary would write raw bytes to the terminal: pass --output FILE or redirect standard output")
        }
        let keys = self.keys + TagMemoryDump.defaultClassicKeys
        let (dump, reader) = try await TagOperation(options, context).run { tag, reader in
            let dump = try await TagMemoryDump.read(tag, reader: reader, classicKeys: keys)
            guard dump.units.contains(where: { $0.bytes != nil }) else {
                guard await reader.isTargetPresent() else {
                    throw CommandError("nothing could be read: the tag left the field", exitCode: .tagLost)
                }
                throw Self.refusesEveryRead(dump)
            }
            return dump
        }
        let bytes: [UInt8] = writesBinary ? dump.binary : Array((options.printsJSON ? try taggedJSON(reader, dump) : dump.listing).utf8)
        if let outputPath {
            try writeFileBytes(bytes, to: outputPath)
            context.io.printErrorLine("wrote \(bytes.count) bytes to \(outputPath)")
        } else {
            context.io.write(bytes, to: .standardOutput)
        }
    }
}

extension DumpCommand {
    /// A tag still in the field that let nothing be read: a password or key is missing (exit 9)
    /// on the platforms that have them, else the tag answers nothing dump can show (exit 1).
    static func refusesEveryRead(_ dump: TagMemoryDump) -> CommandError {
        switch dump.unit {
        case "page":
            CommandError(
                "the \(dump.model) is in the field but refuses every READ: it is read-protected from page 0 (AUTH0 0); dump does not authenticate",
                exitCode: .authenticationFailed)
        case "block" where dump.binaryOverride != nil:
            CommandError(
                "the \(dump.model) is in the field but no key A opened any sector: give its key with --key",
                exitCode: .authenticationFailed)
        default:
            CommandError("the \(dump.model) is in the field but answered none of dump's reads", exitCode: .failure)
        }
    }
}

extension TagMemoryDump {
    /// The hex listing, 80 columns at most.
    var listing: String {
        let readable = units.filter { $0.bytes != nil }.count
        var lines = ["\(model) \(spacedHex(uid)): \(units.count) \(unit)s, \(readable) readable"]
        let width = String(units.count).count
        for unit in units {
            let label = unit.label.count < width ? String(repeating: " ", count: width - unit.label.count) + unit.label : unit.label
            // A Type 2 page outside the data area: its region and bytes by name.
            let role = unit.role.flatMap { $0 == .data ? nil : "  " + $0.regionName + (unit.fields.map { " (\($0))" } ?? "") } ?? ""
            guard let bytes = unit.bytes else {
                lines.append("\(self.unit) \(label): unreadable" + (role.isEmpty ? "" : "     " + role))
                continue
            }
            if bytes.count <= 16 {
                lines.append("\(self.unit) \(label): \(Hex.encode(bytes, uppercase: true, separator: " "))  |\(printable(bytes))|" + role)
            } else {
                lines.append("\(self.unit) \(label): \(bytes.count) bytes")
                for start in stride(from: 0, to: bytes.count, by: 16) {
                    let row = Array(bytes[start..<min(start + 16, bytes.count)])
                    lines.append(String(format: "  %04X: ", start) + Hex.encode(row, uppercase: true, separator: " ") + "  |\(printable(row))|")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func printable(_ bytes: [UInt8]) -> String {
        String(bytes.map { (0x20...0x7E).contains($0) ? Character(UnicodeScalar($0)) : "." })
    }
}
