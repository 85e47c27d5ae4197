public import NDEF
import NFCCore

/// The NDEF operations of a MIFARE DESFire Light (``DESFireLight``): query, read and write
/// through the NFC Forum Type 4 mapping (``Type4Tag``) once its application is the NDEF Tag
/// Application; format and lock with what the Light allows.
///
/// A Light is delivered with an application DF named ``DESFireLight/factoryDFName``. Type 4
/// readers find it only after it is renamed (DF name `D2760000850101`, file `00` as `E103`, file
/// `04` as `E104`) with SetConfiguration, which the chip takes once and never undoes (AN12343;
/// open-source readers do it so). This tool does not rename: ``format(force:)`` on a factory
/// Light refuses and says so; on a renamed one it writes the CC and an empty NDEF file.
public struct DESFireLightNDEFTag: NFCNDEFTag {
    /// The Type 4 mapping NDEF goes through.
    public let type4: Type4Tag
    /// The ISO-DEP tag the native commands go through (EV2 authentication, file settings).
    public let iso: ISO7816Tag
    /// The application key 0 ``writeLock()`` authenticates with (AES; the factory key is zero).
    let applicationKey: [UInt8]
    /// Whether a write plan (`--plan`) answers ``writeLock()``'s writes (``NTAG424Tag/plannedWrites``).
    let planning: Bool

    /// The NDEF operations of the Light `tag` is.
    /// - Parameters:
    ///   - applicationKey: key 0 of the application, 16 bytes (AES); nil for the factory key
    ///     (zeros).
    ///   - planning: the tag's reader is a write plan: its answers to writes carry no MAC.
    public init(_ tag: ISO7816Tag, applicationKey: [UInt8]? = nil, planning: Bool = false) {
        iso = tag
        type4 = tag.type4Platform
        self.applicationKey = applicationKey ?? [UInt8](repeating: 0, count: DESFireLight.keyLength)
        self.planning = planning
    }

    /// Whether this tag is still in the field.
    public func isPresent() async -> Bool { await type4.isPresent() }
    /// As ``Type4Tag/queryNDEFStatus()``; a renamed Light whose CC file is still zeros (never
    /// formatted, or a format cut before its CC) is `.notSupported`, as a tag not formatted.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery { try await type4.queryNDEFStatusTakingUnwrittenCapabilityContainer() }
    /// As ``Type4Tag/readNDEF()``; a CC file still zeros is `notNDEFFormatted`.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage {
        try await type4.readNDEF(unwrittenCapabilityContainer: "the DESFire Light's CC file (00, E103) is still empty: format the tag")
    }
    /// As ``Type4Tag/writeNDEF(_:verify:)``.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) { try await type4.writeNDEF(message, verify: verify) }

    /// A renamed Light already holding a CC: as ``Type4Tag/format(force:)`` (emptied; a message
    /// kept unless `force`). A renamed Light whose CC file is still empty (zeros): UPDATE
    /// BINARY of NLEN `0000` in `E104`, then of the 15-byte CC in `E103` (``DESFireLight/TypeFour``),
    /// so a cut leaves it unformatted or formatted and empty. A factory Light: refused, nothing
    /// written.
    /// - Throws: ``NFCTagError`` `notSupported` (a factory Light, or no Light application
    ///   answers), `alreadyFormatted` (a message, or file `00` holds data that is no CC, not
    ///   forced), `readOnly` (the files' write access is not free), `connectionLost`, `tagResponse`.
    public func format(force: Bool) async throws(NFCTagError) {
        do {
            try await type4.format(force: force)
            return
        } catch where error.code == .notSupported || error.code == .notNDEFFormatted || error.code == .malformedTag {
            guard try await type4.selectsNDEFApplication() else { throw try await factoryRefusal() }
        }
        let ccFile = try await type4.readCapabilityContainerFile()
        if !force, ccFile.contains(where: { $0 != 0 }) {
            throw NFCTagError(
                .alreadyFormatted,
                "file 00 (E103) holds data that is not a Type 4 capability container; format --force overwrites its first \(DESFireLight.TypeFour.capabilityContainer.count) bytes")
        }
        guard try await type4.selectFile(DESFireLight.TypeFour.ndefFileID).isSuccess else {
            throw NFCTagError(.notSupported, "the renamed DESFire Light has no NDEF file E104: file 04 was not renamed")
        }
        try await type4.updateBinary(offset: 0, [0x00, 0x00])
        guard try await type4.selectFile(Type4Command.capabilityContainerFileID).isSuccess else {
            throw NFCTagError(.tagResponse, "SELECT of the CC file E103 failed after it was read")
        }
        try await type4.updateBinary(offset: 0, DESFireLight.TypeFour.capabilityContainer)
    }

    /// Why a Light without the NDEF Tag Application is not formatted: its factory DF answers, or
    /// nothing does.
    func factoryRefusal() async throws(NFCTagError) -> NFCTagError {
        let factory = try await type4.send(
            ISO7816APDU(unchecked: 0x00, Type4Command.select, Type4Command.selectByNameP1, 0x0C, data: Bytes(DESFireLight.factoryDFName)),
            "SELECT of the DESFire Light's factory DF")
        guard factory.statusWord.isSuccess else {
            return NFCTagError(.notSupported, "no DESFire Light application answers (neither the NDEF Tag Application nor the factory DF name): nothing was written")
        }
        return NFCTagError(
            .notSupported,
            "this MIFARE DESFire Light still has its factory application (DF \(Hex.encode(DESFireLight.factoryDFName, uppercase: true))): Type 4 readers need it renamed to D2760000850101 with files E103/E104 by SetConfiguration, which the chip takes once and never undoes; nfctool does not rename it (docs/tags.md). Nothing was written.")
    }

    /// Makes the NDEF file read-only for good. AuthenticateEV2First with application key 0,
    /// GetFileSettings of file `04` (CommMode.MAC); unless already locked, ChangeFileSettings
    /// (CommMode.Full) to plain, read free, write, read-write and change never; then, outside the
    /// session, UPDATE BINARY of `FF` at the CC's write access byte (offset 14) when the CC's
    /// write access is free, else WriteData in the session. The CC comes last, so a Type 4 reader
    /// reports read-only only once the chip refuses writing; each step is skipped when already
    /// done, so running it again after a cut completes it.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted` (no CC), `authenticationFailed` (key 0 is not
    ///   the one given), `passwordRequired` (the file's change right is not key 0), `tagResponse`,
    ///   `connectionLost`.
    public func writeLock() async throws(NFCTagError) {
        let cc = try await type4.readCapabilityContainer()
        guard cc.ndefFileID == DESFireLight.TypeFour.ndefFileID else {
            throw NFCTagError(.malformedTag, at: 9, "the CC names NDEF file \(Hex.number(cc.ndefFileID, width: 4)), not the Light's E104")
        }
        var chip = NTAG424Tag(iso)
        chip.plannedWrites = planning
        let ccWriteIsFree: Bool
        do throws(NTAG424Error) {
            try await chip.selectApplication()
            try await chip.authenticateEV2First(keyNumber: 0, key: applicationKey)
            let ndef = try await chip.lightFileSettings(DESFireLight.TypeFour.ndefFile)
            if !Self.isLockedForGood(ndef) {
                guard ndef.accessRights.change.allows(0) else {
                    throw NTAG424Error(.status, status: .permissionDenied, "the NDEF file's change right is \(ndef.accessRights.change), not key 0: ChangeFileSettings needs that key")
                }
                try await chip.changeLightFileSettings(DESFireLight.TypeFour.ndefFile, commMode: .plain, rights: DESFireLight.TypeFour.lockedAccessRights)
            }
            guard cc.writeAccess != Type4CapabilityContainer.writeAccessNever else { return }
            let ccSettings = try await chip.lightFileSettings(DESFireLight.TypeFour.capabilityContainerFile)
            ccWriteIsFree = ccSettings.accessRights.write.isFree || ccSettings.accessRights.readWrite.isFree
            if !ccWriteIsFree {
                try await chip.writeData(DESFireLight.TypeFour.capabilityContainerFile.rawValue, offset: DESFireLight.TypeFour.writeAccessOffset,
                    data: [Type4CapabilityContainer.writeAccessNever], mode: ccSettings.commMode)
                return
            }
        } catch {
            throw error.tagError
        }
        guard try await type4.selectsNDEFApplication(), try await type4.selectFile(Type4Command.capabilityContainerFileID).isSuccess else {
            throw NFCTagError(.tagResponse, "SELECT of the CC file E103 failed after it was read")
        }
        try await type4.updateBinary(offset: DESFireLight.TypeFour.writeAccessOffset, [Type4CapabilityContainer.writeAccessNever])
    }

    /// A renamed Light can be locked with its application key (``writeLock()``): nothing sent.
    public func checkLockable() async throws(NFCTagError) {}

    /// What keeps the tag from being physically read-only: the CC's write access
    /// (``Type4Tag/readOnlyGaps()``) and the NDEF file's own access rights, read with
    /// GetFileSettings after authenticating with the application key (the Light answers it in
    /// a session only): write, read-write and change must all be never.
    public func readOnlyGaps() async throws(NFCTagError) -> [String] {
        var gaps = try await type4.readOnlyGaps()
        var chip = NTAG424Tag(iso)
        do throws(NTAG424Error) {
            try await chip.selectApplication()
            try await chip.authenticateEV2First(keyNumber: 0, key: applicationKey)
            let settings = try await chip.lightFileSettings(DESFireLight.TypeFour.ndefFile)
            if !Self.isLockedForGood(settings) {
                gaps.append("the DESFire Light NDEF file's access rights are \(settings.accessRights); write, read-write and change must be never")
            }
        } catch {
            gaps.append("the DESFire Light NDEF file's settings cannot be read (\(error.reason)): its access rights are unknown")
        }
        return gaps
    }

    /// Whether settings keep a file read-only for good: write, read-write and change never.
    public static func isLockedForGood(_ settings: DESFireLightFileSettings) -> Bool {
        let rights = settings.accessRights
        return [rights.write, rights.readWrite, rights.change].allSatisfy { $0 == .never }
    }
}

extension NTAG424Tag {
    /// GetFileSettings of a DESFire Light file (CommMode.MAC in a session).
    mutating func lightFileSettings(_ file: DESFireLight.File) async throws(NTAG424Error) -> DESFireLightFileSettings {
        let data = try await run("GetFileSettings", NTAG424.Command.getFileSettings, header: [file.rawValue], mode: .mac)
        return try DESFireLightFileSettings(parsing: data)
    }

    /// ChangeFileSettings of a DESFire Light file (CommMode.Full): communication mode and access
    /// rights.
    mutating func changeLightFileSettings(_ file: DESFireLight.File, commMode: EV2CommMode, rights: NTAG424AccessRights) async throws(NTAG424Error) {
        _ = try requireSession("ChangeFileSettings")
        _ = try await run("ChangeFileSettings", NTAG424.Command.changeFileSettings, header: [file.rawValue],
            data: DESFireLightFileSettings.changeData(commMode: commMode, rights: rights), mode: .full, responseMode: .mac)
    }

    /// WriteData of a file given by number (the Light's files are not ``NTAG424/File``s).
    mutating func writeData(_ fileNumber: UInt8, offset: Int, data: [UInt8], mode: EV2CommMode) async throws(NTAG424Error) {
        let header = [fileNumber] + Self.uint24(offset) + Self.uint24(data.count)
        _ = try await run("WriteData", NTAG424.Command.writeData, header: header, data: data, mode: mode, responseMode: mode == .plain ? .plain : .mac)
    }
}

extension Type4Tag {
    /// Whether SELECT of the NDEF Tag Application succeeds.
    func selectsNDEFApplication() async throws(NFCTagError) -> Bool {
        let answer = try await send(
            ISO7816APDU(unchecked: 0x00, Type4Command.select, Type4Command.selectByNameP1, 0x00,
                data: Bytes(Type4Command.ndefTagApplicationID), expectedResponseLength: 256),
            "SELECT NDEF Tag Application")
        return answer.statusWord.isSuccess
    }
}

/// What a DESFire Light shows without keys, for `info`.
public struct DESFireLightInspection: Sendable, Hashable {
    /// The DF name that selects: the NDEF Tag Application's after renaming, or the factory one.
    public var dfName: [UInt8]
    /// The settings of each file that answered GetFileSettings in plain.
    public var files: [(file: DESFireLight.File, settings: DESFireLightFileSettings)]

    /// Equal when DF name and every file's settings are.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.dfName == rhs.dfName && lhs.files.map(\.file) == rhs.files.map(\.file) && lhs.files.map(\.settings) == rhs.files.map(\.settings)
    }
    /// Hashes the DF name and file numbers.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(dfName)
        hasher.combine(files.map(\.file))
    }

    /// Selects the DF (the NDEF Tag Application's name first, then the factory name) and asks
    /// GetFileSettings of the six files in plain (a file that refuses is left out); nil when
    /// neither name selects. Reads only.
    public static func read(_ iso: ISO7816Tag) async -> DESFireLightInspection? {
        var name: [UInt8]?
        for candidate in [DESFireLight.ndefDFName, DESFireLight.factoryDFName] {
            let select = ISO7816APDU(unchecked: 0x00, Type4Command.select, Type4Command.selectByNameP1, 0x0C, data: Bytes(candidate))
            if let answer = try? await iso.sendCommand(apdu: select), answer.1 == 0x90, answer.2 == 0x00 {
                name = candidate
                break
            }
        }
        guard let name else { return nil }
        var files: [(file: DESFireLight.File, settings: DESFireLightFileSettings)] = []
        for file in DESFireLight.File.allCases {
            let apdu = ISO7816APDU(unchecked: NTAG424.wrappedClass, NTAG424.Command.getFileSettings, 0x00, 0x00, data: [file.rawValue], expectedResponseLength: 256)
            guard let answer = try? await iso.sendCommand(apdu: apdu), answer.1 == NTAG424.statusPrefix, answer.2 == NXPNativeStatus.ok.rawValue,
                  let settings = try? DESFireLightFileSettings(parsing: answer.0.array)
            else { continue }
            files.append((file, settings))
        }
        return DESFireLightInspection(dfName: name, files: files)
    }
}
