import NFCCore

/// The capability container of an NFC Forum Type 2 Tag: page 3, bytes 12…15 of tag memory
/// (Type 2 Tag 1.2, 6.1; NTAG213/215/216 datasheet 8.5.6).
public struct Type2CapabilityContainer: Sendable, Hashable {
    /// CC0: the NDEF magic number, `E1`.
    public static let ndefMagic: UInt8 = 0xE1
    /// The byte address of CC0 in tag memory (page 3).
    public static let address = 12
    /// The byte address where the data area starts (page 4).
    public static let dataAreaAddress = 16
    /// CC3 write-access nibble: read-write (0x0).
    public static let writeAccessGranted: UInt8 = 0x0
    /// CC3 write-access nibble: no write access (0xF).
    public static let writeAccessDenied: UInt8 = 0xF

    /// CC1: the mapping version (`0x10` = 1.0); the upper nibble is the major version.
    public var version: UInt8
    /// CC2 × 8: the data area size in bytes.
    public var dataAreaSize: Int
    /// CC3: read access (upper nibble) and write access (lower nibble).
    public var access: UInt8

    /// Whether CC3 grants writing (lower nibble 0x0).
    public var isWritable: Bool { access & 0x0F == Self.writeAccessGranted }
    /// Whether CC3 grants reading (upper nibble 0x0).
    public var isReadable: Bool { access >> 4 == 0 }

    /// Creates a capability container.
    public init(version: UInt8 = 0x10, dataAreaSize: Int, access: UInt8 = 0x00) {
        self.version = version
        self.dataAreaSize = dataAreaSize
        self.access = access
    }

    /// Decodes the four CC bytes (Type 2 Tag 1.2, 6.1).
    /// - Throws: ``NFCTagError`` `notNDEFFormatted` when CC0 is not `E1` (offset 12) or the
    ///   major version is not 1 (offset 13); `malformedTag` when fewer than 4 bytes are given
    ///   or CC2 is 0 (offset 14).
    public init(bytes: some Collection<UInt8>) throws(NFCTagError) {
        let cc = Array(bytes)
        guard cc.count >= 4 else {
            throw NFCTagError(.malformedTag, at: Self.address + cc.count, "capability container needs 4 bytes, got \(cc.count)")
        }
        guard cc[0] == Self.ndefMagic else {
            throw NFCTagError(.notNDEFFormatted, at: Self.address, "CC0 is \(hexByte(cc[0])), not the NDEF magic number E1")
        }
        guard cc[1] >> 4 == 1 else {
            throw NFCTagError(.notNDEFFormatted, at: Self.address + 1, "mapping version \(cc[1] >> 4).\(cc[1] & 0xF) is not 1.x")
        }
        guard cc[2] != 0 else {
            throw NFCTagError(.malformedTag, at: Self.address + 2, "CC2 (data area size / 8) is 0")
        }
        self.init(version: cc[1], dataAreaSize: Int(cc[2]) * 8, access: cc[3])
    }

    /// The four CC bytes.
    public var bytes: [UInt8] { [Self.ndefMagic, version, UInt8(dataAreaSize / 8), access] }

    /// What a WRITE of `written` to page 3 leaves when the CC holds `current`: the CC is
    /// one-time programmable, a WRITE ORs its bytes in and no bit once set is cleared
    /// (Type 2 Tag 1.2, 6.1; NTAG213/215/216 datasheet 8.5.6).
    public static func afterWrite(of written: [UInt8], over current: [UInt8]) -> [UInt8] {
        zip(current, written).map { $0 | $1 }
    }

    /// Refuses, before anything is written, to make the CC `wanted` when it holds `current`
    /// and the OR of a WRITE (``afterWrite(of:over:)``) cannot give it: a bit set in `current`
    /// and clear in `wanted` stays set for good.
    /// - Throws: ``NFCTagError`` `notSupported` at the first such CC byte, naming both CCs and
    ///   saying what the `purpose` needs.
    public static func requireReachable(_ wanted: [UInt8], from current: [UInt8], for purpose: String) throws(NFCTagError) {
        let left = afterWrite(of: wanted, over: current)
        guard left != wanted, let index = left.indices.first(where: { left[$0] != wanted[$0] }) else { return }
        throw NFCTagError(
            .notSupported, at: address + index,
            "the capability container is one-time programmable: it holds \(Hex.encode(current, uppercase: true)), and writing \(Hex.encode(wanted, uppercase: true)) would leave \(Hex.encode(left, uppercase: true)), not the CC \(purpose) needs; nothing was written")
    }
}

/// TLV block types of the Type 2 Tag data area (Type 2 Tag 1.2, 2.3).
public enum Type2TLVType {
    /// NULL TLV: one byte, no length (0x00).
    public static let null: UInt8 = 0x00
    /// Lock Control TLV (0x01): where the dynamic lock bits are.
    public static let lockControl: UInt8 = 0x01
    /// Memory Control TLV (0x02): a reserved memory area.
    public static let memoryControl: UInt8 = 0x02
    /// NDEF Message TLV (0x03).
    public static let ndefMessage: UInt8 = 0x03
    /// Proprietary TLV (0xFD).
    public static let proprietary: UInt8 = 0xFD
    /// Terminator TLV: one byte, no length (0xFE).
    public static let terminator: UInt8 = 0xFE
    /// First byte of the 3-byte length form (0xFF, then two bytes big-endian).
    public static let threeByteLengthMarker: UInt8 = 0xFF
    /// The longest value the 3-byte length form can give (0xFFFF is reserved, RFU).
    public static let largestLength = 0xFFFE
}

/// A memory area named by a Lock Control or Memory Control TLV, or the default dynamic lock area
/// (Type 2 Tag 1.2, 2.2.2 / 2.3.2 / 2.3.3).
public struct Type2ReservedArea: Sendable, Hashable {
    /// What the area holds.
    public enum Kind: Sendable, Hashable {
        /// Dynamic lock bits.
        case lockBits
        /// Memory reserved by a Memory Control TLV.
        case reserved
    }
    /// What it holds.
    public var kind: Kind
    /// Byte addresses in tag memory.
    public var addresses: Range<Int>
    /// For lock bits: how many bits the area holds (bit n is bit n % 8 of byte n / 8); 0 for a
    /// reserved area.
    public var bitCount: Int

    /// Creates an area.
    public init(kind: Kind, addresses: Range<Int>, bitCount: Int = 0) {
        self.kind = kind
        self.addresses = addresses
        self.bitCount = bitCount
    }

    /// Decodes the 3-byte value of a Lock Control (`lockBits`) or Memory Control TLV:
    /// position byte (page address nibble, byte offset nibble), size (bits for lock control, bytes
    /// for memory control; 0 means 256), and page control (upper nibble: bytes locked per bit,
    /// lower nibble: log2 of the page size used by the position). Address = page × 2^lower + offset.
    /// Nil unless `value` holds exactly 3 bytes.
    public init?(kind: Kind, value: [UInt8]) {
        guard value.count == 3 else { return nil }
        let pageSize = 1 << Int(value[2] & 0x0F)
        let start = Int(value[0] >> 4) * pageSize + Int(value[0] & 0x0F)
        let size = value[1] == 0 ? 256 : Int(value[1])
        let bytes = kind == .lockBits ? (size + 7) / 8 : size
        self.init(kind: kind, addresses: start..<(start + bytes), bitCount: kind == .lockBits ? size : 0)
    }

    /// The default dynamic lock area when no Lock Control TLV is present on a tag whose data area
    /// exceeds 48 bytes: right after the data area, ⌈(size − 48) / 8⌉ lock bits, so
    /// ⌈bits / 8⌉ bytes (Type 2 Tag 1.2, 2.2.2). It lies outside the data area, so it never
    /// reduces the capacity.
    public static func defaultDynamicLockArea(dataAreaSize: Int) -> Type2ReservedArea? {
        guard dataAreaSize > 48 else { return nil }
        let bits = (dataAreaSize - 48 + 7) / 8
        let start = Type2CapabilityContainer.dataAreaAddress + dataAreaSize
        return Type2ReservedArea(kind: .lockBits, addresses: start..<(start + (bits + 7) / 8), bitCount: bits)
    }
}

/// The TLV area of a Type 2 Tag as found by the NDEF detection procedure (Type 2 Tag 1.2, 2.3
/// and 5.4): the NDEF TLV's place and length, the reserved areas, and the capacity.
///
/// The data area is read as a stream of bytes that skips the reserved areas named by the
/// Lock/Memory Control TLVs met before the NDEF TLV; NULL TLVs are skipped, Proprietary and
/// unknown TLVs are stepped over by their length, and the first NDEF TLV ends the search.
public struct Type2TLVArea: Sendable, Hashable {
    /// The capability container.
    public var capabilityContainer: Type2CapabilityContainer
    /// Reserved areas (control TLVs' and the default dynamic lock area).
    public var reservedAreas: [Type2ReservedArea]
    /// Usable byte addresses from the NDEF TLV's T byte to the end of the data area, reserved
    /// bytes left out: where a new NDEF TLV is laid out.
    public var ndefAddresses: [Int]
    /// The stored message's length (the L field).
    public var messageLength: Int
    /// 1 or 3: the size of the stored L field.
    public var lengthFieldSize: Int

    /// The address of the NDEF TLV's T byte (the data area start when ``ndefAddresses`` is empty,
    /// which the parser never produces).
    public var ndefTLVAddress: Int { ndefAddresses.first ?? Type2CapabilityContainer.dataAreaAddress }

    /// The longest message that fits: with N usable bytes from the T byte on, N − 4 when
    /// N − 4 ≥ 255 (3-byte length, at most 0xFFFE however large a tag says it is), else
    /// min(N − 2, 254) (1-byte length); a Terminator TLV is written only when a byte is left
    /// over, so it costs nothing.
    public var capacity: Int { Self.capacity(usableBytes: ndefAddresses.count) }

    /// See ``capacity``.
    public static func capacity(usableBytes n: Int) -> Int {
        if n - 4 >= 0xFF { return min(n - 4, Type2TLVType.largestLength) }
        return max(0, min(n - 2, 0xFE))
    }

    /// Addresses of the stored message's bytes (V field).
    public var messageAddresses: ArraySlice<Int> {
        let start = min(ndefAddresses.count, 1 + lengthFieldSize)
        return ndefAddresses[start..<min(ndefAddresses.count, start + messageLength)]
    }

    /// Creates an area.
    public init(
        capabilityContainer: Type2CapabilityContainer, reservedAreas: [Type2ReservedArea], ndefAddresses: [Int],
        messageLength: Int, lengthFieldSize: Int
    ) {
        self.capabilityContainer = capabilityContainer
        self.reservedAreas = reservedAreas
        self.ndefAddresses = ndefAddresses
        self.messageLength = messageLength
        self.lengthFieldSize = lengthFieldSize
    }

    /// Parses tag memory from address 0 (`memory` must cover at least the CC and as much of the
    /// data area as the TLVs up to the NDEF TLV's end need).
    /// - Throws: ``NFCTagError`` from ``Type2CapabilityContainer/init(bytes:)``;
    ///   `notNDEFFormatted` when the data area has no NDEF TLV or read access is refused;
    ///   `malformedTag` with the byte address for a TLV running past the data area, a control
    ///   TLV whose length is not 3, an FF FF FF length, or memory that ends too early; with
    ///   `userMemoryEnd`, `malformedTag` at offset 14 when the CC announces a data area that runs
    ///   past it.
    /// - Parameter userMemoryEnd: the byte address just past the chip's real user memory, when
    ///   the chip is identified (a CC claiming more is a lie: nothing past it is read or
    ///   written as NDEF data).
    public static func parse(memory: [UInt8], userMemoryEnd: Int? = nil) throws(NFCTagError) -> Type2TLVArea {
        try parseOrNeedMore(memory: memory, userMemoryEnd: userMemoryEnd).get(memoryCount: memory.count)
    }

    typealias Outcome = PartialParse<Type2TLVArea>

    static func parseOrNeedMore(memory: [UInt8], userMemoryEnd: Int? = nil) -> Outcome {
        let ccAddress = Type2CapabilityContainer.address
        guard memory.count >= ccAddress + 4 else { return .needMore(memory.count) }
        let cc: Type2CapabilityContainer
        do {
            cc = try Type2CapabilityContainer(bytes: memory[ccAddress..<(ccAddress + 4)])
        } catch {
            return .failure(error)
        }
        guard cc.isReadable else {
            return .failure(NFCTagError(.notNDEFFormatted, at: ccAddress + 3, "CC3 refuses read access (\(hexByte(cc.access)))"))
        }
        let dataStart = Type2CapabilityContainer.dataAreaAddress
        let dataEnd = dataStart + cc.dataAreaSize
        if let userMemoryEnd, dataEnd > userMemoryEnd {
            return .failure(NFCTagError(
                .malformedTag, at: ccAddress + 2,
                "CC2 announces a \(cc.dataAreaSize)-byte data area but the chip's user memory has \(max(0, userMemoryEnd - dataStart)) bytes"))
        }
        var reserved: [Type2ReservedArea] = []
        var sawLockControl = false
        var address = dataStart

        func isReserved(_ a: Int) -> Bool { reserved.contains { $0.addresses.contains(a) } }
        /// The next usable address at or after `a`.
        func usable(from a: Int) -> Int {
            var a = a
            while a < dataEnd, isReserved(a) { a += 1 }
            return a
        }
        enum Step { case byte(UInt8, Int), end, needMore(Int) }
        /// Reads the byte at the next usable address and moves past it.
        func next() -> Step {
            let a = usable(from: address)
            guard a < dataEnd else { return .end }
            guard a < memory.count else { return .needMore(a) }
            address = a + 1
            return .byte(memory[a], a)
        }
        func truncated(_ what: String, at a: Int) -> Outcome {
            .failure(NFCTagError(.malformedTag, at: a, "\(what) runs past the end of the data area (\(dataEnd))"))
        }

        while true {
            let tAddress: Int
            let type: UInt8
            switch next() {
            case .end:
                return .failure(NFCTagError(.notNDEFFormatted, at: dataEnd, "no NDEF TLV in the data area"))
            case .needMore(let a): return .needMore(a)
            case .byte(let b, let a): (type, tAddress) = (b, a)
            }
            if type == Type2TLVType.null { continue }
            if type == Type2TLVType.terminator {
                return .failure(NFCTagError(.notNDEFFormatted, at: tAddress, "Terminator TLV before any NDEF TLV"))
            }
            // Length: one byte, or FF then two bytes.
            var length: Int
            var lengthSize = 1
            switch next() {
            case .end: return truncated("TLV \(hexByte(type)) length", at: tAddress)
            case .needMore(let a): return .needMore(a)
            case .byte(let l, let a):
                length = Int(l)
                if l == Type2TLVType.threeByteLengthMarker {
                    var value = 0
                    for _ in 0..<2 {
                        switch next() {
                        case .end: return truncated("TLV \(hexByte(type)) 3-byte length", at: a)
                        case .needMore(let m): return .needMore(m)
                        case .byte(let b, _): value = value << 8 | Int(b)
                        }
                    }
                    guard value != 0xFFFF else {
                        return .failure(NFCTagError(.malformedTag, at: a, "TLV length FF FF FF is reserved"))
                    }
                    length = value
                    lengthSize = 3
                }
            }
            if type == Type2TLVType.ndefMessage {
                // Collect the usable addresses from T to the end of the data area.
                var addresses = [tAddress]
                var a = tAddress + 1
                while a < dataEnd {
                    if !isReserved(a) { addresses.append(a) }
                    a += 1
                }
                guard addresses.count >= 1 + lengthSize + length else {
                    return truncated("NDEF TLV of \(length) bytes", at: tAddress)
                }
                let needed = addresses[min(addresses.count - 1, lengthSize + length)]
                if length > 0, needed >= memory.count { return .needMore(needed) }
                if !sawLockControl, let area = Type2ReservedArea.defaultDynamicLockArea(dataAreaSize: cc.dataAreaSize) {
                    reserved.append(area)
                }
                return .success(
                    Type2TLVArea(
                        capabilityContainer: cc, reservedAreas: reserved, ndefAddresses: addresses, messageLength: length,
                        lengthFieldSize: lengthSize))
            }
            // Value of a control, proprietary or unknown TLV.
            var value: [UInt8] = []
            for _ in 0..<length {
                switch next() {
                case .end: return truncated("TLV \(hexByte(type)) of \(length) bytes", at: tAddress)
                case .needMore(let m): return .needMore(m)
                case .byte(let b, _): value.append(b)
                }
            }
            if type == Type2TLVType.lockControl || type == Type2TLVType.memoryControl {
                guard length == 3 else {
                    return .failure(
                        NFCTagError(.malformedTag, at: tAddress, "control TLV \(hexByte(type)) has length \(length), not 3"))
                }
                if type == Type2TLVType.lockControl { sawLockControl = true }
                if let area = Type2ReservedArea(kind: type == Type2TLVType.lockControl ? .lockBits : .reserved, value: value) {
                    reserved.append(area)
                }
            }
        }
    }
}

/// The result of parsing tag memory read so far: the structure, a fault, or the address of the
/// first byte still to read (the platforms read on and parse again).
enum PartialParse<Value> {
    case success(Value)
    case failure(NFCTagError)
    /// The parse needs the byte at this address, past the end of what was read.
    case needMore(Int)

    /// The value; memory that ended too early (`memoryCount` bytes) is `malformedTag` at the
    /// first missing byte (the parse may have needed one further on, past a skipped TLV: the
    /// offset stays inside what can be addressed).
    func get(memoryCount: Int) throws(NFCTagError) -> Value {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw error
        case .needMore(let address):
            throw NFCTagError(
                .malformedTag, at: min(address, memoryCount),
                "tag memory ends at \(memoryCount), before the TLV area does (the parse needs byte \(address))")
        }
    }
}

func hexByte(_ byte: UInt8) -> String { Hex.number(byte, width: 2) }
