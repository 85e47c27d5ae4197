import NFCCore

/// How MIFARE DESFire EV2/EV3 commands travel in EV2 secure messaging (after
/// AuthenticateEV2First), for both sides: the host (``DESFireTag``) and the virtual chip read
/// the same table, and seal and open with the session NTAG 424 DNA uses (``EV2Session``).
///
/// The modes, as Proxmark3's DESFire secure channel (`desfiresecurechan.c`, its EV1/EV2
/// command table and EV2 encoder) and the NTAG 424 DNA datasheet (9.1.3–9.1.10) give them:
/// - CommMode.MAC (command and answer carry MACt): GetApplicationIDs, GetFreeMemory,
///   GetKeySettings, GetKeyVersion, GetFileIDs, GetFileSettings, CreateApplication,
///   DeleteApplication, CreateStdDataFile, FormatPICC — and every other command not below.
/// - CommMode.Full (header in clear, data encrypted, MACt): ChangeKeySettings,
///   ChangeFileSettings (header: the file number), ChangeKey (header: the key number);
///   their answers carry MACt only (ChangeKey of the authenticated key: nothing, the session
///   ends). GetCardUID answers encrypted.
/// - ReadData / WriteData: plain when the access right used is free, else the file's
///   communication settings (``dataMode(_:write:)``); a MAC or Full ReadData sends its
///   header with MACt and gets its answer in the file's mode.
/// - ChangeFileSettings of a file whose change right is free: plain (the counter still
///   advances). This one is NFCKit's reading: no public DESFire EV2 datasheet says it.
public enum DESFireEV2Messaging {
    /// How a command and its answer travel.
    public struct Modes: Sendable, Hashable {
        /// The command's mode.
        public var command: EV2CommMode
        /// The bytes of the command's data sent in clear before the encrypted part (Full mode).
        public var headerLength: Int
        /// The answer's mode.
        public var response: EV2CommMode

        /// Modes from their parts.
        public init(command: EV2CommMode, headerLength: Int, response: EV2CommMode) {
            self.command = command
            self.headerLength = headerLength
            self.response = response
        }
    }

    /// The modes of command `code` outside ReadData / WriteData (``dataMode(_:write:)``).
    /// `dataLength` is the command's data length (the header of a MAC command is all of it).
    public static func modes(for code: UInt8, dataLength: Int) -> Modes {
        switch code {
        case DESFire.Command.changeKeySettings: Modes(command: .full, headerLength: 0, response: .mac)
        case DESFire.Command.changeFileSettings, DESFire.Command.changeKey: Modes(command: .full, headerLength: 1, response: .mac)
        case DESFire.Command.getCardUID: Modes(command: .full, headerLength: 0, response: .full)
        default: Modes(command: .mac, headerLength: dataLength, response: .mac)
        }
    }

    /// The header length of ReadData and WriteData: file number, offset (3), length (3).
    public static let dataHeaderLength = 7

    /// The mode of ReadData (`write` false) or WriteData on a file: plain when the access
    /// right used is free (read or read-write `E`; write or read-write `E`), else the file's
    /// communication settings (bits 1–0: `00` plain, `01` MAC, `11` Full).
    public static func dataMode(_ settings: DESFireFileSettings, write: Bool) -> EV2CommMode {
        let primary = write ? settings.writeAccess : settings.readAccess
        if primary == DESFire.freeAccess || settings.readWriteAccess == DESFire.freeAccess { return .plain }
        return EV2CommMode(fileOption: settings.communication)
    }

    /// How ReadData (`write` false) or WriteData travels when its data is in `mode`: ReadData
    /// sends its header plain (plain mode) or with MACt and gets its data in `mode`; WriteData
    /// sends header and data in `mode` and gets an answer plain (plain mode) or with MACt.
    public static func dataModes(_ mode: EV2CommMode, write: Bool) -> Modes {
        write
            ? Modes(command: mode, headerLength: dataHeaderLength, response: mode == .plain ? .plain : .mac)
            : Modes(command: mode == .plain ? .plain : .mac, headerLength: dataHeaderLength, response: mode)
    }

    /// Whether a DESFire takes AuthenticateEV2First: GetVersion's hardware part names a
    /// DESFire (type `01`) of major version `12` (EV2) or later (`33` EV3).
    public static func takesEV2Authentication(_ version: DESFireVersion) -> Bool {
        takesEV2Authentication(version.hardware)
    }

    /// Whether a DESFire takes AuthenticateEV2First, from GetVersion's hardware part alone (the first
    /// frame of GetVersion, which identification reads: ``ChipIdentity/hardwareVersion``).
    public static func takesEV2Authentication(_ hardware: DESFireVersion.Part) -> Bool {
        hardware.type == 0x01 && hardware.major >= 0x12
    }
}

extension DESFireTag {
    /// One command in an EV2 session: sealed in `mode` (``EV2Session/sealCommand(_:header:data:mode:)``),
    /// sent in frames as ``command(_:_:answerLimit:)`` sends any command, the answer opened in
    /// `responseMode`. `ends`: the command ends the session (ChangeKey of the authenticated
    /// key: its answer is empty, no MAC). A failure ends the session (`session` nil).
    /// - Throws: ``DESFireError`` `authenticationFailed` for an answer whose MAC does not verify,
    ///   as ``command(_:_:answerLimit:)`` otherwise.
    func ev2Command(
        _ code: UInt8, header: [UInt8], data: [UInt8], mode: EV2CommMode, responseMode: EV2CommMode, ends: Bool = false,
        session ev2: EV2Session, planned: Bool, outer: inout DESFireSession?, answerLimit: Int
    ) async throws(DESFireError) -> [UInt8] {
        var ev2 = ev2
        outer = nil
        let body = try Self.ev2 { () throws(NTAG424Error) in try ev2.sealCommand(code, header: header, data: data, mode: mode) }
        // Full answers carry at most a block of padding; MAC answers 8 bytes.
        let answer = try await command(code, body, answerLimit: answerLimit + 2 * 16 + 8)
        if ends {
            guard answer.isEmpty else { throw DESFireError(.malformed, "ChangeKey of the authenticated key answered \(answer.count) bytes, not none") }
            return []
        }
        if planned, answer.isEmpty, responseMode != .plain {
            // A write plan's 91 00 carries no MAC (it holds no key): taken as it is.
            ev2.commandCounter &+= 1
            outer = .ev2(ev2, plannedWrites: true)
            return []
        }
        let opened = try Self.ev2 { () throws(NTAG424Error) in try ev2.openResponse(status: DESFire.Status.ok.rawValue, body: answer, mode: responseMode) }
        guard opened.count <= answerLimit else { throw DESFireError(.malformed, "DESFire command \(Hex.encode([code], uppercase: true)): the answer runs past \(answerLimit) bytes") }
        outer = .ev2(ev2, plannedWrites: planned)
        return opened
    }

    /// GetKeySettings of the selected level inside `session` (MAC-ed in an EV1 or EV2 session).
    /// - Throws: as ``keySettings()``.
    public func keySettings(session: inout DESFireSession?) async throws(DESFireError) -> (settings: UInt8, keyCount: UInt8) {
        let bytes = try await command(DESFire.Command.getKeySettings, session: &session, answerLimit: 2)
        guard bytes.count == 2 else { throw DESFireError(.malformed, "GetKeySettings answered \(bytes.count) bytes, not 2") }
        return (bytes[0], bytes[1])
    }

    /// FormatPICC (`FC`) inside a session with the PICC master key: deletes every application.
    /// - Throws: ``DESFireError`` `status` (`AE` not the PICC master key, `9D`), `transport`.
    public func formatPICC(session: inout DESFireSession?) async throws(DESFireError) {
        _ = try await command(DESFire.Command.formatPICC, session: &session, answerLimit: 0)
    }

    /// GetCardUID (`51`) inside an EV2 session: the 7-byte UID, sent encrypted (CommMode.Full).
    /// - Throws: ``DESFireError`` `invalidParameter` without an EV2 session (nothing sent),
    ///   `malformed` unless 7 bytes come back; as ``command(_:_:session:answerLimit:)``.
    public func cardUID(session: inout DESFireSession?) async throws(DESFireError) -> [UInt8] {
        guard case .ev2? = session else { throw DESFireError(.invalidParameter, "GetCardUID is sent here in an EV2 session only; nothing was sent") }
        let uid = try await command(DESFire.Command.getCardUID, session: &session, answerLimit: 16)
        guard uid.count == 7 else { throw DESFireError(.malformed, "GetCardUID answered \(uid.count) bytes, not 7") }
        return uid
    }
}
