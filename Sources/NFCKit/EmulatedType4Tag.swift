public import NFCCore
import NFCTags

/// The card side of an NFC Forum Type 4 tag (T4T 2.0): the NDEF Tag Application with its
/// capability container (E103) and NDEF file (E104), answering the APDUs of an external reader
/// one by one. A value: feed it each command with ``respond(to:)``, read ``message`` when the
/// reader has left.
///
/// ```swift
/// var tag = try EmulatedType4Tag(message: Bytes(try message.encoded()), readOnly: false)
/// let answer = tag.respond(to: apdu)   // R-APDU: data then SW1 SW2
/// ```
public struct EmulatedType4Tag: Sendable, Hashable {
    /// The NDEF Tag Application name, D2760000850101 (T4T 2.0 §5.3.1).
    public static let applicationName = Bytes([0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01])
    /// The capability container's file identifier, E103 (T4T 2.0 §5.1).
    public static let capabilityContainerFileID: UInt16 = 0xE103
    /// The NDEF file's identifier announced in the capability container, E104.
    public static let ndefFileID: UInt16 = 0xE104
    /// The size of the NDEF file by default: NLEN and 2046 bytes of message.
    public static let defaultFileSize = 2048
    /// MLe and MLc: the most data one READ BINARY answers and one UPDATE BINARY carries. 128
    /// keeps each APDU inside one PN532 frame.
    public static let maximumDataLength = 128

    /// ISO/IEC 7816-4 instruction bytes the tag answers (T4T 2.0 §5.4).
    public enum Instruction {
        /// SELECT, `A4`.
        public static let select: UInt8 = 0xA4
        /// READ BINARY, `B0`.
        public static let readBinary: UInt8 = 0xB0
        /// UPDATE BINARY, `D6`.
        public static let updateBinary: UInt8 = 0xD6
    }

    /// Why a tag cannot be made.
    public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The reason, one line.
        public var description: String
    }

    /// The NDEF file: NLEN (2 bytes, big endian) then the message, padded with zeros.
    public private(set) var ndefFile: [UInt8]
    /// Whether UPDATE BINARY is refused (write access condition `FF`).
    public let isReadOnly: Bool
    /// Whether an UPDATE BINARY changed the NDEF file.
    public private(set) var wasUpdated = false
    /// Whether a READ BINARY of the NDEF file reached the last byte of the message (the reader
    /// read it to its end; an empty message counts once NLEN was read).
    public private(set) var messageWasRead = false

    private var applicationSelected = false
    private var selectedFile: UInt16?

    /// A tag holding `message` in an NDEF file of `fileSize` bytes (NLEN included).
    /// - Throws: ``ConfigurationError`` when the message does not fit or the size is outside
    ///   5…32767 (T4T 2.0 §5.1.2: the maximum NDEF file size).
    public init(message: Bytes, readOnly: Bool = false, fileSize: Int = EmulatedType4Tag.defaultFileSize) throws(ConfigurationError) {
        guard (5...0x7FFF).contains(fileSize) else {
            throw ConfigurationError(description: "an NDEF file holds 5 to 32767 bytes, not \(fileSize)")
        }
        guard message.count + 2 <= fileSize else {
            throw ConfigurationError(description: "a \(message.count)-byte message does not fit a \(fileSize)-byte NDEF file")
        }
        ndefFile = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message.array
            + [UInt8](repeating: 0, count: fileSize - 2 - message.count)
        isReadOnly = readOnly
    }

    /// The capability container (T4T 2.0 §5.1): CCLEN 000F, mapping version 2.0, MLe, MLc,
    /// then the NDEF File Control TLV `04 06`: file ID, maximum size, read access `00`, write
    /// access `00` or `FF` (read-only).
    public var capabilityContainer: [UInt8] {
        let size = ndefFile.count
        let length = UInt8(Self.maximumDataLength)
        return [0x00, 0x0F, 0x20, 0x00, length, 0x00, length, 0x04, 0x06,
                UInt8(Self.ndefFileID >> 8), UInt8(Self.ndefFileID & 0xFF), UInt8(size >> 8), UInt8(size & 0xFF),
                0x00, isReadOnly ? 0xFF : 0x00]
    }

    /// The NDEF message the file holds now (NLEN bytes after NLEN); nil when NLEN is larger
    /// than the file (a reader left it inconsistent).
    public var message: Bytes? {
        let length = Int(ndefFile[0]) << 8 | Int(ndefFile[1])
        guard length + 2 <= ndefFile.count else { return nil }
        return Bytes(ndefFile[2..<(2 + length)])
    }

    /// Answers one command APDU: response data then SW1 SW2.
    ///
    /// SELECT by name of the NDEF application, SELECT by file ID (P2 `0C` or `00`) of E103 and
    /// E104 once the application is selected, READ BINARY of the selected file, UPDATE BINARY
    /// of the NDEF file. Errors: `6E00` class, `6D00` instruction, `6700` length, `6A82` file
    /// or application not found, `6986` no file selected, `6B00` offset outside the file,
    /// `6982` update refused (read-only, or the capability container).
    public mutating func respond(to command: Bytes) -> Bytes {
        guard let apdu = try? ISO7816APDU(bytes: command) else { return Self.answer(.wrongLength) }
        guard apdu.instructionClass == 0x00 else { return Self.answer(.classNotSupported) }
        switch apdu.instructionCode {
        case Instruction.select: return select(apdu)
        case Instruction.readBinary: return readBinary(apdu)
        case Instruction.updateBinary: return updateBinary(apdu)
        default: return Self.answer(.instructionNotSupported)
        }
    }

    private mutating func select(_ apdu: ISO7816APDU) -> Bytes {
        switch (apdu.p1Parameter, apdu.p2Parameter) {
        case (0x04, 0x00), (0x04, 0x0C):
            guard !apdu.data.isEmpty else { return Self.answer(.wrongLength) }
            applicationSelected = apdu.data == Self.applicationName
            selectedFile = nil
            return Self.answer(applicationSelected ? .success : .fileNotFound)
        case (0x00, 0x00), (0x00, 0x0C):
            guard apdu.data.count == 2 else { return Self.answer(.wrongLength) }
            let id = UInt16(apdu.data[0]) << 8 | UInt16(apdu.data[1])
            guard applicationSelected, id == Self.capabilityContainerFileID || id == Self.ndefFileID else {
                selectedFile = nil
                return Self.answer(.fileNotFound)
            }
            selectedFile = id
            return Self.answer(.success)
        default:
            return Self.answer(.incorrectP1P2)
        }
    }

    private mutating func readBinary(_ apdu: ISO7816APDU) -> Bytes {
        guard let selectedFile else { return Self.answer(.noCurrentEF) }
        let file = selectedFile == Self.ndefFileID ? ndefFile : capabilityContainer
        let offset = Int(apdu.p1Parameter) << 8 | Int(apdu.p2Parameter)
        guard apdu.data.isEmpty, let wanted = apdu.expectedResponseLength else { return Self.answer(.wrongLength) }
        guard offset < file.count else { return Self.answer(.wrongP1P2) }
        let count = min(wanted, file.count - offset, Self.maximumDataLength)
        if selectedFile == Self.ndefFileID, offset + count >= 2 + (Int(ndefFile[0]) << 8 | Int(ndefFile[1])) {
            messageWasRead = true
        }
        return Bytes(file[offset..<(offset + count)] + [0x90, 0x00])
    }

    private mutating func updateBinary(_ apdu: ISO7816APDU) -> Bytes {
        guard let selectedFile else { return Self.answer(.noCurrentEF) }
        guard selectedFile == Self.ndefFileID, !isReadOnly else { return Self.answer(.securityStatusNotSatisfied) }
        let offset = Int(apdu.p1Parameter) << 8 | Int(apdu.p2Parameter)
        guard !apdu.data.isEmpty, apdu.expectedResponseLength == nil else { return Self.answer(.wrongLength) }
        guard offset + apdu.data.count <= ndefFile.count else { return Self.answer(.wrongP1P2) }
        ndefFile.replaceSubrange(offset..<(offset + apdu.data.count), with: apdu.data.array)
        wasUpdated = true
        return Self.answer(.success)
    }

    private static func answer(_ word: ISO7816StatusWord) -> Bytes { Bytes([word.sw1, word.sw2]) }
}
