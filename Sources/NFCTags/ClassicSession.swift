import NFCCore

/// The commands of one NDEF operation: remembers the authenticated sector (so a sector is
/// authenticated once while it is worked on), the blocks read and the NFC sectors entered.
/// Lives inside one call; never shared.
final class ClassicSession {
    let tag: MiFareTag
    private var authenticated: (sector: Int, keyType: ClassicKeyType, key: [UInt8])?
    private var blocks: [Int: [UInt8]] = [:]
    private(set) var sectorStates: [Int: ClassicNFCSectorState] = [:]

    init(tag: MiFareTag) { self.tag = tag }

    /// Whether every NFC sector entered so far is writable.
    var allEnteredWritable: Bool { sectorStates.values.allSatisfy(\.isWritable) }
    /// The first NFC sector entered that is not writable.
    var firstReadOnlySector: Int? { sectorStates.filter { !$0.value.isWritable }.keys.min() }

    func cached(_ block: Int) -> [UInt8]? { blocks[block] }

    func authenticate(sector: Int, keyType: ClassicKeyType, key: [UInt8]) async throws(NFCTagError) {
        if let current = authenticated, current.sector == sector, current.keyType == keyType, current.key == key { return }
        authenticated = nil
        try await tag.authenticate(sector: sector, keyType: keyType, key: Bytes(key))
        authenticated = (sector, keyType, key)
    }

    func read(_ block: Int, fresh: Bool = false) async throws(NFCTagError) -> [UInt8] {
        if !fresh, let known = blocks[block] { return known }
        do {
            let data = try await tag.readBlock(block)
            blocks[block] = data
            return data
        } catch {
            authenticated = nil
            throw error
        }
    }

    func write(_ block: Int, _ data: [UInt8]) async throws(NFCTagError) {
        do {
            try await tag.writeBlock(block, data)
            blocks[block] = data
        } catch {
            authenticated = nil
            blocks[block] = nil
            throw error
        }
    }

    /// Authenticates an NFC sector with the public key A; the first time, reads its trailer and
    /// checks its GPB (major version 1, read access granted) and access bits.
    func enter(_ sector: Int, _ area: ClassicNDEFArea) async throws(NFCTagError) {
        let trailerBlock = area.layout.trailerBlock(ofSector: sector)
        let address = trailerBlock * ClassicLayout.blockSize
        do {
            try await authenticate(sector: sector, keyType: .a, key: ClassicNDEFTag.nfcSectorKeyA)
        } catch where error.code == .authenticationFailed {
            throw NFCTagError(.notNDEFFormatted, at: address, "NFC sector \(sector) refuses the public NFC key A")
        }
        guard sectorStates[sector] == nil else { return }
        let trailer = try await read(trailerBlock)
        let gpb = ClassicNFCSectorGPB(rawValue: trailer[9])
        guard gpb.majorVersion == 1 else {
            throw NFCTagError(
                .notNDEFFormatted, at: address + 9, "NFC sector \(sector) GPB \(hexByte(gpb.rawValue)): mapping version \(gpb.majorVersion).\(gpb.minorVersion) is not 1.x")
        }
        guard gpb.isReadable else {
            throw NFCTagError(.notNDEFFormatted, at: address + 9, "NFC sector \(sector) GPB \(hexByte(gpb.rawValue)) refuses read access")
        }
        let bits = try ClassicAccessBits(trailerBytes: trailer[6..<9], trailerAddress: address)
        let dataWritable = (0..<3).allSatisfy { ClassicDataBlockAccess.forCondition(bits.condition(ofBlock: $0)).write.allows(.a) }
        sectorStates[sector] = ClassicNFCSectorState(gpb: gpb, accessBits: bits, isWritable: gpb.isWritable && dataWritable)
    }

    /// The 16 bytes of stream block `index` (entering its sector as needed).
    func streamBlock(_ index: Int, _ area: ClassicNDEFArea, fresh: Bool = false) async throws(NFCTagError) -> [UInt8] {
        let block = area.block(ofStreamBlock: index)
        if !fresh, let known = blocks[block] { return known }
        try await enter(area.sector(ofStreamBlock: index), area)
        return try await read(block, fresh: fresh)
    }

    /// Byte `index` of the stream.
    func streamByte(_ index: Int, _ area: ClassicNDEFArea) async throws(NFCTagError) -> UInt8 {
        try await streamBlock(index / ClassicLayout.blockSize, area)[index % ClassicLayout.blockSize]
    }

    /// Writes stream block `index` with the public key A of its sector.
    func writeStreamBlock(_ index: Int, _ data: [UInt8], _ area: ClassicNDEFArea) async throws(NFCTagError) {
        try await enter(area.sector(ofStreamBlock: index), area)
        try await write(area.block(ofStreamBlock: index), data)
    }
}
