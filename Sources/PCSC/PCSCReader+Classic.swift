public import NFCCore
import CPCSCLite
public import NFCTags

// MIFARE Classic through PC/SC Part 3: LOAD KEYS, GENERAL AUTHENTICATE, blocks by READ/UPDATE BINARY.

extension PCSCReader {
    /// MIFARE Classic authentication through PC/SC Part 3: LOAD KEYS (`FF 82 00 00 06 key`,
    /// volatile slot 0, skipped when the slot already holds the key) and GENERAL AUTHENTICATE
    /// (`FF 86 00 00 05 01 00 block keyType 00`). Later READ and WRITE of the sector's blocks go
    /// as READ BINARY / UPDATE BINARY of 16 bytes.
    /// - Throws: `authenticationFailed` when the card refuses the key (`63 00`), `notSupported`
    ///   when the profile has no Classic authentication or the card is no Classic, reader errors.
    public func authenticateClassic(block: UInt8, keyType: ClassicKeyType, key: Bytes, uid: Bytes) async throws(NFCReaderDeviceError) {
        _ = try openContext()
        guard card != nil, let info = selectedInfo else { throw NFCReaderDeviceError(.tagLost, "no tag is selected: poll first") }
        guard Self.kind(of: info) == .mifareClassic, profile.path(for: .classicAuthentication, on: .mifareClassic) != nil else {
            throw NFCReaderDeviceError(
                .notSupported, "the PC/SC reader \(name) (\(profile.title) profile) cannot authenticate a MIFARE Classic sector of this card (nothing was sent)")
        }
        guard key.count == PCSCPart3.classicKeyLength else { throw NFCReaderDeviceError(.invalidArgument, "a MIFARE key is 6 bytes, not \(key.count)") }
        let slot = PCSCPart3.keySlots.lowerBound
        if loadedKey != key {
            loadedKey = nil
            let (_, sw) = try transmit([PCSCPart3.pseudoClass, PCSCPart3.loadKeys, PCSCPart3.volatileCardKey, slot, UInt8(key.count)] + key.array)
            guard sw == PCSCPart3.StatusWord.success else { throw Self.statusError(sw, "LOAD KEYS (FF 82)", reader: name) }
            loadedKey = key
        }
        let (_, sw) = try transmit([
            PCSCPart3.pseudoClass, PCSCPart3.generalAuthenticate, 0x00, 0x00, 0x05,
            PCSCPart3.generalAuthenticateVersion, 0x00, block, keyType.rawValue, slot,
        ])
        switch sw {
        case PCSCPart3.StatusWord.success: return
        case PCSCPart3.StatusWord.noInformation, PCSCPart3.StatusWord.securityNotSatisfied:
            throw NFCReaderDeviceError(.authenticationFailed, "the card refused key \(keyType == .a ? "A" : "B") for block \(block) (GENERAL AUTHENTICATE answered \(PCSCPart3.StatusWord.describe(sw)))")
        default:
            throw Self.statusError(sw, "GENERAL AUTHENTICATE (FF 86) of block \(block)", reader: name)
        }
    }

    /// MIFARE Classic READ and WRITE as READ BINARY / UPDATE BINARY of one 16-byte block.
    func classic(_ frame: [UInt8]) throws(NFCReaderDeviceError) -> Bytes {
        switch (frame.first, frame.count) {
        case (ClassicCommand.read, 2):
            return Bytes(try readBinary(address: Int(frame[1]), length: PCSCPart3.classicBlockLength, what: "READ block \(frame[1])"))
        case (ClassicCommand.write, 2 + PCSCPart3.classicBlockLength):
            try updateBinary(address: Int(frame[1]), Array(frame[2...]), what: "WRITE block \(frame[1])")
            return Bytes()
        default:
            throw notCarried(frame, .mifareClassic)
        }
    }

    /// Whether a Classic frame is one READ BINARY / UPDATE BINARY map.
    static func classicCarries(_ frame: [UInt8]) -> Bool {
        switch (frame.first, frame.count) {
        case (ClassicCommand.read, 2), (ClassicCommand.write, 2 + PCSCPart3.classicBlockLength): true
        default: false
        }
    }
}
