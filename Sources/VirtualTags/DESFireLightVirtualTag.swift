import NFCCore
public import NFCTags

/// A virtual NXP MIFARE DESFire Light (MF2DL(H)x0; ``DESFireLight``): ISO-DEP, one application DF
/// with the six fixed files, five AES-128 keys (zero from the factory), native commands wrapped
/// in ISO/IEC 7816-4 (class `90`) with EV2 secure messaging, and ISO SELECT / READ BINARY /
/// UPDATE BINARY of the standard data files.
///
/// Two configurations: as delivered (DF name ``DESFireLight/factoryDFName``, `DF01`; files
/// `EF00`…), and renamed for NFC Forum Type 4 (DF name `D2760000850101`, `E110`; file `00` as
/// `E103`, `04` as `E104`, both free to read and write, CC not yet written) as open-source
/// readers leave a Light after SetConfiguration (which this model does not take: it answers
/// ILLEGAL_COMMAND, as it does the commands the Light lacks, ``DESFireLight/absentCommands``).
///
/// Modelled: GetVersion, Read_Sig, AuthenticateEV2First/NonFirst, GetFileIDs, GetISOFileIDs,
/// GetFileSettings, ChangeFileSettings, ReadData/WriteData of the standard data files,
/// GetKeyVersion. Not modelled (ILLEGAL_COMMAND): the value, record and Transaction MAC
/// commands, SetConfiguration, ChangeKey, LRP. The factory access rights are this model's
/// choice (read free; write, read-write and change key 0), since no public document lists them.
/// Secure messaging is ``EV2Session``'s chip side, the same code NTAG 424 DNA's model uses.
public final class DESFireLightVirtualTag: NXPISODEPVirtualTag, PersistentVirtualTag, NDEFPreloadable {
    /// The tag-file model name of a Light as delivered, `desfire-light`.
    public static let modelKey = "desfire-light"
    /// The tag-file model name of a Light renamed for Type 4, `desfire-light-ndef`.
    public static let renamedModelKey = "desfire-light-ndef"
    /// ATS: FSCI 8 (256 bytes), TA, TB, TC, one historical byte `80`.
    public static let answerToSelect: [UInt8] = [0x06, 0x78, 0x77, 0x71, 0x02, 0x80]
    /// GetVersion hardware part: vendor `04`, type `08`, subtype `01`, version 30.00, storage
    /// ``DESFireLight/storageSize``, protocol `05`.
    public static let hardwareVersion: [UInt8] = [0x04, DESFireLight.hardwareType, 0x01, DESFireLight.majorVersion, 0x00, DESFireLight.storageSize, 0x05]
    /// GetVersion software part.
    public static let softwareVersion: [UInt8] = [0x04, DESFireLight.hardwareType, 0x01, 0x01, 0x00, DESFireLight.storageSize, 0x05]
    /// The bytes each file keeps in the tag file, in ``DESFireLight/File`` order: 256, 80 (five
    /// 16-byte records), 4 (value), 256, 12 (Transaction MAC counter and value), 32.
    static let storedSizes: [DESFireLight.File: Int] = [.data00: 256, .cyclicRecord: 80, .value: 4, .data04: 256, .transactionMAC: 12, .fci: 32]

    /// The 7-byte UID.
    public let uid: [UInt8]
    /// The application DF's name.
    public private(set) var dfName: [UInt8]
    /// The application DF's ISO file identifier.
    public private(set) var dfFileID: UInt16
    /// The ISO file identifiers of the files ISO commands reach.
    public private(set) var isoFileIDs: [DESFireLight.File: UInt16]
    /// The file contents.
    public private(set) var files: [DESFireLight.File: [UInt8]]
    /// The file settings.
    public private(set) var fileSettings: [DESFireLight.File: DESFireLightFileSettings]
    /// Keys 0–4.
    public private(set) var keys: [[UInt8]]
    /// Key versions 0–4.
    public private(set) var keyVersions: [UInt8]
    /// The 56-byte originality signature Read_Sig answers (zeros by default).
    public var originalitySignature: [UInt8]? {
        didSet { stateRevision += 1 }
    }
    /// The source of RndB and TI: the system's generator unless a test injects its own.
    public var random: (Int) -> [UInt8] = { count in
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
    /// Grows with every change to persistent state.
    public private(set) var stateRevision = 0

    private var applicationSelected = false
    private var selectedFile: DESFireLight.File?
    /// Native command unwrapping, GetVersion, Read_Sig, EV2 authentication and the session.
    private var front = EV2NativeFrontEnd(
        hardwareVersion: DESFireLightVirtualTag.hardwareVersion, softwareVersion: DESFireLightVirtualTag.softwareVersion,
        production: [0xBA, 0x44, 0x91, 0x20, 0x52, 0x26, 0x25])

    /// A factory-fresh Light; `renamedForTypeFour`: as renamed for NFC Forum Type 4 (DF name,
    /// `E103`/`E104`, files `00` and `04` free to read and write, contents zero).
    /// - Precondition: `uid` has 7 bytes.
    public init(uid: [UInt8], renamedForTypeFour: Bool = false) {
        precondition(uid.count == DESFireLight.uidLength)
        self.uid = uid
        dfName = renamedForTypeFour ? DESFireLight.ndefDFName : DESFireLight.factoryDFName
        dfFileID = renamedForTypeFour ? DESFireLight.ndefDFFileID : DESFireLight.factoryDFFileID
        var ids: [DESFireLight.File: UInt16] = [:]
        for file in DESFireLight.File.allCases { ids[file] = file.factoryISOFileID }
        if renamedForTypeFour {
            ids[DESFireLight.TypeFour.capabilityContainerFile] = Type4Command.capabilityContainerFileID
            ids[DESFireLight.TypeFour.ndefFile] = DESFireLight.TypeFour.ndefFileID
        }
        isoFileIDs = ids
        files = Dictionary(uniqueKeysWithValues: DESFireLight.File.allCases.map { ($0, [UInt8](repeating: 0, count: Self.storedSizes[$0] ?? 0)) })
        var settings = Dictionary(uniqueKeysWithValues: DESFireLight.File.allCases.map { ($0, Self.factorySettings($0)) })
        if renamedForTypeFour {
            let open = NTAG424AccessRights(read: .free, write: .free, readWrite: .free, change: .key(0))
            for file in [DESFireLight.TypeFour.capabilityContainerFile, DESFireLight.TypeFour.ndefFile] { settings[file]?.accessRights = open }
        }
        fileSettings = settings
        keys = [[UInt8]](repeating: [UInt8](repeating: 0, count: DESFireLight.keyLength), count: DESFireLight.keyNumbers.count)
        keyVersions = [UInt8](repeating: 0, count: DESFireLight.keyNumbers.count)
    }

    /// This model's factory settings of `file` (plain; read free, the rest key 0; the Transaction
    /// MAC file write and read-write never).
    static func factorySettings(_ file: DESFireLight.File) -> DESFireLightFileSettings {
        let rights = NTAG424AccessRights(read: .free, write: .key(0), readWrite: .key(0), change: .key(0))
        let details: [UInt8]
        switch file {
        case .data00, .data04, .fci:
            let size = file.dataSize ?? 0
            details = [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), 0x00]
        case .cyclicRecord: details = [0x10, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00]
        case .value: details = [0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00]
        case .transactionMAC:
            return DESFireLightFileSettings(fileType: file.fileType, fileOption: 0x00,
                accessRights: NTAG424AccessRights(read: .free, write: .never, readWrite: .never, change: .key(0)), details: [0x02, 0x00])
        }
        return DESFireLightFileSettings(fileType: file.fileType, fileOption: 0x00, accessRights: rights, details: details)
    }

    /// Restores a chip from a tag file; nil when the state is not a DESFire Light's.
    public init?(state: TagState) {
        guard state.model == Self.modelKey || state.model == Self.renamedModelKey, let uid = try? Hex.decode(state.uid), uid.count == DESFireLight.uidLength,
              let memory = try? Hex.decode(state.memory), memory.count == Self.storedSizes.values.reduce(0, +)
        else { return nil }
        self.uid = uid
        var files: [DESFireLight.File: [UInt8]] = [:]
        var position = 0
        for file in DESFireLight.File.allCases {
            let size = Self.storedSizes[file] ?? 0
            files[file] = Array(memory[position..<(position + size)])
            position += size
        }
        self.files = files
        let attributes = state.attributes ?? [:]
        guard let name = attributes["dfName"].flatMap({ try? Hex.decode($0) }), (1...16).contains(name.count),
              let dfID = attributes["dfFileID"].flatMap({ UInt16($0, radix: 16) })
        else { return nil }
        dfName = name
        dfFileID = dfID
        var ids: [DESFireLight.File: UInt16] = [:]
        var settings: [DESFireLight.File: DESFireLightFileSettings] = [:]
        for file in DESFireLight.File.allCases {
            let number = Hex.number(file.rawValue, width: 2)
            if let text = attributes["isoFileID\(number)"] {
                guard let id = UInt16(text, radix: 16) else { return nil }
                ids[file] = id
            }
            guard let bytes = attributes["settings\(number)"].flatMap({ try? Hex.decode($0) }),
                  let parsed = try? DESFireLightFileSettings(parsing: bytes), parsed.fileType == file.fileType,
                  parsed.dataFileSize == file.dataSize
            else { return nil }
            settings[file] = parsed
        }
        isoFileIDs = ids
        fileSettings = settings
        var keys: [[UInt8]] = []
        for number in DESFireLight.keyNumbers {
            guard let key = attributes["key\(number)"].flatMap({ try? Hex.decode($0) }), key.count == DESFireLight.keyLength else { return nil }
            keys.append(key)
        }
        self.keys = keys
        guard let versions = attributes["keyVersions"].flatMap({ try? Hex.decode($0) }), versions.count == keys.count else { return nil }
        keyVersions = versions
        if let text = attributes["signature"] {
            guard let signature = try? Hex.decode(text), signature.count == NXPNativeCommand.signatureLength else { return nil }
            originalitySignature = signature
        }
        stateRevision = 0
    }

    /// What the tag file keeps: the files (memory, in file order), DF name and identifier, ISO
    /// file identifiers, file settings, keys, key versions and signature (attributes).
    public var tagState: TagState {
        var attributes: [String: String] = [
            "dfName": Hex.encode(dfName, uppercase: true), "dfFileID": Hex.number(dfFileID, width: 4), "keyVersions": Hex.encode(keyVersions),
        ]
        for (number, key) in keys.enumerated() { attributes["key\(number)"] = Hex.encode(key) }
        for file in DESFireLight.File.allCases {
            let number = Hex.number(file.rawValue, width: 2)
            if let id = isoFileIDs[file] { attributes["isoFileID\(number)"] = Hex.number(id, width: 4) }
            if let settings = fileSettings[file] { attributes["settings\(number)"] = Hex.encode(settings.encoded, uppercase: true) }
        }
        if let originalitySignature { attributes["signature"] = Hex.encode(originalitySignature) }
        let memory = DESFireLight.File.allCases.flatMap { files[$0] ?? [] }
        return TagState(model: dfName == DESFireLight.ndefDFName ? Self.renamedModelKey : Self.modelKey, uid: Hex.encode(uid), memory: Hex.encode(memory), attributes: attributes)
    }

    /// Stores an NDEF message as a vendor would before delivery: the Type 4 CC in file `00` and
    /// NLEN and the message in file `04`; false when it does not fit or the Light is not renamed
    /// for Type 4.
    @discardableResult
    public func setNDEFMessage(_ message: [UInt8]) -> Bool {
        guard dfName == DESFireLight.ndefDFName, message.count + 2 <= 256 else { return false }
        files[.data00] = DESFireLight.TypeFour.capabilityContainer + [UInt8](repeating: 0, count: 256 - DESFireLight.TypeFour.capabilityContainer.count)
        files[.data04] = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message + [UInt8](repeating: 0, count: 254 - message.count)
        stateRevision += 1
        return true
    }

    /// `MIFARE DESFire Light`.
    public var modelName: String { DESFireLight.modelName }
    /// Entering the field: PICC level, nothing selected, not authenticated.
    public func powerOn() {
        applicationSelected = false
        selectedFile = nil
        front.reset()
    }

    // MARK: APDUs

    /// Answers one command APDU.
    public func respond(toAPDU apdu: [UInt8]) -> [UInt8] {
        route(apdu, native: native) { apdu in
            front.pending = nil
            return iso(apdu)
        }
    }

    private func fail(_ status: NXPNativeStatus) -> [UInt8] { front.fail(status) }

    private func native(_ apdu: [UInt8]) -> [UInt8] {
        let step = front.native(apdu, uid: uid, applicationSelected: applicationSelected, signature: originalitySignature, random: random) { number in
            DESFireLight.keyNumbers.contains(number) ? keys[Int(number)] : nil
        }
        guard case .command(let command, let data) = step else { return step.answer }
        switch command {
        case DESFireLight.getFileIDs: return listing(command, DESFireLight.File.allCases.map(\.rawValue))
        case DESFireLight.getISOFileIDs:
            return listing(command, DESFireLight.File.allCases.compactMap { isoFileIDs[$0] }.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        case NTAG424.Command.getFileSettings: return getFileSettings(data)
        case NTAG424.Command.changeFileSettings: return changeFileSettings(data)
        case NTAG424.Command.readData: return readData(data)
        case NTAG424.Command.writeData: return writeData(data)
        case NTAG424.Command.getKeyVersion: return getKeyVersion(data)
        default: return fail(.illegalCommand)
        }
    }

    // MARK: Commands in the session

    private func listing(_ command: UInt8, _ bytes: [UInt8]) -> [UInt8] {
        switch front.open(command, headerLength: 0, body: [], mode: .mac) {
        case .failure(let error): return fail(error)
        case .success: return front.answer(bytes, mode: .mac)
        }
    }

    private func getFileSettings(_ body: [UInt8]) -> [UInt8] {
        switch front.open(NTAG424.Command.getFileSettings, headerLength: 1, body: body, mode: .mac) {
        case .failure(let error): return fail(error)
        case .success(let (header, data)):
            guard data.isEmpty else { return fail(.lengthError) }
            guard let file = DESFireLight.File(rawValue: header[0]), let settings = fileSettings[file] else { return fail(.fileNotFound) }
            return front.answer(settings.encoded, mode: .mac)
        }
    }

    private func changeFileSettings(_ body: [UInt8]) -> [UInt8] {
        guard let number = body.first, let file = DESFireLight.File(rawValue: number), let current = fileSettings[file] else { return fail(.fileNotFound) }
        guard current.accessRights.change.allows(front.session?.keyNumber) else { return fail(.permissionDenied) }
        let mode: EV2CommMode = current.accessRights.change == .free ? .plain : .full
        switch front.open(NTAG424.Command.changeFileSettings, headerLength: 1, body: body, mode: mode) {
        case .failure(let error): return fail(error)
        case .success(let (_, data)):
            // File option (communication mode only: the Light has no SDM) and access rights.
            guard data.count == 3, data[0] & ~0x03 == 0, let parsed = try? DESFireLightFileSettings(parsing: [current.fileType] + data + current.details) else {
                return fail(.parameterError)
            }
            fileSettings[file] = parsed
            stateRevision += 1
            return front.answer([], mode: .mac)
        }
    }

    /// The mode a data command on `file` travels in, or nil when refused: plain through free
    /// access, else the file's in a session holding a key the rights name.
    private func access(_ file: DESFireLight.File, write: Bool) -> EV2CommMode? {
        guard file.dataSize != nil, let settings = fileSettings[file] else { return nil }
        let rights = settings.accessRights
        let primary = write ? rights.write : rights.read
        if primary == .free || rights.readWrite == .free { return .plain }
        guard let keyNumber = front.session?.keyNumber else { return nil }
        return primary.allows(keyNumber) || rights.readWrite.allows(keyNumber) ? settings.commMode : nil
    }

    private func readData(_ body: [UInt8]) -> [UInt8] {
        guard body.count >= 7, let file = DESFireLight.File(rawValue: body[0]), let size = file.dataSize else {
            return fail(body.count < 7 ? .lengthError : .fileNotFound)
        }
        guard let mode = access(file, write: false) else { return fail(.permissionDenied) }
        switch front.open(NTAG424.Command.readData, headerLength: 7, body: body, mode: mode == .plain ? .plain : .mac) {
        case .failure(let error): return fail(error)
        case .success(let (header, data)):
            guard data.isEmpty else { return fail(.lengthError) }
            let offset = EV2NativeFrontEnd.uint24(header[1..<4]), requested = EV2NativeFrontEnd.uint24(header[4..<7])
            let length = requested == 0 ? size - offset : requested
            guard offset < size, length >= 0, offset + length <= size else { return fail(.boundaryError) }
            return front.answer(Array((files[file] ?? [])[offset..<(offset + length)]), mode: mode)
        }
    }

    private func writeData(_ body: [UInt8]) -> [UInt8] {
        guard body.count >= 7, let file = DESFireLight.File(rawValue: body[0]), let size = file.dataSize else {
            return fail(body.count < 7 ? .lengthError : .fileNotFound)
        }
        guard let mode = access(file, write: true) else { return fail(.permissionDenied) }
        switch front.open(NTAG424.Command.writeData, headerLength: 7, body: body, mode: mode) {
        case .failure(let error): return fail(error)
        case .success(let (header, data)):
            let offset = EV2NativeFrontEnd.uint24(header[1..<4]), length = EV2NativeFrontEnd.uint24(header[4..<7])
            guard length == data.count, length > 0 else { return fail(.lengthError) }
            guard offset + length <= size else { return fail(.boundaryError) }
            write(file, offset: offset, data)
            return front.answer([], mode: mode == .plain ? .plain : .mac)
        }
    }

    private func write(_ file: DESFireLight.File, offset: Int, _ data: [UInt8]) {
        var contents = files[file] ?? []
        contents.replaceSubrange(offset..<(offset + data.count), with: data)
        files[file] = contents
        stateRevision += 1
    }

    private func getKeyVersion(_ body: [UInt8]) -> [UInt8] {
        switch front.open(NTAG424.Command.getKeyVersion, headerLength: 1, body: body, mode: .mac) {
        case .failure(let error): return fail(error)
        case .success(let (header, data)):
            guard data.isEmpty else { return fail(.lengthError) }
            guard DESFireLight.keyNumbers.contains(header[0]) else { return fail(.noSuchKey) }
            return front.answer([keyVersions[Int(header[0])]], mode: .mac)
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
                guard data == dfName else { return sw(StatusWord.fileNotFound) }
                return selectApplication(fci: p2 & 0x0C == 0)
            case NTAG424.ISOCommand.selectByFileID:
                guard data.count == 2 else { return sw(StatusWord.wrongLength) }
                let id = UInt16(data[0]) << 8 | UInt16(data[1])
                if id == dfFileID { return selectApplication(fci: p2 & 0x0C == 0) }
                if id == DESFireLight.masterFileID {
                    powerOn()
                    return sw(StatusWord.success)
                }
                guard applicationSelected, let file = DESFireLight.File.allCases.first(where: { isoFileIDs[$0] == id }) else { return sw(StatusWord.fileNotFound) }
                selectedFile = file
                return sw(StatusWord.success)
            default:
                return sw(StatusWord.incorrectP1P2)
            }
        case NTAG424.ISOCommand.readBinary:
            guard let file = isoFile(p1), let size = file.dataSize else { return sw(StatusWord.noCurrentEF) }
            guard body.count == 1 else { return sw(StatusWord.wrongLength) }
            guard access(file, write: false) == .plain else { return sw(StatusWord.securityStatusNotSatisfied) }
            let offset = isoOffset(p1, p2), le = body[0] == 0 ? 256 : Int(body[0])
            guard offset < size else { return sw(StatusWord.wrongOffset) }
            return Array((files[file] ?? [])[offset..<min(size, offset + le)]) + sw(StatusWord.success)
        case NTAG424.ISOCommand.updateBinary:
            guard let file = isoFile(p1), let size = file.dataSize else { return sw(StatusWord.noCurrentEF) }
            guard access(file, write: true) == .plain else { return sw(StatusWord.securityStatusNotSatisfied) }
            guard let lc = body.first, lc > 0, body.count == 1 + Int(lc) else { return sw(StatusWord.wrongLength) }
            let offset = isoOffset(p1, p2)
            guard offset + Int(lc) <= size else { return sw(StatusWord.wrongOffset) }
            write(file, offset: offset, Array(body[1...]))
            return sw(StatusWord.success)
        default:
            return sw(StatusWord.instructionNotSupported)
        }
    }

    /// Selecting the DF ends any authentication; with FCI asked for (P2 `00`), the FCI file's
    /// contents answer when it holds any.
    private func selectApplication(fci: Bool) -> [UInt8] {
        applicationSelected = true
        selectedFile = nil
        front.session = nil
        let contents = files[.fci] ?? []
        return (fci && contents.contains { $0 != 0 } ? contents : []) + sw(StatusWord.success)
    }

    private func isoFile(_ p1: UInt8) -> DESFireLight.File? {
        guard applicationSelected else { return nil }
        if p1 & NTAG424.ISOCommand.shortFileIDFlag != 0 {
            guard let file = DESFireLight.File(rawValue: p1 & 0x1F), isoFileIDs[file] != nil else { return nil }
            selectedFile = file
        }
        return selectedFile
    }

    private func isoOffset(_ p1: UInt8, _ p2: UInt8) -> Int {
        p1 & NTAG424.ISOCommand.shortFileIDFlag != 0 ? Int(p2) : Int(p1) << 8 | Int(p2)
    }
}
