import NDEF
import NFCCore

/// The personalization of an NTAG 424 DNA for SUN (AN12196 section 5, "Personalization"): from
/// a factory chip (key 0 all zero) to one that mirrors encrypted PICC data and an SDMMAC into
/// its URL on every read, with the application's own keys.
///
/// The steps, in order: select the NDEF application; AuthenticateEV2First with the factory key
/// 0; WriteData of the NDEF file (the URL with its placeholders' characters); ChangeFileSettings
/// of the NDEF file (read free, write/read-write/change key 0, SDM with the template's offsets,
/// SDMMetaRead key 2 and SDMFileRead/SDMCtrRet key 1, as AN12196's example); ChangeKey of keys
/// 1–4 the keys file gives (SDMFileRead is key 1, SDMMetaRead key 2); ChangeKey of key 0 last,
/// which ends the session. ``steps`` lists them with every key masked: `--plan` prints them.
public struct NTAG424Setup: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key number SDMFileRead (and SDMCtrRet) get: 1, as in AN12196.
    public static let fileReadKeyNumber: UInt8 = 1
    /// The key number SDMMetaRead gets: 2, as in AN12196.
    public static let metaReadKeyNumber: UInt8 = 2
    /// The version every changed key gets.
    public static let keyVersion: UInt8 = 1

    /// One command of the setup, for the plan and the report: what it is, no key in it.
    public struct Step: Sendable, Hashable, Codable {
        /// The command (`AuthenticateEV2First`, `ChangeKey`…).
        public var command: String
        /// What it does, keys masked (`key 1 ← sdmFileRead ••••`).
        public var detail: String
    }

    /// The URL template with its file and SDM layout.
    public let template: SDMURLTemplate
    /// The NDEF file's settings after the setup.
    public let settings: NTAG424FileSettings
    /// The new keys by number (0 always; 1 when the MAC or file data is mirrored, 2 when the
    /// PICC data is encrypted; 3 and 4 when given).
    let newKeys: [UInt8: (name: String, key: [UInt8])]
    /// The key number 0 is authenticated with first: all zero (factory) unless given.
    let currentMasterKey: [UInt8]
    /// The chip's keys now, by number, for the keys the setup changes (ChangeKey of keys 1–4
    /// needs the old key): all zero (factory) unless a current keys file gives them.
    let currentKeys: [UInt8: [UInt8]]
    /// Whether the setup starts from a factory chip (no current key given).
    let startsFromFactory: Bool

    /// A setup of `template` with the keys of `keys`: `key0` (required), `sdmFileRead` (needed
    /// for `{sun:mac}`), `sdmMetaRead` (needed for `{sun:picc}`), `key3` and `key4` (optional).
    /// `currentKeys` sets up a chip set up before: its `key0` opens the chip and each key it
    /// names (`sdmFileRead`, `sdmMetaRead`, `key3`, `key4`) is the old value of the key the
    /// setup changes (a key it does not name is taken to be still the factory key).
    /// - Throws: ``NTAG424Error`` `invalidParameter` naming the missing key (never its value).
    public init(
        template: SDMURLTemplate, keys: NTAG424KeyFile, currentMasterKey: [UInt8] = [UInt8](repeating: 0, count: NTAG424.keyLength),
        currentKeys: NTAG424KeyFile? = nil
    ) throws(NTAG424Error) {
        self.template = template
        if let currentKeys {
            guard let current = currentKeys.key("key0") else {
                throw NTAG424Error(.invalidParameter, "the current keys give no 'key0' (the key that opens the chip now)")
            }
            self.currentMasterKey = current.array
        } else {
            self.currentMasterKey = currentMasterKey
        }
        startsFromFactory = currentKeys == nil && currentMasterKey.allSatisfy { $0 == 0 }
        let layout = template.layout
        var newKeys: [UInt8: (name: String, key: [UInt8])] = [:]
        guard let master = keys.key("key0") else { throw NTAG424Error(.invalidParameter, "the keys file gives no 'key0' (the new AppMasterKey)") }
        newKeys[0] = ("key0", master.array)
        let needsFileRead = layout.macOffset != nil || layout.encryptedFileData != nil
        if needsFileRead {
            guard let key = keys.key(NTAG424KeyFile.sdmFileReadName) else {
                throw NTAG424Error(.invalidParameter, "the URL has {sun:mac}: the keys file must give '\(NTAG424KeyFile.sdmFileReadName)'")
            }
            newKeys[Self.fileReadKeyNumber] = (NTAG424KeyFile.sdmFileReadName, key.array)
        }
        if layout.encryptsPICCData {
            guard let key = keys.key(NTAG424KeyFile.sdmMetaReadName) else {
                throw NTAG424Error(.invalidParameter, "the URL has {sun:picc}: the keys file must give '\(NTAG424KeyFile.sdmMetaReadName)'")
            }
            newKeys[Self.metaReadKeyNumber] = (NTAG424KeyFile.sdmMetaReadName, key.array)
        }
        for number: UInt8 in 1...4 where newKeys[number] == nil {
            if let key = keys.key("key\(number)") { newKeys[number] = ("key\(number)", key.array) }
        }
        self.newKeys = newKeys
        var old: [UInt8: [UInt8]] = [:]
        for (number, entry) in newKeys { if let key = currentKeys?.key(entry.name) { old[number] = key.array } }
        self.currentKeys = old
        var sdm = NTAG424SDMSettings(
            mirrorsUID: layout.mirrorsUID, mirrorsReadCounter: layout.mirrorsCounter, encryptsFileData: layout.encryptedFileData != nil,
            metaRead: layout.encryptsPICCData ? .key(Self.metaReadKeyNumber) : .free,
            fileRead: needsFileRead ? .key(Self.fileReadKeyNumber) : .never, counterRetrieval: .key(Self.fileReadKeyNumber))
        sdm.uidOffset = layout.uidOffset
        sdm.readCounterOffset = layout.counterOffset
        sdm.piccDataOffset = layout.piccDataOffset
        sdm.macInputOffset = layout.macInputOffset
        sdm.encryptedDataOffset = layout.encryptedFileData?.offset
        sdm.encryptedDataLength = layout.encryptedFileData?.length
        sdm.macOffset = layout.macOffset
        settings = NTAG424FileSettings(
            commMode: .plain, accessRights: NTAG424AccessRights(read: .free, write: .key(0), readWrite: .key(0), change: .key(0)),
            fileSize: NTAG424.File.ndef.size, sdm: sdm)
    }

    /// `NTAG424Setup(URL, keys 1, 2, 0)`: never a key.
    public var description: String { "NTAG424Setup(\(template.text), keys \(changedKeys.map(String.init).joined(separator: ", ")))" }
    /// As ``description``.
    public var debugDescription: String { description }
    /// No children: `dump` and the debugger show no key bytes.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// The key numbers changed, in the order they are changed (0 last).
    public var changedKeys: [UInt8] { newKeys.keys.filter { $0 != 0 }.sorted() + [0] }

    /// Every command of the setup, keys masked.
    public var steps: [Step] {
        let sdm = settings.sdm
        let offsets = sdm?.namedOffsets.map { "\($0.name) \($0.value)" }.joined(separator: ", ") ?? ""
        var steps = [
            Step(command: "ISOSelectFile", detail: "NDEF application D2760000850101"),
            Step(command: "AuthenticateEV2First", detail: "key 0 (current AppMasterKey ••••)"),
            Step(command: "WriteData", detail: "NDEF file (02), \(template.file.count) bytes at 0, CommMode.Plain: \(template.text)"),
            Step(
                command: "ChangeFileSettings",
                detail: "NDEF file (02), CommMode.Full: plain file, \(settings.accessRights); SDM options \(Hex.encode([sdm?.optionsByte ?? 0], uppercase: true)), SDMMetaRead \(sdm?.metaRead.description ?? "-"), SDMFileRead \(sdm?.fileRead.description ?? "-"), SDMCtrRet \(sdm?.counterRetrieval.description ?? "-"); \(offsets)"),
        ]
        for number in changedKeys {
            guard let entry = newKeys[number] else { continue }
            steps.append(Step(command: "ChangeKey", detail: "key \(number) ← \(entry.name) •••• (version \(Self.keyVersion))\(number == 0 ? "; ends the session" : "")"))
        }
        return steps
    }

    /// Runs the setup on `tag` (the NDEF application need not be selected).
    /// - Throws: ``NTAG424Error`` from the first command that fails; the steps before it are done.
    public func run(on tag: inout NTAG424Tag) async throws(NTAG424Error) {
        try await tag.selectApplication()
        do {
            try await tag.authenticateEV2First(keyNumber: 0, key: currentMasterKey)
        } catch where error.code == .authenticationFailed || error.status == .authenticationError {
            // Nothing was written: say why the key did not open the chip.
            throw NTAG424Error(
                .authenticationFailed, status: error.status,
                startsFromFactory
                    ? "key 0 is no longer the factory key: the chip was set up before, so its current keys are needed (\(error.reason)); nothing was written"
                    : "the current key 0 given does not open the chip (\(error.reason)); nothing was written")
        }
        try await tag.writeData(.ndef, offset: 0, data: template.file, mode: .plain)
        try await tag.changeFileSettings(.ndef, to: settings)
        let factory = [UInt8](repeating: 0, count: NTAG424.keyLength)
        for number in changedKeys {
            guard let entry = newKeys[number] else { continue }
            try await tag.changeKey(number, to: entry.key, version: Self.keyVersion, oldKey: number == 0 ? nil : currentKeys[number] ?? factory)
        }
    }
}

extension NTAG424Tag {
    /// The URL the chip shows now, read as a phone reads it (ISO SELECT of the NDEF application
    /// and file, READ BINARY of NLEN and the message): with SDM on, a fresh SUN URL, the chip's
    /// SDMReadCtr counting the read.
    /// - Throws: ``NTAG424Error`` from a command; `malformed` when the file holds no URI record.
    public func readURL() async throws(NTAG424Error) -> String {
        try await selectApplication()
        try await selectFile(.ndef)
        let head = try await readBinary(offset: 0, length: 2)
        guard head.count == 2 else { throw NTAG424Error(.malformed, at: head.count, "NLEN is 2 bytes") }
        let length = Int(head[0]) << 8 | Int(head[1])
        guard length > 0, length <= NTAG424.File.ndef.size - 2 else { throw NTAG424Error(.malformed, at: 0, "NLEN \(length) does not fit the file") }
        let body = try await readBinary(offset: 2, length: length)
        guard let message = try? NDEFMessage(bytes: body), let url = message.records.first?.wellKnownTypeURIPayload() else {
            throw NTAG424Error(.malformed, at: 2, "the NDEF file holds no URI record")
        }
        return url
    }
}
