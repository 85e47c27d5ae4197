import NFCCore
public import NFCTags
public import VirtualTags

/// Small stand-in chip models the emulator can host on its own (`--tag ntag215`, …), enough for
/// libnfc's tools; the full models with tag files and fault injection live in `VirtualTags`.
public enum BuiltInTagModel: String, Sendable, CaseIterable {
    /// An NTAG215 (NXP NTAG213/215/216 data sheet): 135 pages, GET_VERSION, READ, FAST_READ,
    /// WRITE, COMPATIBILITY_WRITE, READ_SIG; NDEF formatted (CC `E1 10 3E 00`).
    case ntag215
    /// A MIFARE Classic 1K (NXP MF1S50yyX): 16 sectors, transport keys `FF…FF`, Crypto-1
    /// authentication left to the reader's firmware.
    case classic1k
    /// An NFC Forum Type 4 tag (ISO-DEP, NFC Forum T4T 2.0): NDEF application, CC and NDEF files.
    case type4
    /// A FeliCa Lite-S (JIS X 6319-4, system code 12FC): polling, Read/Write Without Encryption.
    case felicaLiteS = "felica-lite-s"

    /// Creates the model; `index` varies the UID so a stack of tags has distinct UIDs.
    public func make(index: Int = 0) -> any VirtualTag {
        let serial = UInt8(truncatingIfNeeded: index)
        switch self {
        case .ntag215: return MinimalNTAG215(uid: [0x04, 0x5A, 0x8C, 0x21, 0x6B, 0x3E, 0x80 &+ serial])
        case .classic1k: return MinimalClassic1K(uid: [0xDE, 0xAD, 0xBE, 0xE0 &+ serial])
        case .type4: return MinimalType4Tag(uid: [0x04, 0x71, 0x22, 0x33, 0x44, 0x55, 0x60 &+ serial])
        case .felicaLiteS: return MinimalFeliCaLiteS(idm: [0x01, 0x2E, 0x4C, 0x18, 0x22, 0x33, 0x44, 0x50 &+ serial])
        }
    }
}

/// A minimal NTAG215: memory per the data sheet's memory map (§8.5), commands per §10.
public final class MinimalNTAG215: VirtualTag {
    /// `NTAG215`.
    public let modelName = "NTAG215"
    /// UID, ATQA `44 00`, SAK `00`.
    public let targetInfo: TargetInfo
    /// The 135 pages of 4 bytes.
    public private(set) var pages: [[UInt8]]
    private var compatibilityWritePage: Int?

    /// A tag with a 7-byte `uid`, NDEF formatted and empty.
    public init(uid: [UInt8]) {
        targetInfo = .iso14443A(ISO14443ATarget(uid: Bytes(uid), atqa: [0x44, 0x00], sak: 0x00))
        pages = Array(repeating: [0, 0, 0, 0], count: 135)
        let bcc0 = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        let bcc1 = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        pages[0] = [uid[0], uid[1], uid[2], bcc0]
        pages[1] = [uid[3], uid[4], uid[5], uid[6]]
        pages[2] = [bcc1, 0x48, 0x00, 0x00]
        pages[3] = [0xE1, 0x10, 0x3E, 0x00]
        pages[4] = [0x03, 0x00, 0xFE, 0x00]
        pages[130] = [0x00, 0x00, 0x00, 0xBD]
        pages[131] = [0x04, 0x00, 0x00, 0xFF]
        pages[133] = [0xFF, 0xFF, 0xFF, 0xFF]
    }

    /// Clears the pending COMPATIBILITY_WRITE.
    public func powerOn() { compatibilityWritePage = nil }
    /// Clears the pending COMPATIBILITY_WRITE.
    public func halt() { compatibilityWritePage = nil }

    /// Answers READ 30, FAST_READ 3A, WRITE A2, COMPATIBILITY_WRITE A0, GET_VERSION 60,
    /// READ_SIG 3C; anything else is ignored (the tag goes idle).
    public func respond(to frame: [UInt8]) -> TagAnswer {
        if let page = compatibilityWritePage {
            compatibilityWritePage = nil
            guard frame.count == 16 else { return .nak(0x0) }
            return write(page, Array(frame[0..<4]))
        }
        guard let command = frame.first else { return .silence }
        switch (command, frame.count) {
        case (0x60, 1): return .data([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
        case (0x30, 2):
            let start = Int(frame[1])
            guard start < pages.count else { return .nak(0x0) }
            return .data((0..<4).flatMap { pages[(start + $0) % pages.count] })
        case (0x3A, 3):
            let start = Int(frame[1]), end = Int(frame[2])
            guard start <= end, end < pages.count else { return .nak(0x0) }
            return .data((start...end).flatMap { pages[$0] })
        case (0xA2, 6): return write(Int(frame[1]), Array(frame[2..<6]))
        case (0xA0, 2):
            guard Int(frame[1]) < pages.count else { return .nak(0x0) }
            compatibilityWritePage = Int(frame[1])
            return .ack
        case (0x3C, 2): return .data(Array(repeating: 0x00, count: 32))
        default: return .silence
        }
    }

    private func write(_ page: Int, _ data: [UInt8]) -> TagAnswer {
        guard page >= 2, page < pages.count else { return .nak(0x0) }
        if page == 2 {
            pages[2][2] |= data[2]
            pages[2][3] |= data[3]
        } else if page == 3 {
            pages[3] = zip(pages[3], data).map { $0 | $1 }
        } else {
            pages[page] = data
        }
        return .ack
    }
}

/// A minimal MIFARE Classic 1K: 64 blocks, keys in the sector trailers, access bits not enforced.
public final class MinimalClassic1K: ClassicVirtualTag {
    /// `MIFARE Classic 1K`.
    public let modelName = "MIFARE Classic 1K"
    /// UID, ATQA `04 00`, SAK `08`.
    public let targetInfo: TargetInfo
    /// The 64 blocks of 16 bytes.
    public private(set) var blocks: [[UInt8]]
    private var authenticatedSector: Int?
    private var pendingWriteBlock: Int?

    /// A tag with a 4-byte `uid` in transport configuration (keys `FF…FF`, access `FF 07 80 69`).
    public init(uid: [UInt8]) {
        targetInfo = .iso14443A(ISO14443ATarget(uid: Bytes(uid), atqa: [0x04, 0x00], sak: 0x08))
        blocks = Array(repeating: Array(repeating: 0, count: 16), count: 64)
        blocks[0] = uid + [uid.reduce(0, ^), 0x08, 0x04, 0x00] + [0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69]
        for sector in 0..<16 {
            blocks[sector * 4 + 3] = Array(repeating: 0xFF, count: 6) + [0xFF, 0x07, 0x80, 0x69] + Array(repeating: 0xFF, count: 6)
        }
    }

    /// Forgets the authentication.
    public func powerOn() { authenticatedSector = nil; pendingWriteBlock = nil }
    /// Forgets the authentication.
    public func halt() { authenticatedSector = nil; pendingWriteBlock = nil }

    /// Checks `key` against the sector trailer of `block`'s sector.
    public func authenticate(block: UInt8, keyType: ClassicKeyType, key: [UInt8]) -> Bool {
        guard block < 64, key.count == 6 else { return false }
        let trailer = blocks[Int(block) / 4 * 4 + 3]
        let stored = keyType == .a ? Array(trailer[0..<6]) : Array(trailer[10..<16])
        guard stored == key else { authenticatedSector = nil; return false }
        authenticatedSector = Int(block) / 4
        return true
    }

    /// READ 30 and two-step WRITE A0 in the authenticated sector; key A reads back as zeros.
    public func respond(to frame: [UInt8]) -> TagAnswer {
        if let block = pendingWriteBlock {
            pendingWriteBlock = nil
            guard frame.count == 16 else { return .nak(0x0) }
            blocks[block] = frame
            return .ack
        }
        guard frame.count == 2, let sector = authenticatedSector, Int(frame[1]) < 64, Int(frame[1]) / 4 == sector else {
            return .nak(0x4)
        }
        let block = Int(frame[1])
        switch frame[0] {
        case 0x30:
            var data = blocks[block]
            if block % 4 == 3 { data.replaceSubrange(0..<6, with: Array(repeating: 0, count: 6)) }
            return .data(data)
        case 0xA0:
            guard block != 0 else { return .nak(0x0) }
            pendingWriteBlock = block
            return .ack
        default: return .nak(0x0)
        }
    }
}

/// A minimal NFC Forum Type 4 tag: SELECT by name/ID, READ BINARY, UPDATE BINARY (T4T 2.0 §5).
public final class MinimalType4Tag: ISODEPVirtualTag {
    /// `Type 4 Tag`.
    public let modelName = "Type 4 Tag"
    /// UID, ATQA `44 03`, SAK `20`, the ATS.
    public let targetInfo: TargetInfo
    /// TL T0 TA TB TC and one historical byte.
    public let ats: [UInt8] = [0x06, 0x75, 0x77, 0x81, 0x02, 0x80]
    private var files: [UInt16: [UInt8]]
    private var selected: UInt16?
    private var applicationSelected = false

    /// A tag with a 7-byte `uid`, an empty NDEF file of 2 KiB.
    public init(uid: [UInt8]) {
        targetInfo = .iso14443A(ISO14443ATarget(uid: Bytes(uid), atqa: [0x44, 0x03], sak: 0x20, ats: [0x06, 0x75, 0x77, 0x81, 0x02, 0x80]))
        files = [
            0xE103: [0x00, 0x0F, 0x20, 0x00, 0xFF, 0x00, 0xFF, 0x04, 0x06, 0xE1, 0x04, 0x08, 0x00, 0x00, 0x00],
            0xE104: [0x00, 0x00] + Array(repeating: 0, count: 2046),
        ]
    }

    /// Resets the selection.
    public func powerOn() { selected = nil; applicationSelected = false }
    /// Resets the selection.
    public func halt() { powerOn() }
    /// Raw frames are not understood outside ISO-DEP.
    public func respond(to frame: [UInt8]) -> TagAnswer { .silence }

    /// SELECT (A4), READ BINARY (B0), UPDATE BINARY (D6).
    public func respond(toAPDU apdu: [UInt8]) -> [UInt8] {
        guard apdu.count >= 4 else { return [0x67, 0x00] }
        let p1p2 = UInt16(apdu[2]) << 8 | UInt16(apdu[3])
        let body = apdu.count > 5 ? Array(apdu[5..<min(apdu.count, 5 + Int(apdu[4]))]) : []
        switch apdu[1] {
        case 0xA4 where apdu[2] == 0x04:
            guard body == [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01] else { return [0x6A, 0x82] }
            applicationSelected = true
            selected = nil
            return [0x90, 0x00]
        case 0xA4 where apdu[2] == 0x00:
            guard applicationSelected, body.count == 2 else { return [0x6A, 0x82] }
            let id = UInt16(body[0]) << 8 | UInt16(body[1])
            guard files[id] != nil else { return [0x6A, 0x82] }
            selected = id
            return [0x90, 0x00]
        case 0xB0:
            guard let id = selected, let file = files[id], apdu.count == 5 else { return [0x69, 0x86] }
            let offset = Int(p1p2), length = apdu[4] == 0 ? 256 : Int(apdu[4])
            guard offset <= file.count else { return [0x6B, 0x00] }
            return Array(file[offset..<min(file.count, offset + length)]) + [0x90, 0x00]
        case 0xD6:
            guard let id = selected, id != 0xE103, var file = files[id] else { return [0x69, 0x86] }
            let offset = Int(p1p2)
            guard offset + body.count <= file.count else { return [0x6B, 0x00] }
            file.replaceSubrange(offset..<offset + body.count, with: body)
            files[id] = file
            return [0x90, 0x00]
        default: return [0x6D, 0x00]
        }
    }
}

/// A minimal FeliCa Lite-S: 14 user blocks and the attribute information block, NDEF enabled
/// (system code 12FC), commands Polling 00, Read Without Encryption 06, Write Without
/// Encryption 08 (FeliCa Lite-S user's manual §4).
public final class MinimalFeliCaLiteS: VirtualTag {
    /// `FeliCa Lite-S`.
    public let modelName = "FeliCa Lite-S"
    /// IDm, PMm, system code 12FC, 212 kbit/s.
    public let targetInfo: TargetInfo
    private let idm: [UInt8]
    private let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
    /// Blocks 0–13: block 0 the attribute information block, then NDEF data.
    public private(set) var blocks: [[UInt8]]

    /// A tag with an 8-byte `idm`, NDEF formatted and empty (NFC Forum T3T 1.0 §7.1).
    public init(idm: [UInt8]) {
        self.idm = idm
        targetInfo = .felica(FeliCaTarget(idm: Bytes(idm), pmm: Bytes(pmm), systemCode: 0x12FC, bitRate: 212))
        blocks = Array(repeating: Array(repeating: 0, count: 16), count: 14)
        var aib: [UInt8] = [0x10, 0x04, 0x01, 0x00, 0x0D, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00]
        let sum = aib.reduce(0) { $0 + UInt16($1) }
        aib += [UInt8(sum >> 8), UInt8(sum & 0xFF)]
        blocks[0] = aib
    }

    /// Nothing volatile.
    public func powerOn() {}
    /// Nothing volatile.
    public func halt() {}

    /// Polling, Read Without Encryption, Write Without Encryption (frames without length).
    public func respond(to frame: [UInt8]) -> TagAnswer {
        guard let command = frame.first else { return .silence }
        switch command {
        case 0x00:
            guard frame.count == 5 else { return .silence }
            let sc = (frame[1], frame[2])
            guard (sc.0 == 0xFF || sc.0 == 0x12), (sc.1 == 0xFF || sc.1 == 0xFC) else { return .silence }
            return .data([0x01] + idm + pmm + (frame[3] == 0x01 ? [0x12, 0xFC] : []))
        case 0x06, 0x08:
            guard frame.count >= 14, Array(frame[1..<9]) == idm else { return .silence }
            let services = Int(frame[9])
            var index = 10 + 2 * services
            guard index < frame.count else { return .silence }
            let count = Int(frame[index]); index += 1
            var numbers: [Int] = []
            for _ in 0..<count {
                guard index + 1 < frame.count else { return .silence }
                if frame[index] & 0x80 != 0 { numbers.append(Int(frame[index + 1])); index += 2 }
                else { guard index + 2 < frame.count else { return .silence }; numbers.append(Int(frame[index + 1])); index += 3 }
            }
            guard numbers.allSatisfy({ $0 < blocks.count }) else {
                return .data([command + 1] + idm + [0xFF, 0xA8])
            }
            if command == 0x06 {
                return .data([0x07] + idm + [0x00, 0x00, UInt8(count)] + numbers.flatMap { blocks[$0] })
            }
            guard frame.count == index + 16 * count else { return .data([0x09] + idm + [0xFF, 0xA1]) }
            for (k, n) in numbers.enumerated() { blocks[n] = Array(frame[(index + 16 * k)..<(index + 16 * k + 16)]) }
            return .data([0x09] + idm + [0x00, 0x00])
        default: return .silence
        }
    }
}
