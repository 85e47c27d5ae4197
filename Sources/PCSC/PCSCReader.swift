public import NFCCore
import CPCSCLite
public import NFCTags

/// A contactless reader driven through pcsc-lite (pcscd): ACR1252U, ACR1552U, uTrust, OMNIKEY…,
/// or the virtual reader of `pcsc-reader-emulator` behind vpcd.
///
/// The card is identified from the ATR the reader builds and from GET DATA (`FF CA`); Type 2
/// pages and ISO 15693 blocks are read and written with READ BINARY (`FF B0`) and UPDATE BINARY
/// (`FF D6`); ISO-DEP cards get their APDUs as they are. Other tag commands (GET_VERSION,
/// PWD_AUTH, LOCK BLOCK, GET SYSTEM INFORMATION…) take the raw path of the reader's
/// ``PCSCReaderProfile`` (chosen by its name): the PC/SC Part 3 transparent session (ACR1552U,
/// uTrust 3700 F) or the ACR122U's direct transmit. Where the profile has none, such a command
/// fails with ``NFCReaderDeviceError/Code/notSupported`` and sends nothing. A Type 1 tag (the
/// ATR's card name Jewel, Topaz or the ACR122U's `F004`) has no storage pseudo-APDU: all its
/// commands take the raw path (the transparent session carries every one, the ACR122U's PN532
/// InDataExchange the byte commands).
///
/// One actor per reader, running on a thread of its own (pcsc-lite blocks). Open it with
/// ``open(_:)``.
public actor PCSCReader: NFCReader {
    let executor: DeviceThreadExecutor
    /// Where this actor's jobs run.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    var context: ContextHandle?
    var card: CardHandle?
    var selectedInfo: TargetInfo?
    /// The reader's state (`SCARD_STATE_*` and pcscd's card event counter in the high 16 bits)
    /// when the selected card was found: ``waitForRemoval(timeout:checkInterval:)`` waits for it
    /// to change.
    var selectedState: DWORD?
    /// Cuts a blocked removal wait short from another thread (task cancellation, close).
    nonisolated let removalWait = StatusWaitCanceller()
    /// The open transparent session's switch protocol (standard, layer), if one is open.
    var session: (standard: UInt8, layer: UInt8)?
    /// The reader family's profile: which path each operation takes.
    public nonisolated let profile: PCSCReaderProfile
    /// The MIFARE key LOAD KEYS last put in slot 0 (forgotten at each poll).
    var loadedKey: Bytes?
    /// The PN532's CIU TxMode and RxMode as the ACR122U set them for the card (read at the
    /// card's first direct transmit, forgotten at each poll).
    var ciuModes: (tx: UInt8, rx: UInt8)?
    /// The card refused a raw command (a NAK) and went idle: it is left with a reset
    /// (`SCARD_RESET_CARD`) rather than as it is, so that the next poll or client finds it
    /// active again.
    var leaveWithReset = false
    /// The reader's name as pcscd gives it (`ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] 00 00`).
    public let name: String
    /// The connection string it was opened with (`pcsc`, `pcsc:ACS`, `pcsc:#1`).
    public let connectionString: String
    /// What PC/SC readers reach: ISO 14443-A (Type 2 storage cards and ISO-DEP), ISO 15693
    /// storage cards and Type 1 tags (named in the ATR; their commands need a profile with a
    /// raw path, ``PCSCReaderProfile/path(for:on:)``).
    public nonisolated var supportedModulations: [Modulation] { [.iso14443A, .iso15693, .jewel] }

    private init(context: ContextHandle, name: String, connectionString: String, executor: DeviceThreadExecutor) {
        self.context = context
        self.name = name
        self.connectionString = connectionString
        self.executor = executor
        self.profile = PCSCReaderProfile.matching(readerName: name)
    }

    /// Which reader a connection string names: `pcsc` the first, `pcsc:NAME` the first whose
    /// name starts with NAME, `pcsc:#N` the N-th (from 0, as `pcsc_scan` numbers them).
    public enum Selector: Sendable, Hashable {
        /// The first reader.
        case first
        /// The first reader whose name starts with this.
        case namePrefix(String)
        /// The reader at this index.
        case index(Int)

        /// Whether `connectionString` is a PC/SC one (`pcsc` or `pcsc:…`).
        public static func accepts(_ connectionString: String) -> Bool {
            connectionString == "pcsc" || connectionString.hasPrefix("pcsc:")
        }

        /// Parses `pcsc`, `pcsc:NAME`, `pcsc:#N`.
        /// - Throws: ``NFCReaderDeviceError`` `invalidArgument` for anything else.
        public init(parsing connectionString: String) throws(NFCReaderDeviceError) {
            guard Self.accepts(connectionString) else {
                throw NFCReaderDeviceError(.invalidArgument, "'\(connectionString)' is not a PC/SC connection string (pcsc, pcsc:NAME, pcsc:#N)")
            }
            let rest = connectionString.dropFirst(4).drop { $0 == ":" }
            if rest.isEmpty {
                self = .first
            } else if rest.hasPrefix("#") {
                guard let n = Int(rest.dropFirst()), n >= 0 else {
                    throw NFCReaderDeviceError(.invalidArgument, "'\(connectionString)': after pcsc:# comes a reader number from 0")
                }
                self = .index(n)
            } else {
                self = .namePrefix(String(rest))
            }
        }

        /// The reader of `names` this selector names, or nil.
        public func pick(from names: [String]) -> String? {
            switch self {
            case .first: names.first
            case .namePrefix(let prefix): names.first { $0.hasPrefix(prefix) }
            case .index(let n): n < names.count ? names[n] : nil
            }
        }
    }

    /// The names of the PC/SC readers pcscd knows, in its order (`pcsc:#N` numbering).
    /// - Throws: ``NFCReaderDeviceError`` `deviceNotFound` when pcscd is not running, `io` for other
    ///   failures.
    public static func readerNames() async throws(NFCReaderDeviceError) -> [String] {
        let executor = DeviceThreadExecutor(name: "pcsc list")
        defer { executor.stop() }
        return try await PCSCListing(executor: executor).names()
    }

    /// Opens the PC/SC reader a connection string names (see ``Selector``).
    /// - Throws: ``NFCReaderDeviceError`` `deviceNotFound` (pcscd not running, no such reader),
    ///   `invalidArgument` (a malformed string), `io`.
    public static func open(_ connectionString: String) async throws(NFCReaderDeviceError) -> PCSCReader {
        let selector = try Selector(parsing: connectionString)
        let executor = DeviceThreadExecutor(name: "pcsc \(connectionString)")
        let opened: (ContextHandle, String)
        do {
            opened = try await PCSCListing(executor: executor).open(selector, connectionString)
        } catch {
            executor.stop()
            throw error
        }
        return PCSCReader(context: opened.0, name: opened.1, connectionString: connectionString, executor: executor)
    }

    // MARK: - Polling

    public func poll(for modulations: [Modulation], timeout: Duration) async throws(NFCReaderDeviceError) -> TargetInfo? {
        let context = try openContext()
        endSession()
        loadedKey = nil
        ciuModes = nil
        if let card {
            pcscDisconnect(card, reset: leaveWithReset)
            self.card = nil
        }
        leaveWithReset = false
        selectedInfo = nil
        selectedState = nil
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var state: DWORD = 0
        while true {
            let remaining = max(Duration.zero, deadline - clock.now)
            // At most 200 ms per wait, so a cancelled task or a closed reader is noticed.
            let wait = min(remaining, .milliseconds(200))
            do {
                state = try pcscGetStatusChange(context, reader: name, current: state, milliseconds: Self.milliseconds(wait))
            } catch {
                throw Self.readerError(error)
            }
            if state & pcscStatePresent != 0, state & pcscStateMute == 0 {
                // A card that left while it was being identified (or whose answer broke off on
                // the way: a card swapped in that instant), or one the profile cannot handle
                // (another standard, a foreign ATR), is no tag: batch and watch go on polling.
                let found: TargetInfo?
                do throws(NFCReaderDeviceError) {
                    found = try select(context)
                } catch where [.notSupported, .tagLost, .rfError, .timeout].contains(error.code) {
                    found = nil
                }
                if let info = found, modulations.contains(info.modulation) {
                    selectedInfo = info
                    selectedState = state
                    return info
                }
                // A card of another kind: wait for it to change rather than ask again at once.
                if let card { pcscDisconnect(card) }
                card = nil
            }
            if clock.now >= deadline || Task.isCancelled { return nil }
            if state & pcscStatePresent != 0 {
                try? await Task.sleep(for: min(.milliseconds(50), max(.zero, deadline - clock.now)))
            }
            _ = try openContext()
        }
    }

    /// Why the card the last poll saw is no tag NFCKit handles (a card name it does not know), if so.
    public private(set) var unsupportedCardReason: String?

    /// Connects to the card and tells what it is from its ATR and GET DATA.
    func select(_ context: ContextHandle) throws(NFCReaderDeviceError) -> TargetInfo? {
        unsupportedCardReason = nil
        let card: CardHandle
        let atr: [UInt8]
        do {
            card = try pcscConnect(context, reader: name)
            atr = try pcscStatus(card).atr
        } catch where error.meansCardGone {
            return nil
        } catch {
            throw Self.readerError(error)
        }
        self.card = card
        let parsed: PCSCContactlessATR
        do {
            parsed = try PCSCContactlessATR(parsing: Bytes(atr))
        } catch {
            throw NFCReaderDeviceError(.notSupported, "the card's ATR \(Hex.encode(atr)) is not a contactless card's as PC/SC Part 3 builds it: \(error.reason)")
        }
        let uid = try getData(PCSCPart3.getDataUID, what: "the UID")
        switch parsed {
        case .storageCard(let standard, let cardName):
            switch standard {
            case PCSCPart3.Standard.iso14443APart3 where PCSCPart3.CardName.isType1(cardName):
                // A Type 1 tag: GET DATA gives UID0…UID3 (a reader giving all 7 bytes of block 0
                // is cut to the 4 every command carries); PC/SC gives no SENS_RES.
                guard uid.count >= Type1Memory.commandUIDLength else {
                    let reason = "the Type 1 tag on \(name) has a UID of \(uid.count) bytes from GET DATA, not the 4 its commands carry: NFCKit sends it no command"
                    unsupportedCardReason = reason
                    throw NFCReaderDeviceError(.notSupported, reason)
                }
                return .jewel(JewelTarget(sensRes: Bytes(), id: Bytes(Array(uid.array.prefix(Type1Memory.commandUIDLength)))))
            case PCSCPart3.Standard.iso14443APart3:
                // PC/SC gives neither ATQA nor SAK: the SAK follows from the card name, the
                // ATQA stays unknown (empty). A name NFCKit does not know gets no command.
                guard let sak = PCSCPart3.CardName.sak(cardName) else {
                    let reason = "unsupported card (\(PCSCPart3.CardName.describe(cardName))) on \(name): NFCKit sends it no command"
                    unsupportedCardReason = reason
                    throw NFCReaderDeviceError(.notSupported, reason)
                }
                return .iso14443A(ISO14443ATarget(uid: uid, atqa: Bytes(), sak: sak))
            case PCSCPart3.Standard.iso15693Part3:
                return .iso15693(ISO15693Target(uid: Self.mostSignificantFirst(uid)))
            default:
                throw NFCReaderDeviceError(
                    .notSupported,
                    "the card on \(name) uses PC/SC standard 0x\(Hex.encode([standard])); the generic PC/SC profile handles ISO 14443-A part 3 and ISO 15693 part 3 storage cards and ISO-DEP cards")
            }
        case .isoDEP(let historical):
            return .iso14443A(ISO14443ATarget(uid: uid, atqa: Bytes(), sak: 0x20, ats: Self.ats(getData: try? getData(PCSCPart3.getDataATS, what: "the ATS"), historical: historical)))
        }
    }

    /// The ATS of an ISO-DEP card from GET DATA `FF CA 01` when the reader gives it, else from
    /// the ATR's historical bytes: GET DATA of the ATS is optional (Identiv's uTrust answers
    /// `6A 81` for HF cards; HID's readers give the historical bytes only). Readers give the ATS
    /// with or without its length byte TL: NFCKit keeps it whole. Built from the historical
    /// bytes, the ATS is TL, T0 = `00` (no interface bytes announced, FSCI 0) and the bytes.
    static func ats(getData: Bytes?, historical: Bytes) -> Bytes {
        guard var ats = getData, !ats.isEmpty, ats != historical else {
            return Bytes([UInt8(truncatingIfNeeded: historical.count + 2), 0x00] + historical.array)
        }
        if Int(ats[0]) != ats.count { ats = Bytes([UInt8(truncatingIfNeeded: ats.count + 1)] + ats.array) }
        return ats
    }

    /// An ISO 15693 UID most significant byte first: readers give it as it is sent on the air
    /// (least significant byte first) or already turned; the most significant byte is `E0`.
    /// A UID with `E0` at both ends (an ST25TV02KC in ST's own trace: `E0 02 08 00 0B 1B 31 E0`)
    /// is told by its manufacturer code, the byte after the `E0`: the order whose code
    /// ``ISO15693ChipTable`` knows wins; when both or neither are known, it is left as given.
    static func mostSignificantFirst(_ uid: Bytes) -> Bytes {
        guard uid.count == 8, uid[7] == 0xE0 else { return uid }
        guard uid[0] == 0xE0 else { return Bytes(uid.array.reversed()) }
        let known = { (code: UInt8) in ISO15693ChipTable.manufacturer(code) != nil }
        return !known(uid[1]) && known(uid[6]) ? Bytes(uid.array.reversed()) : uid
    }

    /// GET DATA (`FF CA P1 00 00`): the data without SW1 SW2.
    func getData(_ p1: UInt8, what: String) throws(NFCReaderDeviceError) -> Bytes {
        let (data, sw) = try transmit([PCSCPart3.pseudoClass, PCSCPart3.getData, p1, 0x00, 0x00])
        guard sw == PCSCPart3.StatusWord.success else {
            throw Self.statusError(sw, "GET DATA (\(what))", reader: name)
        }
        return Bytes(data)
    }

    // MARK: - Commands

    public func transceive(_ command: Bytes, mode: TransceiveMode, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        _ = try openContext()
        guard card != nil, let info = selectedInfo else { throw NFCReaderDeviceError(.tagLost, "no tag is selected: poll first") }
        let frame = command.array
        guard let kind = Self.kind(of: info) else { throw notCarried(frame, "this card") }
        switch kind {
        case .isoDEP where mode == .standard:
            let (data, sw) = try transmit(frame)
            return Bytes(data + [UInt8(sw >> 8), UInt8(sw & 0xFF)])
        case .mifareClassic where Self.classicCarries(frame) && profile.path(for: .read, on: .mifareClassic) != nil:
            return try classic(frame)
        case .type2 where Self.type2Carries(frame) && session == nil:
            return try type2(frame)
        case .iso15693 where Self.iso15693Carries(frame) && session == nil:
            return try iso15693(frame)
        case .type1:
            switch profile.path(for: .tagCommand, on: .type1) {
            case .transparentSession: return try transparentTransceive(frame, kind: .type1, timeout: timeout)
            case .directTransmit where !Type1Command.needsDynamicCommandSet(frame.first ?? 0): return try type1DataExchange(frame)
            default: throw notCarried(frame, .type1)
            }
        case .type2, .iso15693:
            // Once a session is open, every command of the card goes through it: what the card
            // was told there (PWD_AUTH) lasts only as long as the session.
            switch profile.path(for: .tagCommand, on: kind) {
            case .transparentSession: return try transparentTransceive(frame, kind: kind, timeout: timeout)
            case .directTransmit: return try directTransmit(frame)
            default: throw notCarried(frame, kind)
            }
        default:
            throw notCarried(frame, kind)
        }
    }

    /// Throws `notSupported` for a command the reader's profile cannot carry to the selected
    /// card; sends nothing.
    public func checkCanSend(_ command: Bytes, mode: TransceiveMode) async throws(NFCReaderDeviceError) {
        guard let info = selectedInfo else { return }
        let frame = command.array
        guard let kind = Self.kind(of: info) else { throw notCarried(frame, "this card") }
        switch kind {
        case .isoDEP where mode == .standard: return
        case .mifareClassic where Self.classicCarries(frame) && profile.path(for: .read, on: .mifareClassic) != nil: return
        case .type2 where Self.type2Carries(frame): return
        case .iso15693 where Self.iso15693Carries(frame): return
        case .type1:
            switch profile.path(for: .tagCommand, on: .type1) {
            case .transparentSession: return
            case .directTransmit where !Type1Command.needsDynamicCommandSet(frame.first ?? 0): return
            default: throw notCarried(frame, .type1)
            }
        case .type2, .iso15693:
            if profile.path(for: .tagCommand, on: kind) != nil { return }
            throw notCarried(frame, kind)
        default:
            throw notCarried(frame, kind)
        }
    }

    /// The card kind the profile tells apart, from what identification found.
    static func kind(of info: TargetInfo) -> PCSCCardKind? {
        switch info {
        case .iso14443A(let a) where a.supportsISODEP: .isoDEP
        case .iso14443A(let a) where a.sak == 0x00: .type2
        case .iso14443A(let a) where [0x08, 0x18, 0x09].contains(a.sak): .mifareClassic
        case .iso15693: .iso15693
        case .jewel: .type1
        default: nil
        }
    }

    /// Whether a Type 2 frame is one the storage pseudo-APDUs map: READ, FAST_READ, WRITE.
    static func type2Carries(_ frame: [UInt8]) -> Bool {
        switch (frame.first, frame.count) {
        case (Type2Command.read, 2), (Type2Command.write, 2 + PCSCPart3.type2PageLength): true
        case (Type2Command.fastRead, 3): frame[2] >= frame[1]
        default: false
        }
    }

    /// Whether an ISO 15693 request is one the storage pseudo-APDUs map: READ SINGLE BLOCK,
    /// READ MULTIPLE BLOCKS, WRITE SINGLE BLOCK, and their extended forms (2-byte block numbers,
    /// which READ/UPDATE BINARY's P1-P2 address holds). A write with the option flag (a TI
    /// Tag-it's) is not: UPDATE BINARY has no way to ask the reader for the flag, so it goes
    /// through the transparent session when the profile has one, and is refused before anything
    /// is sent when it has not.
    static func iso15693Carries(_ frame: [UInt8]) -> Bool {
        guard frame.count >= 2 else { return false }
        let addressed = frame[0] & ISO15693RequestFlag.address != 0
        let parameters = frame.count - 2 - (addressed ? 8 : 0)
        switch frame[1] {
        case ISO15693Command.readSingleBlock: return parameters == 1
        case ISO15693Command.readMultipleBlocks: return parameters == 2
        case ISO15693Command.writeSingleBlock: return parameters >= 2 && frame[0] & ISO15693RequestFlag.option == 0
        case ISO15693Command.extendedReadSingleBlock: return parameters == 2
        case ISO15693Command.extendedReadMultipleBlocks: return parameters == 4
        case ISO15693Command.extendedWriteSingleBlock: return parameters >= 3 && frame[0] & ISO15693RequestFlag.option == 0
        default: return false
        }
    }

    /// Type 2 commands as storage-card pseudo-APDUs: READ (`30`) and FAST_READ (`3A`) as READ
    /// BINARY, WRITE (`A2`) as UPDATE BINARY of one page.
    func type2(_ frame: [UInt8]) throws(NFCReaderDeviceError) -> Bytes {
        guard let command = frame.first else { throw NFCReaderDeviceError(.invalidArgument, "an empty frame") }
        switch (command, frame.count) {
        case (Type2Command.read, 2):
            return Bytes(try readBinary(address: Int(frame[1]), length: PCSCPart3.type2ReadLength, what: "READ page \(frame[1])"))
        case (Type2Command.fastRead, 3) where frame[2] >= frame[1]:
            var bytes: [UInt8] = []
            var page = Int(frame[1])
            let end = Int(frame[2])
            while page <= end {
                let pages = min(end - page + 1, PCSCPart3.type2ReadLength / PCSCPart3.type2PageLength)
                let data = try readBinary(address: page, length: PCSCPart3.type2ReadLength, what: "FAST_READ page \(page)")
                bytes += data.prefix(pages * PCSCPart3.type2PageLength)
                page += pages
            }
            return Bytes(bytes)
        case (Type2Command.write, 2 + PCSCPart3.type2PageLength):
            try updateBinary(address: Int(frame[1]), Array(frame[2...]), what: "WRITE page \(frame[1])")
            return Bytes()
        default:
            throw notCarried(frame, .type2)
        }
    }

    /// ISO 15693 requests as storage-card pseudo-APDUs: READ SINGLE BLOCK and READ MULTIPLE
    /// BLOCKS (plain or extended) as READ BINARY per block, WRITE SINGLE BLOCK (plain or
    /// extended) as UPDATE BINARY; P1-P2 holds the block number, up to FFFF. The answer is built
    /// as the tag's would be (flags `00`); with the option flag each block gets a security
    /// status byte `00`, because READ BINARY does not tell a block's lock state.
    func iso15693(_ frame: [UInt8]) throws(NFCReaderDeviceError) -> Bytes {
        guard frame.count >= 2 else { throw NFCReaderDeviceError(.invalidArgument, "an ISO 15693 request of \(frame.count) bytes") }
        let flags = frame[0], command = frame[1]
        var parameters = Array(frame.dropFirst(2))
        if flags & ISO15693RequestFlag.address != 0 {
            guard parameters.count >= 8 else { throw NFCReaderDeviceError(.invalidArgument, "an addressed ISO 15693 request without its UID") }
            parameters.removeFirst(8)
        }
        let option = flags & ISO15693RequestFlag.option != 0
        let status: [UInt8] = option ? [0x00] : []
        switch (command, parameters.count) {
        case (ISO15693Command.readSingleBlock, 1):
            let block = try readBinary(address: Int(parameters[0]), length: 0, what: "READ SINGLE BLOCK \(parameters[0])")
            return Bytes([0x00] + status + block)
        case (ISO15693Command.readMultipleBlocks, 2):
            var answer: [UInt8] = [0x00]
            let first = Int(parameters[0])
            for block in first...(first + Int(parameters[1])) {
                answer += status + (try readBinary(address: block, length: 0, what: "READ MULTIPLE BLOCKS (block \(block))"))
            }
            return Bytes(answer)
        case (ISO15693Command.writeSingleBlock, 2...):
            try updateBinary(address: Int(parameters[0]), Array(parameters.dropFirst()), what: "WRITE SINGLE BLOCK \(parameters[0])")
            return Bytes([0x00])
        case (ISO15693Command.extendedReadSingleBlock, 2):
            let number = Int(parameters[0]) | Int(parameters[1]) << 8
            let block = try readBinary(address: number, length: 0, what: "EXTENDED READ SINGLE BLOCK \(number)")
            return Bytes([0x00] + status + block)
        case (ISO15693Command.extendedReadMultipleBlocks, 4):
            var answer: [UInt8] = [0x00]
            let first = Int(parameters[0]) | Int(parameters[1]) << 8
            let count = (Int(parameters[2]) | Int(parameters[3]) << 8) + 1
            for block in first..<min(first + count, 0x10000) {
                answer += status + (try readBinary(address: block, length: 0, what: "EXTENDED READ MULTIPLE BLOCKS (block \(block))"))
            }
            return Bytes(answer)
        case (ISO15693Command.extendedWriteSingleBlock, 3...):
            let number = Int(parameters[0]) | Int(parameters[1]) << 8
            try updateBinary(address: number, Array(parameters.dropFirst(2)), what: "EXTENDED WRITE SINGLE BLOCK \(number)")
            return Bytes([0x00])
        default:
            throw notCarried(frame, .iso15693)
        }
    }

    // MARK: - Names and errors

    /// Names of Type 2 / NTAG commands, for error messages.
    static let type2Names: [UInt8: String] = [
        0x60: "GET_VERSION", Type2Command.passwordAuthenticate: "PWD_AUTH", Type2Command.readSignature: "READ_SIG",
        Type2Command.compatibilityWrite: "COMPATIBILITY_WRITE",
    ]

    /// Names of Type 1 commands, for error messages.
    static let type1Names: [UInt8: String] = [
        Type1Command.readIdentification: "RID", Type1Command.readAll: "RALL", Type1Command.read: "READ", Type1Command.writeErase: "WRITE-E",
        Type1Command.writeNoErase: "WRITE-NE", Type1Command.readSegment: "RSEG", Type1Command.read8: "READ8",
        Type1Command.writeErase8: "WRITE-E8", Type1Command.writeNoErase8: "WRITE-NE8",
    ]

    static let iso15693Names: [UInt8: String] = [
        ISO15693Command.lockBlock: "LOCK BLOCK", ISO15693Command.getSystemInformation: "GET SYSTEM INFORMATION",
        ISO15693Command.writeMultipleBlocks: "WRITE MULTIPLE BLOCKS", ISO15693Command.extendedReadSingleBlock: "EXTENDED READ SINGLE BLOCK",
        ISO15693Command.extendedWriteSingleBlock: "EXTENDED WRITE SINGLE BLOCK", ISO15693Command.getMultipleBlockSecurityStatus: "GET MULTIPLE BLOCK SECURITY STATUS",
        ISO15693Command.writeAFI: "WRITE AFI", ISO15693Command.lockAFI: "LOCK AFI", ISO15693Command.writeDSFID: "WRITE DSFID",
        ISO15693Command.lockDSFID: "LOCK DSFID",
    ]

    /// "LOCK BLOCK (command 22)" or "the frame 30 04…".
    func commandName(_ frame: [UInt8], _ kind: PCSCCardKind) -> String {
        // ISO 15693 requests are named by their command byte, after the flags.
        let code = kind == .iso15693 ? Array(frame.dropFirst().prefix(1)) : Array(frame.prefix(1))
        let known =
            switch kind {
            case .iso15693: frame.count >= 2 ? Self.iso15693Names[frame[1]] : nil
            case .type1: frame.first.flatMap { Self.type1Names[$0] }
            default: frame.first.flatMap { Self.type2Names[$0] }
            }
        return known.map { "\($0) (command \(Hex.encode(code)))" } ?? "the frame \(Hex.encode(Array(frame.prefix(2))))…"
    }

    /// The names of MIFARE Classic value-block commands, for error messages.
    static let classicValueNames: [UInt8: String] = [
        ClassicCommand.increment: "INCREMENT", ClassicCommand.decrement: "DECREMENT", ClassicCommand.restore: "RESTORE",
        ClassicCommand.transfer: "TRANSFER",
    ]

    /// The error for a command the profile cannot carry to a card of `kind`; nothing was sent.
    func notCarried(_ frame: [UInt8], _ kind: PCSCCardKind) -> NFCReaderDeviceError {
        if kind == .mifareClassic {
            // The reader runs Crypto-1: a Classic card is reached only through PC/SC Part 3's
            // storage commands, which have no value-block operation.
            let command = frame.first.flatMap { Self.classicValueNames[$0] }.map { "\($0) (command \(Hex.encode([frame[0]])))" }
                ?? "the frame \(Hex.encode(Array(frame.prefix(2))))…"
            return NFCReaderDeviceError(
                .notSupported,
                "the PC/SC reader \(name) (\(profile.title) profile) cannot send \(command) to a MIFARE Classic card: PC/SC Part 3 reaches Classic blocks only by LOAD KEYS / GENERAL AUTHENTICATE and 16-byte READ BINARY / UPDATE BINARY, without value-block operations (nothing was sent)")
        }
        let target = switch kind {
        case .type2: "a Type 2 tag"
        case .iso15693: "an ISO 15693 tag"
        case .mifareClassic: "a MIFARE Classic card"
        case .isoDEP: "an ISO-DEP card"
        case .type1: "a Type 1 tag"
        }
        return NFCReaderDeviceError(
            .notSupported,
            "the PC/SC reader \(name) (\(profile.title) profile) cannot send \(commandName(frame, kind)) to \(target): \(profile.limit) (nothing was sent)")
    }

    func notCarried(_ frame: [UInt8], _ target: String) -> NFCReaderDeviceError {
        NFCReaderDeviceError(
            .notSupported,
            "the PC/SC reader \(name) (\(profile.title) profile) cannot send the frame \(Hex.encode(Array(frame.prefix(2))))… to \(target) (nothing was sent)")
    }

    /// READ BINARY of `length` bytes (0: what the card's unit holds) at `address`.
    func readBinary(address: Int, length: Int, what: String) throws(NFCReaderDeviceError) -> [UInt8] {
        guard address <= 0x7FFF else { throw NFCReaderDeviceError(.invalidArgument, "\(what): address \(address) beyond READ BINARY's 15 bits") }
        let (data, sw) = try transmit([PCSCPart3.pseudoClass, PCSCPart3.readBinary, UInt8(address >> 8), UInt8(address & 0xFF), UInt8(length & 0xFF)])
        guard sw == PCSCPart3.StatusWord.success else { throw Self.statusError(sw, "\(what) (READ BINARY)", reader: name) }
        guard length == 0 || data.count == length else {
            throw NFCReaderDeviceError(.rfError, "\(what) (READ BINARY) answered \(data.count) bytes, not \(length)")
        }
        return data
    }

    /// UPDATE BINARY of `data` at `address`.
    func updateBinary(address: Int, _ data: [UInt8], what: String) throws(NFCReaderDeviceError) {
        guard address <= 0x7FFF, data.count <= 0xFF else { throw NFCReaderDeviceError(.invalidArgument, "\(what): address or length beyond UPDATE BINARY's reach") }
        let (_, sw) = try transmit(
            [PCSCPart3.pseudoClass, PCSCPart3.updateBinary, UInt8(address >> 8), UInt8(address & 0xFF), UInt8(data.count)] + data)
        guard sw == PCSCPart3.StatusWord.success else { throw Self.statusError(sw, "\(what) (UPDATE BINARY)", reader: name) }
    }

    /// SCardTransmit, split into data and status word.
    func transmit(_ apdu: [UInt8]) throws(NFCReaderDeviceError) -> ([UInt8], UInt16) {
        guard let card else { throw NFCReaderDeviceError(.tagLost, "no tag is selected: poll first") }
        let response: [UInt8]
        do {
            response = try pcscTransmit(card, apdu)
        } catch {
            if error.meansCardGone {
                pcscDisconnect(card)
                self.card = nil
                selectedInfo = nil
                session = nil
            }
            throw Self.readerError(error)
        }
        guard response.count >= 2 else { throw NFCReaderDeviceError(.rfError, "the reader answered \(response.count) bytes, without a status word") }
        let sw = UInt16(response[response.count - 2]) << 8 | UInt16(response[response.count - 1])
        return (Array(response.dropLast(2)), sw)
    }

    /// A status word other than 9000 as the seam's error: the card refusing (an address out of
    /// range, a locked block) reads as a NAK, what the reader cannot do as `notSupported`.
    static func statusError(_ sw: UInt16, _ what: String, reader: String) -> NFCReaderDeviceError {
        let text = "\(what): the reader \(reader) answered \(PCSCPart3.StatusWord.describe(sw))"
        switch sw {
        case PCSCPart3.StatusWord.functionNotSupported, PCSCPart3.StatusWord.commandIncompatible,
             PCSCPart3.StatusWord.instructionNotSupported, PCSCPart3.StatusWord.notAllowed:
            return NFCReaderDeviceError(.notSupported, text)
        case PCSCPart3.StatusWord.addressOutOfRange, PCSCPart3.StatusWord.securityNotSatisfied, PCSCPart3.StatusWord.wrongParameter,
             PCSCPart3.StatusWord.endReached:
            return NFCReaderDeviceError(.nak, text, detail: 0)
        case PCSCPart3.StatusWord.noInformation:
            return NFCReaderDeviceError(.timeout, text)
        default:
            return NFCReaderDeviceError(.chip, text)
        }
    }

    public func isTargetPresent() async -> Bool {
        guard let card, selectedInfo != nil else { return false }
        guard let status = try? pcscStatus(card) else { return false }
        return status.state & DWORD(SCARD_PRESENT) != 0
    }

    /// Waits for pcscd to report the selected card gone, in `SCardGetStatusChange` on this
    /// reader's thread: nothing is sent to the card or asked of it meanwhile (no `SCardStatus`,
    /// no transmit), and `checkInterval` is not used. The reader is empty, or pcscd's card event
    /// counter moved since the card was found (a card swapped quickly for another is a
    /// removal, then the next poll's arrival). Cancelling the task or closing the reader ends
    /// the wait at once (`SCardCancel`).
    /// - Returns: ``RemovalResult/removed`` also when no card is selected or the reader went
    ///   away (the next poll tells which), ``RemovalResult/cancelled`` when closed.
    public func waitForRemoval(timeout: Duration, checkInterval: Duration) async -> RemovalResult {
        guard let context else { return .cancelled }
        guard card != nil, selectedInfo != nil, let baseline = selectedState else { return .removed }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        let waiter = removalWait
        waiter.arm()
        return await withTaskCancellationHandler {
            var current = baseline
            while true {
                if Task.isCancelled { return .cancelled }
                let wait = min(max(.zero, deadline - clock.now), Self.longestStatusWait)
                guard waiter.begin(context) else { return .cancelled }
                let state: DWORD
                do throws(PCSCError) {
                    state = try pcscGetStatusChange(context, reader: name, current: current, milliseconds: Self.milliseconds(wait))
                    waiter.end()
                } catch {
                    waiter.end()
                    return error.code == PCSCError.cancelled ? .cancelled : .removed
                }
                if Self.cardLeft(state, since: baseline) { return .removed }
                current = state
                if clock.now >= deadline { return .stillPresent }
            }
        } onCancel: {
            waiter.cancel()
        }
    }

    /// The card the last poll connected to, alone: a PC/SC reader's firmware picks one card
    /// whatever is in the field, so nothing is sent.
    public func listTargets(alongside selected: TargetInfo, limit: Int) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        _ = try openContext()
        return [selected]
    }

    /// Leaves the card with a reset (SCARD_RESET_CARD): the reader powers the field down and up,
    /// so a card that went idle (a refused MIFARE key) answers the next poll, as after HLTA and
    /// WUPA on libnfc.
    public func deselect() async throws(NFCReaderDeviceError) {
        _ = try openContext()
        endSession()
        if let card { pcscDisconnect(card, reset: true) }
        leaveWithReset = false
        card = nil
        selectedInfo = nil
    }

    /// Closes the reader: a removal wait in progress ends at once (`SCardCancel`), then the
    /// card is left and the context released.
    public nonisolated func close() async {
        removalWait.close()
        await closeOnReaderThread()
    }

    func closeOnReaderThread() {
        if context != nil { endSession() }
        if let card { pcscDisconnect(card, reset: leaveWithReset) }
        leaveWithReset = false
        if let context { pcscReleaseContext(context) }
        card = nil
        context = nil
        selectedInfo = nil
        selectedState = nil
    }

    deinit {
        if let card { pcscDisconnect(card) }
        if let context { pcscReleaseContext(context) }
        executor.stop()
    }

    func openContext() throws(NFCReaderDeviceError) -> ContextHandle {
        guard let context else { throw NFCReaderDeviceError(.closed, "the reader \(connectionString) is closed") }
        return context
    }

    /// pcsc-lite's error as the seam's.
    static func readerError(_ error: PCSCError) -> NFCReaderDeviceError {
        let code: NFCReaderDeviceError.Code =
            switch error.code {
            case _ where error.meansCardGone: .tagLost
            // On a transmit, a protocol mismatch means the card under the handle was powered
            // up again or swapped (pcscd changed its state): the tag we talked to is gone. On
            // connect it means the card cannot speak the protocol asked for.
            case PCSCError.protocolMismatch where error.call == "SCardTransmit": .tagLost
            case PCSCError.timeout: .timeout
            case PCSCError.sharingViolation: .busy
            case PCSCError.noService, PCSCError.serviceStopped, PCSCError.unknownReader, PCSCError.noReadersAvailable: .deviceNotFound
            case PCSCError.invalidParameter, PCSCError.invalidValue: .invalidArgument
            case PCSCError.insufficientBuffer: .overflow
            case PCSCError.cancelled: .aborted
            case PCSCError.unsupportedFeature, PCSCError.protocolMismatch: .notSupported
            default: .io
            }
        return NFCReaderDeviceError(code, "pcsc-lite: \(error.description)")
    }
}
