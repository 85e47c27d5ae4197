import NFCCore

/// A tag's memory as read, for a dump: numbered units (pages, blocks, files), each read or not
/// (what the tag refuses to read is kept as unreadable, not an error). `nfctool dump` prints it.
public struct TagMemoryDump: Encodable, Sendable {
    /// One page, block or file.
    public struct Unit: Encodable, Sendable {
        /// Its number (page, block) or name (file).
        public var label: String
        /// Its bytes; nil when the tag refused to read it.
        public var bytes: [UInt8]?
        /// How many bytes it has when readable (for the binary form of unreadable ones).
        public var size: Int
        /// A Type 2 page's region (UID, lock, CC, data, CFG0…); nil on other platforms.
        public var role: Type2PageRole? = nil
        /// A Type 2 page's bytes by name (`UID0-UID2, BCC0`); nil for data pages and other
        /// platforms.
        public var fields: String? = nil

        private enum CodingKeys: String, CodingKey { case label, hex, region, fields }

        /// `label`, `hex` (upper case; null when unreadable), and on Type 2 pages `region`
        /// (``Type2PageRole``'s raw value) and `fields` (null for data pages).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(label, forKey: .label)
            try container.encode(bytes.map { Hex.encode($0, uppercase: true) }, forKey: .hex)
            if let role {
                try container.encode(role, forKey: .region)
                try container.encode(fields, forKey: .fields)
            }
        }
    }

    /// The chip's model name.
    public var model: String
    /// The UID in upper-case hex.
    public var uid: String
    /// `page`, `block` or `file`.
    public var unit: String
    /// The units, in memory order.
    public var units: [Unit]
    /// The bytes of the binary form when they differ from the units joined (Classic: keys filled in).
    public var binaryOverride: [UInt8]?

    private enum CodingKeys: String, CodingKey { case model, uid, unit, units }

    /// The Classic keys tried after the caller's: transport, MAD and NFC public keys.
    public static let defaultClassicKeys: [[UInt8]] = [
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], MADDirectory.publicKeyA, ClassicNDEFTag.nfcSectorKeyA,
    ]

    /// The raw bytes: units in order, unreadable ones as zeros (Type 2 in nfc-mfultralight's
    /// layout, Classic in nfc-mfclassic's .mfd with key A filled in).
    public var binary: [UInt8] {
        binaryOverride ?? units.flatMap { $0.bytes ?? [UInt8](repeating: 0, count: $0.size) }
    }

    /// Reads all `tag`'s memory it lets be read.
    /// - Throws: ``NFCTagError`` `notSupported` for a chip not covered, or when a Type 5 tag does
    ///   not tell its memory size.
    public static func read(_ tag: NFCTag, reader: any NFCReader, classicKeys: [[UInt8]]) async throws(NFCTagError) -> TagMemoryDump {
        let uid = Hex.encode(tag.identifier, uppercase: true)
        let model = tag.identity.model
        switch tag {
        case .miFare(let mifare):
            if let type1 = mifare.type1 {
                return TagMemoryDump(model: model, uid: uid, unit: "block", units: try await type1Blocks(type1))
            }
            switch mifare.mifareFamily {
            case .ultralight:
                return TagMemoryDump(model: model, uid: uid, unit: "page", units: await type2Pages(mifare, reader: reader))
            case .classic:
                let (units, binary) = await classicBlocks(mifare, reader: reader, keys: classicKeys)
                return TagMemoryDump(model: model, uid: uid, unit: "block", units: units, binaryOverride: binary)
            default:
                throw NFCTagError(.notSupported, "dumping \(model) is not supported")
            }
        case .iso7816(let iso):
            return TagMemoryDump(model: model, uid: uid, unit: "file", units: await type4Files(iso))
        case .feliCa(let felica):
            return TagMemoryDump(model: model, uid: uid, unit: "block", units: await type3Blocks(felica))
        case .iso15693(let vicinity):
            return TagMemoryDump(model: model, uid: uid, unit: "block", units: try await type5Blocks(vicinity))
        }
    }

    /// Type 2: READ of 4 pages at a time from page 0 to the chip's last page (a MIFARE
    /// Ultralight C's last readable one, 2Bh: its key pages 2Ch–2Fh are never read, MF0ICU2
    /// 7.5.7, as nfcpy's dump of one shows; 16 pages when the model is unknown); pages refused
    /// are unreadable. A READ's first page is always that page; the three after it are taken only when the READ of the page after them answers
    /// too: a read-protected NTAG21x rolls a READ over to page 0 at AUTH0 (datasheet 10.2), so
    /// a READ that crosses AUTH0 answers page 0's bytes for the protected pages. Where the next
    /// READ is refused, the pages are read one at a time, and a refused page is unreadable.
    static func type2Pages(_ mifare: MiFareTag, reader: any NFCReader) async -> [Unit] {
        let profile = Type2ChipProfile.named(identity: mifare.identity)
        let total = profile?.totalPages ?? (mifare.identity.family == .ultralightC ? UltralightCMemory.keyPages.lowerBound : 16)
        var answers: [Int: [UInt8]?] = [:]
        func answer(_ page: Int) async -> [UInt8]? {
            if let known = answers[page] { return known }
            var bytes: [UInt8]?
            do {
                let read = try await mifare.sendMiFareCommand(Bytes([Type2Command.read, UInt8(page)])).array
                bytes = read.count >= Type2Command.readSize ? read : nil
            } catch {
                await reselect(reader, .iso14443A)
            }
            answers[page] = bytes
            return bytes
        }
        var units: [Unit] = []
        var page = 0
        while page < total {
            let count = min(4, total - page)
            guard let bytes = await answer(page) else {
                units.append(Unit(label: String(page), bytes: nil, size: 4, role: .of(page: page, profile: profile), fields: Type2PageRole.fields(page: page, profile: profile)))
                page += 1
                continue
            }
            // The pages after the first are this page's neighbours only when the READ past them
            // answers (or memory ends: the chip's own roll-over past its last page is cut off).
            var trusted = count
            if page + count < total, await answer(page + count) == nil { trusted = 1 }
            for i in 0..<trusted {
                units.append(Unit(
                    label: String(page + i), bytes: Array(bytes[(i * 4)..<(i * 4 + 4)]), size: 4,
                    role: .of(page: page + i, profile: profile), fields: Type2PageRole.fields(page: page + i, profile: profile)))
            }
            page += trusted
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
    /// Type 1: the 8-byte blocks the NDEF procedures read (RALL; on the dynamic layout block F and
    /// the later segments, as far as the reader reaches).
    static func type1Blocks(_ tag: Type1Tag) async throws(NFCTagError) -> [Unit] {
        let snapshot = try await tag.load()
        return stride(from: 0, to: snapshot.memory.count, by: Type1Memory.blockSize).map { start in
            Unit(label: Hex.number(UInt8(truncatingIfNeeded: start / Type1Memory.blockSize), width: 2),
                 bytes: Array(snapshot.memory[start..<min(start + Type1Memory.blockSize, snapshot.memory.count)]), size: Type1Memory.blockSize)
        }
    }

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
            units.append(Unit(label: Hex.number(number, width: 2), bytes: try? await readFeliCa(felica, number), size: 16))
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

    /// Type 5: every block GET SYSTEM INFO (or its extended form, when the first has no memory
    /// size) announces, READ SINGLE BLOCK each (EXTENDED READ SINGLE BLOCK past block 255).
    static func type5Blocks(_ vicinity: ISO15693Tag) async throws(NFCTagError) -> [Unit] {
        let info = try await Type5Tag(tag: vicinity).systemMemory()
        guard let count = info.blockCount, let size = info.blockSize else {
            throw NFCTagError(.notSupported, "the tag does not tell its memory size (GET SYSTEM INFO)")
        }
        var units: [Unit] = []
        for block in 0..<count {
            let bytes = block > 0xFF ? try? await vicinity.extendedReadSingleBlock(block).array : try? await vicinity.readSingleBlock(block).array
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
        units.append(Unit(label: Hex.number(cc.ndefFileID, width: 4), bytes: ndef, size: 0))
        return units
    }
}

/// Polls again for the tag, so that a chip a NAK sent to IDLE answers the next command.
private func reselect(_ reader: any NFCReader, _ modulation: Modulation) async {
    _ = try? await reader.poll(for: [modulation], timeout: .milliseconds(500))
}
