public import NFCCore

/// The chip that answers, in a write plan, the commands to DESFire applications the plan only
/// creates: a virtual DESFire (VirtualTags' `VirtualDESFireStandIn`, which NFCKit's
/// `WritePlanning` gives every `--plan`) that holds each planned application as its
/// CreateApplication made it and runs what is sent there as the chip will: SelectApplication,
/// the authentications (`0A`, `1A`, `AA`, `71`) with the key the application was created with,
/// their sessions, CreateStdDataFile, WriteData, ChangeKey. It never holds the real chip's
/// applications, and nothing it does reaches the chip.
public protocol DESFireStandIn: Sendable {
    /// The answer to `apdu`, a native DESFire command wrapped in class `90`, with its status.
    func respond(toAPDU apdu: [UInt8]) -> [UInt8]
}

/// One write-class command a ``PlanningReader`` held back instead of sending.
public struct PlannedWrite: Sendable, Hashable {
    /// The technology whose command set it belongs to.
    public enum Technology: String, Sendable, Hashable {
        /// NFC Forum Type 1 (Topaz): WRITE-E `53`, WRITE-NE `1A`, WRITE-E8 `54`, WRITE-NE8 `1B`.
        case type1 = "Type 1"
        /// NFC Forum Type 2 (NTAG, Ultralight): WRITE `A2`.
        case type2 = "Type 2"
        /// MIFARE Classic: WRITE `A0` block + 16 bytes.
        case classic = "MIFARE Classic"
        /// NFC Forum Type 3 (FeliCa): Write Without Encryption `08`.
        case type3 = "Type 3"
        /// NFC Forum Type 4 (ISO-DEP): UPDATE BINARY `D6`.
        case type4 = "Type 4"
        /// NFC Forum Type 5 (ISO 15693): write and lock commands.
        case type5 = "Type 5"
        /// MIFARE DESFire native commands that change the card (CreateApplication,
        /// CreateStdDataFile, WriteData, ChangeFileSettings, ChangeKey, ChangeKeySettings, DeleteApplication,
        /// FormatPICC), and the selection of an application only planned and the authentications
        /// in it (``DESFire/Command/plannedApplicationListed``).
        case desfire = "DESFire"
    }

    /// Which command set.
    public var technology: Technology
    /// The command exactly as the platform code built it.
    public var command: Bytes

    /// A held-back write.
    public init(technology: Technology, command: Bytes) {
        self.technology = technology
        self.command = command
    }
}

/// A reader for `--plan` / `--dry-run`: reads go to the real reader, write-class commands are
/// recorded and answered as a tag answers a successful write, and never sent.
///
/// What counts as a write, per technology: Type 1 WRITE-E `53`, WRITE-NE `1A`, WRITE-E8 `54`
/// and WRITE-NE8 `1B`; Type 2 WRITE `A2` and COMPATIBILITY_WRITE `A0` (2
/// bytes); MIFARE Classic WRITE `A0` + block + 16 bytes; FeliCa Write Without Encryption `08`;
/// ISO 7816 UPDATE BINARY `D6`; ISO 15693 Write Single Block `21`, Lock Block `22`, Write
/// Multiple Blocks `24`, Write AFI `27`, Lock AFI `28`, Write DSFID `29`, Lock DSFID `2A` and the
/// extended `31`, `32`, `34`, the ST commands of ``ST25Command/writeClass`` (framed with `02`), and the NXP ICODE commands of ``ICodeCommand/writeClass`` (framed
/// with manufacturer code `04`; SET PASSWORD too, once a WRITE PASSWORD was held back). Type 2 writes are also laid over later READ (`30`) and FAST_READ
/// (`3A`) answers, and Type 1 writes over READ, RALL, READ8 and RSEG answers
/// (``Type1PlannedMemory``), so an operation that reads back what it planned (format then
/// write, lock's verification) sees its own plan. A DESFire application the plan creates lives on in a
/// ``DESFireStandIn``, which answers every command sent to it.
///
/// Used by `nfctool --plan`, and by any front end that wants to show what an operation would
/// write before it writes it. The forwarding is ``InterposingReader``'s; the holding back
/// ``WritePlan``'s.
public typealias PlanningReader = InterposingReader<WritePlan>

/// The plan of a ``PlanningReader``: the write-class commands it held back, and the Type 2 pages
/// they write, laid over later reads.
public struct WritePlan: ReaderInterposer {
    /// The write-class commands held back, oldest first.
    public private(set) var writes: [PlannedWrite] = []
    /// Type 2 pages as planned: page → 4 bytes.
    private var plannedPages: [Int: [UInt8]] = [:]
    /// Type 1 bytes as planned.
    private var plannedType1 = Type1PlannedMemory()
    /// The selected target, which decides how commands are read.
    private var target: TargetInfo?
    /// DESFire applications only planned (CreateApplication held back), by AID as sent.
    private var plannedApplications: Set<[UInt8]> = []
    /// Whether the DESFire application selected is only planned: its commands go to ``desfire``.
    private var insidePlannedApplication = false
    /// Bytes of a held-back DESFire WriteData still to come in `AF` frames.
    private var plannedWriteRemaining = 0
    /// Whether the last command to a planned application was listed and is not finished yet
    /// (answered `91 AF`): its `AF` frames are listed too.
    private var listingFrames = false
    /// The virtual DESFire that stands in for the planned applications.
    private let desfire: (any DESFireStandIn)?

    /// An empty plan for commands to `selected` (without it, no command counts as a write
    /// until a poll finds a target). `desfire` answers the commands to DESFire applications the
    /// plan creates (``DESFireStandIn``); without it such an application cannot be selected
    /// (`91 A0`, as the chip answers an application it does not hold).
    public init(selected: TargetInfo? = nil, desfire: (any DESFireStandIn)? = nil) {
        target = selected
        self.desfire = desfire
    }

    /// Keeps the target found (it tells how commands are read).
    public mutating func polled(_ found: TargetInfo?) {
        if let found { target = found }
    }

    /// Holds back and answers a write-class command; answers PWD_AUTH with a planned password
    /// (``plannedAcknowledge(forPassword:)``); nil (send it) for anything else.
    public mutating func answer(_ command: Bytes, mode: TransceiveMode) -> Bytes? {
        let bytes = command.array
        if case .iso14443A(let a)? = target, a.supportsISODEP, bytes.count >= 5, bytes[0] == DESFire.wrappedClass,
           let answer = desfireAnswer(bytes) {
            return Bytes(answer)
        }
        if case .iso15693? = target, bytes.count >= 3, bytes[1] == ICodeCommand.setPassword,
           bytes[2] == ISO15693Command.nxpManufacturerCode,
           writes.contains(where: { $0.technology == .type5 && $0.command.count > 1 && $0.command[1] == ICodeCommand.writePassword }) {
            // A password only planned (WRITE PASSWORD held back) cannot be given to the chip: a
            // wrong SET PASSWORD silences it. The plan answers it as the chip will.
            writes.append(PlannedWrite(technology: .type5, command: command))
            return Bytes([0x00])
        }
        if let (technology, answer) = PlanningReader.writeClass(bytes, on: target) {
            writes.append(PlannedWrite(technology: technology, command: command))
            if technology == .type2, bytes[0] == Type2Command.write, bytes.count == 6 {
                plannedPages[Int(bytes[1])] = Array(bytes[2..<6])
            }
            if technology == .type1 {
                plannedType1.record(bytes)
            }
            return Bytes(answer)
        }
        if bytes.count == 5, bytes[0] == Type2Command.passwordAuthenticate, let pack = plannedAcknowledge(forPassword: Array(bytes[1...])) {
            return Bytes(pack)
        }
        return nil
    }

    /// A Type 2 or Type 1 read's answer with the planned bytes laid over it; any other outcome
    /// as is.
    public mutating func exchanged(
        _ command: Bytes, mode: TransceiveMode, outcome: Result<Bytes, NFCReaderDeviceError>
    ) -> Result<Bytes, NFCReaderDeviceError> {
        let bytes = command.array
        if case .jewel? = target, case .success(let answer) = outcome {
            return .success(Bytes(plannedType1.overlay(answer.array, on: bytes)))
        }
        guard case .success(let answer) = outcome, !plannedPages.isEmpty, bytes.count >= 2,
              bytes[0] == Type2Command.read || bytes[0] == Type2Command.fastRead else {
            return outcome
        }
        var overlaid = answer.array
        let first = Int(bytes[1])
        for index in 0..<(overlaid.count / 4) {
            if let page = plannedPages[first + index] {
                overlaid.replaceSubrange(index * 4..<(index * 4 + 4), with: page)
            }
        }
        return .success(Bytes(overlaid))
    }

    /// A DESFire native command's planned answer: the changing ones held back (a WriteData
    /// longer than one frame asks for its `AF` frames); a planned application's commands given
    /// to ``desfire``, which holds that application (the changing ones and the authentications
    /// listed); nil (send it) for the rest.
    private mutating func desfireAnswer(_ c: [UInt8]) -> [UInt8]? {
        let ok: [UInt8] = [DESFire.statusPrefix, DESFire.Status.ok.rawValue]
        let more: [UInt8] = [DESFire.statusPrefix, DESFire.Status.additionalFrame.rawValue]
        let data = c.count > 6 ? Array(c[5..<(c.count - 1)]) : []
        if c[1] == DESFire.Command.selectApplication {
            // The stand-in follows every selection (it leaves its application for one it does not hold).
            let answer = desfire?.respond(toAPDU: c)
            insidePlannedApplication = plannedApplications.contains(data)
            listingFrames = false
            guard insidePlannedApplication else { return nil }
            writes.append(PlannedWrite(technology: .desfire, command: Bytes(c)))
            return answer ?? [DESFire.statusPrefix, DESFire.Status.applicationNotFound.rawValue]
        }
        if insidePlannedApplication {
            let listed = DESFire.Command.plannedApplicationListed.contains(c[1]) || c[1] == DESFire.Command.additionalFrame && listingFrames
            if listed { writes.append(PlannedWrite(technology: .desfire, command: Bytes(c))) }
            let answer = desfire?.respond(toAPDU: c) ?? [DESFire.statusPrefix, DESFire.Status.applicationNotFound.rawValue]
            listingFrames = listed && answer.suffix(2).elementsEqual(more)
            return answer
        }
        switch c[1] {
        case DESFire.Command.createApplication:
            if data.count >= 5 {
                plannedApplications.insert(Array(data[0..<3]))
                // The stand-in holds the application as created (AID, key settings, key type and
                // count, ISO file ID), without its DF name: an EV2 session's MAC follows the data
                // with nothing to tell the two apart, and only ISO SELECT reads the name.
                let length = data[4] & DESFire.KeyCount.isoFileIDs != 0 && data.count >= 7 ? 7 : 5
                _ = desfire?.respond(toAPDU: [DESFire.wrappedClass, c[1], 0, 0, UInt8(length)] + data[0..<length] + [0])
            }
            writes.append(PlannedWrite(technology: .desfire, command: Bytes(c)))
            return ok
        case DESFire.Command.createStdDataFile, DESFire.Command.deleteApplication, DESFire.Command.formatPICC, DESFire.Command.changeFileSettings,
             DESFire.Command.changeKey, DESFire.Command.changeKeySettings:
            writes.append(PlannedWrite(technology: .desfire, command: Bytes(c)))
            return ok
        case DESFire.Command.writeData:
            writes.append(PlannedWrite(technology: .desfire, command: Bytes(c)))
            let length = data.count >= 7 ? DESFire.uint24LE(data[4..<7]) ?? 0 : 0
            plannedWriteRemaining = max(0, length - max(0, data.count - 7))
            return plannedWriteRemaining > 0 ? more : ok
        case DESFire.Command.additionalFrame where plannedWriteRemaining > 0:
            writes.append(PlannedWrite(technology: .desfire, command: Bytes(c)))
            plannedWriteRemaining = max(0, plannedWriteRemaining - data.count)
            return plannedWriteRemaining > 0 ? more : ok
        default:
            return nil
        }
    }

    /// Authentication writes nothing.
    public mutating func authenticated(block: UInt8, keyType: ClassicKeyType, outcome: Result<Void, NFCReaderDeviceError>) {}

    /// The PACK planned with `password`: PWD_AUTH (`1B`) with a password only planned, never
    /// written, is answered here as the tag will answer it, rather than sent and counted as a
    /// failed attempt (AUTHLIM). PWD and PACK are consecutive pages on every NTAG21x and
    /// Ultralight EV1 (NTAG21x 8.8.1).
    private func plannedAcknowledge(forPassword password: [UInt8]) -> [UInt8]? {
        guard let page = plannedPages.first(where: { $0.value == password })?.key else { return nil }
        return Array((plannedPages[page + 1] ?? [0, 0]).prefix(2))
    }
}

extension InterposingReader where Interposer == WritePlan {
    /// Wraps `base`; `selected` is the target `base` has selected already, when there is one
    /// (else the next ``poll(for:timeout:)`` tells). Commands are read as that target's: without
    /// it, no command counts as a write.
    /// `desfire` answers the commands to DESFire applications the plan creates
    /// (``WritePlan/init(selected:desfire:)``).
    public init(_ base: any NFCReader, selected: TargetInfo? = nil, desfire: (any DESFireStandIn)? = nil) async {
        await self.init(base, interposer: WritePlan(selected: selected, desfire: desfire))
    }

    /// The write-class commands held back, oldest first.
    public var writes: [PlannedWrite] { interposer.writes }

    /// Whether `command`, sent to `target`, is a write-class command, and the answer of a tag
    /// that did it.
    public static func writeClass(_ command: [UInt8], on target: TargetInfo?) -> (PlannedWrite.Technology, [UInt8])? {
        guard let code = command.first else { return nil }
        switch target {
        case .iso14443A(let a) where !a.supportsISODEP:
            if code == Type2Command.write && command.count == 6 { return (.type2, []) }  // ACK: empty, as easy framing gives it
            if code == ClassicCommand.write && command.count == 18 { return (.classic, []) }
            if code == Type2Command.compatibilityWrite && command.count == 2 { return (.type2, []) }
            return nil
        case .iso14443A, .iso14443B:
            // An APDU: CLA, INS D6, P1, P2, Lc, data.
            return command.count >= 5 && command[1] == Type4Command.updateBinary ? (.type4, [0x90, 0x00]) : nil
        case .felica:
            // Response code 09, the IDm, status flags 00 00 (FeliCa Lite-S user's manual 5.4).
            return code == Type3Command.writeWithoutEncryption && command.count >= 10
                ? (.type3, [Type3Command.writeWithoutEncryption + 1] + command[1..<9] + [0x00, 0x00]) : nil
        case .iso15693:
            // Flags, command code, …: answered by flags 00 (no error).
            if command.count >= 3, command[2] == ISO15693Command.nxpManufacturerCode, ICodeCommand.writeClass.contains(command[1]) {
                return (.type5, [0x00])
            }
            if command.count >= 3, command[2] == ST25Command.manufacturerCode, ST25Command.writeClass.contains(command[1]) {
                return (.type5, [0x00])
            }
            return command.count >= 2 && ISO15693Command.writeClass.contains(command[1]) ? (.type5, [0x00]) : nil
        case .jewel:
            return Type1PlannedMemory.writeClass(command)
        case nil:
            return nil
        }
    }
}


extension NFCTag {
    /// This tag, already selected, behind a new ``PlanningReader`` on its reader: the same
    /// commands, write-class ones held back. For rehearsing an operation (all its checks) before
    /// doing it, when its checks read what an earlier step of it writes: a write of a message
    /// to a tag it formats first reads the capability container the format writes. Only Type 2
    /// reads see planned writes (``PlanningReader``), so this is nil for other platforms.
    public func rehearsal() async -> (tag: NFCTag, planner: PlanningReader)? {
        guard case .miFare(let tag) = self, tag.mifareFamily == .ultralight else { return nil }
        let planner = await PlanningReader(tag.reader, selected: .iso14443A(tag.target))
        let rehearsed = MiFareTag(
            reader: planner, target: tag.target, identity: tag.identity, password: tag.password, commandTimeout: tag.commandTimeout)
        return (.miFare(rehearsed), planner)
    }
}
