import NFCCore

/// The card side of the NFC Forum NDEF Tag Application (Type 4 Tag 2.0, section 5): the
/// capability container file ``Type4Command/capabilityContainerFileID`` and the NDEF file
/// ``ndefFileID``, with SELECT, READ BINARY and UPDATE BINARY. A value; the one implementation
/// behind VirtualTags' `Type4VirtualTag` and NFCKit's `EmulatedType4Tag`, which each frame the
/// APDU (short only, or any ISO/IEC 7816-4 case) and hand the fields here.
///
/// Where the specification leaves the answer open, ``Conduct`` says which of two cards this is.
public struct Type4NDEFApplication: Sendable, Hashable {
    /// The NDEF file's identifier this application announces in its capability container, `E104`.
    public static let ndefFileID: UInt16 = 0xE104
    /// The NDEF file sizes an application offers, NLEN included: from 5, the smallest maximum file
    /// size a CC may announce (Type 4 Tag 2.0, 5.1.2.1: 0005h–FFFEh, smaller values RFU), to
    /// 32 767, what 15-bit READ/UPDATE BINARY offsets reach.
    public static let ndefFileSizes = 5...Type4Command.maximumOffset

    /// How the application answers what Type 4 Tag 2.0 leaves to the card.
    public enum Conduct: Sendable, Hashable {
        /// As a DESFire EV1 answers: READ BINARY with Le above MLe and UPDATE BINARY with more
        /// than MLc bytes answer `67 00`; UPDATE BINARY running past the end of the file `67 00`;
        /// a failed SELECT leaves the selection as it was.
        case strict
        /// As an emulated tag forgiving its readers: READ BINARY answers at most MLe bytes
        /// whatever Le asks, UPDATE BINARY ignores MLc, running past the end of the file answers
        /// `6B 00`; a failed SELECT loses the selection (a wrong application name the
        /// application too).
        case lenient
    }

    /// The NDEF file: NLEN (2 bytes, big endian) then the message; its count is the file size.
    public private(set) var ndefFile: [UInt8]
    /// Whether the NDEF file is read-only: write access `FF` in the CC, UPDATE BINARY answers `69 82`.
    public let isReadOnly: Bool
    /// MLe, announced in the CC: the most data one READ BINARY answers.
    public let maximumReadLength: Int
    /// MLc, announced in the CC: the most data one UPDATE BINARY carries.
    public let maximumUpdateLength: Int
    /// How the open cases are answered.
    public let conduct: Conduct
    /// A CC file served instead of the derived ``capabilityContainer`` (a tag whose CC lies);
    /// the application still enforces its real file size.
    public var capabilityContainerOverride: [UInt8]?
    /// Whether the NDEF Tag Application is selected.
    public private(set) var applicationSelected = false
    /// The file SELECT chose last (``Type4Command/capabilityContainerFileID`` or ``ndefFileID``).
    public private(set) var selectedFile: UInt16?

    /// An application holding `ndefFile` (NLEN included).
    /// - Precondition: the file's size is in ``ndefFileSizes``.
    public init(ndefFile: [UInt8], readOnly: Bool, maximumReadLength: Int, maximumUpdateLength: Int, conduct: Conduct) {
        precondition(Self.ndefFileSizes.contains(ndefFile.count))
        self.ndefFile = ndefFile
        self.isReadOnly = readOnly
        self.maximumReadLength = maximumReadLength
        self.maximumUpdateLength = maximumUpdateLength
        self.conduct = conduct
    }

    /// The capability container file (15 bytes, Type 4 Tag 2.0, 5.1): CCLEN `000F`, mapping
    /// version 2.0, MLe, MLc, then the NDEF File Control TLV `04 06`: file ID, maximum size,
    /// read access `00`, write access `00` or `FF` (read-only). ``capabilityContainerOverride``
    /// when one is set.
    public var capabilityContainer: [UInt8] {
        if let capabilityContainerOverride { return capabilityContainerOverride }
        let size = ndefFile.count
        return [
            0x00, 0x0F,  // CCLEN
            0x20,  // mapping version 2.0
            UInt8(maximumReadLength >> 8), UInt8(maximumReadLength & 0xFF),
            UInt8(maximumUpdateLength >> 8), UInt8(maximumUpdateLength & 0xFF),
            0x04, 0x06,  // NDEF File Control TLV
            UInt8(Self.ndefFileID >> 8), UInt8(Self.ndefFileID & 0xFF),
            UInt8(size >> 8), UInt8(size & 0xFF),
            0x00,  // read access granted
            isReadOnly ? 0xFF : 0x00,  // write access
        ]
    }

    /// NLEN: the message length the NDEF file's first two bytes give.
    public var messageLength: Int { Int(ndefFile[0]) << 8 | Int(ndefFile[1]) }

    /// The NDEF message the file holds (NLEN bytes after NLEN); nil when NLEN is larger than
    /// the file (a reader left it inconsistent).
    public var message: [UInt8]? {
        guard messageLength + 2 <= ndefFile.count else { return nil }
        return Array(ndefFile[2..<(2 + messageLength)])
    }

    /// Replaces the message and NLEN, leaving the rest of the file; false (and nothing
    /// changed) when it does not fit.
    @discardableResult
    public mutating func setMessage(_ message: [UInt8]) -> Bool {
        guard message.count + 2 <= ndefFile.count else { return false }
        ndefFile.replaceSubrange(0..<2, with: [UInt8(message.count >> 8), UInt8(message.count & 0xFF)])
        ndefFile.replaceSubrange(2..<(2 + message.count), with: message)
        return true
    }

    /// Entering the field or DESELECT: no application or file selected.
    public mutating func deselect() {
        applicationSelected = false
        selectedFile = nil
    }

    /// The answer to one command, dispatched on its instruction: SELECT, READ BINARY or UPDATE
    /// BINARY; any other instruction `6D 00`. The caller has checked the class.
    ///
    /// - Parameters:
    ///   - data: the command data; nil when the frame's body is malformed (answered `67 00` at
    ///     the point the instruction looks at it).
    ///   - expectedLength: Le (256 for `00`); nil when none or malformed.
    /// - Returns: response data then SW1 SW2.
    public mutating func respond(instruction: UInt8, p1: UInt8, p2: UInt8, data: [UInt8]?, expectedLength: Int?) -> [UInt8] {
        switch instruction {
        case Type4Command.select: Self.answer(select(p1: p1, p2: p2, data: data))
        case Type4Command.readBinary:
            { $0.data + Self.answer($0.status) }(read(offset: Int(p1) << 8 | Int(p2), expectedLength: expectedLength))
        case Type4Command.updateBinary: Self.answer(update(offset: Int(p1) << 8 | Int(p2), data: data))
        default: Self.answer(.instructionNotSupported)
        }
    }

    /// SELECT by name (P1 `04`, P2 `00` or `0C`) of the NDEF Tag Application, or by file ID
    /// (P1 `00`, P2 `0C`, or `00` as mapping 1.0 readers send it, answering no FCI) of the CC or
    /// NDEF file once the application is selected.
    public mutating func select(p1: UInt8, p2: UInt8, data: [UInt8]?) -> ISO7816StatusWord {
        guard let data else { return .wrongLength }
        switch (p1, p2) {
        case (Type4Command.selectByNameP1, 0x00), (Type4Command.selectByNameP1, Type4Command.selectByFileIDP2):
            guard !data.isEmpty else { return .wrongLength }
            let found = data == Type4Command.ndefTagApplicationID
            if found || conduct == .lenient {
                applicationSelected = found
                selectedFile = nil
            }
            return found ? .success : .fileNotFound
        case (Type4Command.selectByFileIDP1, 0x00), (Type4Command.selectByFileIDP1, Type4Command.selectByFileIDP2):
            guard data.count == 2 else { return .wrongLength }
            let id = UInt16(data[0]) << 8 | UInt16(data[1])
            guard applicationSelected, id == Type4Command.capabilityContainerFileID || id == Self.ndefFileID else {
                if conduct == .lenient { selectedFile = nil }
                return .fileNotFound
            }
            selectedFile = id
            return .success
        default:
            return .incorrectP1P2
        }
    }

    /// READ BINARY of the selected file: Le bytes from `offset`, fewer when the file ends first.
    /// `69 86` no file selected, `67 00` no Le (nil), `6B 00` offset past the end of the file;
    /// Le above MLe per ``conduct``. The data is empty unless the status is success.
    public func read(offset: Int, expectedLength: Int?) -> (data: [UInt8], status: ISO7816StatusWord) {
        guard let file = selectedContents else { return ([], .noCurrentEF) }
        guard let expectedLength else { return ([], .wrongLength) }
        if conduct == .strict, expectedLength > maximumReadLength { return ([], .wrongLength) }
        guard offset < file.count else { return ([], .wrongP1P2) }
        let count = min(expectedLength, file.count - offset, conduct == .lenient ? maximumReadLength : expectedLength)
        return (Array(file[offset..<(offset + count)]), .success)
    }

    /// UPDATE BINARY of the NDEF file: writes `data` at `offset`. `69 86` no file selected,
    /// `69 82` the CC or a read-only file, `67 00` no data (nil), `6B 00` offset past the end;
    /// MLc and data running past the end per ``conduct``.
    public mutating func update(offset: Int, data: [UInt8]?) -> ISO7816StatusWord {
        guard selectedFile != nil else { return .noCurrentEF }
        guard selectedFile == Self.ndefFileID, !isReadOnly else { return .securityStatusNotSatisfied }
        guard let data, !data.isEmpty else { return .wrongLength }
        if conduct == .strict, data.count > maximumUpdateLength { return .wrongLength }
        guard offset < ndefFile.count else { return .wrongP1P2 }
        guard offset + data.count <= ndefFile.count else { return conduct == .strict ? .wrongLength : .wrongP1P2 }
        ndefFile.replaceSubrange(offset..<(offset + data.count), with: data)
        return .success
    }

    private var selectedContents: [UInt8]? {
        switch selectedFile {
        case Type4Command.capabilityContainerFileID: capabilityContainer
        case Self.ndefFileID: ndefFile
        default: nil
        }
    }

    /// SW1 SW2 of `word`.
    public static func answer(_ word: ISO7816StatusWord) -> [UInt8] { [word.sw1, word.sw2] }
}
