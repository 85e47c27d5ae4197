public import NFCTags
import NFCCore

/// Status flags of Read/Write Without Encryption (FeliCa Lite-S User's Manual, "Status
/// Flag"; FeliCa Card User's Manual, status flag 2 table). Status flag 1 is `00` on success,
/// `FF` for an error not tied to a block list element, else a bit naming the element (`01`
/// first, `02` second…); status flag 2 gives the reason.
public enum FeliCaStatusFlag {
    /// `00 00`: success.
    public static let success: UInt8 = 0x00
    /// Status flag 1 `FF`: the error concerns the whole command.
    public static let wholeCommand: UInt8 = 0xFF
    /// Status flag 2 `A1`: illegal number of services (the Lite-S takes exactly 1).
    public static let illegalNumberOfServices: UInt8 = 0xA1
    /// Status flag 2 `A2`: illegal number of blocks (read 1…4, write 1…2).
    public static let illegalNumberOfBlocks: UInt8 = 0xA2
    /// Status flag 2 `A3`: illegal block list: service code list order is not 0.
    public static let illegalServiceCodeListOrder: UInt8 = 0xA3
    /// Status flag 2 `A6`: illegal service code list: not `000B`/`0009`, or not `0009` for a write.
    public static let illegalServiceCode: UInt8 = 0xA6
    /// Status flag 2 `A7`: illegal block list: access mode is not 0.
    public static let illegalAccessMode: UInt8 = 0xA7
    /// Status flag 2 `A8`: illegal block number: no such block, or not accessible (read-only).
    public static let illegalBlockNumber: UInt8 = 0xA8
    /// Status flag 2 `B1`: the block needs authentication (MC's restriction bits) first.
    public static let authenticationRequired: UInt8 = 0xB1
}

/// FeliCa Lite-S block numbers (User's Manual, "Memory map").
public enum FeliCaLiteSBlock {
    /// S_PAD0, holding the NFC Forum Type 3 attribute information block on an NDEF tag.
    public static let spad0: UInt16 = 0x00
    /// S_PAD13, the last user block.
    public static let spad13: UInt16 = 0x0D
    /// REG, the register block.
    public static let reg: UInt16 = 0x0E
    /// RC, random challenge (write-only).
    public static let rc: UInt16 = 0x80
    /// MAC (read-only).
    public static let mac: UInt16 = 0x81
    /// ID: bytes 0–7 IDm, 8–9 DFC, 10–15 arbitrary (writable while MC_ALL is `FF`).
    public static let id: UInt16 = 0x82
    /// D_ID: IDm and PMm (read-only).
    public static let dID: UInt16 = 0x83
    /// SER_C, service code block.
    public static let serC: UInt16 = 0x84
    /// SYS_C, system code block (`12 FC` on an NDEF tag).
    public static let sysC: UInt16 = 0x85
    /// CKV, card key version.
    public static let ckv: UInt16 = 0x86
    /// CK, card key (write-only).
    public static let ck: UInt16 = 0x87
    /// MC, memory configuration.
    public static let mc: UInt16 = 0x88
    /// WCNT, write counter (read-only).
    public static let wcnt: UInt16 = 0x90
    /// MAC_A.
    public static let macA: UInt16 = 0x91
    /// STATE, authentication state.
    public static let state: UInt16 = 0x92
    /// CRC_CHECK (read-only).
    public static let crcCheck: UInt16 = 0xA0
}

/// A Sony FeliCa Lite-S (RC-S966), NFC Forum Type 3.
///
/// Frames given to ``respond(to:)`` are FeliCa commands **without the leading length byte**
/// (and without CRC): command code, IDm, parameters. Answers are likewise without the length
/// byte: response code, IDm, …. A command for another IDm, a malformed command (too short for
/// its own counts) or an unknown command is not answered.
///
/// Memory configuration (MC, block `88`, User's Manual "MC"): bytes 0–1 MC_SP (bit n = 1:
/// S_PAD n read/write, bit 14 REG, bit 15 MC's own bytes 0–1 and 6–12); byte 2 MC_ALL (`FF`
/// system blocks ID, SER_C, CKV, CK and MC bytes 2–5 writable; `00` read-only for good);
/// byte 3 SYS_OP (`01` NDEF: answers system code `12FC`); byte 4 RF_PRM; bytes 6–7 read
/// restriction, 8–9 write restriction, 10–11 write-with-MAC bits for S_PAD/REG. Writes to MC
/// are one-way: MC_SP bits can only go from 1 to 0, restriction bits only from 0 to 1, and
/// bytes 2–5 change only while MC_ALL is `FF`. Written MC values govern access from the next
/// ``powerOn()``.
///
/// Not modelled: the 3DES MAC and authentication (RC, CK, MAC, MAC_A read as zeros; blocks
/// behind restriction bits, and STATE when MC byte 12 asks for a MAC, answer
/// ``FeliCaStatusFlag/authenticationRequired``), REG's decrement-only rule for A and B,
/// CRC_CHECK computation. WCNT counts every block written.
public final class FeliCaLiteS: VirtualTag {
    /// PMm: IC code `00 F1` (ROM type, IC type F1h = FeliCa Lite-S) and the maximum response
    /// time parameters (User's Manual, "PMm"; nfcpy also maps IC type F1h to "FeliCa Lite-S
    /// (RC-S966)").
    public static let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
    /// Bytes per block.
    public static let blockSize = 16
    /// The blocks that exist, in the order ``memory`` stores them.
    public static let blockNumbers: [UInt16] =
        Array(0x00...0x0E) + Array(0x80...0x88) + [0x90, 0x91, 0x92, 0xA0]
    /// Memory size: 28 blocks × 16 bytes.
    public static let memorySize = blockNumbers.count * blockSize
    /// Maximum blocks per Read Without Encryption.
    public static let maximumReadBlocks = 4
    /// Maximum blocks per Write Without Encryption.
    public static let maximumWriteBlocks = 2
    /// MC of a fresh NDEF-formatted tag: every S_PAD and REG writable, system blocks
    /// writable, SYS_OP `01` (NDEF), RF_PRM `07`.
    public static let ndefMemoryConfiguration: [UInt8] =
        [0xFF, 0xFF, 0xFF, 0x01, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]

    /// The chip's name.
    public let modelName = "FeliCa Lite-S"
    /// IDm, 8 bytes: manufacturer code (bytes 0–1, `01 2E` for Lite-S cards) and card
    /// identification number.
    public let idm: [UInt8]

    /// The 28 blocks (``blockNumbers`` order) × 16 bytes: what a tag file stores. RC and CK
    /// hold what was written even though they read as zeros. Setting a value of another
    /// length is ignored; a valid value also becomes the active MC, as a new tag would.
    public var memory: [UInt8] {
        get { storage }
        set {
            guard newValue.count == Self.memorySize else { return }
            storage = newValue
            activeMC = block(FeliCaLiteSBlock.mc)
        }
    }

    private var storage: [UInt8]
    private var activeMC: [UInt8] = []

    /// FeliCa target information: IDm, PMm, 212 kbit/s, and the system code an NDEF reader
    /// polling for `12FC` learns: `12FC` while the active MC's SYS_OP is `01`; otherwise the
    /// card does not answer `12FC` and only its own `88B4` is there to report.
    public var targetInfo: TargetInfo {
        let code = systemCodes.contains(Type3SystemCode.ndef) ? Type3SystemCode.ndef : Type3SystemCode.feliCaLite
        return .felica(FeliCaTarget(idm: Bytes(idm), pmm: Bytes(Self.pmm), systemCode: code, bitRate: 212))
    }

    /// Creates a tag.
    /// - Parameters:
    ///   - idm: 8 bytes (shorter is zero-padded, longer truncated).
    ///   - memory: ``memorySize`` bytes in ``blockNumbers`` order; when nil or of another
    ///     length, a fresh NDEF-formatted tag: ``attributeInformationBlock(nbr:nbw:nmaxb:writeFlag:readWrite:length:)``
    ///     in block 0, ID and D_ID from IDm and PMm, SYS_C `12 FC`, MC
    ///     ``ndefMemoryConfiguration``.
    public init(idm: [UInt8], memory: [UInt8]? = nil) {
        self.idm = (0..<8).map { $0 < idm.count ? idm[$0] : 0 }
        storage = [UInt8](repeating: 0, count: Self.memorySize)
        if let memory, memory.count == Self.memorySize {
            storage = memory
        } else {
            setBlock(FeliCaLiteSBlock.spad0, Self.attributeInformationBlock())
            setBlock(FeliCaLiteSBlock.id, self.idm + [UInt8](repeating: 0, count: 8))
            setBlock(FeliCaLiteSBlock.dID, self.idm + Self.pmm)
            setBlock(FeliCaLiteSBlock.sysC, [0x12, 0xFC] + [UInt8](repeating: 0, count: 14))
            setBlock(FeliCaLiteSBlock.mc, Self.ndefMemoryConfiguration)
        }
        activeMC = block(FeliCaLiteSBlock.mc)
    }

    /// The NFC Forum Type 3 attribute information block (NFC Forum Type 3 Tag Technical
    /// Specification, "Attribute Information Block"): Ver `10`, Nbr, Nbw, Nmaxb (2 bytes),
    /// 4 unused, WriteF (`00` done, `0F` in progress), RW flag (`01` read/write, `00` read-only), Ln (3 bytes),
    /// checksum (2 bytes, the sum of bytes 0–13). Multi-byte fields are big-endian. The
    /// defaults describe an empty NDEF area on a Lite-S: 4 blocks per read, 1 per write,
    /// 13 blocks (S_PAD1–13).
    public static func attributeInformationBlock(
        nbr: UInt8 = 4, nbw: UInt8 = 1, nmaxb: UInt16 = 13, writeFlag: UInt8 = 0x00,
        readWrite: UInt8 = 0x01, length: UInt32 = 0
    ) -> [UInt8] {
        var block: [UInt8] = [0x10, nbr, nbw, UInt8(nmaxb >> 8), UInt8(nmaxb & 0xFF), 0, 0, 0, 0, writeFlag, readWrite]
        block += [UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
        let sum = block.reduce(UInt16(0)) { $0 &+ UInt16($1) }
        return block + [UInt8(sum >> 8), UInt8(sum & 0xFF)]
    }

    /// Answers Polling, Request Service, Request Response, Read and Write Without Encryption
    /// and Request System Code (see the type's documentation for framing).
    public func respond(to frame: [UInt8]) -> TagAnswer {
        guard let command = frame.first else { return .silence }
        if command == Type3Command.polling { return poll(frame) }
        guard frame.count >= 9, Array(frame[1..<9]) == idm else { return .silence }
        let body = Array(frame[9...])
        switch command {
        case Type3Command.readWithoutEncryption: return readWithoutEncryption(body)
        case Type3Command.writeWithoutEncryption: return writeWithoutEncryption(body)
        case Type3Command.requestResponse: return .data([0x05] + idm + [0x00])
        case Type3Command.requestService: return requestService(body)
        case Type3Command.requestSystemCode:
            let codes = systemCodes
            return .data([0x0D] + idm + [UInt8(codes.count)] + codes.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        default: return .silence
        }
    }

    /// Power-up: the MC written so far becomes the active configuration.
    public func powerOn() {
        activeMC = block(FeliCaLiteSBlock.mc)
    }

    /// Nothing to do: FeliCa has no halt state.
    public func halt() {}

    // MARK: - Memory

    private func offset(of blockNumber: UInt16) -> Int? {
        Self.blockNumbers.firstIndex(of: blockNumber).map { $0 * Self.blockSize }
    }

    private func block(_ number: UInt16) -> [UInt8] {
        guard let start = offset(of: number) else { return [UInt8](repeating: 0, count: Self.blockSize) }
        return Array(storage[start..<start + Self.blockSize])
    }

    private func setBlock(_ number: UInt16, _ bytes: [UInt8]) {
        guard let start = offset(of: number), bytes.count == Self.blockSize else { return }
        storage.replaceSubrange(start..<start + Self.blockSize, with: bytes)
    }

    private var systemCodes: [UInt16] {
        activeMC[3] == 0x01 ? [Type3SystemCode.feliCaLite, Type3SystemCode.ndef] : [Type3SystemCode.feliCaLite]
    }

    private func bit(_ byteIndex: Int, _ bit: Int) -> Bool {
        let word = UInt16(activeMC[byteIndex]) | UInt16(activeMC[byteIndex + 1]) << 8
        return word & (1 << bit) != 0
    }

    private var systemBlocksWritable: Bool { activeMC[2] == 0xFF }

    // MARK: - Commands

    /// Polling (User's Manual, "Polling"): answers when the system code matches one the tag has,
    /// `FF` in either byte being a wildcard. With request code `01` the answer carries the
    /// first matching code: `88B4` for a wildcard, `12FC` only when polled for it — which is
    /// why readers (libnfc's nfc-read-forum-tag3, nfcpy) poll `FFFF` then `12FC`.
    private func poll(_ frame: [UInt8]) -> TagAnswer {
        guard frame.count >= 5 else { return .silence }
        let high = frame[1], low = frame[2], requestCode = frame[3]
        let matched = systemCodes.first { code in
            (high == 0xFF || high == UInt8(code >> 8)) && (low == 0xFF || low == UInt8(code & 0xFF))
        }
        guard let code = matched else { return .silence }
        var answer: [UInt8] = [0x01] + idm + Self.pmm
        if requestCode == 0x01 { answer += [UInt8(code >> 8), UInt8(code & 0xFF)] }
        return .data(answer)
    }

    private func requestService(_ body: [UInt8]) -> TagAnswer {
        guard let count = body.first, count >= 1, count <= 32, body.count >= 1 + 2 * Int(count) else { return .silence }
        var answer: [UInt8] = [0x03] + idm + [count]
        for i in 0..<Int(count) {
            let code = UInt16(body[1 + 2 * i]) | UInt16(body[2 + 2 * i]) << 8
            let exists = code == Type3ServiceCode.ndefRead || code == Type3ServiceCode.ndefWrite
            answer += exists ? [0x00, 0x00] : [0xFF, 0xFF]
        }
        return .data(answer)
    }

    private struct Request {
        var serviceCode: UInt16
        var elements: [(header: UInt8, block: UInt16)]
        var data: [UInt8]
    }

    private enum Parsed {
        case request(Request)
        case status(UInt8, UInt8)
        case malformed
    }

    /// Parses number of services, service code list, number of blocks, block list (2-byte
    /// elements `8x nn`, 3-byte elements `0x nn nn` little-endian) and, for writes, data.
    private func parse(_ body: [UInt8], maximumBlocks: Int, withData: Bool) -> Parsed {
        guard let serviceCount = body.first else { return .malformed }
        guard serviceCount == 1 else { return .status(FeliCaStatusFlag.wholeCommand, FeliCaStatusFlag.illegalNumberOfServices) }
        guard body.count >= 4 else { return .malformed }
        let serviceCode = UInt16(body[1]) | UInt16(body[2]) << 8
        let blockCount = Int(body[3])
        guard blockCount >= 1, blockCount <= maximumBlocks else {
            return .status(FeliCaStatusFlag.wholeCommand, FeliCaStatusFlag.illegalNumberOfBlocks)
        }
        var index = 4
        var elements: [(header: UInt8, block: UInt16)] = []
        for _ in 0..<blockCount {
            guard index < body.count else { return .malformed }
            let header = body[index]
            if header & 0x80 != 0 {
                guard index + 1 < body.count else { return .malformed }
                elements.append((header, UInt16(body[index + 1])))
                index += 2
            } else {
                guard index + 2 < body.count else { return .malformed }
                elements.append((header, UInt16(body[index + 1]) | UInt16(body[index + 2]) << 8))
                index += 3
            }
        }
        var data: [UInt8] = []
        if withData {
            guard body.count - index >= blockCount * Self.blockSize else { return .malformed }
            data = Array(body[index..<index + blockCount * Self.blockSize])
        }
        return .request(Request(serviceCode: serviceCode, elements: elements, data: data))
    }

    /// Checks a block list element's header and block number (User's Manual, "Block List").
    private func elementError(_ element: (header: UInt8, block: UInt16)) -> UInt8? {
        if element.header & 0x0F != 0 { return FeliCaStatusFlag.illegalServiceCodeListOrder }
        if (element.header >> 4) & 0x07 != 0 { return FeliCaStatusFlag.illegalAccessMode }
        if offset(of: element.block) == nil { return FeliCaStatusFlag.illegalBlockNumber }
        return nil
    }

    private func readWithoutEncryption(_ body: [UInt8]) -> TagAnswer {
        let response = [Type3Command.readWithoutEncryption + 1] + idm
        switch parse(body, maximumBlocks: Self.maximumReadBlocks, withData: false) {
        case .malformed: return .silence
        case .status(let flag1, let flag2): return .data(response + [flag1, flag2])
        case .request(let request):
            guard request.serviceCode == Type3ServiceCode.ndefRead || request.serviceCode == Type3ServiceCode.ndefWrite else {
                return .data(response + [0x01, FeliCaStatusFlag.illegalServiceCode])
            }
            var data: [UInt8] = []
            for (i, element) in request.elements.enumerated() {
                if let error = elementError(element) { return .data(response + [1 << UInt8(i), error]) }
                if request.serviceCode == Type3ServiceCode.ndefWrite && !isWritable(element.block) {
                    // The read/write service reaches only blocks writable under MC; the
                    // read-only service 000B reads them all.
                    return .data(response + [1 << UInt8(i), FeliCaStatusFlag.illegalBlockNumber])
                }
                if element.block <= FeliCaLiteSBlock.reg && bit(6, Int(element.block)) {
                    return .data(response + [1 << UInt8(i), FeliCaStatusFlag.authenticationRequired])
                }
                switch element.block {
                case FeliCaLiteSBlock.rc, FeliCaLiteSBlock.ck, FeliCaLiteSBlock.mac, FeliCaLiteSBlock.macA:
                    data += [UInt8](repeating: 0, count: Self.blockSize)
                default:
                    data += block(element.block)
                }
            }
            return .data(response + [0x00, 0x00, UInt8(request.elements.count)] + data)
        }
    }

    /// Whether `number` accepts a write under the active MC.
    private func isWritable(_ number: UInt16) -> Bool {
        switch number {
        case FeliCaLiteSBlock.spad0...FeliCaLiteSBlock.reg: return bit(0, Int(number))
        case FeliCaLiteSBlock.rc, FeliCaLiteSBlock.state: return true
        case FeliCaLiteSBlock.id, FeliCaLiteSBlock.serC, FeliCaLiteSBlock.ckv, FeliCaLiteSBlock.ck: return systemBlocksWritable
        case FeliCaLiteSBlock.mc: return systemBlocksWritable || bit(0, 15)
        default: return false
        }
    }

    private func writeWithoutEncryption(_ body: [UInt8]) -> TagAnswer {
        let response = [Type3Command.writeWithoutEncryption + 1] + idm
        switch parse(body, maximumBlocks: Self.maximumWriteBlocks, withData: true) {
        case .malformed: return .silence
        case .status(let flag1, let flag2): return .data(response + [flag1, flag2])
        case .request(let request):
            guard request.serviceCode == Type3ServiceCode.ndefWrite else {
                return .data(response + [0x01, FeliCaStatusFlag.illegalServiceCode])
            }
            for (i, element) in request.elements.enumerated() {
                if let error = elementError(element) { return .data(response + [1 << UInt8(i), error]) }
                guard isWritable(element.block) else {
                    return .data(response + [1 << UInt8(i), FeliCaStatusFlag.illegalBlockNumber])
                }
                let needsMAC = element.block <= FeliCaLiteSBlock.reg
                    ? bit(8, Int(element.block)) || bit(10, Int(element.block))
                    : element.block == FeliCaLiteSBlock.state && activeMC[12] == 0x01  // MC_STATE_W_MAC_A
                if needsMAC {
                    return .data(response + [1 << UInt8(i), FeliCaStatusFlag.authenticationRequired])
                }
            }
            for (i, element) in request.elements.enumerated() {
                let bytes = Array(request.data[i * Self.blockSize..<(i + 1) * Self.blockSize])
                write(element.block, bytes)
            }
            return .data(response + [0x00, 0x00])
        }
    }

    private func write(_ number: UInt16, _ bytes: [UInt8]) {
        switch number {
        case FeliCaLiteSBlock.id:
            setBlock(number, Array(block(number)[0..<8]) + bytes[8..<16])  // IDm stays
        case FeliCaLiteSBlock.mc:
            setBlock(number, mergedMemoryConfiguration(bytes))
        default:
            setBlock(number, bytes)
        }
        incrementWriteCounter()
    }

    /// MC's one-way rules (User's Manual, "MC").
    private func mergedMemoryConfiguration(_ written: [UInt8]) -> [UInt8] {
        var mc = block(FeliCaLiteSBlock.mc)
        let ownBitsWritable = bit(0, 15)
        for i in 0..<Self.blockSize {
            switch i {
            case 0...1 where ownBitsWritable: mc[i] &= written[i]
            case 2...5 where systemBlocksWritable: mc[i] = written[i]
            case 6...12 where ownBitsWritable: mc[i] |= written[i]
            case 13...15: mc[i] = 0
            default: break
            }
        }
        return mc
    }

    /// WCNT (block `90`): 24-bit little-endian count of writes, saturating.
    private func incrementWriteCounter() {
        var counter = block(FeliCaLiteSBlock.wcnt)
        let value = UInt32(counter[0]) | UInt32(counter[1]) << 8 | UInt32(counter[2]) << 16
        guard value < 0xFF_FFFF else { return }
        let next = value + 1
        counter[0] = UInt8(next & 0xFF)
        counter[1] = UInt8((next >> 8) & 0xFF)
        counter[2] = UInt8((next >> 16) & 0xFF)
        setBlock(FeliCaLiteSBlock.wcnt, counter)
    }
}
