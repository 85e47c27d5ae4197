import NFCCore
public import NFCTags

/// A virtual NXP NTAG 424 DNA (datasheet NT4H2421Gx): ISO-DEP, the NDEF application with its
/// three files (CC `E103` 32 bytes, NDEF `E104` 256 bytes, proprietary `E105` 128 bytes), five
/// AES-128 keys (all zero from the factory, versions 00), access rights per file, native
/// commands wrapped in ISO/IEC 7816-4 (class `90`) with EV2 secure messaging, ISO SELECT / READ
/// BINARY / UPDATE BINARY for plain NDEF readers, and Secure Dynamic Messaging on read.
///
/// Secure messaging is ``NTAG424Session``'s chip side and the file settings are
/// ``NTAG424FileSettings``: the same code the host side uses, checked against AN12196 from both
/// sides. Keys, key versions, file contents and settings and SDMReadCtr persist in the tag file.
///
/// SDM (datasheet 9.3): when the NDEF file has SDM enabled, the first unauthenticated read of it
/// after it is selected (ReadData or ISOReadBinary) increments SDMReadCtr and mirrors UID and
/// counter (plain, or as encrypted PICC data) and the SDMMAC as ASCII hex at the configured
/// offsets; further reads in the same selection return the same image.
public final class NTAG424VirtualTag: NXPISODEPVirtualTag, PersistentVirtualTag, NDEFPreloadable {
    /// The tag-file model name, `ntag424`.
    public static let modelKey = "ntag424"
    /// ATS of the chip (datasheet 8.4): `06 77 77 71 02 80` — FSCI 7 (128 bytes), TA, TB, TC, one historical byte.
    public static let answerToSelect: [UInt8] = [0x06, 0x77, 0x77, 0x71, 0x02, 0x80]
    /// GetVersion hardware part: vendor NXP `04`, type `04` (NTAG), subtype `02`, version 30.00,
    /// storage `11` (256 < size ≤ 512 bytes), protocol `05` (ISO 14443-2 and -3).
    public static let hardwareVersion: [UInt8] = [0x04, 0x04, 0x02, 0x30, 0x00, 0x11, 0x05]
    /// GetVersion software part.
    public static let softwareVersion: [UInt8] = [0x04, 0x04, 0x02, 0x01, 0x02, 0x11, 0x05]

    /// The 7-byte UID.
    public let uid: [UInt8]
    /// The file contents.
    public private(set) var files: [NTAG424.File: [UInt8]]
    /// The file settings.
    public private(set) var fileSettings: [NTAG424.File: NTAG424FileSettings]
    /// Keys 0–4.
    public private(set) var keys: [[UInt8]]
    /// Key versions 0–4.
    public private(set) var keyVersions: [UInt8]
    /// SDMReadCtr of the NDEF file.
    public private(set) var sdmReadCounter: UInt32 = 0
    /// The 56-byte originality signature Read_Sig answers (a stand-in of zeros by default, which
    /// no NXP key accepts).
    public var originalitySignature: [UInt8]? {
        didSet { stateRevision += 1 }
    }
    /// The source of RndB, TI and PICC-data padding: the system's generator unless a test
    /// injects the values of a worked example.
    public var random: (Int) -> [UInt8] = { count in
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
    /// Grows with every change to persistent state.
    public private(set) var stateRevision = 0

    private var applicationSelected = false
    private var selectedFile: NTAG424.File?
    /// Native command unwrapping, GetVersion, Read_Sig, EV2 authentication and the session;
    /// GetVersion's third part: UID, batch number and fab key, calendar week and year.
    private var front = EV2NativeFrontEnd(
        hardwareVersion: NTAG424VirtualTag.hardwareVersion, softwareVersion: NTAG424VirtualTag.softwareVersion,
        production: [0xCF, 0x39, 0x41, 0x14, 0x00, 0x26, 0x26])
    /// The NDEF file as mirrored for the current selection (SDM), once read.
    private var mirroredImage: [UInt8]?

    /// A factory-fresh chip: files empty but the CC, factory settings, keys zero.
    /// - Precondition: `uid` has 7 bytes.
    public init(uid: [UInt8]) {
        precondition(uid.count == NTAG424.uidLength)
        self.uid = uid
        files = [
            .capabilityContainer: NTAG424.factoryCapabilityContainer,
            .ndef: [UInt8](repeating: 0, count: NTAG424.File.ndef.size),
            .proprietary: [UInt8](repeating: 0, count: NTAG424.File.proprietary.size),
        ]
        fileSettings = Dictionary(uniqueKeysWithValues: NTAG424.File.allCases.map { ($0, NTAG424FileSettings.factory($0)) })
        keys = [[UInt8]](repeating: [UInt8](repeating: 0, count: NTAG424.keyLength), count: NTAG424.keyNumbers.count)
        keyVersions = [UInt8](repeating: 0, count: NTAG424.keyNumbers.count)
    }

    /// Restores a chip from a tag file; nil when the state is not an `ntag424`'s.
    public init?(state: TagState) {
        guard state.model == Self.modelKey, let uid = try? Hex.decode(state.uid), uid.count == NTAG424.uidLength,
              let memory = try? Hex.decode(state.memory), memory.count == NTAG424.File.allCases.reduce(0, { $0 + $1.size })
        else { return nil }
        self.uid = uid
        var files: [NTAG424.File: [UInt8]] = [:]
        var position = 0
        for file in NTAG424.File.allCases {
            files[file] = Array(memory[position..<(position + file.size)])
            position += file.size
        }
        self.files = files
        let attributes = state.attributes ?? [:]
        var keys: [[UInt8]] = []
        for number in NTAG424.keyNumbers {
            guard let text = attributes["key\(number)"], let key = try? Hex.decode(text), key.count == NTAG424.keyLength else { return nil }
            keys.append(key)
        }
        self.keys = keys
        guard let versions = attributes["keyVersions"].flatMap({ try? Hex.decode($0) }), versions.count == keys.count else { return nil }
        keyVersions = versions
        var settings: [NTAG424.File: NTAG424FileSettings] = [:]
        for file in NTAG424.File.allCases {
            guard let text = attributes["settings\(file.rawValue)"], let bytes = try? Hex.decode(text),
                  let parsed = try? NTAG424FileSettings(parsing: bytes), parsed.fileSize == file.size
            else { return nil }
            settings[file] = parsed
        }
        fileSettings = settings
        sdmReadCounter = state.counters?.first ?? 0
        if let text = attributes["signature"] {
            guard let signature = try? Hex.decode(text), signature.count == NXPNativeCommand.signatureLength else { return nil }
            originalitySignature = signature
        }
        stateRevision = 0
    }

    /// What the tag file keeps: the three files (memory), SDMReadCtr (counters), keys, key
    /// versions, file settings and signature (attributes).
    public var tagState: TagState {
        var attributes: [String: String] = ["keyVersions": Hex.encode(keyVersions)]
        for (number, key) in keys.enumerated() { attributes["key\(number)"] = Hex.encode(key) }
        for file in NTAG424.File.allCases {
            if let settings = fileSettings[file], let bytes = try? settings.encoded() { attributes["settings\(file.rawValue)"] = Hex.encode(bytes) }
        }
        if let originalitySignature { attributes["signature"] = Hex.encode(originalitySignature) }
        let memory = NTAG424.File.allCases.flatMap { files[$0] ?? [] }
        return TagState(model: Self.modelKey, uid: Hex.encode(uid), memory: Hex.encode(memory), counters: [sdmReadCounter], attributes: attributes)
    }

    /// Stores an NDEF message in the NDEF file (NLEN first), past access rights, as a vendor
    /// would before delivery; false when it does not fit.
    @discardableResult
    public func setNDEFMessage(_ message: [UInt8]) -> Bool {
        let size = NTAG424.File.ndef.size
        guard message.count + 2 <= size else { return false }
        files[.ndef] = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message + [UInt8](repeating: 0, count: size - 2 - message.count)
        stateRevision += 1
        return true
    }

    /// `NTAG 424 DNA`.
    public var modelName: String { "NTAG 424 DNA" }
    /// Entering the field: PICC level, nothing selected, not authenticated.
    public func powerOn() {
        applicationSelected = false
        selectedFile = nil
        front.reset()
        mirroredImage = nil
    }

    // MARK: APDUs

    /// Answers one command APDU.
    public func respond(toAPDU apdu: [UInt8]) -> [UInt8] {
        route(apdu, native: native) { apdu in
            front.pending = nil
            return iso(apdu)
        }
    }

    /// A failed command: the chip drops its authentication and answers the status.
    private func fail(_ status: NTAG424Status) -> [UInt8] { front.fail(status) }

    private func native(_ apdu: [UInt8]) -> [UInt8] {
        let step = front.native(apdu, uid: uid, applicationSelected: applicationSelected, signature: originalitySignature, random: random) { number in
            NTAG424.keyNumbers.contains(number) ? keys[Int(number)] : nil
        }
        guard case .command(let command, let data) = step else { return step.answer }
        switch command {
        case NTAG424.Command.getFileSettings: return getFileSettings(data)
        case NTAG424.Command.changeFileSettings: return changeFileSettings(data)
        case NTAG424.Command.readData: return readData(data)
        case NTAG424.Command.writeData: return writeData(data)
        case NTAG424.Command.changeKey: return changeKey(data)
        case NTAG424.Command.getKeyVersion: return getKeyVersion(data)
        case NTAG424.Command.getCardUID: return getCardUID(data)
        default: return fail(.illegalCommand)
        }
    }

    // MARK: Commands in the session

    private func file(_ number: UInt8) -> NTAG424.File? { NTAG424.File(rawValue: number) }

    private func getFileSettings(_ body: [UInt8]) -> [UInt8] {
        switch front.open(NTAG424.Command.getFileSettings, headerLength: 1, body: body, mode: .mac) {
        case .failure(let error): return fail(error)
        case .success(let (header, data)):
            guard data.isEmpty else { return fail(.lengthError) }
            guard let file = file(header[0]), let settings = fileSettings[file], let bytes = try? settings.encoded() else { return fail(.fileNotFound) }
            return front.answer(bytes, mode: .mac)
        }
    }

    private func changeFileSettings(_ body: [UInt8]) -> [UInt8] {
        guard let number = body.first, let file = file(number), let current = fileSettings[file] else { return fail(.fileNotFound) }
        guard current.accessRights.change.allows(front.session?.keyNumber) else { return fail(.permissionDenied) }
        switch front.open(NTAG424.Command.changeFileSettings, headerLength: 1, body: body, mode: .full) {
        case .failure(let error): return fail(error)
        case .success(let (_, data)):
            guard let settings = try? NTAG424FileSettings(parsingChange: data, fileType: current.fileType, fileSize: current.fileSize),
                  Self.fits(settings, file: file)
            else { return fail(.parameterError) }
            fileSettings[file] = settings
            mirroredImage = nil
            stateRevision += 1
            return front.answer([], mode: .mac)
        }
    }

    /// Whether SDM settings are ones the chip takes: on the NDEF file, ASCII, a layout
    /// ``SDMLayout`` accepts (mirrors inside the file, not overlapping, MAC input before the MAC).
    static func fits(_ settings: NTAG424FileSettings, file: NTAG424.File) -> Bool {
        guard let sdm = settings.sdm else { return true }
        return file == .ndef && NTAG424SDMMirror.layout(sdm, fileSize: file.size) != nil
    }

    /// The access a data command gets: nil when refused; otherwise the mode (plain through free
    /// access, else the file's).
    private func access(_ file: NTAG424.File, write: Bool) -> NTAG424CommMode? {
        guard let settings = fileSettings[file] else { return nil }
        let rights = settings.accessRights
        let primary = write ? rights.write : rights.read
        if primary == .free || rights.readWrite == .free { return .plain }
        let keyNumber = front.session?.keyNumber
        return primary.allows(keyNumber) || rights.readWrite.allows(keyNumber) ? (keyNumber == nil ? nil : settings.commMode) : nil
    }

    private func readData(_ body: [UInt8]) -> [UInt8] {
        guard body.count >= 7, let file = file(body[0]) else { return fail(body.count < 7 ? .lengthError : .fileNotFound) }
        guard let mode = access(file, write: false) else { return fail(.permissionDenied) }
        switch front.open(NTAG424.Command.readData, headerLength: 7, body: body, mode: mode == .plain ? .plain : .mac) {
        case .failure(let error): return fail(error)
        case .success(let (header, data)):
            guard data.isEmpty else { return fail(.lengthError) }
            let offset = EV2NativeFrontEnd.uint24(header[1..<4]), requested = EV2NativeFrontEnd.uint24(header[4..<7])
            let length = requested == 0 ? file.size - offset : requested
            guard offset < file.size, length >= 0, offset + length <= file.size else { return fail(.boundaryError) }
            let contents = readableContents(file)
            return front.answer(Array(contents[offset..<(offset + length)]), mode: mode)
        }
    }

    private func writeData(_ body: [UInt8]) -> [UInt8] {
        guard body.count >= 7, let file = file(body[0]) else { return fail(body.count < 7 ? .lengthError : .fileNotFound) }
        guard var mode = access(file, write: true) else { return fail(.permissionDenied) }
        if mode == .plain, let session = front.session {
            // Free write access in a session: the chip takes the command in the mode it arrives
            // in (AN12196 Table 17 writes the factory NDEF file in CommMode.Full right after
            // authenticating), told apart by length and MAC.
            let length = EV2NativeFrontEnd.uint24(body[4..<7])
            if body.count != 7 + length {
                mode = (try? session.openCommand(NTAG424.Command.writeData, headerLength: 7, body: body, mode: .full)) != nil ? .full : .mac
            }
        }
        switch front.open(NTAG424.Command.writeData, headerLength: 7, body: body, mode: mode) {
        case .failure(let error): return fail(error)
        case .success(let (header, data)):
            let offset = EV2NativeFrontEnd.uint24(header[1..<4]), length = EV2NativeFrontEnd.uint24(header[4..<7])
            guard length == data.count, length > 0 else { return fail(.lengthError) }
            guard offset + length <= file.size else { return fail(.boundaryError) }
            write(file, offset: offset, data)
            return front.answer([], mode: mode == .plain ? .plain : .mac)
        }
    }

    private func write(_ file: NTAG424.File, offset: Int, _ data: [UInt8]) {
        var contents = files[file] ?? []
        contents.replaceSubrange(offset..<(offset + data.count), with: data)
        files[file] = contents
        if file == .ndef { mirroredImage = nil }
        stateRevision += 1
    }

    private func changeKey(_ body: [UInt8]) -> [UInt8] {
        guard let session = front.session, session.keyNumber == NTAG424.masterKeyNumber else { return fail(.authenticationError) }
        switch front.open(NTAG424.Command.changeKey, headerLength: 1, body: body, mode: .full) {
        case .failure(let error): return fail(error)
        case .success(let (header, data)):
            let number = header[0]
            guard NTAG424.keyNumbers.contains(number) else { return fail(.noSuchKey) }
            if number == session.keyNumber {
                guard data.count == NTAG424.keyLength + 1 else { return fail(.lengthError) }
                keys[Int(number)] = Array(data[0..<16])
                keyVersions[Int(number)] = data[16]
                stateRevision += 1
                let sealed = front.answer([], mode: .plain)
                front.session = nil
                return sealed
            }
            guard data.count == NTAG424.keyLength + 5 else { return fail(.lengthError) }
            guard let (newKey, version) = NTAG424Session.newKey(
                fromChangeKeyData: data, keyLength: NTAG424.keyLength, hasVersion: true, oldKey: keys[Int(number)], sameKey: false)
            else { return fail(.integrityError) }
            keys[Int(number)] = newKey
            keyVersions[Int(number)] = version
            stateRevision += 1
            return front.answer([], mode: .mac)
        }
    }

    private func getKeyVersion(_ body: [UInt8]) -> [UInt8] {
        switch front.open(NTAG424.Command.getKeyVersion, headerLength: 1, body: body, mode: .mac) {
        case .failure(let error): return fail(error)
        case .success(let (header, data)):
            guard data.isEmpty else { return fail(.lengthError) }
            guard NTAG424.keyNumbers.contains(header[0]) else { return fail(.noSuchKey) }
            return front.answer([keyVersions[Int(header[0])]], mode: .mac)
        }
    }

    private func getCardUID(_ body: [UInt8]) -> [UInt8] {
        guard front.session != nil else { return fail(.authenticationError) }
        switch front.open(NTAG424.Command.getCardUID, headerLength: 0, body: body, mode: .full) {
        case .failure(let error): return fail(error)
        case .success(let (_, data)):
            guard data.isEmpty else { return fail(.lengthError) }
            return front.answer(uid, mode: .full)
        }
    }

    // MARK: ISO

    private func iso(_ apdu: [UInt8]) -> [UInt8] {
        let p1 = apdu[2], p2 = apdu[3]
        let body = Array(apdu[4...])
        switch apdu[1] {
        case NTAG424.ISOCommand.select:
            guard let lc = body.first, lc > 0, body.count == 1 + Int(lc) || body.count == 2 + Int(lc) else { return sw(StatusWord.wrongLength) }
            let data = Array(body[1..<(1 + Int(lc))])
            switch p1 {
            case NTAG424.ISOCommand.selectByName:
                guard data == NTAG424.applicationName else { return sw(StatusWord.fileNotFound) }
                applicationSelected = true
                selectedFile = nil
                mirroredImage = nil
                return sw(StatusWord.success)
            case NTAG424.ISOCommand.selectByFileID:
                guard data.count == 2 else { return sw(StatusWord.wrongLength) }
                let id = UInt16(data[0]) << 8 | UInt16(data[1])
                if id == NTAG424.applicationFileID {
                    applicationSelected = true
                    selectedFile = nil
                    mirroredImage = nil
                    return sw(StatusWord.success)
                }
                guard applicationSelected, let file = NTAG424.File(isoFileID: id) else { return sw(StatusWord.fileNotFound) }
                selectedFile = file
                mirroredImage = nil
                return sw(StatusWord.success)
            default:
                _ = p2
                return sw(StatusWord.incorrectP1P2)
            }
        case NTAG424.ISOCommand.readBinary:
            guard let file = isoFile(p1) else { return sw(StatusWord.noCurrentEF) }
            guard body.count == 1 else { return sw(StatusWord.wrongLength) }
            guard fileSettings[file]?.accessRights.read == .free || fileSettings[file]?.accessRights.readWrite == .free else { return sw(StatusWord.securityStatusNotSatisfied) }
            let offset = isoOffset(p1, p2), le = body[0] == 0 ? 256 : Int(body[0])
            guard offset < file.size else { return sw(StatusWord.wrongOffset) }
            let contents = readableContents(file)
            return Array(contents[offset..<min(file.size, offset + le)]) + sw(StatusWord.success)
        case NTAG424.ISOCommand.updateBinary:
            guard let file = isoFile(p1) else { return sw(StatusWord.noCurrentEF) }
            guard fileSettings[file]?.accessRights.write == .free || fileSettings[file]?.accessRights.readWrite == .free else { return sw(StatusWord.securityStatusNotSatisfied) }
            guard let lc = body.first, lc > 0, body.count == 1 + Int(lc) else { return sw(StatusWord.wrongLength) }
            let offset = isoOffset(p1, p2)
            guard offset + Int(lc) <= file.size else { return sw(StatusWord.wrongOffset) }
            write(file, offset: offset, Array(body[1...]))
            return sw(StatusWord.success)
        default:
            return sw(StatusWord.instructionNotSupported)
        }
    }

    /// The file READ/UPDATE BINARY address: by short file ID in P1 (which selects it), else the
    /// selected one.
    private func isoFile(_ p1: UInt8) -> NTAG424.File? {
        guard applicationSelected else { return nil }
        if p1 & NTAG424.ISOCommand.shortFileIDFlag != 0 {
            guard let file = NTAG424.File(rawValue: p1 & 0x1F) else { return nil }
            if file != selectedFile { mirroredImage = nil }
            selectedFile = file
        }
        return selectedFile
    }

    private func isoOffset(_ p1: UInt8, _ p2: UInt8) -> Int {
        p1 & NTAG424.ISOCommand.shortFileIDFlag != 0 ? Int(p2) : Int(p1) << 8 | Int(p2)
    }

    // MARK: SDM

    /// The contents a read returns: the NDEF file with SDM applied when it is enabled and the
    /// read is unauthenticated (the first such read of a selection counts).
    private func readableContents(_ file: NTAG424.File) -> [UInt8] {
        let contents = files[file] ?? []
        guard file == .ndef, front.session == nil, let sdm = fileSettings[file]?.sdm else { return contents }
        if let mirroredImage { return mirroredImage }
        if sdm.mirrorsReadCounter || sdm.hasMAC || sdm.hasEncryptedPICCData {
            if sdmReadCounter < 0xFF_FFFF { sdmReadCounter += 1 }
            stateRevision += 1
        }
        let image = NTAG424SDMMirror.apply(sdm, to: contents, uid: uid, counter: sdmReadCounter, keys: keys, random: random) ?? contents
        mirroredImage = image
        return image
    }
}
