/// The NDEF data area of a Type 1 tag as the detection procedure finds it: the capability
/// container in block 1, then TLVs from byte 12 (the same TLV types as Type 2: NULL, Lock
/// Control, Memory Control, NDEF, Proprietary, Terminator), skipping blocks D and E (and F on
/// the dynamic layout) and every area a Lock or Memory Control TLV names. Addresses are byte
/// addresses of tag memory (block × 8 + byte).
public struct Type1TLVArea: Sendable, Hashable {
    /// The capability container.
    public var capabilityContainer: Type1CapabilityContainer
    /// Areas named by Lock Control (lock bits) and Memory Control TLVs, in the order met.
    public var controlAreas: [Type2ReservedArea]
    /// Usable addresses from the NDEF TLV's T byte to the end of the data area (the CC's memory
    /// size); where the reader reaches less (``end``), the addresses past it are counted but
    /// their bytes unknown.
    public var ndefAddresses: [Int]
    /// The stored message's length (L).
    public var messageLength: Int
    /// 1 or 3: the size of the stored L field.
    public var lengthFieldSize: Int
    /// The end of the memory the parse could see: the CC's memory size, or less when the reader
    /// reaches less of the tag (a PN53x: byte 128). The stored message always lies before it.
    public var end: Int

    /// The longest message that fits in ``ndefAddresses`` (as Type 2: 1-byte length up to 254
    /// bytes, else the 3-byte form).
    public var capacity: Int { Type2TLVArea.capacity(usableBytes: ndefAddresses.count) }

    /// The addresses of the stored message's bytes.
    public var messageAddresses: ArraySlice<Int> {
        let start = min(ndefAddresses.count, 1 + lengthFieldSize)
        return ndefAddresses[start..<min(ndefAddresses.count, start + messageLength)]
    }

    /// The largest memory a CC can name (256 blocks): the longest TLV area walk.
    public static let largestMemory = 256 * Type1Memory.blockSize

    /// Parses `memory` (tag memory from byte 0, as far as it was read) of a tag whose HR0 is
    /// `hr0`; `reachedAll` says whether `memory` holds everything the CC names or the reader
    /// stopped short of it; `physicalSize` caps what a CC may name (512 on a Topaz 512, whose
    /// CC2 could say up to 2048 bytes).
    /// - Throws: ``NFCTagError`` `notNDEFFormatted` (HR0 not NDEF-capable at offset 0, CC, no
    ///   NDEF TLV, a Terminator first), `malformedTag` (a TLV cut short, a control TLV whose value
    ///   is not 3 bytes, an NDEF length past the area), `notSupported` (the NDEF TLV runs past
    ///   what this reader can read), each with the byte address.
    public static func parse(
        memory: [UInt8], hr0: UInt8, reachedAll: Bool = true, physicalSize: Int = largestMemory
    ) throws(NFCTagError) -> Type1TLVArea {
        guard Type1HeaderROM.isNDEFCapable(hr0) else {
            throw NFCTagError(.notNDEFFormatted, at: 0, "HR0 \(hexByte(hr0)) does not name an NDEF-capable Type 1 tag (upper nibble 1)")
        }
        let ccStart = Type1Memory.capabilityContainerAddress
        guard memory.count >= ccStart + 4 else {
            throw NFCTagError(.malformedTag, at: memory.count, "tag memory of \(memory.count) bytes holds no capability container")
        }
        let cc = try Type1CapabilityContainer(bytes: memory[ccStart..<(ccStart + 4)])
        let size = min(cc.memorySize, physicalSize, largestMemory)
        let end = min(size, memory.count)
        var reserved = Set(Type1HeaderROM.isStatic(hr0) ? Type1Memory.staticReservedBytes : Type1Memory.dynamicReservedBytes)
        var areas: [Type2ReservedArea] = []
        func next(after address: Int) -> Int? {
            var a = address + 1
            while a < end {
                if !reserved.contains(a) { return a }
                a += 1
            }
            return nil
        }
        let shortReach = !reachedAll && end < size
        func cutShort(_ what: String, at address: Int) -> NFCTagError {
            shortReach
                ? NFCTagError(.notSupported, at: end, "\(what) runs past byte \(end), the last this reader can read on the tag")
                : NFCTagError(.malformedTag, at: address, "\(what) runs past the end of the data area (byte \(end))")
        }
        var cursor = next(after: Type1Memory.dataAreaAddress - 1)
        while let t = cursor {
            let type = memory[t]
            switch type {
            case Type2TLVType.null:
                cursor = next(after: t)
                continue
            case Type2TLVType.terminator:
                throw NFCTagError(.notNDEFFormatted, at: t, "a Terminator TLV comes before any NDEF TLV")
            default:
                break
            }
            guard let l1 = next(after: t) else { throw cutShort("the TLV at byte \(t)", at: t) }
            var length = Int(memory[l1])
            var lastLength = l1
            var lengthSize = 1
            if memory[l1] == Type2TLVType.threeByteLengthMarker {
                guard let l2 = next(after: l1), let l3 = next(after: l2) else { throw cutShort("the 3-byte length of the TLV at byte \(t)", at: l1) }
                length = Int(memory[l2]) << 8 | Int(memory[l3])
                lastLength = l3
                lengthSize = 3
            }
            if type == Type2TLVType.ndefMessage {
                var addresses = [t]
                var a: Int? = next(after: t)
                while let address = a {
                    addresses.append(address)
                    a = next(after: address)
                }
                if shortReach {
                    // Past the reader's reach the area goes on to the CC's size: counted for the
                    // capacity, never read.
                    for address in end..<size where !reserved.contains(address) {
                        addresses.append(address)
                    }
                }
                guard length <= addresses.count - 1 - lengthSize else {
                    throw NFCTagError(.malformedTag, at: l1, "the NDEF message of \(length) bytes (TLV at byte \(t)) runs past the end of the data area")
                }
                guard addresses[lengthSize + length] < end else {
                    throw cutShort("the NDEF message of \(length) bytes (TLV at byte \(t))", at: l1)
                }
                return Type1TLVArea(
                    capabilityContainer: cc, controlAreas: areas, ndefAddresses: addresses, messageLength: length,
                    lengthFieldSize: lengthSize, end: end)
            }
            var value: [UInt8] = []
            var last = lastLength
            for _ in 0..<length {
                guard let address = next(after: last) else { throw cutShort("the TLV at byte \(t) of \(length) bytes", at: t) }
                if value.count < 3 { value.append(memory[address]) }
                last = address
            }
            if type == Type2TLVType.lockControl || type == Type2TLVType.memoryControl {
                let kind: Type2ReservedArea.Kind = type == Type2TLVType.lockControl ? .lockBits : .reserved
                guard length == 3, let area = Type2ReservedArea(kind: kind, value: value) else {
                    throw NFCTagError(.malformedTag, at: l1, "the \(kind == .lockBits ? "Lock" : "Memory") Control TLV at byte \(t) has \(length) value bytes, not 3")
                }
                areas.append(area)
                for address in area.addresses.clamped(to: 0..<largestMemory) { reserved.insert(address) }
            }
            cursor = next(after: last)
        }
        throw NFCTagError(.notNDEFFormatted, at: end, "no NDEF TLV in the data area")
    }
}
