public import NFCTags
public import VirtualTags
public import NFCCore

/// A contactless PC/SC reader with the generic PC/SC Part 3 profile, holding the tags of a
/// ``VirtualField``: it builds the Part 3 ATR of the tag in the field, answers GET DATA (`FF CA`),
/// READ BINARY (`FF B0`) and UPDATE BINARY (`FF D6`) on Type 2 pages and ISO 15693 blocks by
/// sending the tag its own commands, and passes other APDUs to an ISO-DEP tag.
///
/// Status words: `9000`; `6282` when Le asks more than there is; `6Cxx` when Le is shorter than
/// the data; `6700` a wrong Lc; `6A81` a function the card or profile lacks; `6A82` an address
/// the tag refuses; `6982` a locked ISO 15693 block; `6B00` a wrong P1-P2; `6300` when the tag
/// does not answer.
///
/// With a ``EmulatedReaderProfile`` other than `generic` it also answers the PC/SC Part 3
/// transparent session (`FF C2`, see ``TransparentSessionState``) or the ACR122U's direct
/// transmit (`FF 00 00 00` carrying PN532 InCommunicateThru) and LED and buzzer control
/// (`FF 00 40`, ``ACR122ULEDBuzzerControl``).
public final class GenericPart3Reader {
    /// The field whose current tag is "on the reader".
    public let field: VirtualField
    /// Which reader family it behaves as.
    public let profile: EmulatedReaderProfile
    /// The transparent session's state (closed unless a client started one).
    public internal(set) var session = TransparentSessionState()
    /// The MIFARE keys LOAD KEYS put in the reader's volatile slots.
    public internal(set) var keys: [UInt8: [UInt8]] = [:]
    /// The ACR122U profile's PN532 CIU registers, as ReadRegister/WriteRegister see them: TxMode
    /// and RxMode as the ACR122U leaves them for an ISO 14443-A card at 106 kbit/s (CRC on),
    /// CIU_Control with the initiator bit; set back at each card reset.
    public internal(set) var ciuRegisters = GenericPart3Reader.ciuResetValues

    /// The CIU registers' values at a card reset.
    static let ciuResetValues: [UInt16: UInt8] = [
        PN532Register.txMode: PN532Register.crcEnable, PN532Register.rxMode: PN532Register.crcEnable, PN532Register.control: 0x10,
        PN532Register.bitFraming: 0x00,
    ]

    /// What GET DATA `FF CA 01 00 00` answers for an ISO-DEP card: readers differ.
    public enum ATSAnswer: String, Sendable, CaseIterable {
        /// The ATS (as ACS readers do).
        case ats
        /// `6A 81`, function not supported (as Identiv's uTrust manuals give for HF cards).
        case unsupported
        /// The ATS's historical bytes only (as HID's readers answer).
        case historical
    }

    /// What GET DATA of the ATS answers (default: the ATS).
    public var atsAnswer: ATSAnswer = .ats
    /// The card name the ATR of an ISO 14443-A part 3 card gives instead of the one its SAK
    /// maps to (a reader naming a Topaz, a MIFARE Plus in SL1/SL2), or nil.
    public var cardName: UInt16?

    /// How the LED and buzzer command is answered (default: as the manual's success).
    public var feedbackAnswer: FeedbackAnswer = .success
    /// The LED state the ACR122U profile reports in `90 xx` (bit 0 red, bit 1 green).
    public internal(set) var ledState: UInt8 = 0
    /// Called with each LED and buzzer command the reader carries out (the emulator's
    /// `--feedback-log` writes it).
    public var onFeedback: ((ACR122ULEDBuzzerControl) -> Void)?

    /// A reader over `field` behaving as `profile`.
    public init(field: VirtualField, profile: EmulatedReaderProfile = .generic) {
        self.field = field
        self.profile = profile
    }

    /// The ATR of the tag in the field, or nil when there is none or it answers no poll (an
    /// ICODE chip in privacy mode: a real reader's inventory finds nothing, so there is no card).
    public var atr: Bytes? {
        guard let tag = field.currentTag, tag.answersPoll else { return nil }
        if let cardName, case .storageCard(let standard, _) = Self.atr(for: tag.targetInfo), standard == PCSCPart3.Standard.iso14443APart3 {
            return PCSCContactlessATR.storageCard(standard: standard, cardName: cardName).bytes
        }
        if case .jewel = tag.targetInfo, profile == .acr122u {
            // A real ACR122U names a Type 1 tag F0 04 (pcsc-tools' smartcard_list.txt).
            return PCSCContactlessATR.storageCard(standard: PCSCPart3.Standard.iso14443APart3, cardName: PCSCPart3.CardName.acsTopazJewel).bytes
        }
        return Self.atr(for: tag.targetInfo).bytes
    }

    /// The Part 3 ATR of a card: ISO-DEP cards by their ATS's historical bytes, storage cards
    /// by standard and card name (FeliCa `003B`, NXP ISO 15693 `0014`, a Type 1 tag Topaz `0030`,
    /// other ISO 15693 and unknown chips `0000`), as real readers' ATRs show (Tests/Fixtures/captures).
    public static func atr(for info: TargetInfo) -> PCSCContactlessATR {
        switch info {
        case .iso14443A(let a) where a.supportsISODEP:
            return .isoDEP(historicalBytes: a.historicalBytes)
        case .iso14443A(let a):
            let name: UInt16 =
                switch a.sak {
                case 0x08: PCSCPart3.CardName.mifareClassic1K
                case 0x18: PCSCPart3.CardName.mifareClassic4K
                case 0x09: PCSCPart3.CardName.mifareMini
                case 0x00: PCSCPart3.CardName.mifareUltralight
                default: PCSCPart3.CardName.none
                }
            return .storageCard(standard: PCSCPart3.Standard.iso14443APart3, cardName: name)
        case .iso15693(let v):
            // Real readers name NXP's ICODE cards (UID E0 04 …) ICODE SLI (pcsc-tools'
            // "Philips ICode" ATR); other makers' cards keep card name 0000 here.
            let nxp = v.uid.count == 8 && v.uid[0] == 0xE0 && v.uid[1] == ChipIdentification.nxpManufacturerCode
            return .storageCard(
                standard: PCSCPart3.Standard.iso15693Part3, cardName: nxp ? PCSCPart3.CardName.icodeSLI : PCSCPart3.CardName.none)
        case .felica:
            // Real readers (pcsc-tools' FeliCa ATR; Sony RC-S300, ACS ACR1251U) give card name 003B.
            return .storageCard(standard: PCSCPart3.Standard.felica, cardName: PCSCPart3.CardName.felica)
        case .iso14443B:
            return .storageCard(standard: PCSCPart3.Standard.iso14443BPart3, cardName: PCSCPart3.CardName.none)
        case .jewel:
            // Part 3's card name for a Topaz (the virtual Type 1 tags are Topaz 96/512).
            return .storageCard(standard: PCSCPart3.Standard.iso14443APart3, cardName: PCSCPart3.CardName.topaz)
        }
    }

    /// Powers the tag in the field on again (a card reset).
    public func reset() {
        session = TransparentSessionState()
        ciuRegisters = Self.ciuResetValues
        guard let tag = field.currentTag else { return }
        if let activatable = tag as? any ActivatableVirtualTag { activatable.activate() } else { tag.powerOn() }
    }

    /// The response APDU (data and SW1 SW2) to a command APDU. A tag that plays a trace
    /// (``VirtualTags/TracePlayerTag``) has the last word (``replayed(_:by:)``).
    public func respond(to apdu: [UInt8]) -> [UInt8] {
        guard let player = field.currentTag as? TracePlayerTag else { return cardResponse(to: apdu) }
        return replayed(apdu, by: player)
    }

    /// The response of the card itself: the Part 3 pseudo-APDUs, or the tag's answer.
    func cardResponse(to apdu: [UInt8]) -> [UInt8] {
        guard let tag = field.currentTag else { return Self.sw(PCSCPart3.StatusWord.noInformation) }
        guard apdu.count >= 4 else { return Self.sw(PCSCPart3.StatusWord.wrongLength) }
        guard apdu[0] == PCSCPart3.pseudoClass else {
            guard tag is any ISODEPVirtualTag else { return Self.sw(PCSCPart3.StatusWord.functionNotSupported) }
            switch field.exchange(apdu: apdu) {
            case .apdu(let answer): return answer
            default: return Self.sw(PCSCPart3.StatusWord.noInformation)
            }
        }
        let ins = apdu[1], p1 = apdu[2], p2 = apdu[3]
        if ins == PCSCPart3.TransparentSession.instruction, p1 == 0x00, profile.hasTransparentSession {
            return transparentSession(apdu, tag: tag)
        }
        if Array(apdu.prefix(4)) == PCSCPart3.ACR122U.directTransmit, profile == .acr122u {
            return directTransmit(apdu, tag: tag)
        }
        if Array(apdu.prefix(3)) == PCSCPart3.ACR122U.ledBuzzerControl, profile.hasLEDBuzzer {
            return ledBuzzerControl(apdu)
        }
        switch ins {
        case PCSCPart3.getData:
            guard apdu.count == 5 else { return Self.sw(PCSCPart3.StatusWord.wrongLength) }
            guard p2 == 0 else { return Self.sw(PCSCPart3.StatusWord.wrongParameter) }
            let data: [UInt8]
            switch p1 {
            case PCSCPart3.getDataUID:
                // ISO 15693 UIDs go as on the air, least significant byte first.
                if case .iso15693(let v) = tag.targetInfo { data = v.uid.array.reversed() } else { data = tag.targetInfo.identifier.array }
            case PCSCPart3.getDataATS:
                guard case .iso14443A(let a) = tag.targetInfo, a.supportsISODEP else { return Self.sw(PCSCPart3.StatusWord.functionNotSupported) }
                switch atsAnswer {
                case .ats: data = a.ats.array
                case .unsupported: return Self.sw(PCSCPart3.StatusWord.functionNotSupported)
                case .historical: data = a.historicalBytes.array
                }
            default:
                return Self.sw(PCSCPart3.StatusWord.wrongParameter)
            }
            return Self.answer(data, le: Int(apdu[4]))
        case PCSCPart3.readBinary:
            guard apdu.count == 5 else { return Self.sw(PCSCPart3.StatusWord.wrongLength) }
            return readBinary(tag, address: Int(p1) << 8 | Int(p2), le: Int(apdu[4]))
        case PCSCPart3.updateBinary:
            guard apdu.count >= 6, Int(apdu[4]) == apdu.count - 5 else { return Self.sw(PCSCPart3.StatusWord.wrongLength) }
            return updateBinary(tag, address: Int(p1) << 8 | Int(p2), Array(apdu[5...]))
        case PCSCPart3.loadKeys:
            return loadKeys(p1: p1, p2: p2, apdu)
        case PCSCPart3.generalAuthenticate:
            return generalAuthenticate(tag, p1: p1, p2: p2, apdu)
        default:
            return Self.sw(PCSCPart3.StatusWord.functionNotSupported)
        }
    }

    /// Data with `9000`, cut to Le (`6Cxx` when Le is shorter, `6282` when longer; Le 0: all).
    static func answer(_ data: [UInt8], le: Int) -> [UInt8] {
        if le == 0 || le == data.count { return data + sw(PCSCPart3.StatusWord.success) }
        if le < data.count { return [PCSCPart3.StatusWord.wrongLeHigh, UInt8(data.count)] }
        return data + sw(PCSCPart3.StatusWord.endReached)
    }

    private func readBinary(_ tag: any VirtualTag, address: Int, le: Int) -> [UInt8] {
        switch tag.targetInfo {
        case .iso14443A(let a) where Self.isClassic(a):
            return classicRead(block: address, le: le)
        case .iso14443A(let a) where !a.supportsISODEP && a.sak == 0x00:
            guard address <= 0xFF else { return Self.sw(PCSCPart3.StatusWord.addressOutOfRange) }
            guard le == 0 || le <= PCSCPart3.type2ReadLength else { return Self.sw(PCSCPart3.StatusWord.wrongLength) }
            switch field.exchange(frame: [Type2Command.read, UInt8(address)]) {
            case .frame(.data(let bytes)) where bytes.count == PCSCPart3.type2ReadLength:
                return Array(bytes.prefix(le == 0 ? PCSCPart3.type2ReadLength : le)) + Self.sw(PCSCPart3.StatusWord.success)
            case .frame(.nak): return Self.sw(PCSCPart3.StatusWord.addressOutOfRange)
            default: return Self.sw(PCSCPart3.StatusWord.noInformation)
            }
        case .iso15693:
            switch field.exchange(frame: Self.iso15693BlockRequest(
                ISO15693Command.readSingleBlock, extended: ISO15693Command.extendedReadSingleBlock, address: address)) {
            case .frame(.data(let bytes)) where bytes.first == 0x00 && bytes.count > 1:
                return Self.answer(Array(bytes.dropFirst()), le: le)
            case .frame(.data(let bytes)) where bytes.count == 2 && bytes[0] & ISO15693ResponseFlag.error != 0:
                return Self.sw(PCSCPart3.StatusWord.addressOutOfRange)
            default: return Self.sw(PCSCPart3.StatusWord.noInformation)
            }
        default:
            return Self.sw(PCSCPart3.StatusWord.functionNotSupported)
        }
    }

    private func updateBinary(_ tag: any VirtualTag, address: Int, _ data: [UInt8]) -> [UInt8] {
        switch tag.targetInfo {
        case .iso14443A(let a) where Self.isClassic(a):
            return classicWrite(block: address, data)
        case .iso14443A(let a) where !a.supportsISODEP && a.sak == 0x00:
            guard data.count == PCSCPart3.type2PageLength else { return Self.sw(PCSCPart3.StatusWord.wrongLength) }
            guard address <= 0xFF else { return Self.sw(PCSCPart3.StatusWord.addressOutOfRange) }
            switch field.exchange(frame: [Type2Command.write, UInt8(address)] + data) {
            case .frame(.ack): return Self.sw(PCSCPart3.StatusWord.success)
            case .frame(.nak): return Self.sw(PCSCPart3.StatusWord.addressOutOfRange)
            default: return Self.sw(PCSCPart3.StatusWord.noInformation)
            }
        case .iso15693:
            switch field.exchange(frame: Self.iso15693BlockRequest(
                ISO15693Command.writeSingleBlock, extended: ISO15693Command.extendedWriteSingleBlock, address: address) + data) {
            case .frame(.data(let bytes)) where bytes == [0x00]:
                return Self.sw(PCSCPart3.StatusWord.success)
            case .frame(.data(let bytes)) where bytes.count == 2 && bytes[0] & ISO15693ResponseFlag.error != 0:
                switch bytes[1] {
                case ISO15693Error.lockedBlockCannotBeChanged, ISO15693Error.alreadyLocked:
                    return Self.sw(PCSCPart3.StatusWord.securityNotSatisfied)
                case ISO15693Error.blockNotAvailable: return Self.sw(PCSCPart3.StatusWord.addressOutOfRange)
                case ISO15693Error.programmingFailed: return Self.sw(PCSCPart3.StatusWord.memoryFailure)
                default: return Self.sw(PCSCPart3.StatusWord.wrongLength)
                }
            default: return Self.sw(PCSCPart3.StatusWord.noInformation)
            }
        default:
            return Self.sw(PCSCPart3.StatusWord.functionNotSupported)
        }
    }

    static func sw(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// The tag command READ/UPDATE BINARY of ISO 15693 block `address` sends: the plain command
    /// up to block 255, the extended one (2-byte block number, least significant byte first)
    /// beyond — an assumption where readers' manuals do not say how they reach blocks past 255.
    static func iso15693BlockRequest(_ plain: UInt8, extended: UInt8, address: Int) -> [UInt8] {
        if address <= 0xFF { return [ISO15693RequestFlag.dataRate, plain, UInt8(address)] }
        return [ISO15693RequestFlag.dataRate, extended, UInt8(address & 0xFF), UInt8(address >> 8)]
    }
}
