import NFCCore

/// TLV types of the NFC sectors' data (AN1304, "TLV blocks", as Type 2 Tag 1.2 2.3).
public enum ClassicTLV {
    /// NULL TLV (`00`): one byte, skipped.
    public static let null: UInt8 = 0x00
    /// NDEF Message TLV (`03`).
    public static let ndefMessage: UInt8 = 0x03
    /// Proprietary TLV (`FD`).
    public static let proprietary: UInt8 = 0xFD
    /// Terminator TLV (`FE`).
    public static let terminator: UInt8 = 0xFE
    /// First byte of the 3-byte length form (`FF`, then two bytes big-endian).
    public static let threeByteLengthMarker: UInt8 = 0xFF
}

/// The NDEF area as found by the detection: MAD, NFC sectors, data blocks in stream order, and
/// the NDEF TLV's place in the stream.
struct ClassicNDEFArea {
    var layout: ClassicLayout
    var directory: MADDirectory
    var sectors: [Int]
    /// Data blocks of the NFC sectors, in stream order.
    var dataBlocks: [Int]
    var tlvStart = 0
    var lengthFieldSize = 1
    var messageLength = 0

    var streamLength: Int { dataBlocks.count * ClassicLayout.blockSize }
    var messageStart: Int { tlvStart + 1 + lengthFieldSize }
    /// See ``Type2TLVArea/capacity(usableBytes:)``: the same TLV length rules.
    var capacity: Int { Type2TLVArea.capacity(usableBytes: streamLength - tlvStart) }

    func block(ofStreamBlock index: Int) -> Int { dataBlocks[index] }
    func sector(ofStreamBlock index: Int) -> Int { layout.sector(ofBlock: dataBlocks[index]) }
    func address(ofStreamIndex index: Int) -> Int {
        guard !dataBlocks.isEmpty else { return 0 }
        let clamped = max(0, min(index, streamLength - 1))
        return dataBlocks[clamped / ClassicLayout.blockSize] * ClassicLayout.blockSize + clamped % ClassicLayout.blockSize
    }
}

/// What a trailer read says about an NFC sector.
struct ClassicNFCSectorState {
    var gpb: ClassicNFCSectorGPB
    var accessBits: ClassicAccessBits
    /// GPB grants writing and key A may write every data block.
    var isWritable: Bool
}
