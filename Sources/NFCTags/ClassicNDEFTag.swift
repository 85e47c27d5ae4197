public import NDEF
import NFCCore

/// NDEF on MIFARE Classic (NXP AN1304 "NFC Type MIFARE Classic Tag Operation", AN1305, and the
/// MAD of AN10787) over the reader seam.
///
/// The MAD in sector 0 (and 16 for MAD2) names the NFC sectors (AID `E103`); their data blocks,
/// trailers skipped, form one byte stream holding TLVs (NULL `00`, NDEF `03`, Proprietary `FD`,
/// Terminator `FE`). The MAD is read with the public key A `A0…A5`, NFC sectors with the public
/// key A `D3 F7 D3 F7 D3 F7`; the general purpose byte (trailer byte 9) of each NFC sector holds
/// the mapping version and the read/write access (`40` read-write, `43` read-only).
///
/// Writes follow ARCHITECTURE.md: every check before the first WRITE, and the NDEF TLV's
/// length set to 0 first, then the changed blocks, then the real length, so that a card pulled
/// away holds the old message, an empty one or the new one. Each call reads afresh.
public struct ClassicNDEFTag: NFCNDEFTag {
    /// The public key A of NFC sectors (AN1304): `D3 F7 D3 F7 D3 F7`.
    public static let nfcSectorKeyA: [UInt8] = [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7]
    /// The transport (factory) key of both key A and key B: `FF FF FF FF FF FF`.
    public static let transportKey: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    /// The card publisher info byte written in MAD1 by ``format(force:)``: `01`, as the NFC
    /// formatted cards in the field and libfreefare's reference dumps have it.
    public static let formatInfoByte: UInt8 = 0x01

    /// The card, selected.
    public let tag: MiFareTag
    /// Key B of the NFC and MAD sectors: written by ``format(force:)`` into every trailer and
    /// used by ``writeLock()`` (access bits `011` let only key B rewrite a trailer). Default:
    /// the transport key.
    public var keyB: [UInt8]

    /// NDEF on `tag`; `keyB` as ``keyB``.
    public init(tag: MiFareTag, keyB: [UInt8] = ClassicNDEFTag.transportKey) {
        self.tag = tag
        self.keyB = keyB
    }

    // MARK: - NFCNDEFTag

    /// Whether this tag is still in the field: ``MiFareTag/isPresent()`` of its MIFARE tag.
    public func isPresent() async -> Bool { await tag.isPresent() }

    /// The NDEF detection (AN1304): reads the MAD (sector 0 trailer for its GPB, blocks 1–2),
    /// then the first NFC sector's trailer (GPB) and the blocks up to the NDEF TLV's length.
    /// - Returns: `.notSupported` when there is no MAD, no NFC sector, a key is refused or no
    ///   NDEF TLV is found; else `.readWrite`/`.readOnly` (GPB write access and the data blocks'
    ///   access bits of the NFC sectors read), the capacity (bytes of the NFC sectors' data
    ///   blocks from the NDEF TLV on, TLV header taken off) and the stored length.
    /// - Throws: ``NFCTagError`` `malformedTag` (MAD CRC, inconsistent access bits, a TLV
    ///   running past the NFC sectors), `connectionLost`, `tagResponse`.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery {
        let session = ClassicSession(tag: tag)
        let area: ClassicNDEFArea
        do {
            area = try await load(session)
        } catch where error.code == .notNDEFFormatted {
            return NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0)
        }
        return NDEFQuery(
            status: session.allEnteredWritable ? .readWrite : .readOnly, capacity: area.capacity,
            messageLength: area.messageLength)
    }

    /// Reads the NDEF message (AN1304): the TLV stream across the NFC sectors, trailers skipped,
    /// NULL and Proprietary TLVs stepped over. An NDEF TLV of length 0 gives
    /// ``NDEFMessage/empty``.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`, `malformedTag`, `malformedMessage` (offset:
    ///   the card address of the faulty byte), `connectionLost`, `tagResponse`.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage {
        let session = ClassicSession(tag: tag)
        let area = try await load(session)
        guard area.messageLength > 0 else { return .empty }
        let start = area.messageStart
        var bytes: [UInt8] = []
        bytes.reserveCapacity(area.messageLength)
        for index in start..<(start + area.messageLength) { bytes.append(try await session.streamByte(index, area)) }
        do {
            return try NDEFMessage(bytes: bytes)
        } catch {
            let offset = error.offset.map { area.address(ofStreamIndex: start + min($0, area.messageLength - 1)) }
            throw NFCTagError(.malformedMessage, at: offset, "stored NDEF message does not decode: \(error.reason)")
        }
    }

    /// Writes `message` in place of the stored one, where the NDEF TLV is now.
    ///
    /// Checks first — NDEF present, every NFC sector the new TLV touches writable (GPB write
    /// access `00` and data blocks writable with key A), message ≤ capacity — reading the
    /// blocks the new TLV covers; a failed check sends no WRITE. Then: the block holding the
    /// TLV's length byte with length 0, the other blocks whose content changes, that block again
    /// with the real length (a single changed block is written once). A Terminator TLV follows
    /// when room is left. With `verify`, the blocks are read back.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`, `readOnly`, `capacityExceeded` ("by N
    ///   bytes"), `invalidMessage` (nothing written); `connectionLost`, `tagResponse` (the card
    ///   holds the old, an empty or the new message); `verificationFailed`.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) {
        let encoded = try message.encodedForTag()
        let session = ClassicSession(tag: tag)
        let area = try await load(session)
        try await writeTLV(message: encoded, session: session, area: area, verify: verify)
    }

    /// Lays `encoded` out as the NDEF TLV of `area` and writes it in the tear-safe order of
    /// ``writeNDEF(_:verify:)``, after the read-only and capacity checks.
    func writeTLV(message encoded: [UInt8], session: ClassicSession, area: ClassicNDEFArea, verify: Bool) async throws(NFCTagError) {
        if let locked = session.firstReadOnlySector {
            throw readOnlyError(locked)
        }
        try NFCTagError.checkCapacity(encoded.count, fits: area.capacity)
        let tlv = NDEFTLV.wrap(encoded, room: area.streamLength - area.tlvStart)

        // Check: enter every sector the new TLV covers (trailer read, writability) and read
        // its blocks, before any WRITE.
        let firstIndex = area.tlvStart / ClassicLayout.blockSize
        let lastIndex = (area.tlvStart + tlv.count - 1) / ClassicLayout.blockSize
        var old: [Int: [UInt8]] = [:]
        for index in firstIndex...lastIndex {
            let sector = area.sector(ofStreamBlock: index)
            try await session.enter(sector, area)
            if let state = session.sectorStates[sector], !state.isWritable { throw readOnlyError(sector) }
            old[index] = try await session.streamBlock(index, area)
        }
        var final = old
        for (offset, byte) in tlv.enumerated() {
            let index = (area.tlvStart + offset) / ClassicLayout.blockSize
            final[index]?[(area.tlvStart + offset) % ClassicLayout.blockSize] = byte
        }
        let lengthPosition = area.tlvStart + 1
        let lengthIndex = lengthPosition / ClassicLayout.blockSize
        var zeroed = final[lengthIndex] ?? []
        if zeroed.count == ClassicLayout.blockSize { zeroed[lengthPosition % ClassicLayout.blockSize] = 0 }
        let others = (firstIndex...lastIndex).filter { $0 != lengthIndex && final[$0] != old[$0] }
        var current = old[lengthIndex] ?? []
        if others.count == 1, current == final[lengthIndex] {
            try await session.writeStreamBlock(others[0], final[others[0]] ?? [], area)
        } else if !others.isEmpty {
            if current != zeroed {
                try await session.writeStreamBlock(lengthIndex, zeroed, area)
                current = zeroed
            }
            for index in others { try await session.writeStreamBlock(index, final[index] ?? [], area) }
        }
        if let target = final[lengthIndex], current != target {
            try await session.writeStreamBlock(lengthIndex, target, area)
        }

        guard verify else { return }
        for index in firstIndex...lastIndex {
            let read = try await session.streamBlock(index, area, fresh: true)
            guard let expected = final[index] else { continue }
            for position in 0..<ClassicLayout.blockSize where read[position] != expected[position] {
                throw NFCTagError(
                    .verificationFailed, at: area.address(ofStreamIndex: index * ClassicLayout.blockSize + position),
                    "read back \(hexByte(read[position])) where \(hexByte(expected[position])) was written")
            }
        }
    }

    /// Sends nothing and throws nothing: AN1304's read-only state is reachable on every MIFARE Classic card. Whether key B
    /// may rewrite each trailer needs authentication, and is checked by ``writeLock()`` before
    /// its first WRITE.
    public func checkLockable() async throws(NFCTagError) {}

    /// Makes the card permanently read-only (AN1304 read-only state): every NFC sector trailer
    /// becomes `D3F7D3F7D3F7 07 8F 0F GPB|03 keyB` (data blocks `010`: read with A|B, never
    /// written; trailer `110`: nothing writable; GPB write access `11`), the first NFC sector
    /// first (detection reads it: the card reads as read-only from then on), then the others from
    /// the last down, then the MAD sector(s) `A0A1A2A3A4A5 07 8F 0F GPB keyB` (GPB
    /// kept), so that the MAD cannot be redirected. Key B (``keyB``) authenticates the trailer
    /// writes (access bits `011`). Sectors already in that state are left alone, so a lock
    /// interrupted half-way can be run again.
    /// Each trailer is read back right after its write (same authentication).
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`; `authenticationFailed` (key B refused by a
    ///   sector) and `notSupported` (a trailer key B may not rewrite), both found before any
    ///   WRITE; `verificationFailed` (a trailer read back is not read-only); `connectionLost`,
    ///   `tagResponse`.
    public func writeLock() async throws(NFCTagError) {
        let session = ClassicSession(tag: tag)
        let area = try await load(session)
        let layout = tag.classicLayout
        var madSectors = [0]
        if area.directory.version == .mad2 { madSectors.append(16) }
        // Check every trailer with key B first.
        var pending: [(sector: Int, trailer: [UInt8])] = []
        // (The first NFC sector last: it is the first written, so its authentication is reused.)
        for sector in madSectors + area.sectors.dropFirst() + area.sectors.prefix(1) {
            try await session.authenticate(sector: sector, keyType: .b, key: keyB)
            let trailerBlock = layout.trailerBlock(ofSector: sector)
            let trailer = try await session.read(trailerBlock, fresh: true)
            let address = trailerBlock * ClassicLayout.blockSize
            let bits = try ClassicAccessBits(trailerBytes: trailer[6..<9], trailerAddress: address)
            let isMAD = madSectors.contains(sector)
            let gpb = ClassicNFCSectorGPB(rawValue: trailer[9])
            let lockedBits = isMAD ? ClassicAccessBits.madSectorReadOnly : ClassicAccessBits.nfcSectorReadOnly
            if bits == lockedBits && (isMAD || !gpb.isWritable) { continue }
            let access = ClassicTrailerAccess.forCondition(bits.condition(ofBlock: 3))
            guard access.writeKeyA.allows(.b), access.writeAccessBits.allows(.b), access.writeKeyB.allows(.b) else {
                throw NFCTagError(
                    .notSupported, at: address + 6,
                    "the access bits of sector \(sector) do not let key B rewrite its trailer")
            }
            let keyA = isMAD ? MADDirectory.publicKeyA : Self.nfcSectorKeyA
            let newGPB = isMAD ? trailer[9] : gpb.lockingWrites.rawValue
            pending.append((sector, keyA + lockedBits.bytes + [newGPB] + keyB))
        }
        // The first NFC sector first: detection always enters it (the TLV starts there), so from
        // this write on the card reads as read-only, as Type 2's CC3 does, and a lock cut short
        // is never a half-locked card that reads read-write. Then the other NFC sectors from the
        // last down, then the MAD (sector 16, then 0) so the directory cannot be redirected.
        let nfcOrder = area.sectors.prefix(1) + area.sectors.dropFirst().reversed()
        let order = Array(nfcOrder) + madSectors.reversed()
        for sector in order {
            guard let entry = pending.first(where: { $0.sector == sector }) else { continue }
            try await session.authenticate(sector: sector, keyType: .b, key: keyB)
            let trailerBlock = layout.trailerBlock(ofSector: sector)
            try await session.write(trailerBlock, entry.trailer)
            // Read back under the same authentication: the trailer must now hold the read-only
            // access bits (and, in an NFC sector, a GPB that says read-only). The read-only
            // trailer condition (110) leaves the access bits readable with key B.
            let trailer = try await session.read(trailerBlock, fresh: true)
            let address = trailerBlock * ClassicLayout.blockSize
            let bits = try ClassicAccessBits(trailerBytes: trailer[6..<9], trailerAddress: address)
            let isMAD = madSectors.contains(sector)
            let lockedBits = isMAD ? ClassicAccessBits.madSectorReadOnly : ClassicAccessBits.nfcSectorReadOnly
            guard bits == lockedBits else {
                throw NFCTagError(
                    .verificationFailed, at: address + 6,
                    "sector \(sector)'s access bits read back as \(Hex.encode(Array(trailer[6..<9]))), not the read-only \(Hex.encode(lockedBits.bytes))")
            }
            guard isMAD || !ClassicNFCSectorGPB(rawValue: trailer[9]).isWritable else {
                throw NFCTagError(
                    .verificationFailed, at: address + 9, "sector \(sector)'s GPB reads back as \(hexByte(trailer[9])), still writable")
            }
        }
    }

    /// What keeps the card from being physically read-only (``NFCNDEFTag/readOnlyGaps()``),
    /// sector by sector: an NFC sector whose GPB grants write access, whose access bits let a
    /// key write, increment or transfer into a data block, or whose trailer access bits can still
    /// be rewritten (so the sector can be unlocked); a MAD sector whose data blocks or access
    /// bits can still be written (the directory could be redirected). The GPB alone is not a
    /// lock: the card enforces only the access bits. Trailers are decoded as detection and
    /// ``writeLock()`` decode them. Reads only (public key A of each sector).
    /// - Throws: ``NFCTagError`` `malformedTag` (inconsistent access bits), `connectionLost`,
    ///   `tagResponse`.
    public func readOnlyGaps() async throws(NFCTagError) -> [String] {
        let session = ClassicSession(tag: tag)
        let area: ClassicNDEFArea
        do {
            area = try await load(session)
        } catch where error.code == .notNDEFFormatted {
            return ["the card holds no NDEF (\(error.reason))"]
        }
        var gpbWritable: [Int] = [], dataWritable: [Int] = [], trailerWritable: [Int] = []
        for sector in area.sectors {
            try await session.enter(sector, area)
            guard let state = session.sectorStates[sector] else { continue }
            if state.gpb.isWritable { gpbWritable.append(sector) }
            if !state.accessBits.dataBlocksReadOnly { dataWritable.append(sector) }
            if state.accessBits.trailerAccessBitsWritable { trailerWritable.append(sector) }
        }
        var madWritable: [Int] = []
        let layout = tag.classicLayout
        for sector in area.directory.version == .mad2 ? [0, 16] : [0] {
            try await session.authenticate(sector: sector, keyType: .a, key: MADDirectory.publicKeyA)
            let trailerBlock = layout.trailerBlock(ofSector: sector)
            let trailer = try await session.read(trailerBlock, fresh: true)
            let bits = try ClassicAccessBits(trailerBytes: trailer[6..<9], trailerAddress: trailerBlock * ClassicLayout.blockSize)
            if !bits.dataBlocksReadOnly || bits.trailerAccessBitsWritable { madWritable.append(sector) }
        }
        var gaps: [String] = []
        func sectors(_ list: [Int]) -> String { "\(list.count == 1 ? "sector" : "sectors") \(Type2Tag.ranges(list))" }
        if !gpbWritable.isEmpty { gaps.append("NFC \(sectors(gpbWritable)): the GPB grants write access") }
        if !dataWritable.isEmpty { gaps.append("NFC \(sectors(dataWritable)): the access bits let a key write the data blocks") }
        if !trailerWritable.isEmpty { gaps.append("NFC \(sectors(trailerWritable)): the trailer's access bits can still be rewritten") }
        if !madWritable.isEmpty { gaps.append("MAD \(sectors(madWritable)): the directory or its access bits can still be written") }
        return gaps
    }

    /// Formats a card in transport configuration for NDEF (AN1304/AN1305): the MAD (MAD1 in
    /// sector 0; on a 4K, MAD2 in sector 16 too) listing every other sector as an NFC sector,
    /// CRCs computed; MAD sector trailers `A0A1A2A3A4A5 78 77 88 GPB keyB` (GPB `C1` for MAD1,
    /// `C2` for MAD2); every NFC sector's trailer `D3F7D3F7D3F7 7F 07 88 40 keyB`; and the empty
    /// NDEF TLV `03 00 FE` at the start of sector 1.
    ///
    /// Checks first, sector by sector: the transport key A (or, for a sector formatted before,
    /// the transport key B) authenticates and may rewrite the trailer and the blocks written;
    /// without `force` every data block is read and any non-zero byte refuses the card
    /// (`alreadyFormatted`). Writes go from the last sector down to sector 0, whose trailer (MAD
    /// key A and GPB) is written last: until then the card is not NDEF, after it is NDEF and
    /// empty. Other data blocks are left as they are.
    ///
    /// A card that is already NDEF formatted is left alone when its message is empty, and only
    /// emptied (TLV length 0, as ``writeNDEF(_:verify:)`` would write it) when forced.
    /// - Throws: ``NFCTagError`` `notSupported` (access bits that forbid the rewrite),
    ///   `authenticationFailed` (a sector refuses both transport keys), `alreadyFormatted`
    ///   (offset of the first non-zero byte), all before any WRITE; `connectionLost`,
    ///   `tagResponse`.
    public func format(force: Bool) async throws(NFCTagError) {
        // Already NDEF: nothing to do when empty; emptied (TLV length 0) only when forced.
        let probe = ClassicSession(tag: tag)
        do throws(NFCTagError) {
            let area = try await load(probe)
            guard area.messageLength > 0 else { return }
            guard force else {
                throw NFCTagError(
                    .alreadyFormatted, at: area.address(ofStreamIndex: area.tlvStart),
                    "the card holds an NDEF message of \(area.messageLength) bytes; force to erase it")
            }
            try await writeTLV(message: [], session: probe, area: area, verify: true)
            return
        } catch where error.code == .notNDEFFormatted || error.code == .malformedTag || error.code == .malformedMessage {
            // Not (well) formatted: the full format below, which refuses data unless forced.
        }
        let layout = tag.classicLayout
        let session = ClassicSession(tag: tag)
        let version: MADDirectory.Version = layout == .classic4K ? .mad2 : .mad1
        let madSectors = version == .mad2 ? [0, 16] : [0]
        let applications = (0..<(version == .mad2 ? 40 : 16)).map { sector -> MADApplicationIdentifier in
            madSectors.contains(sector) ? .reserved : sector < layout.sectorCount ? .ndef : .notApplicable
        }
        let directory = MADDirectory(version: version, infoByte: Self.formatInfoByte, applications: applications)
        let mad1 = directory.sector0Bytes
        let mad2 = directory.sector16Bytes ?? []
        let firstNDEFBlock = layout.firstBlock(ofSector: 1)
        var contents: [Int: [UInt8]] = [
            1: Array(mad1[0..<16]), 2: Array(mad1[16..<32]),
            firstNDEFBlock: [ClassicTLV.ndefMessage, 0x00, ClassicTLV.terminator] + [UInt8](repeating: 0, count: 13),
        ]
        if version == .mad2 {
            for i in 0..<3 { contents[64 + i] = Array(mad2[(16 * i)..<(16 * i + 16)]) }
        }
        var keys: [Int: ClassicKeyType] = [:]
        for sector in 0..<layout.sectorCount {
            let keyType = try await chooseTransportKey(session, sector: sector)
            keys[sector] = keyType
            let trailerBlock = layout.trailerBlock(ofSector: sector)
            let trailer = try await session.read(trailerBlock, fresh: true)
            let address = trailerBlock * ClassicLayout.blockSize
            let bits = try ClassicAccessBits(trailerBytes: trailer[6..<9], trailerAddress: address)
            let access = ClassicTrailerAccess.forCondition(bits.condition(ofBlock: 3))
            guard access.writeKeyA.allows(keyType), access.writeAccessBits.allows(keyType), access.writeKeyB.allows(keyType)
            else {
                throw NFCTagError(
                    .notSupported, at: address + 6, "the access bits of sector \(sector) do not let the transport key rewrite its trailer")
            }
            let written = layout.dataBlocks(ofSector: sector).filter { contents[$0] != nil }
            for block in written {
                let condition = bits.condition(ofBlock: layout.accessGroup(ofBlock: block))
                guard ClassicDataBlockAccess.forCondition(condition).write.allows(keyType) else {
                    throw NFCTagError(
                        .notSupported, at: block * ClassicLayout.blockSize, "the access bits of block \(block) forbid writing it")
                }
            }
            let checked = force ? written : Array(layout.dataBlocks(ofSector: sector).filter { $0 != 0 })
            for block in checked {
                let data = try await session.read(block)
                if !force, let position = data.firstIndex(where: { $0 != 0 }) {
                    throw NFCTagError(
                        .alreadyFormatted, at: block * ClassicLayout.blockSize + position,
                        "block \(block) holds data; format(force: true) overwrites it")
                }
            }
        }
        for sector in (0..<layout.sectorCount).reversed() {
            try await session.authenticate(sector: sector, keyType: keys[sector] ?? .a, key: Self.transportKey)
            for block in layout.dataBlocks(ofSector: sector) {
                guard let data = contents[block], session.cached(block) != data else { continue }
                try await session.write(block, data)
            }
            let trailer =
                madSectors.contains(sector)
                ? MADDirectory.publicKeyA + ClassicAccessBits.madSectorReadWrite.bytes + [directory.generalPurposeByte] + keyB
                : Self.nfcSectorKeyA + ClassicAccessBits.nfcSectorReadWrite.bytes + [ClassicNFCSectorGPB.readWrite.rawValue] + keyB
            try await session.write(layout.trailerBlock(ofSector: sector), trailer)
        }
    }

    // MARK: - Private

    private func readOnlyError(_ sector: Int) -> NFCTagError {
        let address = tag.classicLayout.trailerBlock(ofSector: sector) * ClassicLayout.blockSize + 9
        return NFCTagError(.readOnly, at: address, "NFC sector \(sector) is read-only (GPB write access or access bits)")
    }

    /// Key A `FF…FF`, else (a sector formatted before) key B `FF…FF`.
    private func chooseTransportKey(_ session: ClassicSession, sector: Int) async throws(NFCTagError) -> ClassicKeyType {
        do {
            try await session.authenticate(sector: sector, keyType: .a, key: Self.transportKey)
            return .a
        } catch where error.code == .authenticationFailed {}
        do {
            try await session.authenticate(sector: sector, keyType: .b, key: Self.transportKey)
            return .b
        } catch where error.code == .authenticationFailed {
            throw NFCTagError(
                .authenticationFailed, at: error.offset,
                "sector \(sector) accepts neither transport key A nor B: the card cannot be formatted")
        }
    }

    /// The MAD, the NFC sectors and the NDEF TLV's place.
    func load(_ session: ClassicSession) async throws(NFCTagError) -> ClassicNDEFArea {
        let layout = tag.classicLayout
        do {
            try await session.authenticate(sector: 0, keyType: .a, key: MADDirectory.publicKeyA)
        } catch where error.code == .authenticationFailed {
            throw NFCTagError(.notNDEFFormatted, at: error.offset, "sector 0 refuses the public MAD key A: no MAD")
        }
        let trailerAddress = layout.trailerBlock(ofSector: 0) * ClassicLayout.blockSize
        let trailer = try await session.read(layout.trailerBlock(ofSector: 0))
        guard let version = MADDirectory.version(generalPurposeByte: trailer[9]) else {
            throw NFCTagError(
                .notNDEFFormatted, at: trailerAddress + 9, "sector 0 GPB \(hexByte(trailer[9])) announces no MAD")
        }
        guard version == .mad1 || layout == .classic4K else {
            throw NFCTagError(.malformedTag, at: trailerAddress + 9, "MAD2 announced on a card without sector 16")
        }
        let mad1 = try await session.read(1) + session.read(2)
        var mad2: [UInt8]?
        if version == .mad2 {
            do {
                try await session.authenticate(sector: 16, keyType: .a, key: MADDirectory.publicKeyA)
            } catch where error.code == .authenticationFailed {
                throw NFCTagError(.malformedTag, at: error.offset, "sector 16 refuses the public MAD key A")
            }
            mad2 = try await session.read(64) + session.read(65) + session.read(66)
        }
        let directory = try MADDirectory(sector0: mad1, sector16: mad2)
        let sectors = directory.ndefSectors.filter { $0 < layout.sectorCount }
        guard !sectors.isEmpty else {
            throw NFCTagError(.notNDEFFormatted, at: MADDirectory.mad1Address, "the MAD lists no NFC sector")
        }
        var area = ClassicNDEFArea(
            layout: layout, directory: directory, sectors: sectors,
            dataBlocks: sectors.flatMap { Array(layout.dataBlocks(ofSector: $0)) })
        // The TLVs up to the NDEF TLV.
        var index = 0
        let total = area.streamLength
        while true {
            guard index < total else {
                throw NFCTagError(.notNDEFFormatted, at: area.address(ofStreamIndex: total - 1), "no NDEF TLV in the NFC sectors")
            }
            let type = try await session.streamByte(index, area)
            if type == ClassicTLV.null {
                index += 1
                continue
            }
            if type == ClassicTLV.terminator {
                throw NFCTagError(.notNDEFFormatted, at: area.address(ofStreamIndex: index), "Terminator TLV before any NDEF TLV")
            }
            guard index + 1 < total else { throw truncated(area, index) }
            var length = Int(try await session.streamByte(index + 1, area))
            var lengthSize = 1
            if length == Int(ClassicTLV.threeByteLengthMarker) {
                guard index + 3 < total else { throw truncated(area, index) }
                length = Int(try await session.streamByte(index + 2, area)) << 8 | Int(try await session.streamByte(index + 3, area))
                lengthSize = 3
                guard length != 0xFFFF else {
                    throw NFCTagError(.malformedTag, at: area.address(ofStreamIndex: index + 1), "TLV length FF FF FF is reserved")
                }
            }
            guard index + 1 + lengthSize + length <= total else { throw truncated(area, index) }
            if type == ClassicTLV.ndefMessage {
                area.tlvStart = index
                area.lengthFieldSize = lengthSize
                area.messageLength = length
                return area
            }
            index += 1 + lengthSize + length
        }
    }

    private func truncated(_ area: ClassicNDEFArea, _ index: Int) -> NFCTagError {
        NFCTagError(.malformedTag, at: area.address(ofStreamIndex: index), "TLV runs past the end of the NFC sectors")
    }
}
