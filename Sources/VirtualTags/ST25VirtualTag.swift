public import NFCTags
import NFCCore

/// An STMicroelectronics ST25TV02K, ST25DV04K or ST25DV64K: ISO/IEC 15693, NFC Forum Type 5,
/// blocks of 4 bytes (`sim:st25tv02k`, `sim:st25dv04k`, `sim:st25dv64k`).
///
/// Frames as ``ICodeSLIX2``'s: requests without CRC (flags, command, [manufacturer code `02`
/// for custom commands], [UID least significant byte first], parameters), answers flags `00`
/// and data or `01` and an ``ISO15693Error`` code. ``uid`` is most significant byte first.
///
/// From ST's documents (DS10925 for the ST25DV, the ST25 SDK's `TagHelper` and RFAL
/// `rfal_st25xv.c` as second sources): memory (ST25TV02K 64 blocks, ST25DV04K 128, ST25DV64K
/// 2048), IC references (`23`, `24`, `26`), the extended commands `30`–`34`, `3B`, `3C` on the
/// ST25DV (block numbers past 255), the ST25DV's four areas (ENDA1–3 in units of 32 bytes; RFA1SS–RFA4SS: password number in bits
/// 1–0, protection in bits 3–2; area 1 always readable), its 64-bit RF passwords 0–3 (factory
/// zeros; password 0 opens the configuration session WRITE CONFIGURATION needs), PRESENT
/// PASSWORD `B3` and WRITE PASSWORD `B1`, READ/WRITE CONFIGURATION `A0`/`A1`.
///
/// Assumptions where the public text found gives no value: a wrong PRESENT PASSWORD is answered
/// error `0F` and closes that password's session only; a refused WRITE CONFIGURATION or WRITE
/// PASSWORD `0F`; a read of a read-protected block `15`, a write of a protected one `12`;
/// WRITE CONFIGURATION reaches the area registers `04`–`0A` only (others `10`); the chips are
/// delivered NDEF formatted (CC by the Type 5 rules: `E1 40 MLEN 01`, the ST25DV64K `E2 40 00 01
/// 00 00 03 FF`); the ST25DV64K's GET SYSTEM INFORMATION without a memory size (info flags `0B`:
/// the extended form has it, as AOSP's `rw_i93` expects of ST chips). The ST25TV02K answers GET RANDOM NUMBER, the covered PRESENT
/// PASSWORD, WRITE PASSWORD and READ/WRITE CONFIGURATION after ST's ST25 SDK (``ST25TVCommand``),
/// and protects its areas by their attributes (``ST25TVAreaSecurity``: one area of 64 blocks with
/// MEM_ORG set, else blocks 0–31 and 32–63; delivered with two areas, all registers 00, assumed);
/// a PRESENT PASSWORD, taken or not, closes the session opened before it (assumed from the SDK's
/// tests); its kill and untraceable modes are not modelled; the ST25DV's mailbox,
/// GPO, energy harvesting, fast commands, I²C side and LOCK_CFG are not modelled either.
public final class ST25VirtualTag: VirtualTag {
    /// The chips modelled.
    public enum Variant: String, Sendable, CaseIterable {
        /// ST25TV02K: 64 blocks, IC reference `23`.
        case st25tv02k
        /// ST25DV04K: 128 blocks, IC reference `24`.
        case st25dv04k
        /// ST25DV64K: 2048 blocks, IC reference `26`.
        case st25dv64k

        /// Blocks of 4 bytes.
        public var blockCount: Int {
            switch self {
            case .st25tv02k: 0x40
            case .st25dv04k: 0x80
            case .st25dv64k: 0x800
            }
        }

        /// The IC reference of GET SYSTEM INFORMATION (ST25 SDK `getType5ProductId`; AOSP
        /// `I93_IC_REF_STM_ST25DV04K`/`ST25DVHIK`).
        public var icReference: UInt8 {
            switch self {
            case .st25tv02k: 0x23
            case .st25dv04k: 0x24
            case .st25dv64k: 0x26
            }
        }

        /// The product name.
        public var productName: String {
            switch self {
            case .st25tv02k: "ST25TV02K"
            case .st25dv04k: "ST25DV04K"
            case .st25dv64k: "ST25DV64K"
            }
        }

        /// Whether it is an ST25DV (areas, passwords, extended commands).
        public var isDynamic: Bool { self != .st25tv02k }
    }

    /// Bytes per block.
    public static let blockSize = 4
    /// The first area register (RFA1SS `04`) and the count of area registers (`04`–`0A`).
    static let areaRegisters = ST25DVRegister.rfa1ss...ST25DVRegister.rfa4ss
    /// Error code of a read of a read-protected block (assumed; see the type's documentation).
    public static let readProtectedError: UInt8 = ST25Command.blockReadProtected

    /// Which chip.
    public let variant: Variant
    /// The chip's name.
    public var modelName: String { variant.productName }
    /// The 8-byte UID, most significant byte first (`E0 02 …`).
    public let uid: [UInt8]
    /// Data storage format identifier.
    public var dsfid: UInt8 = 0
    /// Application family identifier.
    public var afi: UInt8 = 0
    /// Memory, block 0 first.
    public private(set) var memory: [UInt8]
    /// Per-block Lock Block state.
    public private(set) var locks: [Bool]
    /// The area registers `04`–`0A` (RFA1SS, ENDA1, RFA2SS, ENDA2, RFA3SS, ENDA3, RFA4SS).
    public private(set) var areaRegisters: [UInt8]
    /// RF passwords 0–3, 8 bytes each.
    public private(set) var passwords: [[UInt8]]
    /// Passwords presented since power-up (volatile).
    var sessions: Set<UInt8> = []
    /// ST25TV02K: the random number of the last GET RANDOM NUMBER, which the next PRESENT
    /// PASSWORD is covered with (volatile, used once).
    var random: [UInt8]?
    /// ST25TV02K: the state the next random number grows from (volatile, deterministic).
    var randomSeed: UInt16 = 0x5A17
    /// Grows with every change that a tag file keeps.
    public private(set) var revision = 0
    private var air = ISO15693AirInterface()

    /// A factory-fresh chip with `uid` (cut or zero-filled to 8 bytes).
    public init(_ variant: Variant, uid: [UInt8]) {
        self.variant = variant
        self.uid = (0..<8).map { $0 < uid.count ? uid[$0] : 0 }
        let size = variant.blockCount * Self.blockSize
        let area = Self.freshNDEFArea(for: variant)
        memory = area + [UInt8](repeating: 0, count: size - area.count)
        locks = [Bool](repeating: false, count: variant.blockCount)
        let lastUnit = UInt8(size / ST25DVRegister.endUnit - 1)
        // The ST25TV02K keeps its configuration registers 00–06 in the same 7 bytes (all 00,
        // open, assumed as delivered).
        areaRegisters = variant.isDynamic ? [0, lastUnit, 0, lastUnit, 0, lastUnit, 0] : [UInt8](repeating: 0, count: 7)
        passwords = [[UInt8]](repeating: [UInt8](repeating: 0, count: 8), count: 4)
    }

    /// The CC, empty NDEF TLV and terminator a fresh chip holds.
    public static func freshNDEFArea(for variant: Variant) -> [UInt8] {
        let size = variant.blockCount * blockSize
        let cc = Type5CapabilityContainer.forMemory(size: size, features: Type5CapabilityContainer.featureReadMultipleBlocks)
        var bytes = cc.bytes
        if variant.blockCount > 256 { bytes[0] = Type5CapabilityContainer.magicTwoByteAddress }
        return bytes + [Type5TLVType.ndefMessage, 0x00, Type5TLVType.terminator]
    }

    /// ISO 15693 target information: UID (MSB first) and DSFID.
    public var targetInfo: TargetInfo { .iso15693(ISO15693Target(uid: Bytes(uid), dsfid: dsfid)) }

    /// Power-up: ready, no password presented.
    public func powerOn() {
        air.state = .ready
        sessions = []
        random = nil
    }

    /// Stay quiet.
    public func halt() { air.state = .quiet }

    // MARK: - Tag file image

    /// Size of ``tagFileImage`` for `variant`.
    public static func tagFileImageSize(_ variant: Variant) -> Int {
        variant.blockCount * (blockSize + 1) + 3 + areaRegisters.count + 32
    }

    /// What a tag file keeps: memory, one lock byte per block (`01` locked), DSFID, AFI, a byte
    /// with bit 0 AFI locked (always 0 here), bit 1 DSFID locked (0), the 7 area registers, the
    /// 4 passwords. Setting a value of another length is ignored.
    public var tagFileImage: [UInt8] {
        get { memory + locks.map { $0 ? 1 : 0 } + [dsfid, afi, 0] + areaRegisters + passwords.flatMap { $0 } }
        set {
            guard newValue.count == Self.tagFileImageSize(variant) else { return }
            let size = variant.blockCount * Self.blockSize
            memory = Array(newValue[0..<size])
            locks = newValue[size..<size + variant.blockCount].map { $0 & 1 != 0 }
            var index = size + variant.blockCount
            dsfid = newValue[index]
            afi = newValue[index + 1]
            index += 3
            areaRegisters = Array(newValue[index..<index + Self.areaRegisters.count])
            index += Self.areaRegisters.count
            passwords = (0..<4).map { Array(newValue[(index + $0 * 8)..<(index + $0 * 8 + 8)]) }
        }
    }

    // MARK: - Requests

    /// Answers one request (see the type's documentation).
    public func respond(to frame: [UInt8]) -> TagAnswer {
        let request: ISO15693AirInterface.Request
        switch air.route(frame, uidOnAir: uidOnAir, manufacturerCode: ST25Command.manufacturerCode) {
        case .silence: return .silence
        case .inventory(let flags, let parameters): return air.inventory(flags: flags, parameters: parameters, uidOnAir: uidOnAir, afi: afi, dsfid: dsfid)
        case .request(let given): request = given
        }
        if let answer = air.answerStateCommand(request) { return answer }
        let command = request.command, rest = request.parameters, option = request.option, custom = request.isCustom
        let extended = (ISO15693Command.extendedReadSingleBlock...ISO15693Command.extendedGetMultipleBlockSecurityStatus).contains(command)
        if extended && !variant.isDynamic { return error(ISO15693Error.commandNotSupported) }
        if custom && !variant.isDynamic { return respondTV(command, rest) }
        let width = extended ? 2 : 1
        func number(_ at: Int) -> Int? {
            guard rest.count >= at + width else { return nil }
            return width == 1 ? Int(rest[at]) : Int(rest[at]) | Int(rest[at + 1]) << 8
        }

        switch command {
        case ISO15693Command.readSingleBlock, ISO15693Command.extendedReadSingleBlock:
            guard let block = number(0) else { return error(ISO15693Error.commandNotRecognized) }
            return read(first: block, count: 1, option: option)
        case ISO15693Command.readMultipleBlocks, ISO15693Command.extendedReadMultipleBlocks:
            guard let first = number(0), let count = number(width) else { return error(ISO15693Error.commandNotRecognized) }
            return read(first: first, count: count + 1, option: option)
        case ISO15693Command.writeSingleBlock, ISO15693Command.extendedWriteSingleBlock:
            guard let block = number(0), rest.count == width + Self.blockSize else { return error(ISO15693Error.commandNotRecognized) }
            return write(block, Array(rest[width...]))
        case ISO15693Command.lockBlock, ISO15693Command.extendedLockBlock:
            guard let block = number(0) else { return error(ISO15693Error.commandNotRecognized) }
            guard block < variant.blockCount else { return error(ISO15693Error.blockNotAvailable) }
            guard !locks[block] else { return error(ISO15693Error.alreadyLocked) }
            guard mayWrite(block) else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            locks[block] = true
            revision += 1
            return ok()
        case ISO15693Command.getMultipleBlockSecurityStatus, ISO15693Command.extendedGetMultipleBlockSecurityStatus:
            guard let first = number(0), let count = number(width) else { return error(ISO15693Error.commandNotRecognized) }
            guard first + count + 1 <= variant.blockCount else { return error(ISO15693Error.blockNotAvailable) }
            return .data([0x00] + (first...(first + count)).map { locks[$0] ? 0x01 : 0x00 })
        case ISO15693Command.getSystemInformation:
            if variant.blockCount > 256 {
                // Info flags 0B: DSFID, AFI, IC reference; the memory size needs the extended form.
                return .data([0x00, 0x0B] + uidOnAir + [dsfid, afi, variant.icReference])
            }
            return .data([0x00, 0x0F] + uidOnAir + [dsfid, afi, UInt8(variant.blockCount - 1), UInt8(Self.blockSize - 1), variant.icReference])
        case ISO15693Command.extendedGetSystemInformation:
            let asked = (rest.first ?? 0) & 0x1F
            let count = variant.blockCount - 1
            var answer: [UInt8] = [0x00, asked | (variant.blockCount > 256 ? ISO15693ExtendedSystemInfo.twoByteAddressing : 0)] + uidOnAir
            if variant.blockCount <= 256 { answer[1] &= ~ISO15693ExtendedSystemInfo.twoByteAddressing }
            if asked & ISO15693ExtendedSystemInfo.dsfidPresent != 0 { answer.append(dsfid) }
            if asked & ISO15693ExtendedSystemInfo.afiPresent != 0 { answer.append(afi) }
            if asked & ISO15693ExtendedSystemInfo.memorySizePresent != 0 {
                answer += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(Self.blockSize - 1)]
            }
            if asked & ISO15693ExtendedSystemInfo.icReferencePresent != 0 { answer.append(variant.icReference) }
            return .data(answer)
        case ST25Command.readConfiguration:
            guard let pointer = rest.first else { return error(ISO15693Error.commandNotRecognized) }
            guard Self.areaRegisters.contains(pointer) else { return error(ISO15693Error.blockNotAvailable) }
            return .data([0x00, areaRegisters[Int(pointer - ST25DVRegister.rfa1ss)]])
        case ST25Command.writeConfiguration:
            guard rest.count == 2 else { return error(ISO15693Error.commandNotRecognized) }
            return writeConfiguration(rest[0], rest[1])
        case ST25Command.presentPassword, ST25Command.writePassword:
            guard rest.count == 9, rest[0] <= 3 else { return error(ISO15693Error.commandNotRecognized) }
            let index = rest[0], given = Array(rest[1...])
            if command == ST25Command.presentPassword {
                guard given == passwords[Int(index)] else {
                    sessions.remove(index)
                    return error(ISO15693Error.unknown)
                }
                sessions.insert(index)
                return ok()
            }
            guard sessions.contains(index) else { return error(ISO15693Error.unknown) }
            passwords[Int(index)] = given
            revision += 1
            return ok()
        default:
            return error(ISO15693Error.commandNotSupported)
        }
    }

    // MARK: - ST25TV02K

    /// The ST25TV02K's custom commands (``ST25TVCommand``): GET RANDOM NUMBER, PRESENT PASSWORD
    /// covered with it (4 bytes), WRITE PASSWORD (4 clear bytes, as the ST25 SDK sends them),
    /// READ CONFIGURATION `00`–`06` (`07` reads 00), WRITE CONFIGURATION with password 3's
    /// session while LOCK_CFG bit 0 is clear (the counter `04` is read-only). With one area
    /// (MEM_ORG) PRESENT PASSWORD 1 carries 8 bytes and WRITE PASSWORD 1 and 2 write its halves
    /// in that session. Reads and writes obey the area attributes (``tvSecurity(of:)``). KILL
    /// and ENABLE UNTRACEABLE are not modelled (`01`).
    private func respondTV(_ command: UInt8, _ rest: [UInt8]) -> TagAnswer {
        switch command {
        case ST25TVCommand.getRandomNumber:
            randomSeed = randomSeed &* 25173 &+ 13849
            let value = [UInt8(randomSeed >> 8), UInt8(randomSeed & 0xFF)]
            random = value
            return .data([0x00] + value)
        case ST25Command.presentPassword:
            guard rest.count == 5 || rest.count == 9, rest[0] <= 3 else { return error(ISO15693Error.commandNotRecognized) }
            let number = rest[0]
            defer { random = nil }
            // Any PRESENT PASSWORD ends the sessions open before it (the ST25 SDK's tests close the
            // configuration session by presenting another password).
            sessions = []
            guard let random, let stored = ST25TVAreaPassword(bytes: tvPassword(number)), stored.bytes.count == rest.count - 1,
                  stored.covered(by: random) == Array(rest[1...])
            else { return error(ISO15693Error.unknown) }
            sessions = [number]
            return ok()
        case ST25Command.writePassword:
            guard rest.count == 5, rest[0] <= 3 else { return error(ISO15693Error.commandNotRecognized) }
            // With one area, passwords 1 and 2 are the halves of the 64-bit password 1.
            let session = singleArea && rest[0] == ST25TVCommand.area2Password ? ST25TVCommand.area1Password : rest[0]
            guard sessions.contains(session) else { return error(ISO15693Error.unknown) }
            passwords[Int(rest[0])].replaceSubrange(0..<4, with: rest[1...])
            revision += 1
            return ok()
        case ST25Command.readConfiguration:
            guard rest.count == 1, ST25TVRegister.all.contains(rest[0]) else { return error(ISO15693Error.blockNotAvailable) }
            return .data([0x00, rest[0] == ST25TVRegister.keyID ? 0 : areaRegisters[Int(rest[0])]])
        case ST25Command.writeConfiguration:
            guard rest.count == 2 else { return error(ISO15693Error.commandNotRecognized) }
            guard sessions.contains(ST25TVCommand.configurationPassword) else { return error(ISO15693Error.unknown) }
            guard areaRegisters[Int(ST25TVRegister.lockConfiguration)] & 0x01 == 0 else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            guard ST25TVRegister.all.contains(rest[0]), rest[0] != ST25TVRegister.counter, rest[0] != ST25TVRegister.keyID else {
                return error(ISO15693Error.blockNotAvailable)
            }
            areaRegisters[Int(rest[0])] = rest[1]
            revision += 1
            return ok()
        default:
            return error(ISO15693Error.commandNotSupported)
        }
    }

    /// ST25TV02K: one user area (area 1 attribute bit 2, MEM_ORG).
    var singleArea: Bool { !variant.isDynamic && areaRegisters[Int(ST25TVRegister.area1Security)] & ST25TVRegister.singleAreaBit != 0 }

    /// ST25TV02K: the bytes PRESENT PASSWORD `number` must carry, clear: 4, or with one area 8
    /// for password 1 (passwords 1 and 2 together) and none for password 2 (assumed refused).
    func tvPassword(_ number: UInt8) -> [UInt8] {
        guard singleArea, number == ST25TVCommand.area1Password || number == ST25TVCommand.area2Password else {
            return Array(passwords[Int(number)].prefix(4))
        }
        return number == ST25TVCommand.area1Password ? Array(passwords[1].prefix(4) + passwords[2].prefix(4)) : []
    }

    /// ST25TV02K: the area (1 or 2) of `block`, its attribute and its password number.
    func tvSecurity(of block: Int) -> (ST25TVAreaSecurity, UInt8) {
        let area = singleArea || block < ST25TVRegister.area2FirstBlock ? 1 : 2
        return (ST25TVAreaSecurity(areaRegisters[area - 1]), UInt8(area))
    }

    // MARK: - Private

    var uidOnAir: [UInt8] { uid.reversed() }
    func ok() -> TagAnswer { .data([0x00]) }
    func error(_ code: UInt8) -> TagAnswer { .data([0x01, code]) }

    /// The area (1–4) holding `block` (ENDAx: area x ends at byte 32 × ENDAx + 31).
    func area(of block: Int) -> Int {
        guard variant.isDynamic else { return 1 }
        let address = block * Self.blockSize
        for (index, end) in [areaRegisters[1], areaRegisters[3], areaRegisters[5]].enumerated()
        where address <= Int(end) * ST25DVRegister.endUnit + ST25DVRegister.endUnit - 1 {
            return index + 1
        }
        return 4
    }

    func security(of block: Int) -> (area: Int, ST25AreaSecurity) {
        let area = area(of: block)
        guard variant.isDynamic else { return (area, ST25AreaSecurity(register: 0)) }
        return (area, ST25AreaSecurity(register: areaRegisters[(area - 1) * 2]))
    }

    func unlocked(_ security: ST25AreaSecurity) -> Bool { security.password != 0 && sessions.contains(security.password) }

    func mayRead(_ block: Int) -> Bool {
        if !variant.isDynamic {
            let (security, number) = tvSecurity(of: block)
            return !security.protectsReads || sessions.contains(number)
        }
        let (area, security) = security(of: block)
        return !security.protectsReads(area: area) || unlocked(security)
    }

    func mayWrite(_ block: Int) -> Bool {
        if !variant.isDynamic {
            let (security, number) = tvSecurity(of: block)
            return !security.protectsWrites || (!security.refusesWrites && sessions.contains(number))
        }
        let (_, security) = security(of: block)
        guard security.protectsWrites else { return true }
        return security.protection != ST25AreaSecurity.readProtectedWriteForbidden && unlocked(security)
    }

    private func read(first: Int, count: Int, option: Bool) -> TagAnswer {
        guard count >= 1, first + count <= variant.blockCount else { return error(ISO15693Error.blockNotAvailable) }
        var answer: [UInt8] = [0x00]
        for block in first..<first + count {
            guard mayRead(block) else { return error(Self.readProtectedError) }
            if option { answer.append(locks[block] ? 0x01 : 0x00) }
            answer += memory[block * Self.blockSize..<(block + 1) * Self.blockSize]
        }
        return .data(answer)
    }

    private func write(_ block: Int, _ data: [UInt8]) -> TagAnswer {
        guard block < variant.blockCount else { return error(ISO15693Error.blockNotAvailable) }
        guard !locks[block], mayWrite(block) else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
        memory.replaceSubrange(block * Self.blockSize..<(block + 1) * Self.blockSize, with: data)
        revision += 1
        return ok()
    }

    private func writeConfiguration(_ pointer: UInt8, _ value: UInt8) -> TagAnswer {
        guard sessions.contains(0) else { return error(ISO15693Error.unknown) }
        guard Self.areaRegisters.contains(pointer) else { return error(ISO15693Error.blockNotAvailable) }
        var registers = areaRegisters
        registers[Int(pointer - ST25DVRegister.rfa1ss)] = value
        // ENDA1 ≤ ENDA2 ≤ ENDA3 ≤ the last unit of memory.
        let last = variant.blockCount * Self.blockSize / ST25DVRegister.endUnit - 1
        guard registers[1] <= registers[3], registers[3] <= registers[5], Int(registers[5]) <= last else {
            return error(ISO15693Error.unknown)
        }
        areaRegisters = registers
        revision += 1
        return ok()
    }
}

extension ST25VirtualTag: PersistentVirtualTag {
    /// The tag file: UID and ``tagFileImage``.
    public var tagState: TagState {
        TagState(model: variant.rawValue, uid: Hex.encode(uid), memory: Hex.encode(tagFileImage))
    }

    /// Changes with every write, lock, password or register change.
    public var stateRevision: Int { revision }

    /// Restores a chip from its file; nil when the model, UID or image does not fit.
    public convenience init?(state: TagState) {
        guard let variant = Variant(rawValue: state.model),
              let uid = try? Hex.decode(state.uid), uid.count == 8,
              let image = try? Hex.decode(state.memory), image.count == Self.tagFileImageSize(variant)
        else { return nil }
        self.init(variant, uid: uid)
        tagFileImage = image
    }
}

extension TagModel {
    /// The ST25TV02K, ST25DV04K and ST25DV64K entries.
    static let st25: [TagModel] = ST25VirtualTag.Variant.allCases.map { variant in
        let bytes = variant.blockCount * ST25VirtualTag.blockSize
        let extras = variant.isDynamic ? ", 4 areas, 64-bit area passwords" : ", 32-bit passwords and configuration registers"
        return TagModel(
            name: variant.rawValue,
            summary: "STMicroelectronics \(variant.productName) (ISO 15693), \(bytes) bytes\(extras), NFC Forum Type 5 formatted",
            uidLength: 8, defaultUID: [0xE0, 0x02, variant.icReference, 0x00, 0x53, 0x49, 0x4D, 0x01],
            make: { uid, _ in ST25VirtualTag(variant, uid: uid) },
            restore: { ST25VirtualTag(state: $0) })
    }
}
