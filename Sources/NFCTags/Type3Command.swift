import NFCCore

/// FeliCa command codes used by ``FeliCaTag`` (JIS X 6319-4, 11.2; FeliCa Card User's Manual,
/// "Command"; FeliCa Lite-S User's Manual, "Commands"). The response code is the command code
/// plus one. Frames on the reader seam start with this code: the reader adds and strips the
/// length byte and the CRC.
public enum Type3Command {
    /// Polling `00` (answer `01`): system code, request code, time slot number.
    public static let polling: UInt8 = 0x00
    /// Request Service `02` (answer `03`): key versions of areas and services.
    public static let requestService: UInt8 = 0x02
    /// Request Response `04` (answer `05`): the card's current mode.
    public static let requestResponse: UInt8 = 0x04
    /// Read Without Encryption `06` (answer `07`): blocks of services without authentication.
    public static let readWithoutEncryption: UInt8 = 0x06
    /// Write Without Encryption `08` (answer `09`).
    public static let writeWithoutEncryption: UInt8 = 0x08
    /// Request System Code `0C` (answer `0D`): the systems of the card.
    public static let requestSystemCode: UInt8 = 0x0C
    /// Bytes in a block.
    public static let blockSize = 16
    /// Bytes in an IDm (manufacture ID) and in a PMm (manufacture parameter).
    public static let idmLength = 8
    /// The most bytes a FeliCa frame carries after its length byte (the length byte counts
    /// itself, 1…255).
    public static let maximumFrameLength = 254
}

/// NFC Forum Type 3 Tag service codes (T3T 1.0, "NDEF Services"), sent little-endian.
public enum Type3ServiceCode {
    /// `000B`: NDEF read service (read without encryption, random service 0).
    public static let ndefRead: UInt16 = 0x000B
    /// `0009`: NDEF write service (read/write without encryption, random service 0).
    public static let ndefWrite: UInt16 = 0x0009
}

/// FeliCa system codes that matter to NDEF (T3T 1.0; FeliCa Lite-S User's Manual).
public enum Type3SystemCode {
    /// `12FC`: NFC Forum Type 3 Tag (NDEF).
    public static let ndef: UInt16 = 0x12FC
    /// `88B4`: FeliCa Lite and Lite-S.
    public static let feliCaLite: UInt16 = 0x88B4
    /// `FFFF`: any system (wildcard in Polling).
    public static let wildcard: UInt16 = 0xFFFF
}

/// What a Polling command asks the card to add to its answer (JIS X 6319-4, 11.2.2.5):
/// CoreNFC's `PollingRequestCode`.
public enum FeliCaPollingRequestCode: UInt8, Sendable, Hashable, CaseIterable {
    /// `00`: nothing.
    case noRequest = 0x00
    /// `01`: the system code (2 bytes).
    case systemCode = 0x01
    /// `02`: communication performance (2 bytes).
    case communicationPerformance = 0x02
}

/// How many time slots a Polling command opens (JIS X 6319-4, 11.2.2.5): CoreNFC's
/// `PollingTimeSlot`. The raw value is the time slot number sent (slots − 1).
public enum FeliCaPollingTimeSlot: UInt8, Sendable, Hashable, CaseIterable {
    /// One slot.
    case max1 = 0x00
    /// Two slots.
    case max2 = 0x01
    /// Four slots.
    case max4 = 0x03
    /// Eight slots.
    case max8 = 0x07
    /// Sixteen slots.
    case max16 = 0x0F
}

/// One element of a block list (JIS X 6319-4, 11.1.3; FeliCa Lite-S User's Manual, "Block
/// List"): which service of the service code list, the access mode, and the block number.
///
/// Byte D0: bit 7 = 1 for a 2-byte element (block number ≤ `FF` in D1), 0 for a 3-byte element
/// (block number in D1 D2, little-endian); bits 6–4 access mode; bits 3–0 the index in the
/// service code list.
public struct FeliCaBlockListElement: Sendable, Hashable, CustomStringConvertible {
    /// Index of the service in the service code list, 0…15.
    public var serviceCodeListOrder: UInt8
    /// Access mode, 0…7 (0: normal; 1: cashback of a purse service).
    public var accessMode: UInt8
    /// The block number within the service.
    public var blockNumber: UInt16
    /// Whether the 3-byte form is used even though the block number fits one byte.
    public var usesThreeByteForm: Bool

    /// An element; block numbers above `FF` always use the 3-byte form.
    public init(blockNumber: UInt16, serviceCodeListOrder: UInt8 = 0, accessMode: UInt8 = 0, threeByteForm: Bool = false) {
        self.blockNumber = blockNumber
        self.serviceCodeListOrder = serviceCodeListOrder
        self.accessMode = accessMode
        self.usesThreeByteForm = threeByteForm || blockNumber > 0xFF
    }

    /// The encoded element: 2 bytes (`8x nn`) or 3 bytes (`0x nn nn`).
    /// - Throws: ``NFCTagError`` `invalidParameter` when the order exceeds 15 or the access mode 7.
    public func encoded() throws(NFCTagError) -> [UInt8] {
        guard serviceCodeListOrder <= 0x0F else {
            throw NFCTagError(.invalidParameter, "service code list order \(serviceCodeListOrder) exceeds 15")
        }
        guard accessMode <= 0x07 else { throw NFCTagError(.invalidParameter, "access mode \(accessMode) exceeds 7") }
        let header = accessMode << 4 | serviceCodeListOrder
        if usesThreeByteForm { return [header, UInt8(blockNumber & 0xFF), UInt8(blockNumber >> 8)] }
        return [0x80 | header, UInt8(blockNumber)]
    }

    /// Parses one element from the front of `bytes`, removing it.
    /// - Throws: ``NFCTagError`` `invalidParameter` with the offset (within `bytes`' indices)
    ///   when the element is cut short.
    public static func parse(_ bytes: inout ArraySlice<UInt8>) throws(NFCTagError) -> FeliCaBlockListElement {
        guard let header = bytes.first else {
            throw NFCTagError(.invalidParameter, at: bytes.startIndex, "block list element missing")
        }
        let twoByte = header & 0x80 != 0
        let length = twoByte ? 2 : 3
        guard bytes.count >= length else {
            throw NFCTagError(.invalidParameter, at: bytes.endIndex, "block list element cut short: \(bytes.count) of \(length) bytes")
        }
        let start = bytes.startIndex
        let block = twoByte ? UInt16(bytes[start + 1]) : UInt16(bytes[start + 1]) | UInt16(bytes[start + 2]) << 8
        bytes.removeFirst(length)
        return FeliCaBlockListElement(
            blockNumber: block, serviceCodeListOrder: header & 0x0F, accessMode: (header >> 4) & 0x07, threeByteForm: !twoByte)
    }

    /// `block 0x0088 (service 0)`.
    public var description: String {
        "block 0x\(Hex.number(blockNumber, uppercase: false)) (service \(serviceCodeListOrder))"
    }
}

/// The two status flags of Read/Write Without Encryption (FeliCa Card User's Manual, "Status
/// Flag"; FeliCa Lite-S User's Manual). Status flag 1 is `00` on success, `FF` for an error of
/// the whole command, else a bit for the block list element at fault (`01` the first, `02` the
/// second…); status flag 2 says why.
public struct FeliCaStatusFlags: Sendable, Hashable, CustomStringConvertible {
    /// Status flag 1: where.
    public var flag1: UInt8
    /// Status flag 2: why.
    public var flag2: UInt8

    /// The flags as answered.
    public init(_ flag1: UInt8, _ flag2: UInt8) {
        self.flag1 = flag1
        self.flag2 = flag2
    }

    /// Both flags `00`.
    public var isSuccess: Bool { flag1 == 0 && flag2 == 0 }

    /// The index (0-based) of the block list element status flag 1 points at, when it points
    /// at exactly one.
    public var elementIndex: Int? {
        guard flag1 != 0, flag1 != 0xFF, flag1.nonzeroBitCount == 1 else { return nil }
        return flag1.trailingZeroBitCount
    }

    /// What status flag 2 means (FeliCa Card User's Manual, status flag 2 table; `B1` from the
    /// FeliCa Lite-S User's Manual).
    public var meaning: String {
        switch flag2 {
        case 0x00: "no error"
        case 0x01: "purse data under- or overflow"
        case 0x02: "cashback data exceeded"
        case 0x70: "memory error"
        case 0x71: "number of memory rewrites exceeded"
        case 0xA1: "illegal number of services"
        case 0xA2: "illegal number of blocks"
        case 0xA3: "illegal block list: service code list order"
        case 0xA4: "illegal service type"
        case 0xA5: "access not allowed"
        case 0xA6: "illegal service code list"
        case 0xA7: "illegal block list: access mode"
        case 0xA8: "illegal block number (no such block, or not accessible)"
        case 0xA9: "data write failure"
        case 0xB1: "authentication or MAC required"
        default: "status flag 2 not listed in the manual"
        }
    }

    /// `status flags 01 A8 (element 1: illegal block number …)`.
    public var description: String {
        let scope = flag1 == 0xFF ? "whole command" : elementIndex.map { "element \($0 + 1)" } ?? "elements \(Hex.encode([flag1], uppercase: true))"
        return "status flags \(Hex.encode([flag1, flag2], uppercase: true, separator: " ")) (\(scope): \(meaning))"
    }
}
