public import NDEF
import NFCCore

/// Type 4 Tag command fields (NFC Forum Type 4 Tag 2.0/3.0, 5.4 "Command sequence"; ISO/IEC
/// 7816-4 for the instructions).
public enum Type4Command {
    /// The NDEF Tag Application's name (Type 4 Tag 2.0, 5.4.2): `D2 76 00 00 85 01 01`.
    public static let ndefTagApplicationID: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
    /// The capability container file's identifier, `E103` (Type 4 Tag 2.0, 5.1).
    public static let capabilityContainerFileID: UInt16 = 0xE103
    /// SELECT (`A4`).
    public static let select: UInt8 = 0xA4
    /// READ BINARY (`B0`): P1-P2 a 15-bit offset, Le the length.
    public static let readBinary: UInt8 = 0xB0
    /// UPDATE BINARY (`D6`): P1-P2 a 15-bit offset, Lc and the data.
    public static let updateBinary: UInt8 = 0xD6
    /// SELECT P1 `04`, P2 `00`: by name, first or only occurrence; sent with Le `00`.
    public static let selectByNameP1: UInt8 = 0x04
    /// SELECT P1 `00`, P2 `0C`: by file identifier, no response data (mapping 2.0 and later).
    public static let selectByFileIDP1: UInt8 = 0x00
    /// See ``selectByFileIDP1``.
    public static let selectByFileIDP2: UInt8 = 0x0C
    /// The highest offset READ/UPDATE BINARY reach: P1 bit 8 must be 0, leaving 15 bits.
    public static let maximumOffset = 0x7FFF
}

/// The capability container of a Type 4 tag (Type 4 Tag 2.0, 5.1; 3.0 adds the extended NDEF
/// File Control TLV): what the reader learns before touching the NDEF file.
///
/// Layout: CCLEN (2), mapping version (1), MLe (2), MLc (2), then the NDEF File Control TLV:
/// `04 06` file ID (2), maximum file size (2), read access, write access; or `06 08` file ID (2),
/// maximum file size (4), read access, write access.
public struct Type4CapabilityContainer: Sendable, Hashable {
    /// CCLEN: the CC file's length in bytes (≥ 15).
    public var length: Int
    /// The mapping version: major in the upper nibble (2 or 3 here), minor in the lower.
    public var mappingVersion: UInt8
    /// MLe: the most data one READ BINARY may return (≥ 15).
    public var maximumReadLength: Int
    /// MLc: the most data one UPDATE BINARY may carry (≥ 1).
    public var maximumUpdateLength: Int
    /// The NDEF file's identifier.
    public var ndefFileID: UInt16
    /// The NDEF file's maximum size, its length field included.
    public var maximumNDEFFileSize: Int
    /// Read access: `00` granted; anything else (proprietary or RFU) is not readable here.
    public var readAccess: UInt8
    /// Write access: `00` granted, `FF` none; anything else is treated as none.
    public var writeAccess: UInt8
    /// Whether the TLV is the extended one (`06`, Type 4 Tag 3.0): the NDEF file then starts
    /// with a 4-byte ENLEN instead of the 2-byte NLEN.
    public var isExtended: Bool

    /// The CC bytes through the NDEF File Control TLV: 15, or 17 with the extended TLV.
    public static let basicLength = 15
    /// The CC bytes through the extended NDEF File Control TLV.
    public static let extendedLength = 17
    /// NDEF File Control TLV type (`04`).
    public static let ndefFileControlTLV: UInt8 = 0x04
    /// Extended NDEF File Control TLV type (`06`, mapping 3.0).
    public static let extendedNDEFFileControlTLV: UInt8 = 0x06

    /// The CC offset of the write access byte.
    public var writeAccessOffset: Int { isExtended ? 16 : 14 }
    /// The CC offset of the read access byte.
    public var readAccessOffset: Int { isExtended ? 15 : 13 }
    /// Bytes of the NDEF file's length field: NLEN 2, ENLEN 4.
    public var lengthFieldSize: Int { isExtended ? 4 : 2 }
    /// Whether NDEF may be read (read access `00`).
    public var isReadable: Bool { readAccess == 0x00 }
    /// Whether NDEF may be written (write access `00`).
    public var isWritable: Bool { writeAccess == 0x00 }
    /// Write access `FF`: no write access at all (Type 4 Tag 2.0, 5.1.2.1); `80`–`FE` are
    /// proprietary conditions that may still let someone write.
    public static let writeAccessNever: UInt8 = 0xFF
    /// The bytes of the NDEF file this reader reaches: the file size, capped at the 32 768
    /// bytes that 15-bit READ/UPDATE BINARY offsets address (larger files need the `B1`/`D7`
    /// forms with an offset data object, not implemented).
    public var reachableFileSize: Int { min(maximumNDEFFileSize, Type4Command.maximumOffset + 1) }
    /// The longest NDEF message that fits: reachable file size less the length field.
    public var capacity: Int { reachableFileSize - lengthFieldSize }

    /// How many CC bytes ``init(bytes:)`` needs, judging from the first 15: 17 when the TLV is
    /// the extended one.
    public static func requiredLength(_ prefix: [UInt8]) -> Int {
        prefix.count > 7 && prefix[7] == extendedNDEFFileControlTLV ? extendedLength : basicLength
    }

    /// Parses the CC file's first bytes; total.
    /// - Throws: ``NFCTagError`` with ``NFCTagError/offset`` the CC byte at fault:
    ///   `notNDEFFormatted` for a major version other than 2 or 3; `malformedTag` for a short
    ///   file, CCLEN < 15, MLe < 15, MLc 0, a first TLV that is not an NDEF File Control TLV, a
    ///   wrong TLV length, a reserved file ID, a maximum size out of range.
    public init(bytes: [UInt8]) throws(NFCTagError) {
        let b = bytes
        guard b.count >= Self.basicLength else {
            throw NFCTagError(.malformedTag, at: b.count, "capability container: \(b.count) bytes, at least 15 needed")
        }
        length = Int(b[0]) << 8 | Int(b[1])
        guard length >= Self.basicLength, length != 0xFFFF else {
            throw NFCTagError(.malformedTag, at: 0, "capability container: CCLEN \(length) is not in 15…65534")
        }
        mappingVersion = b[2]
        let major = mappingVersion >> 4
        guard major == 2 || major == 3 else {
            throw NFCTagError(
                .notNDEFFormatted, at: 2, "capability container: mapping version \(major).\(mappingVersion & 0xF) is not supported (2.x, 3.x)")
        }
        maximumReadLength = Int(b[3]) << 8 | Int(b[4])
        guard maximumReadLength >= 0x0F else {
            throw NFCTagError(.malformedTag, at: 3, "capability container: MLe \(maximumReadLength) is below 15")
        }
        maximumUpdateLength = Int(b[5]) << 8 | Int(b[6])
        guard maximumUpdateLength >= 1 else {
            throw NFCTagError(.malformedTag, at: 5, "capability container: MLc is 0")
        }
        switch b[7] {
        case Self.ndefFileControlTLV: isExtended = false
        case Self.extendedNDEFFileControlTLV where major >= 3: isExtended = true
        default:
            throw NFCTagError(
                .malformedTag, at: 7, "capability container: TLV type \(hexByte(b[7])) where the NDEF File Control TLV (04, or 06 from mapping 3.0) belongs")
        }
        let valueLength = isExtended ? 8 : 6
        guard b[8] == valueLength else {
            throw NFCTagError(.malformedTag, at: 8, "capability container: NDEF File Control TLV length \(b[8]), not \(valueLength)")
        }
        let end = 9 + valueLength
        guard b.count >= end, length >= end else {
            throw NFCTagError(.malformedTag, at: min(b.count, length), "capability container: the NDEF File Control TLV runs past the end")
        }
        ndefFileID = UInt16(b[9]) << 8 | UInt16(b[10])
        guard ![0x0000, 0xE102, 0xE103, 0x3F00, 0x3FFF, 0xFFFF].contains(ndefFileID) else {
            throw NFCTagError(.malformedTag, at: 9, "capability container: NDEF file ID \(hexByte(b[9]))\(hexByte(b[10])) is reserved")
        }
        if isExtended {
            maximumNDEFFileSize = Int(b[11]) << 24 | Int(b[12]) << 16 | Int(b[13]) << 8 | Int(b[14])
            guard (0xFFFF...0xFFFF_FFFE).contains(maximumNDEFFileSize) else {
                throw NFCTagError(.malformedTag, at: 11, "capability container: extended NDEF file size \(maximumNDEFFileSize) is not in FFFFh…FFFFFFFEh")
            }
        } else {
            maximumNDEFFileSize = Int(b[11]) << 8 | Int(b[12])
            guard (0x0005...0xFFFE).contains(maximumNDEFFileSize) else {
                throw NFCTagError(.malformedTag, at: 11, "capability container: NDEF file size \(maximumNDEFFileSize) is not in 5…65534")
            }
        }
        readAccess = b[end - 2]
        writeAccess = b[end - 1]
    }
}

/// NDEF on an NFC Forum Type 4 Tag (Type 4 Tag 2.0/3.0, 5.4) over the reader seam: SELECT the
/// NDEF Tag Application, SELECT and READ BINARY the capability container, SELECT the NDEF
/// file, READ/UPDATE BINARY it, with the tear-safe write order of ARCHITECTURE.md (NLEN 0,
/// data, NLEN).
///
/// Holds the reader with its ISO-DEP target already activated. Each call reads what it needs
/// afresh.
public struct Type4Tag: NFCNDEFTag {
    /// The reader whose selected target is this tag.
    public let reader: any NFCReader
    /// The timeout of each command.
    public var commandTimeout: Duration
    /// The most data one READ BINARY asks for or one UPDATE BINARY carries, whatever MLe/MLc
    /// allow: 240 keeps every command and answer inside one normal PN532 frame (255 bytes,
    /// frame identifier, command code and target/status bytes included).
    public var maximumChunkLength: Int
    /// Where the selected application is recorded, for ``ISO7816Tag/selectedAID``.
    var selection: ISO7816Selection?

    /// The default ``maximumChunkLength``.
    public static let defaultMaximumChunkLength = 240

    /// A Type 4 tag on `reader` (already polled and activated).
    public init(reader: any NFCReader, commandTimeout: Duration = .seconds(1), maximumChunkLength: Int = Type4Tag.defaultMaximumChunkLength) {
        self.reader = reader
        self.commandTimeout = commandTimeout
        self.maximumChunkLength = max(1, maximumChunkLength)
    }

    /// Whether this tag is still in the field: ``NFCReader/isTargetPresent()`` of its reader.
    public func isPresent() async -> Bool { await reader.isTargetPresent() }

    /// The NDEF detection procedure (Type 4 Tag 2.0, 5.4.1): SELECT application, SELECT CC,
    /// READ BINARY CC, SELECT NDEF file, READ BINARY NLEN — 5 commands.
    /// - Returns: `.notSupported` (capacity 0) without the NDEF application, CC, a supported
    ///   version or read access; else read-write or read-only (write access not `00`), the
    ///   capacity (maximum file size less NLEN/ENLEN) and the stored length.
    /// - Throws: ``NFCTagError`` `malformedTag` (CC offset, or NDEF file offset 0 for an NLEN
    ///   beyond the file), `connectionLost`, `tagResponse`.
    public func queryNDEFStatus() async throws(NFCTagError) -> NDEFQuery {
        let cc: Type4CapabilityContainer
        do {
            cc = try await detect()
        } catch where error.code == .notNDEFFormatted {
            return NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0)
        }
        let length = try await readLength(cc)
        return NDEFQuery(status: cc.isWritable ? .readWrite : .readOnly, capacity: cc.capacity, messageLength: length)
    }

    /// Reads the stored message (Type 4 Tag 2.0, 5.4.6): detection, then READ BINARY from
    /// offset 0 in chunks of min(MLe, ``maximumChunkLength``) — the first chunk brings NLEN and
    /// the start of the message. NLEN 0 gives ``NDEFMessage/empty``.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted`, `malformedTag`, `malformedMessage` (offset
    ///   in the NDEF file), `connectionLost`, `tagResponse`.
    public func readNDEF() async throws(NFCTagError) -> NDEFMessage {
        try await readMessage(try await detect()).message
    }

    /// The status and the message with one detection (``NFCNDEFTag/readNDEFWithStatus()``):
    /// the NDEF file is selected once and its first READ BINARY brings NLEN with the start of
    /// the message, where ``queryNDEFStatus()`` then ``readNDEF()`` select and read it twice.
    /// - Throws: as ``readNDEF()``, except that a tag without NDEF is a reading with status
    ///   `notSupported` and no message.
    public func readNDEFWithStatus() async throws(NFCTagError) -> NDEFReading {
        let cc: Type4CapabilityContainer
        do {
            cc = try await detect()
        } catch where error.code == .notNDEFFormatted {
            return NDEFReading(query: NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0), message: nil)
        }
        let (message, length) = try await readMessage(cc)
        return NDEFReading(
            query: NDEFQuery(status: cc.isWritable ? .readWrite : .readOnly, capacity: cc.capacity, messageLength: length),
            message: message)
    }

    /// The stored message and NLEN, the NDEF file selected by ``detect()``.
    func readMessage(_ cc: Type4CapabilityContainer) async throws(NFCTagError) -> (message: NDEFMessage, length: Int) {
        let chunk = min(cc.maximumReadLength, maximumChunkLength, cc.reachableFileSize)
        var file = try await readBinary(offset: 0, length: max(chunk, cc.lengthFieldSize))
        guard file.count >= cc.lengthFieldSize else {
            throw NFCTagError(.tagResponse, at: file.count, "READ BINARY of the NDEF file answered \(file.count) bytes, the length field has \(cc.lengthFieldSize)")
        }
        let length = try Self.messageLength(file, cc)
        guard length > 0 else { return (.empty, 0) }
        let end = cc.lengthFieldSize + length
        while file.count < end {
            let more: [UInt8]
            do {
                more = try await readBinary(offset: file.count, length: min(chunk, end - file.count))
            } catch where error.code == .tagResponse && error.readerError == nil {
                // The tag answered with an error status inside the file the CC and NLEN claim:
                // the file is smaller than they say.
                throw NFCTagError(
                    .malformedTag, at: file.count,
                    "the CC and NLEN claim \(end) bytes of NDEF file but the tag refuses to read at offset \(file.count): \(error.reason)")
            }
            guard !more.isEmpty else {
                throw NFCTagError(.tagResponse, at: file.count, "READ BINARY of the NDEF file answered no data at offset \(file.count)")
            }
            file += more
        }
        do {
            return (try NDEFMessage(bytes: Array(file[cc.lengthFieldSize..<end])), length)
        } catch {
            throw NFCTagError(
                .malformedMessage, at: cc.lengthFieldSize + (error.offset ?? 0), "stored NDEF message does not decode: \(error.reason)")
        }
    }

    /// Writes `message` in place of the stored one (Type 4 Tag 2.0, 5.4.7).
    ///
    /// Every check first — NDEF application and CC present, write access `00`, message ≤
    /// capacity, message encodable, the file as large as the CC says (a 1-byte READ BINARY of the
    /// last byte the message reaches: a CC announcing more than the tag has is `malformedTag`)
    /// — and a failed check sends no UPDATE BINARY. Then, so that a
    /// tag pulled away at any moment holds the old message, an empty one or the new one:
    /// UPDATE BINARY NLEN = 0, the message from offset 2 (4 with ENLEN) in chunks of
    /// min(MLc, ``maximumChunkLength``), UPDATE BINARY NLEN = length. With `verify`, the file
    /// is read back from offset 0 and compared.
    /// - Throws: ``NFCTagError`` `invalidMessage`, `notNDEFFormatted`, `malformedTag`,
    ///   `readOnly`, `capacityExceeded` ("by N bytes"), `notSupported` (MLc smaller than NLEN:
    ///   no tear-safe length update) — nothing written; `connectionLost`,
    ///   `tagResponse` (old, empty or new message left); `verificationFailed`.
    public func writeNDEF(_ message: NDEFMessage, verify: Bool) async throws(NFCTagError) {
        let encoded = try message.encodedForTag()
        let cc = try await detect()
        guard cc.isWritable else {
            throw NFCTagError(.readOnly, at: cc.writeAccessOffset, "tag is read-only (CC write access \(hexByte(cc.writeAccess)))")
        }
        try NFCTagError.checkCapacity(encoded.count, fits: cc.capacity)
        try Self.checkLengthFieldFitsOneUpdate(cc)
        let lengthField = Self.lengthField(encoded.count, cc)
        try await checkFileReaches(cc.lengthFieldSize + encoded.count - 1)
        try await updateBinary(offset: 0, [UInt8](repeating: 0, count: cc.lengthFieldSize))
        guard !encoded.isEmpty else { return }
        let chunk = min(cc.maximumUpdateLength, maximumChunkLength)
        var written = 0
        while written < encoded.count {
            let part = Array(encoded[written..<min(encoded.count, written + chunk)])
            try await updateBinary(offset: cc.lengthFieldSize + written, part)
            written += part.count
        }
        try await updateBinary(offset: 0, lengthField)

        guard verify else { return }
        let expected = lengthField + encoded
        let readChunk = min(cc.maximumReadLength, maximumChunkLength)
        var back: [UInt8] = []
        while back.count < expected.count {
            let more = try await readBinary(offset: back.count, length: min(readChunk, expected.count - back.count))
            guard !more.isEmpty else {
                throw NFCTagError(.verificationFailed, at: back.count, "read-back answered no data at offset \(back.count)")
            }
            back += more
        }
        for (offset, (read, wrote)) in zip(back, expected).enumerated() where read != wrote {
            throw NFCTagError(.verificationFailed, at: offset, "read back \(hexByte(read)) where \(hexByte(wrote)) was written")
        }
    }

    /// Not available: the Type 4 mapping has no lock command. A Type 4 tag becomes read-only
    /// through its CC's write access byte, which the card issuer sets with proprietary commands
    /// (DESFire ChangeFileSettings under the application key, NTAG 424 ChangeFileSettings…);
    /// nothing is sent and no "soft" lock is faked.
    /// - Throws: ``NFCTagError/Code/notSupported``, always.
    public func writeLock() async throws(NFCTagError) {
        try await checkLockable()
    }

    /// Always throws `notSupported`, as ``writeLock()`` does; nothing is sent.
    public func checkLockable() async throws(NFCTagError) {
        throw NFCTagError(
            .notSupported,
            "this tag cannot be locked permanently: NFC Forum Type 4 has no lock command, and the CC's write access is set by the issuer with proprietary, keyed commands; nothing was sent")
    }

    /// What keeps the tag from being physically read-only (``NFCNDEFTag/readOnlyGaps()``): the
    /// CC's write access byte for the NDEF file other than `FF` (never; `00` grants writing,
    /// `80`–`FE` are proprietary conditions that may). For a generic Type 4 tag the CC is all
    /// that can be read: whether the card enforces it is its issuer's configuration, which
    /// the NFC Forum mapping cannot read. ``ISO7816Tag/readOnlyGaps()`` adds the NDEF file's
    /// access rights on a chip whose own settings it knows (NTAG 424 DNA). Reads only.
    /// - Throws: ``NFCTagError`` `malformedTag`, `connectionLost`, `tagResponse`.
    public func readOnlyGaps() async throws(NFCTagError) -> [String] {
        let cc: Type4CapabilityContainer
        do {
            cc = try await detect()
        } catch where error.code == .notNDEFFormatted {
            return ["the tag holds no NDEF (\(error.reason))"]
        }
        guard cc.writeAccess != Type4CapabilityContainer.writeAccessNever else { return [] }
        return ["the CC's write access for the NDEF file is \(hexByte(cc.writeAccess)), not FF (never)"]
    }

    /// Empties the NDEF file (NLEN = 0) of a tag that has the NDEF Tag Application: the
    /// INITIALIZED state of Type 4 Tag 2.0, 5.3.1. A tag already empty is left as is (no
    /// UPDATE BINARY); one holding a message is refused unless `force`.
    ///
    /// Creating the application and its files on a blank card (DESFire CreateApplication,
    /// CreateStdDataFile…) is out of scope: such a tag is `notSupported`.
    /// - Throws: ``NFCTagError`` `notSupported` (no NDEF Tag Application), `alreadyFormatted`
    ///   (a message is stored, not forced), `readOnly`, `malformedTag`, `connectionLost`,
    ///   `tagResponse`.
    public func format(force: Bool) async throws(NFCTagError) {
        let cc: Type4CapabilityContainer
        do {
            cc = try await detect()
        } catch where error.code == .notNDEFFormatted && error.offset == nil {
            throw NFCTagError(
                .notSupported,
                "\(error.reason): creating the NDEF Tag Application and its files (e.g. DESFire CreateApplication) is out of scope")
        }
        guard cc.isWritable else {
            throw NFCTagError(.readOnly, at: cc.writeAccessOffset, "tag is read-only (CC write access \(hexByte(cc.writeAccess)))")
        }
        try Self.checkLengthFieldFitsOneUpdate(cc)
        let length = try await readLength(cc)
        guard length > 0 else { return }
        guard force else {
            throw NFCTagError(.alreadyFormatted, "the tag holds a \(length)-byte NDEF message; format(force: true) empties it")
        }
        try await updateBinary(offset: 0, [UInt8](repeating: 0, count: cc.lengthFieldSize))
    }

    // MARK: - Files, for inspection

    /// The capability container file as the tag holds it: SELECT the NDEF Tag Application and
    /// the CC file (E103), READ BINARY its first 15 bytes, then the rest CCLEN names, up to
    /// ``maximumInspectedCapabilityContainerLength`` bytes (a CCLEN of FFFF is a claim, not a
    /// size to allocate). A file shorter than CCLEN says (a READ BINARY past its end refused)
    /// is returned as far as it goes. For `nfctool info` and `dump`.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted` when the application or file is missing,
    ///   `tagResponse` for a refused first READ BINARY, `connectionLost`.
    public func readCapabilityContainerFile() async throws(NFCTagError) -> [UInt8] {
        try await selectCapabilityContainer()
        var bytes = try await readBinary(offset: 0, length: Type4CapabilityContainer.basicLength)
        guard bytes.count >= 2 else { return bytes }
        let total = min(Int(bytes[0]) << 8 | Int(bytes[1]), Self.maximumInspectedCapabilityContainerLength)
        while bytes.count < total {
            let chunk: [UInt8]
            do {
                chunk = try await readBinary(offset: bytes.count, length: min(maximumChunkLength, total - bytes.count))
            } catch where error.code == .tagResponse {
                // The file ends before CCLEN says (6B00 past its end): what was read is the CC
                // file; ``Type4CapabilityContainer`` says what is missing.
                break
            }
            guard !chunk.isEmpty else { break }
            bytes += chunk
        }
        return bytes
    }

    /// The capability container, parsed (``readCapabilityContainerFile()``).
    /// - Throws: ``NFCTagError`` as ``readCapabilityContainerFile()``, or `malformedTag` with
    ///   the CC offset at fault.
    public func readCapabilityContainer() async throws(NFCTagError) -> Type4CapabilityContainer {
        try Type4CapabilityContainer(bytes: try await readCapabilityContainerFile())
    }

    /// The most CC bytes ``readCapabilityContainerFile()`` reads.
    public static let maximumInspectedCapabilityContainerLength = 256

    /// An elementary file of the selected application with a length field first (an NDEF
    /// file: NLEN, or ENLEN with `lengthFieldSize` 4): SELECT it by `id`, READ BINARY the length
    /// field, then as many bytes as it names, in chunks of ``maximumChunkLength``. Stops at the
    /// 32 768 bytes 15-bit offsets reach, and where the tag answers no more data: memory grows
    /// with what the tag returns, never with what its length field claims.
    /// - Throws: ``NFCTagError`` `notNDEFFormatted` when the file cannot be selected,
    ///   `tagResponse` for a refused READ BINARY, `connectionLost`.
    public func readFile(id: UInt16, lengthFieldSize: Int = 2) async throws(NFCTagError) -> [UInt8] {
        let selected = try await selectFile(id)
        guard selected.isSuccess else {
            throw NFCTagError(.notNDEFFormatted, "file \(hexByte(UInt8(id >> 8)))\(hexByte(UInt8(id & 0xFF))) cannot be selected: SELECT answered \(selected)")
        }
        var bytes = try await readBinary(offset: 0, length: lengthFieldSize)
        guard bytes.count == lengthFieldSize else { return bytes }
        let total = min(bytes.reduce(0) { $0 << 8 | Int($1) } + lengthFieldSize, Type4Command.maximumOffset + 1)
        while bytes.count < total {
            let chunk: [UInt8]
            do {
                chunk = try await readBinary(offset: bytes.count, length: min(maximumChunkLength, total - bytes.count))
            } catch where error.code == .tagResponse {
                // The file ends before CCLEN says (6B00 past its end): what was read is the CC
                // file; ``Type4CapabilityContainer`` says what is missing.
                break
            }
            guard !chunk.isEmpty else { break }
            bytes += chunk
        }
        return bytes
    }

    // MARK: - Procedures

    /// SELECT the NDEF Tag Application, SELECT and READ the CC, check read access, SELECT the
    /// NDEF file.
    /// - Throws: `notNDEFFormatted` without offset when the application or CC file is missing,
    ///   with the CC offset for an unsupported version or read access refused.
    func detect() async throws(NFCTagError) -> Type4CapabilityContainer {
        try await selectCapabilityContainer()
        var bytes = try await readBinary(offset: 0, length: Type4CapabilityContainer.basicLength)
        let needed = Type4CapabilityContainer.requiredLength(bytes)
        if bytes.count == Type4CapabilityContainer.basicLength, needed > bytes.count {
            bytes += try await readBinary(offset: bytes.count, length: needed - bytes.count)
        }
        let cc = try Type4CapabilityContainer(bytes: bytes)
        guard cc.isReadable else {
            throw NFCTagError(.notNDEFFormatted, at: cc.readAccessOffset, "NDEF read access \(hexByte(cc.readAccess)) is not granted")
        }
        let ndefSelected = try await selectFile(cc.ndefFileID)
        guard ndefSelected.isSuccess else {
            throw NFCTagError(
                .malformedTag, at: 9, "the NDEF file the CC names cannot be selected: SELECT answered \(ndefSelected)")
        }
        return cc
    }

    /// SELECT the NDEF Tag Application (recorded as the selected AID), then the CC file.
    /// - Throws: `notNDEFFormatted` when either is missing.
    func selectCapabilityContainer() async throws(NFCTagError) {
        let application = try await send(
            ISO7816APDU(
                unchecked: 0x00, Type4Command.select, Type4Command.selectByNameP1, 0x00,
                data: Bytes(Type4Command.ndefTagApplicationID), expectedResponseLength: 256),
            "SELECT NDEF Tag Application")
        guard application.statusWord.isSuccess else {
            throw NFCTagError(.notNDEFFormatted, "no NDEF Tag Application (D2760000850101): SELECT answered \(application.statusWord)")
        }
        selection?.aid = Hex.encode(Type4Command.ndefTagApplicationID).uppercased()
        let ccSelected = try await selectFile(Type4Command.capabilityContainerFileID)
        guard ccSelected.isSuccess else {
            throw NFCTagError(.notNDEFFormatted, "no capability container file (E103): SELECT answered \(ccSelected)")
        }
    }

    /// READ BINARY of the length field (NLEN or ENLEN), checked against the file size.
    func readLength(_ cc: Type4CapabilityContainer) async throws(NFCTagError) -> Int {
        let field = try await readBinary(offset: 0, length: cc.lengthFieldSize)
        guard field.count == cc.lengthFieldSize else {
            throw NFCTagError(.tagResponse, at: field.count, "READ BINARY of the NDEF length answered \(field.count) bytes, not \(cc.lengthFieldSize)")
        }
        return try Self.messageLength(field, cc)
    }

    /// NLEN/ENLEN from the file's first bytes: beyond the file it is `malformedTag`, beyond
    /// the 15-bit offsets `notSupported`.
    static func messageLength(_ file: [UInt8], _ cc: Type4CapabilityContainer) throws(NFCTagError) -> Int {
        let length = file.prefix(cc.lengthFieldSize).reduce(0) { $0 << 8 | Int($1) }
        let name = cc.isExtended ? "ENLEN" : "NLEN"
        guard length <= cc.maximumNDEFFileSize - cc.lengthFieldSize else {
            throw NFCTagError(
                .malformedTag, at: 0, "NDEF file: \(name) \(length) exceeds the \(cc.maximumNDEFFileSize - cc.lengthFieldSize) bytes the file holds")
        }
        guard length <= cc.capacity else {
            throw NFCTagError(
                .notSupported, at: 0, "NDEF file: \(name) \(length) reaches past offset 7FFFh, which needs READ BINARY with an offset data object (B1), not implemented")
        }
        return length
    }

    /// The CC's file size is tag data: before the first UPDATE BINARY, the last byte a write
    /// will reach is read (one READ BINARY of 1 byte; nothing when only the length field is
    /// written), so a CC announcing a larger file than the tag has is caught with nothing written.
    /// - Throws: `malformedTag` at `offset` when the tag refuses to read it.
    func checkFileReaches(_ offset: Int) async throws(NFCTagError) {
        guard offset >= 2 else { return }
        do {
            _ = try await readBinary(offset: offset, length: 1)
        } catch where error.code == .tagResponse && error.readerError == nil {
            throw NFCTagError(
                .malformedTag, at: offset,
                "the CC announces a larger NDEF file than the tag has: it refuses to read offset \(offset) (\(error.reason)); nothing was written")
        }
    }

    /// NLEN/ENLEN must change in one UPDATE BINARY: in two, a tear between them would leave a
    /// length naming bytes of the old message as a whole one.
    /// - Throws: `notSupported` when MLc is below the length field's size.
    static func checkLengthFieldFitsOneUpdate(_ cc: Type4CapabilityContainer) throws(NFCTagError) {
        guard cc.maximumUpdateLength >= cc.lengthFieldSize else {
            throw NFCTagError(
                .notSupported, at: 5,
                "MLc \(cc.maximumUpdateLength) is below the \(cc.lengthFieldSize)-byte NDEF length: it cannot be changed in one command, so no tear-safe write is possible; nothing was written")
        }
    }

    /// The length field's bytes for `length`.
    static func lengthField(_ length: Int, _ cc: Type4CapabilityContainer) -> [UInt8] {
        (0..<cc.lengthFieldSize).reversed().map { UInt8((length >> (8 * $0)) & 0xFF) }
    }

    // MARK: - Commands

    /// One APDU with response chaining.
    func send(_ apdu: ISO7816APDU, _ what: String) async throws(NFCTagError) -> ISO7816Response {
        do {
            return try await ISO7816Exchange.send(apdu, reader: reader, timeout: commandTimeout)
        } catch {
            throw NFCTagError(error.code, at: error.offset, "\(what): \(error.reason)", readerError: error.readerError)
        }
    }

    /// SELECT by file identifier, no response data (`00 A4 00 0C 02 id`).
    func selectFile(_ id: UInt16) async throws(NFCTagError) -> ISO7816StatusWord {
        try await send(
            ISO7816APDU(
                unchecked: 0x00, Type4Command.select, Type4Command.selectByFileIDP1, Type4Command.selectByFileIDP2,
                data: Bytes([UInt8(id >> 8), UInt8(id & 0xFF)])),
            "SELECT file \(hexByte(UInt8(id >> 8)))\(hexByte(UInt8(id & 0xFF)))"
        ).statusWord
    }

    /// READ BINARY (`00 B0 offset Le`): at most `length` bytes of the selected file.
    func readBinary(offset: Int, length: Int) async throws(NFCTagError) -> [UInt8] {
        guard offset <= Type4Command.maximumOffset else {
            throw NFCTagError(.notSupported, at: offset, "offset \(offset) is beyond READ BINARY's 15-bit reach")
        }
        let response = try await send(
            ISO7816APDU(
                unchecked: 0x00, Type4Command.readBinary, UInt8(offset >> 8), UInt8(offset & 0xFF),
                expectedResponseLength: length),
            "READ BINARY offset \(offset)")
        guard response.statusWord.isSuccess else {
            throw NFCTagError(.tagResponse, at: offset, "READ BINARY offset \(offset), \(length) bytes answered \(response.statusWord)")
        }
        guard response.data.count <= length else {
            throw NFCTagError(.tagResponse, at: offset, "READ BINARY offset \(offset) answered \(response.data.count) bytes, \(length) asked")
        }
        return response.data.array
    }

    /// UPDATE BINARY (`00 D6 offset Lc data`) of the selected file.
    func updateBinary(offset: Int, _ data: [UInt8]) async throws(NFCTagError) {
        guard offset <= Type4Command.maximumOffset else {
            throw NFCTagError(.notSupported, at: offset, "offset \(offset) is beyond UPDATE BINARY's 15-bit reach")
        }
        let response = try await send(
            ISO7816APDU(unchecked: 0x00, Type4Command.updateBinary, UInt8(offset >> 8), UInt8(offset & 0xFF), data: Bytes(data)),
            "UPDATE BINARY offset \(offset)")
        switch response.statusWord {
        case .success: return
        case .securityStatusNotSatisfied:
            throw NFCTagError(.readOnly, at: offset, "UPDATE BINARY offset \(offset) refused: security status not satisfied (6982)")
        default:
            throw NFCTagError(.tagResponse, at: offset, "UPDATE BINARY offset \(offset), \(data.count) bytes answered \(response.statusWord)")
        }
    }
}
