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
            Lists every page (Type 2), block (Type 3, Type 5, MIFARE Classic) or file (Type 4: \
            the CC and NDEF files) with its number; what the tag refuses to read is marked \
            unreadable. MIFARE Classic sectors are tried with --key, then FFFFFFFFFFFF, \
            A0A1A2A3A4A5 and D3F7D3F7D3F7 as key A. --binary writes the raw bytes (unreadable \
            ones as 00): for Type 2 the 4 bytes of each page from page 0, which \
            'nfc-mfultralight w' takes; for Classic the 1024-byte .mfd of nfc-mfclassic, key A \
            filled in with the key that opened the sector.

            Examples:
              nfctool dump --device sim:ntag215
              nfctool dump --binary --output tag.mfd
              nfctool dump --device sim:classic1k --key A0A1A2A3A4A5 --json
            """,
        options: [TagCommandSupport.device, TagCommandSupport.timeout, output, binary, key.option, TagCommandSupport.json],
        exclusions: [CommandExclusion(binary, TagCommandSupport.json, message: "--binary and --json cannot be combined")]
    )

    /// The Classic keys tried after `--key`: transport, MAD and NFC public keys.
    static let defaultClassicKeys: [[UInt8]] = [
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], MADDirectory.publicKeyA, ClassicNDEFTag.nfcSectorKeyA,
    ]

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
        let keys = self.keys + Self.defaultClassicKeys
        let (dump, reader) = try await TagOperation(options, context).run { tag, reader in
            try await TagDump.read(tag, reader: reader, classicKeys: keys)
        }
        guard dump.units.contains(where: { $0.bytes != nil }) else {
            throw CommandError("nothing could be read: the tag left the field or refuses every read", exitCode: .tagLost)
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

/// A tag's memory as read: numbered units (pages, blocks, files), each read or not.
struct TagDump: Encodable, Sendable {
    /// One page, block or file.
    struct Unit: Encodable, Sendable {
        /// Its number (page, block) or name (file).
        var label: String
        /// Its bytes; nil when the tag refused to read it.
        var bytes: [UInt8]?
        /// How many bytes it has when readable (for the binary form of unreadable ones).
        var size: Int

        private enum CodingKeys: String, CodingKey { case label, hex }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(label, forKey: .label)
            try container.encode(bytes.map { Hex.encode($0, uppercase: true) }, forKey: .hex)
        }
    }

    var model: String
    var uid: String
    /// `page`, `block` or `file`.
    var unit: String
    var units: [Unit]
    /// The bytes of the binary form when they differ from the units joined (Classic: keys filled in).
    var binaryOverride: [UInt8]?

    private enum CodingKeys: String, CodingKey { case model, uid, unit, units }

    /// The raw bytes: units in order, unreadable ones as zeros.
    var binary: [UInt8] {
        binaryOverride ?? units.flatMap { $0.bytes ?? [UInt8](repeating: 0, count: $0.size) }
    }

    /// The hex listing, 80 columns at most.
    var listing: String {
        let readable = units.filter { $0.bytes != nil }.count
        var lines = ["\(model) \(spacedHex(uid)): \(units.count) \(unit)s, \(readable) readable"]
        let width = String(units.count).count
        for unit in units {
            let label = unit.label.count < width ? String(repeating: " ", count: width - unit.label.count) + unit.label : unit.label
            guard let bytes = unit.bytes else {
                lines.append("\(self.unit) \(label): unreadable")
                continue
            }
            if bytes.count <= 16 {
                lines.append("\(self.unit) \(label): \(Hex.encode(bytes, uppercase: true, separator: " "))  |\(printable(bytes))|")
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

    // MARK: - Reading

    /// Reads all `tag`'s memory it lets be read.
    /// - Throws: ``CommandError`` for a platform not covered, ``NFCTagError`` when the tag is lost.
    static func read(_ tag: NFCTag, reader: any NFCReader, classicKeys: [[UInt8]]) async throws -> TagDump {
        let uid = Hex.encode(tag.identifier, uppercase: true)
        let model = tag.identity.model
        switch tag {
        case .miFare(let mifare):
            switch mifare.mifareFamily {
            case .ultralight:
                return TagDump(model: model, uid: uid, unit: "page", units: await type2Pages(mifare, reader: reader))
            case .classic:
                let (units, binary) = await classicBlocks(mifare, reader: reader, keys: classicKeys)
                return TagDump(model: model, uid: uid, unit: "block", units: units, binaryOverride: binary)
            default:
                throw CommandError("dumping \(model) is not supported", exitCode: .unsupported)
            }
        case .iso7816(let iso):
            return TagDump(model: model, uid: uid, unit: "file", units: await type4Files(iso))
        case .feliCa(let felica):
            return TagDump(model: model, uid: uid, unit: "block", units: await type3Blocks(felica))
        case .iso15693(let vicinity):
            return TagDump(model: model, uid: uid, unit: "block", units: try await type5Blocks(vicinity))
        }
    }

    /// Type 2: READ of 4 pages at a time from page 0 to the chip's last page (16 pages when the
    /// model is unknown); pages refused are unreadable.
    static func type2Pages(_ mifare: MiFareTag, reader: any NFCReader) async -> [Unit] {
        let total = Type2ChipProfile.named(identity: mifare.identity)?.totalPages ?? 16
        var units: [Unit] = []
        var page = 0
        while page < total {
            let count = min(4, total - page)
            do {
                let answer = try await mifare.sendMiFareCommand(Bytes([Type2Command.read, UInt8(page)])).array
                guard answer.count >= count * 4 else { throw NFCTagError(.tagResponse, "short READ") }
                for i in 0..<count {
                    units.append(Unit(label: String(page + i), bytes: Array(answer[i * 4..<i * 4 + 4]), size: 4))
                }
            } catch {
                await reselect(reader, .iso14443A)
                // One page at a time, so a protection boundary inside these four is found.
                for i in 0..<count {
                    let answer = try? await mifare.sendMiFareCommand(Bytes([Type2Command.read, UInt8(page + i)])).array
                    if answer == nil { await reselect(reader, .iso14443A) }
                    units.append(Unit(label: String(page + i), bytes: answer.flatMap { $0.count >= 4 ? Array($0.prefix(4)) : nil }, size: 4))
                }
            }
            page += count
        }
        return units
    }

    /// MIFARE Classic: each sector opened with the first key A that works; the listing shows key
    /// A as the chip reads it back (zeros); the binary form fills in the key that worked.
    static func classicBlocks(_ mifare: MiFareTag, reader: any NFCReader, keys: [[UInt8]]) async -> ([Unit], [UInt8]) {
        let layout = mifare.classicLayout
        var units: [Unit] = []
        var binary: [UInt8] = []
        for sector in 0..<layout.sectorCount {
            var opened: [UInt8]?
            for key in keys {
                do {
                    try await mifare.authenticate(sector: sector, keyType: .a, key: Bytes(key))
                    opened = key
                    break
                } catch {
                    await reselect(reader, .iso14443A)
                }
            }
            let first = layout.firstBlock(ofSector: sector)
            for block in first...layout.trailerBlock(ofSector: sector) {
                var bytes: [UInt8]?
                if opened != nil {
                    bytes = try? await mifare.readBlock(block)
                    if bytes == nil {
                        await reselect(reader, .iso14443A)
                        if let opened { try? await mifare.authenticate(sector: sector, keyType: .a, key: Bytes(opened)) }
                    }
                }
                units.append(Unit(label: String(block), bytes: bytes, size: ClassicLayout.blockSize))
                var raw = bytes ?? [UInt8](repeating: 0, count: ClassicLayout.blockSize)
                if layout.isTrailer(block), let opened, raw.count == 16 { raw.replaceSubrange(0..<6, with: opened) }
                binary += raw
            }
        }
        return (units, binary)
    }

    /// Type 3: the blocks of the NDEF service (attribute block and NMAXB data blocks; on a
    /// FeliCa Lite-S, the user blocks 0–13 and the system blocks 80h–88h), one at a time.
    static func type3Blocks(_ felica: FeliCaTag) async -> [Unit] {
        var numbers: [UInt16]
        if felica.isFeliCaLiteS {
            numbers = Array(Type3LiteS.userBlocks) + Array(0x80...0x88)
        } else {
            numbers = [0]
            if let block = try? await readFeliCa(felica, 0), let attribute = try? Type3AttributeInformation(parsing: block) {
                numbers += (0..<min(Int(attribute.nmaxb), 0xFFF)).map { UInt16($0 + 1) }
            }
        }
        var units: [Unit] = []
        for number in numbers {
            units.append(Unit(label: String(format: "%02X", number), bytes: try? await readFeliCa(felica, number), size: 16))
        }
        return units
    }

    private static func readFeliCa(_ felica: FeliCaTag, _ number: UInt16) async throws(NFCTagError) -> [UInt8] {
        let read = try await felica.readWithoutEncryption(
            serviceCodeList: [Type3ServiceCode.ndefRead], blockList: [FeliCaBlockListElement(blockNumber: number)])
        guard let block = read.blocks.first?.array, block.count == 16 else {
            throw NFCTagError(.tagResponse, "no block \(number) in the answer")
        }
        return block
    }

    /// Type 5: every block GET SYSTEM INFO announces, READ SINGLE BLOCK each.
    static func type5Blocks(_ vicinity: ISO15693Tag) async throws -> [Unit] {
        let info = try await vicinity.getSystemInfo()
        guard let count = info.blockCount, let size = info.blockSize else {
            throw CommandError("the tag does not tell its memory size (GET SYSTEM INFO)", exitCode: .unsupported)
        }
        var units: [Unit] = []
        for block in 0..<count {
            let bytes = try? await vicinity.readSingleBlock(block).array
            units.append(Unit(label: String(block), bytes: bytes, size: size))
        }
        return units
    }

    /// Type 4: the CC file and the NDEF file it names (NLEN and message).
    static func type4Files(_ iso: ISO7816Tag) async -> [Unit] {
        var units: [Unit] = []
        let type4 = iso.type4Platform
        let ccBytes = try? await type4.readCapabilityContainerFile()
        units.append(Unit(label: "CC", bytes: ccBytes, size: 15))
        guard let ccBytes, let cc = try? Type4CapabilityContainer(bytes: ccBytes) else {
            units.append(Unit(label: "NDEF", bytes: nil, size: 0))
            return units
        }
        let ndef: [UInt8]?
        ndef = try? await type4.readFile(id: cc.ndefFileID, lengthFieldSize: cc.lengthFieldSize)
        units.append(Unit(label: String(format: "%04X", cc.ndefFileID), bytes: ndef, size: 0))
        return units
    }
}
