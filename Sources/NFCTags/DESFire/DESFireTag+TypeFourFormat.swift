import NFCCore

/// How ``DESFireTag/formatTypeFour(_:)`` formats a DESFire: the PICC master key, the NDEF file
/// size, and whether other applications may stay beside the NDEF one.
///
/// The key never appears in ``description`` or a debugger's dump.
public struct DESFireFormatOptions: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The PICC master key (8-byte DES or 16-byte 2K3DES); the factory key, eight zero bytes,
    /// by default.
    public var piccMasterKey: [UInt8]
    /// The NDEF file's size, length field included; nil: as much as free memory allows (at
    /// most ``DESFire/TypeFourMapping/maximumNDEFFileSize``).
    public var ndefFileSize: Int?
    /// Whether a DESFire holding other applications gets the NDEF application beside them
    /// (they are never deleted); without it such a DESFire is refused, nothing written.
    public var force: Bool

    /// The factory PICC master key: DES, eight zero bytes.
    public static let factoryPICCMasterKey = [UInt8](repeating: 0, count: 8)

    /// Options; by default the factory key, the largest NDEF file, not forced.
    public init(piccMasterKey: [UInt8] = Self.factoryPICCMasterKey, ndefFileSize: Int? = nil, force: Bool = false) {
        self.piccMasterKey = piccMasterKey
        self.ndefFileSize = ndefFileSize
        self.force = force
    }

    /// Says whether the key is the factory one, never the key.
    public var description: String {
        "DESFire format (\(piccMasterKey == Self.factoryPICCMasterKey ? "factory" : "given") PICC master key, NDEF file \(ndefFileSize.map(String.init) ?? "from free memory"))"
    }
    /// As ``description``.
    public var debugDescription: String { description }
    /// No children: a dump shows ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension DESFireTag {
    /// The memory a file takes here: its size rounded up to 32 bytes, the allocation unit
    /// DESFire EV1 reports free memory in.
    public static let allocationUnit = 32

    /// Formats the DESFire as an NFC Forum Type 4 tag as NXP AN11004 (mapping 2.0) describes,
    /// holding an empty NDEF message; returns the NDEF file's size.
    ///
    /// The commands, in order: SelectApplication `000000`; Authenticate (`0A`) with the PICC
    /// master key; GetApplicationIDs; GetFreeMemory; CreateApplication `000001` (key settings
    /// `0F`, `21`: one DES key and ISO file IDs, ISO ID `E110`, DF name `D2760000850101`);
    /// SelectApplication `000001`; Authenticate with its master key (the factory DES key);
    /// GetFileIDs; CreateStdDataFile `01` (ISO `E103`, plain,
    /// access `E000`, 15 bytes); CreateStdDataFile `02` (ISO `E104`, plain, access `EEE0`, the
    /// NDEF size); WriteData of the CC. A new file reads as zeros, so NLEN is 0. (AN11004 and
    /// libfreefare write the CC before creating the NDEF file; here the CC comes last, so that
    /// no cut leaves a CC naming a file that does not exist.)
    ///
    /// Tear-safe by resuming: what an earlier, cut run created (the application, the CC file,
    /// the NDEF file) is kept and the rest made, so a re-run completes; until the CC is
    /// written the tag reads as not formatted (no CC file, or one of zeros:
    /// ``DESFireNDEFTag/queryNDEFStatus()``).
    /// - Throws: ``DESFireError`` `holdsApplications` for other applications without
    ///   ``DESFireFormatOptions/force``; `authenticationFailed` for a refused PICC master key;
    ///   `invalidParameter` for an NDEF size below 32 bytes, over 7FFFh or past free memory;
    ///   `status`, `malformed`, `transport` as the commands fail.
    @discardableResult
    public func formatTypeFour(_ options: DESFireFormatOptions = DESFireFormatOptions()) async throws(DESFireError) -> Int {
        let mapping = DESFire.TypeFourMapping.self
        try await selectApplication(DESFire.piccApplicationID)
        try await authenticateLegacy(keyNumber: 0, key: options.piccMasterKey)
        let applications = try await applicationIDs()
        let others = applications.filter { $0 != mapping.applicationID }
        guard others.isEmpty || options.force else {
            let names = others.map { Hex.encode($0.reversed(), uppercase: true) }.joined(separator: ", ")
            throw DESFireError(
                .holdsApplications, "the DESFire holds \(others.count) other application\(others.count == 1 ? "" : "s") (\(names)); with force the NDEF application is added beside them, none deleted")
        }
        let free = try await freeMemory()
        let ccMemory = Self.allocated(mapping.capabilityContainerSize)
        if !applications.contains(mapping.applicationID) {
            // Checked before anything is created: a size that does not fit writes nothing.
            _ = try Self.ndefFileSize(options.ndefFileSize, freeMemory: free - ccMemory)
            try await createApplication(
                mapping.applicationID, keySettings: mapping.keySettings, keyCount: mapping.keyCount,
                isoFileID: mapping.isoFileID, dfName: Type4Command.ndefTagApplicationID)
        }
        try await selectApplication(mapping.applicationID)
        // The CC file's write access is key 0 (E000): the application master key, the factory one.
        try await authenticateLegacy(keyNumber: 0, key: DESFireFormatOptions.factoryPICCMasterKey)
        let files = try await fileIDs()
        let hasCC = files.contains(mapping.capabilityContainerFileNumber), hasNDEF = files.contains(mapping.ndefFileNumber)
        let size: Int
        if hasNDEF {
            size = try await fileSettings(mapping.ndefFileNumber).size
        } else {
            size = try Self.ndefFileSize(options.ndefFileSize, freeMemory: free - (hasCC ? 0 : ccMemory))
        }
        if !hasCC {
            try await createStandardDataFile(
                mapping.capabilityContainerFileNumber, isoFileID: Type4Command.capabilityContainerFileID,
                accessRights: mapping.capabilityContainerAccessRights, size: mapping.capabilityContainerSize)
        }
        if !hasNDEF {
            try await createStandardDataFile(mapping.ndefFileNumber, isoFileID: mapping.ndefFileID, accessRights: mapping.ndefAccessRights, size: size)
        }
        // The CC last: until it is written no reader finds an NDEF file it names.
        try await writeData(mapping.capabilityContainerFileNumber, offset: 0, mapping.capabilityContainer(ndefFileSize: size))
        return size
    }

    /// The memory `size` bytes take: rounded up to ``allocationUnit``.
    public static func allocated(_ size: Int) -> Int { (size + allocationUnit - 1) / allocationUnit * allocationUnit }

    /// The NDEF file size: `requested`, checked against `freeMemory`, or the most free memory
    /// holds in whole allocation units, at most 7FFFh.
    /// - Throws: ``DESFireError`` `invalidParameter`.
    public static func ndefFileSize(_ requested: Int?, freeMemory: Int) throws(DESFireError) -> Int {
        let mapping = DESFire.TypeFourMapping.self
        if let requested {
            guard (mapping.minimumNDEFFileSize...mapping.maximumNDEFFileSize).contains(requested) else {
                throw DESFireError(.invalidParameter, "the NDEF file size is \(requested); it must be \(mapping.minimumNDEFFileSize) to \(mapping.maximumNDEFFileSize) bytes")
            }
            guard allocated(requested) <= freeMemory else {
                throw DESFireError(.invalidParameter, "an NDEF file of \(requested) bytes needs \(allocated(requested)) bytes; the DESFire has \(max(freeMemory, 0)) free")
            }
            return requested
        }
        let size = min(mapping.maximumNDEFFileSize, freeMemory / allocationUnit * allocationUnit)
        guard size >= mapping.minimumNDEFFileSize else {
            throw DESFireError(.invalidParameter, "the DESFire has \(max(freeMemory, 0)) bytes free, too little for an NDEF file")
        }
        return size
    }
}

extension DESFireFormatOptions {
    /// The longest key file text read: 4 KiB.
    public static let maximumKeyTextLength = 4096

    /// A PICC master key from a key file's text: 16 hex digits (DES) or 32 (2K3DES), spaces,
    /// colons and line breaks between them ignored, lines from `#` on comments.
    /// - Throws: ``DESFireError`` `invalidParameter` naming the line and what is wrong, never
    ///   a digit of the key.
    public static func piccMasterKey(fromText text: String) throws(DESFireError) -> [UInt8] {
        guard text.utf8.count <= maximumKeyTextLength else {
            throw DESFireError(.invalidParameter, "the key file is longer than \(maximumKeyTextLength) bytes")
        }
        var digits: [UInt8] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for character in line.prefix(while: { $0 != "#" }).utf8 {
                switch character {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ":"), UInt8(ascii: "\r"): continue
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(character - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digits.append(character - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digits.append(character - UInt8(ascii: "A") + 10)
                default: throw DESFireError(.invalidParameter, "line \(number + 1) of the key file holds a character that is not a hex digit")
                }
            }
        }
        guard digits.count == 16 || digits.count == 32 else {
            throw DESFireError(.invalidParameter, "the key file holds \(digits.count) hex digits; a DES key has 16, a 2K3DES key 32")
        }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
}
