import NFCCore
public import NFCTags

/// A virtual MIFARE DESFire EV1 4K (or EV2 / EV3: ``Generation``) from the public descriptions of its command set (libfreefare,
/// nfcpy, Proxmark3) and NXP AN11004: ISO-DEP (ATQA `03 44`, SAK `20`, ATS `06 75 77 81 02 80`,
/// which libfreefare recognises), native commands wrapped in ISO/IEC 7816-4 (class `90`), and
/// ISO SELECT / READ BINARY / UPDATE BINARY inside an application with an ISO DF name, which is
/// all an NFC Forum Type 4 reader needs once AN11004's NDEF application exists.
///
/// Native commands: GetVersion, GetApplicationIDs, SelectApplication, CreateApplication (ISO file
/// ID and DF name), DeleteApplication, CreateStdDataFile, GetFileIDs, GetFileSettings,
/// ReadData / WriteData (plain, frames of 59 bytes chained with `AF`), GetKeySettings,
/// GetKeyVersion, GetFreeMemory, FormatPICC, ChangeKey, ChangeKeySettings, and the
/// authentications: legacy Authenticate (`0A`, DES / 2K3DES keys), AuthenticateISO (`1A`, DES
/// family and 3K3DES) and AuthenticateAES (`AA`) (``DESFireEV1Authentication``), whose EV1
/// session then MACs every successful answer and takes enciphered commands with CRC32
/// (``DESFireEV1Session``). The PICC master key is the factory one (DES, zeros) with settings
/// `0F` until ChangeKey makes it another (3K3DES or AES too). ChangeFileSettings, ChangeKey and
/// ChangeKeySettings take the legacy enciphered form (CRC_A, send mode) after `0A` and the EV1
/// one after `1A` / `AA`; ChangeFileSettings plain when the change right is free.
/// EV2 and EV3 take AuthenticateEV2First (`71`) with an AES key of the PICC or an application
/// (shared ``EV2Authentication``), then EV2 secure messaging on every command but the
/// authentications and SelectApplication: each opened and each answer sealed by the shared
/// ``EV2Session`` in the modes ``DESFireEV2Messaging`` gives (the table the host reads);
/// GetCardUID answers there; GetVersion ends the EV2 session, as on the virtual NTAG 424 DNA.
/// Not modelled: value / record / backup files, key versions (GetKeyVersion answers 0),
/// AuthenticateEV2NonFirst, Read_Sig inside an EV2 session.
///
/// Free memory is a model's figure: ``totalMemory`` bytes at delivery, each file taking its size
/// rounded up to 32 bytes; applications cost nothing. Applications, files, keys and contents
/// persist in the tag file (``DESFireImage``).
public final class DESFireVirtualTag: NXPISODEPVirtualTag, PersistentVirtualTag {
    /// Which DESFire the chip is: its GetVersion, its model name, whether it answers Read_Sig
    /// and AuthenticateEV2First (EV2 and EV3).
    public enum Generation: String, Sendable, Hashable, CaseIterable {
        /// MIFARE DESFire EV1 4K: tag-file model `desfire-ev1`.
        case ev1 = "desfire-ev1"
        /// MIFARE DESFire EV2 4K: `desfire-ev2`.
        case ev2 = "desfire-ev2"
        /// MIFARE DESFire EV3 4K: `desfire-ev3`.
        case ev3 = "desfire-ev3"

        /// GetVersion's hardware part: NXP, DESFire (`01 01`), major version `01` EV1, `12` EV2,
        /// `33` EV3 (Proxmark3's and libfreefare's readings of real cards), storage `18` (4 KB),
        /// protocol `05`.
        public var hardwareVersion: [UInt8] {
            switch self {
            case .ev1: [0x04, 0x01, 0x01, 0x01, 0x00, 0x18, 0x05]
            case .ev2: [0x04, 0x01, 0x01, 0x12, 0x00, 0x18, 0x05]
            case .ev3: [0x04, 0x01, 0x01, 0x33, 0x00, 0x18, 0x05]
            }
        }

        /// GetVersion's software part: 1.4 (EV1) and 2.1 (EV2) as real cards answer in public
        /// Proxmark3 captures; 3.0 for EV3 is this model's assumption (no public capture found).
        public var softwareVersion: [UInt8] {
            switch self {
            case .ev1: [0x04, 0x01, 0x01, 0x01, 0x04, 0x18, 0x05]
            case .ev2: [0x04, 0x01, 0x01, 0x02, 0x01, 0x18, 0x05]
            case .ev3: [0x04, 0x01, 0x01, 0x03, 0x00, 0x18, 0x05]
            }
        }

        /// `MIFARE DESFire EV1 4K` etc.
        public var modelName: String {
            switch self {
            case .ev1: "MIFARE DESFire EV1 4K"
            case .ev2: "MIFARE DESFire EV2 4K"
            case .ev3: "MIFARE DESFire EV3 4K"
            }
        }

        /// Whether the chip answers Read_Sig (`3C`): EV2 and EV3.
        public var answersReadSignature: Bool { self != .ev1 }
    }

    /// The tag-file model name of the EV1, `desfire-ev1`.
    public static let modelKey = Generation.ev1.rawValue
    /// ATS: FSCI 5 (64 bytes), TA 77, TB 81, TC 02, historical byte 80 (as real EV1 cards and
    /// Proxmark3's captures show).
    public static let answerToSelect: [UInt8] = [0x06, 0x75, 0x77, 0x81, 0x02, 0x80]
    /// GetVersion hardware part of the EV1 (``Generation/hardwareVersion``).
    public static let hardwareVersion = Generation.ev1.hardwareVersion
    /// GetVersion software part of the EV1 (``Generation/softwareVersion``).
    public static let softwareVersion = Generation.ev1.softwareVersion
    /// Free memory at delivery, the model's figure: 4 608 bytes, so that a 4 KB NDEF file and its
    /// CC fit as on the 4 KB cards libfreefare formats.
    public static let totalMemory = 4608

    /// The 7-byte UID.
    public let uid: [UInt8]
    /// EV1, EV2 or EV3.
    public let generation: Generation
    /// The 56-byte originality signature Read_Sig answers on EV2 and EV3 (a stand-in of zeros by
    /// default, which no key accepts); kept in the tag file's attributes.
    public var originalitySignature: [UInt8]? {
        didSet { stateRevision += 1 }
    }
    /// What persists: PICC key and settings, applications, files.
    public private(set) var image: DESFireImage
    /// The source of RndB: the system's generator unless a test injects it.
    public var random: (Int) -> [UInt8] = { count in
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
    /// Grows with every change to persistent state.
    public private(set) var stateRevision = 0
    /// The memory files take from: ``totalMemory`` unless set otherwise (not kept in the tag
    /// file; a write plan's stand-in, ``VirtualDESFireStandIn``, leaves free memory to the real chip).
    public var memory = DESFireVirtualTag.totalMemory

    private enum Pending {
        case version(part: Int)
        case authentication(keyNumber: UInt8, key: [UInt8], rndB: [UInt8])
        case ev1Authentication(keyNumber: UInt8, key: DESFireKey, rndB: [UInt8], iv: [UInt8])
        case ev2Authentication(EV2CardResponder.Pending)
        /// An EV2-sealed command arriving in frames: its code, the bytes so far, the length due.
        case ev2Frames(command: UInt8, collected: [UInt8], expected: Int)
        case read(rest: [UInt8])
        case write(application: Int, file: UInt8, offset: Int, length: Int, data: [UInt8])
    }
    /// The selected application's index; nil at the PICC level.
    private var selected: Int?
    /// The key number authenticated at the selected level.
    private var authenticated: UInt8?
    /// The session key of that authentication.
    private var sessionKey: [UInt8]?
    /// The EV1 session of an AuthenticateISO or AuthenticateAES: its IV, its MACs.
    public private(set) var ev1Session: DESFireEV1Session?
    /// The EV2 secure-messaging session of an AuthenticateEV2First.
    public private(set) var ev2Session: EV2Session?
    /// How the answer to the command being run travels in the EV2 session.
    private var ev2ResponseMode = EV2CommMode.mac
    private var pending: Pending?
    /// The file ISO SELECT chose in the selected application.
    private var isoFile: UInt8?

    /// A chip holding `image`; by default factory-fresh: no applications, the factory PICC key.
    /// - Precondition: `uid` has 7 bytes.
    public init(uid: [UInt8], image: DESFireImage = DESFireImage(), generation: Generation = .ev1) {
        precondition(uid.count == 7)
        self.uid = uid
        self.image = image
        self.generation = generation
    }

    /// Restores a chip from a tag file; nil when the state is not a DESFire's (model
    /// `desfire-ev1`, `-ev2`, `-ev3`) or its signature attribute is not 56 bytes of hex.
    public init?(state: TagState) {
        guard let generation = Generation(rawValue: state.model), let uid = try? Hex.decode(state.uid), uid.count == 7,
              let memory = try? Hex.decode(state.memory), let image = try? DESFireImage(parsing: memory)
        else { return nil }
        self.uid = uid
        self.image = image
        self.generation = generation
        if let text = state.attributes?["signature"] {
            guard let signature = try? Hex.decode(text), signature.count == NXPNativeCommand.signatureLength else { return nil }
            originalitySignature = signature
        }
    }

    /// The image as the tag file's memory; the signature, when set, as an attribute.
    public var tagState: TagState {
        TagState(model: generation.rawValue, uid: Hex.encode(uid), memory: Hex.encode(image.encoded),
                 attributes: originalitySignature.map { ["signature": Hex.encode($0)] })
    }

    /// `MIFARE DESFire EV1 4K` (EV2, EV3).
    public var modelName: String { generation.modelName }
    /// Entering the field: PICC level, not authenticated.
    public func powerOn() {
        selected = nil
        deauthenticate()
        pending = nil
        isoFile = nil
    }

    /// Free memory now.
    public var freeMemory: Int {
        max(0, memory - image.applications.reduce(0) { sum, app in sum + app.files.reduce(0) { $0 + DESFireTag.allocated($1.data.count) } })
    }

    // MARK: APDUs

    /// Answers one command APDU.
    public func respond(toAPDU apdu: [UInt8]) -> [UInt8] {
        route(apdu, native: native) { apdu in
            pending = nil
            return iso(apdu)
        }
    }

    private func status(_ status: DESFire.Status) -> [UInt8] { [DESFire.statusPrefix, status.rawValue] }

    /// A successful answer: in an EV1 session `data` and its MAC; in an EV2 session `data`
    /// sealed in the command's answer mode (``DESFireEV2Messaging``), the counter advanced.
    private func ok(_ data: [UInt8] = []) -> [UInt8] {
        if var session = ev2Session {
            let sealed = session.sealResponse(data: data, mode: ev2ResponseMode)
            ev2Session = session
            return sealed
        }
        guard var session = ev1Session else { return data + status(.ok) }
        guard let answer = try? session.macAnswer(data) else { return fail(.integrityError) }
        ev1Session = session
        return answer + status(.ok)
    }

    /// Ends every authentication: legacy, EV1 and EV2.
    private func deauthenticate() {
        authenticated = nil
        sessionKey = nil
        ev1Session = nil
        ev2Session = nil
    }

    /// A failed command ends any authentication, as on the chip.
    private func fail(_ status: DESFire.Status) -> [UInt8] {
        deauthenticate()
        pending = nil
        return self.status(status)
    }

    /// `data` (and its MAC in an EV1 session) in frames of 59 bytes: the first now, the rest after `AF`.
    private func frames(_ data: [UInt8]) -> [UInt8] {
        let whole = ok(data)
        guard whole.count - 2 > DESFire.maximumFrameData, whole.suffix(2) == status(.ok)[...] else { return whole }
        return sendFrames(Array(whole.dropLast(2)))
    }

    private func sendFrames(_ data: [UInt8]) -> [UInt8] {
        guard data.count > DESFire.maximumFrameData else { return data + status(.ok) }
        pending = .read(rest: Array(data[DESFire.maximumFrameData...]))
        return Array(data[..<DESFire.maximumFrameData]) + status(.additionalFrame)
    }

    private func native(_ apdu: [UInt8]) -> [UInt8] {
        let command = apdu[1]
        guard apdu[2] == 0, apdu[3] == 0 else { return fail(.parameterError) }
        var data: [UInt8] = []
        if apdu.count > 5 {
            let lc = Int(apdu[4])
            guard apdu.count == 5 + lc || apdu.count == 6 + lc else { return fail(.lengthError) }
            data = Array(apdu[5..<(5 + lc)])
        } else if apdu.count == 5, apdu[4] != 0 {
            return fail(.lengthError)
        }
        let waiting = pending
        pending = nil
        if command == DESFire.Command.additionalFrame {
            switch waiting {
            case .version(let part): return version(part: part)
            case .authentication(let keyNumber, let key, let rndB): return authenticatePart2(keyNumber: keyNumber, key: key, rndB: rndB, data: data)
            case .ev2Authentication(let waiting): return authenticateEV2Part2(waiting, data: data)
            case .ev1Authentication(let keyNumber, let key, let rndB, let iv): return authenticateEV1Part2(keyNumber: keyNumber, key: key, rndB: rndB, iv: iv, data: data)
            case .read(let rest): return sendFrames(rest)
            case .ev2Frames(let code, let collected, let expected): return gatherEV2(code, collected + data, expected: expected)
            case .write(let application, let file, let offset, let length, let collected):
                return continueWrite(application: application, file: file, offset: offset, length: length, data: collected + data)
            case nil: return fail(.commandAborted)
            }
        }
        if ev2Session != nil, command == DESFire.Command.writeData, let expected = ev2WriteLength(data), data.count < expected {
            return gatherEV2(command, data, expected: expected)
        }
        return dispatch(command, data)
    }

    /// The frames of an EV2-sealed WriteData gathered: `91 AF` until `expected` bytes are in.
    private func gatherEV2(_ command: UInt8, _ collected: [UInt8], expected: Int) -> [UInt8] {
        guard collected.count <= expected else { return fail(.lengthError) }
        guard collected.count == expected else {
            pending = .ev2Frames(command: command, collected: collected, expected: expected)
            return status(.additionalFrame)
        }
        return dispatch(command, collected)
    }

    /// The length of an EV2-sealed WriteData's data field in its file's mode: header, data
    /// (Full: padded to whole blocks) and MAC; nil when the file is not there or the write runs
    /// past its end (the command then fails on its own, nothing gathered).
    private func ev2WriteLength(_ data: [UInt8]) -> Int? {
        guard data.count >= DESFireEV2Messaging.dataHeaderLength, let offset = DESFire.uint24LE(data[1..<4]), let length = DESFire.uint24LE(data[4..<7]),
              let settings = fileSettings(data[0]), offset + length <= settings.size
        else { return nil }
        switch DESFireEV2Messaging.dataMode(settings, write: true) {
        case .plain: return 7 + length
        case .mac: return 7 + length + 8
        case .full: return 7 + (length / 16 + 1) * 16 + 8
        }
    }

    /// The settings of file `number` in the selected application.
    private func fileSettings(_ number: UInt8) -> DESFireFileSettings? {
        guard let index = selected, let file = image.applications[index].files.first(where: { $0.number == number }) else { return nil }
        return DESFireFileSettings(communication: file.communication, accessRights: file.accessRights, size: file.data.count)
    }

    /// A command in an EV2 session opened (MAC checked, Full data decrypted) in the mode
    /// ``DESFireEV2Messaging`` gives it — the same table the host reads — and its answer mode
    /// noted for ``ok(_:)``. The session's own ``EV2Session/openCommand(_:headerLength:body:mode:)``,
    /// as the virtual NTAG 424 DNA opens its commands.
    private func openEV2(_ command: UInt8, _ data: [UInt8], session: EV2Session) -> Result<[UInt8], DESFire.Status> {
        var modes = DESFireEV2Messaging.modes(for: command, dataLength: max(0, data.count - 8))
        switch command {
        case DESFire.Command.readData, DESFire.Command.writeData:
            let write = command == DESFire.Command.writeData
            let mode = fileSettings(data.first ?? 0xFF).map { DESFireEV2Messaging.dataMode($0, write: write) } ?? .plain
            modes = DESFireEV2Messaging.dataModes(mode, write: write)
        case DESFire.Command.changeFileSettings where fileSettings(data.first ?? 0xFF)?.changeAccess == DESFire.freeAccess:
            modes = DESFireEV2Messaging.Modes(command: .plain, headerLength: data.count, response: .plain)
        default: break
        }
        ev2ResponseMode = modes.response
        do {
            let (header, plain) = try session.openCommand(command, headerLength: min(modes.headerLength, data.count), body: data, mode: modes.command)
            return .success(header + plain)
        } catch {
            return .failure(error)
        }
    }

    private func dispatch(_ command: UInt8, _ data: [UInt8]) -> [UInt8] {
        var data = data
        if command == DESFire.Command.getVersion, ev2Session != nil {
            // As the virtual NTAG 424 DNA: GetVersion leaves the EV2 session.
            deauthenticate()
        }
        if let session = ev2Session, !Self.unMACedCommands.contains(command) || Self.ev2SealedCommands.contains(command) {
            switch openEV2(command, data, session: session) {
            case .failure(let status): return fail(status)
            case .success(let opened): data = opened
            }
        }
        // An EV1 session runs the CMAC over every plain command (not sent); the enciphered ones
        // move the IV by deciphering, a WriteData once all its frames are in.
        if var session = ev1Session, !Self.unMACedCommands.contains(command) {
            guard (try? session.absorbCommand([command] + data)) != nil else { return fail(.integrityError) }
            ev1Session = session
        }
        switch command {
        case DESFire.Command.getVersion:
            guard data.isEmpty else { return fail(.lengthError) }
            return version(part: 1)
        case DESFire.Command.selectApplication: return selectApplication(data)
        case DESFire.Command.authenticateLegacy: return authenticatePart1(data)
        case DESFire.Command.authenticateISO, DESFire.Command.authenticateAES: return authenticateEV1Part1(command, data)
        case DESFire.Command.changeKey: return changeKey(data)
        case DESFire.Command.changeKeySettings: return changeKeySettings(data)
        case DESFire.Command.authenticateEV2First where generation != .ev1: return authenticateEV2Part1(data)
        case DESFire.Command.getCardUID where ev2Session != nil:
            guard data.isEmpty else { return fail(.lengthError) }
            return ok(uid)
        case DESFire.Command.getKeySettings:
            guard data.isEmpty else { return fail(.lengthError) }
            guard let index = selected else { return ok([image.piccKeySettings, 0x01 | image.piccKeyTypeBits]) }
            return ok([image.applications[index].keySettings, image.applications[index].keyCount])
        case DESFire.Command.getKeyVersion:
            guard data.count == 1 else { return fail(.lengthError) }
            guard data[0] < keyCount else { return fail(.noSuchKey) }
            // A DES-family key's version is in its parity bits; an AES key's is the byte
            // ChangeKey carried.
            let versions = selected.map { image.applications[$0].keyVersions }
            let aesVersion = versions.map { $0.indices.contains(Int(data[0])) ? $0[Int(data[0])] : 0 } ?? image.piccKeyVersion
            return ok([storedKey(data[0])?.parityVersion ?? aesVersion])
        case DESFire.Command.getFreeMemory:
            guard data.isEmpty else { return fail(.lengthError) }
            return ok(DESFire.uint24LE(freeMemory))
        case NXPNativeCommand.readSignature where generation.answersReadSignature:
            guard data == [NXPNativeCommand.signatureAddress] else { return fail(.lengthError) }
            // Status 90 as the NTAG 424 DNA datasheet gives Read_Sig's plain answer.
            return (originalitySignature ?? [UInt8](repeating: 0, count: NXPNativeCommand.signatureLength))
                + [DESFire.statusPrefix, NXPNativeCommand.readSignatureOK]
        default: break
        }
        if let index = selected { return applicationCommand(command, data, index) }
        return piccCommand(command, data)
    }

    /// Commands whose CMAC is not run on arrival: the authentications and SelectApplication
    /// (they end the session), the enciphered ones, WriteData (run once all frames are in).
    private static let unMACedCommands: Set<UInt8> = [
        DESFire.Command.authenticateLegacy, DESFire.Command.authenticateISO, DESFire.Command.authenticateAES,
        DESFire.Command.authenticateEV2First, DESFire.Command.selectApplication, DESFire.Command.changeKey,
        DESFire.Command.changeKeySettings, DESFire.Command.changeFileSettings, DESFire.Command.writeData,
    ]

    /// Commands of that set an EV2 session opens all the same (they carry MACt or Full data
    /// there); the others in it (authentications, SelectApplication) end or start sessions.
    private static let ev2SealedCommands: Set<UInt8> = [
        DESFire.Command.changeKey, DESFire.Command.changeKeySettings, DESFire.Command.changeFileSettings, DESFire.Command.writeData,
    ]

    private var keyCount: UInt8 { selected.map { image.applications[$0].keyCount & DESFire.KeyCount.countMask } ?? 1 }

    private func version(part: Int) -> [UInt8] {
        switch part {
        case 1:
            pending = .version(part: 2)
            return generation.hardwareVersion + status(.additionalFrame)
        case 2:
            pending = .version(part: 3)
            return generation.softwareVersion + status(.additionalFrame)
        default:
            // UID, batch number, production week and year (BCD): a stand-in, week 10 of 2026.
            // In an EV1 session the MAC covers all three parts.
            let last = uid + [0xBA, 0x7C, 0x40, 0x00, 0x00, 0x10, 0x26]
            guard ev1Session != nil else { return ok(last) }
            let whole = ok(generation.hardwareVersion + generation.softwareVersion + last)
            return Array(whole.dropFirst(generation.hardwareVersion.count + generation.softwareVersion.count))
        }
    }

    private func selectApplication(_ data: [UInt8]) -> [UInt8] {
        guard data.count == DESFire.applicationIDLength else { return fail(.lengthError) }
        deauthenticate()
        isoFile = nil
        if data == DESFire.piccApplicationID {
            selected = nil
            return ok()
        }
        guard let index = image.applications.firstIndex(where: { $0.aid == data }) else {
            selected = nil
            return fail(.applicationNotFound)
        }
        selected = index
        return ok()
    }

    // MARK: Authentication

    private func authenticatePart1(_ data: [UInt8]) -> [UInt8] {
        guard data.count == 1 else { return fail(.lengthError) }
        let keyNumber = data[0]
        guard keyNumber < keyCount else { return fail(.noSuchKey) }
        guard let stored = storedKey(keyNumber), stored.isLegacyCapable else { return fail(.authenticationError) }
        let key = stored.cipherKey
        deauthenticate()
        let rndB = random(DESFireLegacyAuthentication.randomLength)
        guard let challenge = try? DESFireLegacyAuthentication.challenge(key: key, rndB: rndB) else { return fail(.authenticationError) }
        pending = .authentication(keyNumber: keyNumber, key: key, rndB: rndB)
        return challenge + status(.additionalFrame)
    }

    private func authenticatePart2(keyNumber: UInt8, key: [UInt8], rndB: [UInt8], data: [UInt8]) -> [UInt8] {
        guard data.count == 2 * DESFireLegacyAuthentication.randomLength else { return fail(.lengthError) }
        guard let rndA = try? DESFireLegacyAuthentication.checkAnswer(key: key, rndB: rndB, part2: data),
              let confirmation = try? DESFireLegacyAuthentication.confirmation(key: key, rndA: rndA),
              let session = try? DESFireLegacyAuthentication.sessionKey(key: key, rndA: rndA, rndB: rndB)
        else { return fail(.authenticationError) }
        authenticated = keyNumber
        sessionKey = session
        return ok(confirmation)
    }

    /// Key `number` of the selected level as typed; nil past the keys or for a stored key
    /// that does not fit its type.
    private func storedKey(_ number: UInt8) -> DESFireKey? {
        guard let index = selected else { return number == 0 ? image.piccKey : nil }
        let application = image.applications[index]
        guard Int(number) < application.keys.count else { return nil }
        return DESFireImage.key(typeBits: application.keyCount, bytes: application.keys[Int(number)])
    }

    /// AuthenticateISO (`1A`: a DES-family or 3K3DES key) or AuthenticateAES (`AA`: an AES key)
    /// part 1: `E(RndB)` from a zero IV.
    private func authenticateEV1Part1(_ command: UInt8, _ data: [UInt8]) -> [UInt8] {
        guard data.count == 1 else { return fail(.lengthError) }
        let keyNumber = data[0]
        guard keyNumber < keyCount else { return fail(.noSuchKey) }
        guard let key = storedKey(keyNumber), DESFireEV1Authentication.command(for: key.type) == command else { return fail(.authenticationError) }
        deauthenticate()
        let rndB = random(key.type.randomLength)
        guard let (challenge, iv) = try? DESFireEV1Authentication.challenge(key: key, rndB: rndB) else { return fail(.authenticationError) }
        pending = .ev1Authentication(keyNumber: keyNumber, key: key, rndB: rndB, iv: iv)
        return challenge + status(.additionalFrame)
    }

    private func authenticateEV1Part2(keyNumber: UInt8, key: DESFireKey, rndB: [UInt8], iv: [UInt8], data: [UInt8]) -> [UInt8] {
        guard data.count == 2 * key.type.randomLength else { return fail(.lengthError) }
        guard let (rndA, confirmation) = try? DESFireEV1Authentication.checkAnswer(key: key, rndB: rndB, iv: iv, part2: data),
              let sessionKey = try? DESFireEV1Authentication.sessionKey(key: key, rndA: rndA, rndB: rndB)
        else { return fail(.authenticationError) }
        authenticated = keyNumber
        ev1Session = DESFireEV1Session(keyNumber: keyNumber, key: sessionKey)
        return confirmation + status(.ok)
    }

    /// AuthenticateEV2First part 1 (EV2, EV3): an AES key of the selected level, the PICC
    /// master key or an application's (the shared ``EV2Authentication``, as the NTAG 424 DNA
    /// chip runs it).
    private func authenticateEV2Part1(_ data: [UInt8]) -> [UInt8] {
        guard let keyNumber = EV2CardResponder.keyNumber(part1: data, first: true) else { return fail(.lengthError) }
        guard keyNumber < keyCount else { return fail(.noSuchKey) }
        guard let stored = storedKey(keyNumber), stored.type == .aes else { return fail(.authenticationError) }
        deauthenticate()
        guard let (challenge, waiting) = EV2CardResponder.part1(keyNumber: keyNumber, key: stored.bytes, first: true, previous: nil, random: random)
        else { return fail(.authenticationError) }
        pending = .ev2Authentication(waiting)
        return challenge + status(.additionalFrame)
    }

    private func authenticateEV2Part2(_ waiting: EV2CardResponder.Pending, data: [UInt8]) -> [UInt8] {
        switch EV2CardResponder.part2(waiting, data: data, random: random) {
        case .failure(.status(let error)): return fail(error)
        case .failure(.internalError): return fail(.authenticationError)
        case .success(let (confirmation, session)):
            authenticated = waiting.keyNumber
            ev2Session = session
            return confirmation + status(.ok)
        }
    }

    // MARK: PICC level

    private func piccCommand(_ command: UInt8, _ data: [UInt8]) -> [UInt8] {
        let masterAuthenticated = authenticated == 0
        switch command {
        case DESFire.Command.getApplicationIDs:
            guard data.isEmpty else { return fail(.lengthError) }
            guard image.piccKeySettings & DESFire.KeySetting.freeDirectoryListing != 0 || masterAuthenticated else { return fail(.authenticationError) }
            return frames(image.applications.flatMap(\.aid))
        case DESFire.Command.createApplication:
            guard image.piccKeySettings & DESFire.KeySetting.freeCreateDelete != 0 || masterAuthenticated else { return fail(.authenticationError) }
            return createApplication(data)
        case DESFire.Command.deleteApplication:
            guard data.count == 3 else { return fail(.lengthError) }
            guard masterAuthenticated else { return fail(.authenticationError) }
            guard let index = image.applications.firstIndex(where: { $0.aid == data }) else { return fail(.applicationNotFound) }
            image.applications.remove(at: index)
            stateRevision += 1
            return ok()
        case DESFire.Command.formatPICC:
            guard data.isEmpty else { return fail(.lengthError) }
            guard masterAuthenticated else { return fail(.authenticationError) }
            image.applications = []
            stateRevision += 1
            return ok()
        default: return fail(.illegalCommand)
        }
    }

    private func createApplication(_ data: [UInt8]) -> [UInt8] {
        guard data.count >= 5 else { return fail(.lengthError) }
        let aid = Array(data[0..<3]), settings = data[3], keyCount = data[4]
        let keys = Int(keyCount & DESFire.KeyCount.countMask)
        guard aid != DESFire.piccApplicationID, (1...DESFire.maximumKeys).contains(keys),
              keyCount & DESFire.KeyCount.keyTypeMask != DESFire.KeyCount.keyTypeMask
        else { return fail(.parameterError) }
        var isoFileID: UInt16?
        var dfName: [UInt8] = []
        if keyCount & DESFire.KeyCount.isoFileIDs != 0 {
            guard data.count >= 7, data.count <= 7 + DESFire.maximumDFNameLength else { return fail(.lengthError) }
            isoFileID = UInt16(data[6]) << 8 | UInt16(data[5])
            dfName = Array(data[7...])
        } else if data.count != 5 {
            return fail(.lengthError)
        }
        guard !image.applications.contains(where: { $0.aid == aid || (!dfName.isEmpty && $0.dfName == dfName) || (isoFileID != nil && $0.isoFileID == isoFileID) }) else {
            return fail(.duplicateError)
        }
        guard image.applications.count < DESFire.maximumApplications else { return fail(.countError) }
        let keyLength = switch keyCount & DESFire.KeyCount.keyTypeMask {
        case DESFire.KeyCount.aes: 16
        case 0x40: 24
        default: 8
        }
        image.applications.append(DESFireImage.Application(
            aid: aid, keySettings: settings, keyCount: keyCount, isoFileID: isoFileID, dfName: dfName,
            keys: [[UInt8]](repeating: [UInt8](repeating: 0, count: keyLength), count: keys), files: []))
        stateRevision += 1
        return ok()
    }

    // MARK: Application level

    private func applicationCommand(_ command: UInt8, _ data: [UInt8], _ index: Int) -> [UInt8] {
        let application = image.applications[index]
        switch command {
        case DESFire.Command.getFileIDs:
            guard data.isEmpty else { return fail(.lengthError) }
            return ok(application.files.map(\.number))
        case DESFire.Command.getFileSettings:
            guard data.count == 1 else { return fail(.lengthError) }
            guard let file = application.files.first(where: { $0.number == data[0] }) else { return fail(.fileNotFound) }
            return ok(DESFireFileSettings(communication: file.communication, accessRights: file.accessRights, size: file.data.count).encoded)
        case DESFire.Command.createStdDataFile: return createFile(data, index)
        case DESFire.Command.changeFileSettings: return changeFileSettings(data, index)
        case DESFire.Command.readData: return readData(data, index)
        case DESFire.Command.writeData:
            guard data.count >= 7 else { return fail(.lengthError) }
            guard let offset = DESFire.uint24LE(data[1..<4]), let length = DESFire.uint24LE(data[4..<7]) else { return fail(.lengthError) }
            return continueWrite(application: index, file: data[0], offset: offset, length: length, data: Array(data[7...]), first: true)
        default: return fail(.illegalCommand)
        }
    }

    private func createFile(_ data: [UInt8], _ index: Int) -> [UInt8] {
        let application = image.applications[index]
        guard application.keySettings & DESFire.KeySetting.freeCreateDelete != 0 || authenticated == 0 else { return fail(.permissionDenied) }
        let hasISO = application.isoFileID != nil
        guard data.count == (hasISO ? 9 : 7) else { return fail(.lengthError) }
        let number = data[0]
        var at = 1
        var isoFileID: UInt16?
        if hasISO {
            isoFileID = UInt16(data[2]) << 8 | UInt16(data[1])
            at = 3
        }
        let communication = data[at], rights = UInt16(data[at + 2]) << 8 | UInt16(data[at + 1])
        guard number <= DESFire.maximumFileNumber, communication & 0xFC == 0, let size = DESFire.uint24LE(data[(at + 3)..<(at + 6)]), size > 0 else {
            return fail(.parameterError)
        }
        guard !application.files.contains(where: { $0.number == number || (isoFileID != nil && $0.isoFileID == isoFileID) }) else {
            return fail(.duplicateError)
        }
        guard DESFireTag.allocated(size) <= freeMemory else { return fail(.outOfEEPROM) }
        image.applications[index].files.append(DESFireImage.File(
            number: number, isoFileID: isoFileID, communication: communication, accessRights: rights, data: [UInt8](repeating: 0, count: size)))
        stateRevision += 1
        return ok()
    }

    /// ChangeFileSettings: plain when the change right is free, else enciphered with the session
    /// of that key (legacy scheme: CRC_A and zero padding checked).
    private func changeFileSettings(_ data: [UInt8], _ index: Int) -> [UInt8] {
        guard let number = data.first else { return fail(.lengthError) }
        guard let position = image.applications[index].files.firstIndex(where: { $0.number == number }) else { return fail(.fileNotFound) }
        let file = image.applications[index].files[position]
        let change = DESFireFileSettings(communication: file.communication, accessRights: file.accessRights, size: file.data.count).changeAccess
        let settings: [UInt8]
        switch change {
        case DESFire.neverAccess: return fail(.permissionDenied)
        case DESFire.freeAccess:
            guard data.count == 4 else { return fail(.lengthError) }
            if var session = ev1Session {
                guard (try? session.absorbCommand([DESFire.Command.changeFileSettings] + data)) != nil else { return fail(.integrityError) }
                ev1Session = session
            }
            settings = Array(data[1...])
        default:
            guard authenticated == change else { return fail(.authenticationError) }
            guard let plain = decipherCommand(DESFire.Command.changeFileSettings, header: [number], Array(data[1...]), length: 3) else {
                return fail(.integrityError)
            }
            settings = plain
        }
        guard settings[0] & 0xFC == 0 else { return fail(.parameterError) }
        image.applications[index].files[position].communication = settings[0]
        image.applications[index].files[position].accessRights = UInt16(settings[2]) << 8 | UInt16(settings[1])
        stateRevision += 1
        return ok()
    }

    /// An enciphered command field in the session there is: legacy (CRC_A, send mode) or EV1
    /// (CRC32 over command, header and data; the IV moves on). Nil for no session or an
    /// integrity error.
    private func decipherCommand(_ command: UInt8, header: [UInt8], _ field: [UInt8], length: Int) -> [UInt8]? {
        // In an EV2 session the field was opened on arrival (openEV2): it is the plain data.
        if ev2Session != nil { return field.count == length ? field : nil }
        if var session = ev1Session {
            let plain = try? session.decipher(command: command, header: header, field, length: length)
            ev1Session = session
            return plain
        }
        guard let sessionKey else { return nil }
        return try? DESFireLegacyAuthentication.decipherReceived(sessionKey: sessionKey, field, length: length)
    }

    /// The padded plain text of an enciphered field without a CRC check (ChangeKey checks its own).
    private func decipherBlocks(_ field: [UInt8]) -> [UInt8]? {
        if var session = ev1Session {
            guard field.count % session.key.type.blockLength == 0, let plain = try? session.decipherBlocks(field) else { return nil }
            ev1Session = session
            return plain
        }
        guard let sessionKey else { return nil }
        return try? DESFireLegacyAuthentication.decipherBlocksReceived(sessionKey: sessionKey, field)
    }

    /// ChangeKeySettings (`54`): the settings enciphered under the level's master key session;
    /// refused (`9D`) once the settings say they are frozen (bit 3 clear).
    private func changeKeySettings(_ data: [UInt8]) -> [UInt8] {
        let current = selected.map { image.applications[$0].keySettings } ?? image.piccKeySettings
        guard authenticated == 0 else { return fail(.authenticationError) }
        guard current & DESFire.KeySetting.configurationChangeable != 0 else { return fail(.permissionDenied) }
        guard let plain = decipherCommand(DESFire.Command.changeKeySettings, header: [], data, length: 1) else { return fail(.integrityError) }
        if let index = selected {
            image.applications[index].keySettings = plain[0]
        } else {
            image.piccKeySettings = plain[0]
        }
        stateRevision += 1
        return ok()
    }

    /// ChangeKey (`C4`): key number (at the PICC level with the new key's type in bits 7–6),
    /// then the cryptogram ``DESFireTag/changeKey(_:to:from:version:piccLevel:session:)``
    /// builds. Who may change a key: the master key (key 0) itself, if its settings let it
    /// change (bit 0); another key as the settings' top nibble says (`0` the master key, `E` the
    /// key itself, `F` never, else that key). Changing the authenticated key ends the session.
    private func changeKey(_ data: [UInt8]) -> [UInt8] {
        guard data.count >= 2 else { return fail(.lengthError) }
        let number = data[0] & 0x0F
        let settings = selected.map { image.applications[$0].keySettings } ?? image.piccKeySettings
        guard let authenticatedKey = authenticated else { return fail(.authenticationError) }
        guard number < keyCount, selected != nil || data[0] & 0x30 == 0 else { return fail(.noSuchKey) }
        if number == 0 {
            guard settings & DESFire.KeySetting.masterKeyChangeable != 0 else { return fail(.permissionDenied) }
            guard authenticatedKey == 0 else { return fail(.authenticationError) }
        } else {
            switch settings >> 4 {
            case 0x0F: return fail(.permissionDenied)
            case 0x0E: guard authenticatedKey == number else { return fail(.authenticationError) }
            default: guard authenticatedKey == settings >> 4 else { return fail(.authenticationError) }
            }
        }
        let typeBits = selected.map { image.applications[$0].keyCount & DESFire.KeyCount.keyTypeMask } ?? data[0] & DESFire.KeyCount.keyTypeMask
        guard let family = DESFireKey.KeyType.family(ofTypeBits: typeBits), let oldKey = storedKey(number) else { return fail(.parameterError) }
        let keyLength = family[family.count - 1].keyLength == 8 ? 16 : family[family.count - 1].keyLength
        let isAES = typeBits == DESFire.KeyCount.aes
        let legacy = ev1Session == nil
        let sameKey = authenticatedKey == number
        if ev2Session != nil {
            // EV2: the data was opened on arrival; the cryptogram is NTAG 424 DNA's (shared).
            guard let (newKey, version) = EV2Session.newKey(
                fromChangeKeyData: Array(data[1...]), keyLength: keyLength, hasVersion: isAES, oldKey: oldKey.changeKeyBytes, sameKey: sameKey),
                DESFireImage.key(typeBits: typeBits, bytes: newKey) != nil
            else { return fail(.integrityError) }
            return storeChangedKey(number, newKey, typeBits: typeBits, sameKey: sameKey, version: version)
        }
        guard let plain = decipherBlocks(Array(data[1...])) else { return fail(.integrityError) }
        let dataLength = keyLength + (isAES ? 1 : 0), crcLength = legacy ? 2 : 4
        guard plain.count >= dataLength + crcLength * (sameKey ? 1 : 2) else { return fail(.lengthError) }
        let keyData = Array(plain[..<dataLength])
        var newKey = Array(keyData[..<keyLength])
        if !sameKey {
            // Another key comes XORed with its old value (DES as 16 bytes).
            let old = oldKey.changeKeyBytes
            guard old.count == keyLength else { return fail(.parameterError) }
            newKey = zip(newKey, old).map { $0 ^ $1 }
        }
        var expected = legacy ? ISO14443ACRC.bytes(of: keyData) : DESFireCipher.crc32([DESFire.Command.changeKey, data[0]] + keyData)
        if !sameKey { expected += legacy ? ISO14443ACRC.bytes(of: newKey) : DESFireCipher.crc32(newKey) }
        let end = dataLength + expected.count
        guard Array(plain[dataLength..<end]) == expected, plain[end...].allSatisfy({ $0 == 0 }),
              DESFireImage.key(typeBits: typeBits, bytes: newKey) != nil
        else { return fail(.integrityError) }
        return storeChangedKey(number, newKey, typeBits: typeBits, sameKey: sameKey, version: isAES ? keyData[keyLength] : 0)
    }

    /// ChangeKey's effect: the key and its version stored (at the PICC level with its type);
    /// changing the key authenticated with ends the session, its answer without a MAC.
    private func storeChangedKey(_ number: UInt8, _ newKey: [UInt8], typeBits: UInt8, sameKey: Bool, version keyVersion: UInt8) -> [UInt8] {
        if let index = selected {
            image.applications[index].keys[Int(number)] = newKey
            if image.applications[index].keyVersions.indices.contains(Int(number)) { image.applications[index].keyVersions[Int(number)] = keyVersion }
        } else {
            image.piccMasterKey = newKey
            image.piccKeyTypeBits = typeBits
            image.piccKeyVersion = keyVersion
        }
        stateRevision += 1
        guard !sameKey else {
            // The key just authenticated with is gone: so is the session; the answer has no MAC.
            deauthenticate()
            return status(.ok)
        }
        return ok()
    }

    /// Whether access nibble `nibble` lets the current authentication through.
    private func allows(_ nibble: UInt8) -> Bool { nibble == DESFire.freeAccess || authenticated == nibble }

    private func readData(_ data: [UInt8], _ index: Int) -> [UInt8] {
        guard data.count == 7, let offset = DESFire.uint24LE(data[1..<4]), let length = DESFire.uint24LE(data[4..<7]) else { return fail(.lengthError) }
        guard let file = image.applications[index].files.first(where: { $0.number == data[0] }) else { return fail(.fileNotFound) }
        let settings = DESFireFileSettings(communication: file.communication, accessRights: file.accessRights, size: file.data.count)
        guard allows(settings.readAccess) || allows(settings.readWriteAccess) else { return fail(.authenticationError) }
        guard offset < file.data.count, offset + length <= file.data.count else { return fail(.boundaryError) }
        let end = length == 0 ? file.data.count : offset + length
        return frames(Array(file.data[offset..<end]))
    }

    private func continueWrite(application index: Int, file number: UInt8, offset: Int, length: Int, data: [UInt8], first: Bool = false) -> [UInt8] {
        guard index < image.applications.count, let position = image.applications[index].files.firstIndex(where: { $0.number == number }) else {
            return fail(.fileNotFound)
        }
        let file = image.applications[index].files[position]
        if first {
            let settings = DESFireFileSettings(communication: file.communication, accessRights: file.accessRights, size: file.data.count)
            guard allows(settings.writeAccess) || allows(settings.readWriteAccess) else { return fail(.authenticationError) }
            guard length > 0, offset + length <= file.data.count else { return fail(.boundaryError) }
        }
        guard data.count <= length else { return fail(.lengthError) }
        guard data.count == length else {
            pending = .write(application: index, file: number, offset: offset, length: length, data: data)
            return status(.additionalFrame)
        }
        if var session = ev1Session {
            let command = [DESFire.Command.writeData, number] + DESFire.uint24LE(offset) + DESFire.uint24LE(length) + data
            guard (try? session.absorbCommand(command)) != nil else { return fail(.integrityError) }
            ev1Session = session
        }
        image.applications[index].files[position].data.replaceSubrange(offset..<(offset + length), with: data)
        stateRevision += 1
        return ok()
    }

    // MARK: ISO

    private func iso(_ apdu: [UInt8]) -> [UInt8] {
        let p1 = apdu[2], p2 = apdu[3]
        let body = Array(apdu[4...])
        switch apdu[1] {
        case Type4Command.select:
            guard let lc = body.first, lc > 0, body.count == 1 + Int(lc) || body.count == 2 + Int(lc) else { return sw(StatusWord.wrongLength) }
            let data = Array(body[1..<(1 + Int(lc))])
            switch p1 {
            case Type4Command.selectByNameP1:
                guard let index = image.applications.firstIndex(where: { !$0.dfName.isEmpty && $0.dfName == data }) else { return sw(StatusWord.fileNotFound) }
                selected = index
                deauthenticate()
                isoFile = nil
                return sw(StatusWord.success)
            case Type4Command.selectByFileIDP1:
                guard data.count == 2 else { return sw(StatusWord.wrongLength) }
                let id = UInt16(data[0]) << 8 | UInt16(data[1])
                if let index = image.applications.firstIndex(where: { $0.isoFileID == id }) {
                    selected = index
                    deauthenticate()
                    isoFile = nil
                    return sw(StatusWord.success)
                }
                guard let index = selected, let file = image.applications[index].files.first(where: { $0.isoFileID == id }) else {
                    return sw(StatusWord.fileNotFound)
                }
                _ = p2
                isoFile = file.number
                return sw(StatusWord.success)
            default: return sw(StatusWord.incorrectP1P2)
            }
        case Type4Command.readBinary:
            guard let (index, position) = currentISOFile() else { return sw(StatusWord.noCurrentEF) }
            guard body.count == 1 else { return sw(StatusWord.wrongLength) }
            let file = image.applications[index].files[position]
            let settings = DESFireFileSettings(communication: file.communication, accessRights: file.accessRights, size: file.data.count)
            guard settings.readAccess == DESFire.freeAccess || settings.readWriteAccess == DESFire.freeAccess else { return sw(StatusWord.securityStatusNotSatisfied) }
            let offset = Int(p1) << 8 | Int(p2), le = body[0] == 0 ? 256 : Int(body[0])
            guard p1 & 0x80 == 0, offset < file.data.count else { return sw(StatusWord.wrongOffset) }
            return Array(file.data[offset..<min(file.data.count, offset + le)]) + sw(StatusWord.success)
        case Type4Command.updateBinary:
            guard let (index, position) = currentISOFile() else { return sw(StatusWord.noCurrentEF) }
            let file = image.applications[index].files[position]
            let settings = DESFireFileSettings(communication: file.communication, accessRights: file.accessRights, size: file.data.count)
            guard settings.writeAccess == DESFire.freeAccess || settings.readWriteAccess == DESFire.freeAccess else { return sw(StatusWord.securityStatusNotSatisfied) }
            guard let lc = body.first, lc > 0, body.count == 1 + Int(lc) else { return sw(StatusWord.wrongLength) }
            let offset = Int(p1) << 8 | Int(p2)
            guard p1 & 0x80 == 0, offset + Int(lc) <= file.data.count else { return sw(StatusWord.wrongOffset) }
            image.applications[index].files[position].data.replaceSubrange(offset..<(offset + Int(lc)), with: body[1...])
            stateRevision += 1
            return sw(StatusWord.success)
        default:
            return sw(StatusWord.instructionNotSupported)
        }
    }

    private func currentISOFile() -> (Int, Int)? {
        guard let index = selected, let number = isoFile,
              let position = image.applications[index].files.firstIndex(where: { $0.number == number })
        else { return nil }
        return (index, position)
    }
}
