import NFCCore
public import NFCTags

/// ISO/IEC 7816-4 status words a Type 4 tag answers (NFC Forum Type 4 Tag Technical
/// Specification 2.0, section 5.1.3; ISO/IEC 7816-4 5.1.3).
public enum StatusWord {
    /// `90 00`: success.
    public static let success: UInt16 = 0x9000
    /// `67 00`: wrong length (Lc or Le, or data past the end of the file).
    public static let wrongLength: UInt16 = 0x6700
    /// `69 82`: security status not satisfied (writing a read-only NDEF file).
    public static let securityStatusNotSatisfied: UInt16 = 0x6982
    /// `69 86`: command not allowed, no current EF.
    public static let noCurrentEF: UInt16 = 0x6986
    /// `6A 82`: file or application not found.
    public static let fileNotFound: UInt16 = 0x6A82
    /// `6A 86`: incorrect parameters P1-P2.
    public static let incorrectP1P2: UInt16 = 0x6A86
    /// `6B 00`: wrong parameters P1-P2 (offset outside the file).
    public static let wrongOffset: UInt16 = 0x6B00
    /// `6D 00`: instruction not supported.
    public static let instructionNotSupported: UInt16 = 0x6D00
    /// `6E 00`: class not supported.
    public static let classNotSupported: UInt16 = 0x6E00
}

/// An NFC Forum Type 4 tag (Type 4 Tag Technical Specification 2.0, mapping version 2.0): a
/// DESFire-like ISO-DEP card holding the NDEF Tag Application.
///
/// Files: the capability container `E103` (15 bytes: CCLEN, mapping version 20h, MLe, MLc and
/// the NDEF File Control TLV `04 06 E104 size read-access write-access`) and the NDEF file
/// `E104` (NLEN, 2 bytes, then the message). Commands: SELECT by AID (`00 A4 04 00 07
/// D2760000850101`), SELECT by file ID (`00 A4 00 0C 02 E103`; P2 `00` of mapping 1.0 readers is
/// accepted too, answering no FCI), READ BINARY (`B0`), UPDATE BINARY (`D6`) (section 5.4).
///
/// The same card answers on ISO/IEC 14443 type A (a 7-byte UID, SAK `20`, an ATS) or, as
/// ``AirInterface/typeB``, on type B (a 4-byte PUPI, ATQB application data and protocol info,
/// ATTRIB): the NDEF application is the same over either (NFC Forum Type 4 Tag 2.0 covers
/// NFC-A and NFC-B).
public final class Type4VirtualTag: ISODEPVirtualTag, PersistentVirtualTag, NDEFPreloadable {
    /// Which ISO/IEC 14443 air interface the card answers on.
    public enum AirInterface: Sendable, Hashable {
        /// Type A: a 7-byte UID, ATQA `44 03`, SAK `20`, the ATS.
        case typeA
        /// Type B: a 4-byte PUPI, ATQB with ``Type4VirtualTag/typeBApplicationData`` and
        /// ``Type4VirtualTag/typeBProtocolInfo``.
        case typeB
    }

    /// ATQB application data of the type B card (ISO/IEC 14443-3 §7.9.3): AFI `00` (any
    /// application family), CRC_B(AID) `00 00`, number of applications `00`.
    public static let typeBApplicationData: [UInt8] = [0x00, 0x00, 0x00, 0x00]
    /// ATQB protocol info of the type B card (ISO/IEC 14443-3 §7.9.4): bit rates `00` (106 kbit/s
    /// only), `81` (maximum frame size code 8 = 256 bytes, protocol type 1 = ISO/IEC 14443-4
    /// compliant), `71` (FWI 7 ≈ 38.7 ms, ADC 00, FO 01 = CID supported, NAD not).
    public static let typeBProtocolInfo: [UInt8] = [0x00, 0x81, 0x71]
    /// The NDEF file sizes this model offers, NLEN included: ``Type4NDEFApplication/ndefFileSizes``.
    public static let ndefFileSizes = Type4NDEFApplication.ndefFileSizes

    /// The default NDEF file size, NLEN included.
    public static let defaultNDEFFileSize = 2048

    /// The 7-byte UID (type A) or the 4-byte PUPI (type B).
    public let uid: [UInt8]
    /// The air interface the card answers on.
    public let airInterface: AirInterface
    /// The NDEF Tag Application: the CC and NDEF files and their commands, strict (as a DESFire
    /// EV1 answers, ``Type4NDEFApplication/Conduct/strict``).
    private var application: Type4NDEFApplication
    /// The NDEF file: NLEN (2 bytes, big-endian) then the message; its count is the file size.
    public var ndefFile: [UInt8] { application.ndefFile }
    /// Whether the NDEF file is read-only: write access `FF` in the CC, UPDATE BINARY answers
    /// `69 82`.
    public var isReadOnly: Bool { application.isReadOnly }
    /// Maximum R-APDU data size announced in the CC (DESFire EV1: 3Bh).
    public var maximumReadLength: Int { application.maximumReadLength }
    /// Maximum C-APDU data size announced in the CC (DESFire EV1: 34h).
    public var maximumUpdateLength: Int { application.maximumUpdateLength }
    /// Grows with every change to persistent state.
    public private(set) var stateRevision = 0

    /// A tag with an empty NDEF message (NLEN 0).
    /// - Parameters:
    ///   - uid: 7 bytes (type A) or the 4-byte PUPI (type B).
    ///   - airInterface: type A (the default) or type B.
    ///   - ndefFileSize: bytes in the NDEF file, NLEN included: ``ndefFileSizes``.
    ///   - readOnly: write access `FF` instead of `00`.
    ///   - maximumReadLength: MLe announced in the CC; READ BINARY with a larger Le answers 6700.
    ///   - maximumUpdateLength: MLc announced in the CC; UPDATE BINARY with more data answers 6700.
    /// - Precondition: `uid` has 7 bytes and the size is in range.
    public init(
        uid: [UInt8], ndefFileSize: Int = Type4VirtualTag.defaultNDEFFileSize, readOnly: Bool = false,
        maximumReadLength: Int = 0x3B, maximumUpdateLength: Int = 0x34, airInterface: AirInterface = .typeA
    ) {
        precondition(uid.count == Type4VirtualTag.uidLength(airInterface) && (Type4VirtualTag.ndefFileSizes).contains(ndefFileSize))
        self.uid = uid
        self.airInterface = airInterface
        self.application = Type4NDEFApplication(
            ndefFile: [UInt8](repeating: 0, count: ndefFileSize), readOnly: readOnly, maximumReadLength: maximumReadLength,
            maximumUpdateLength: maximumUpdateLength, conduct: .strict)
    }

    /// The identifier length: a 7-byte UID on type A, a 4-byte PUPI on type B.
    public static func uidLength(_ airInterface: AirInterface) -> Int { airInterface == .typeA ? 7 : 4 }

    /// The tag file model name: `type4` (type A) or `type4b`.
    public static func modelName(_ airInterface: AirInterface) -> String { airInterface == .typeA ? "type4" : "type4b" }

    /// Restores a tag from saved state (`memory` is the NDEF file); nil when it does not fit
    /// (or the file is another model's).
    public init?(state: TagState, airInterface: AirInterface = .typeA) {
        guard state.model == Type4VirtualTag.modelName(airInterface),
            let uid = try? Hex.decode(state.uid), uid.count == Type4VirtualTag.uidLength(airInterface),
            let file = try? Hex.decode(state.memory), Type4VirtualTag.ndefFileSizes.contains(file.count)
        else { return nil }
        self.uid = uid
        self.airInterface = airInterface
        self.application = Type4NDEFApplication(
            ndefFile: file, readOnly: state.readOnly ?? false, maximumReadLength: 0x3B, maximumUpdateLength: 0x34, conduct: .strict)
        if let text = state.attributes?[Self.capabilityContainerAttribute] {
            guard let cc = try? Hex.decode(text), (1...0xFF).contains(cc.count) else { return nil }
            self.application.capabilityContainerOverride = cc
        }
        if let text = state.attributes?[Self.signatureAttribute] {
            guard let signature = try? Hex.decode(text), signature.count == NXPNativeCommand.signatureLength else { return nil }
            self.signature = signature
        }
    }

    /// The tag-file attribute holding a capability container file (hex) that replaces the one
    /// the tag derives from its NDEF file: for tags whose CC lies (hostile-tag tests). The tag
    /// still enforces its real file size.
    public static let capabilityContainerAttribute = "capabilityContainer"

    /// A CC file served instead of ``capabilityContainer``'s derived one, from a tag file.
    public var capabilityContainerOverride: [UInt8]? { application.capabilityContainerOverride }

    /// Replaces the NDEF message (NLEN is set from it), as a tool would before handing the tag
    /// out. Returns false when it does not fit the file.
    @discardableResult
    public func setNDEFMessage(_ message: [UInt8]) -> Bool {
        guard application.setMessage(message) else { return false }
        stateRevision += 1
        return true
    }

    /// The capability container file (15 bytes, Type 4 Tag 2.0, 5.1), or the override a tag file gave.
    public var capabilityContainer: [UInt8] { application.capabilityContainer }

    /// `NFC Forum Type 4 tag`, with `(ISO 14443-B)` on type B.
    public var modelName: String { airInterface == .typeA ? "NFC Forum Type 4 tag" : "NFC Forum Type 4 tag (ISO 14443-B)" }
    /// ATS `06 75 77 81 02 80` (DESFire EV1: FSCI 5, TA/TB/TC present, one historical byte 80h).
    public var ats: [UInt8] { [0x06, 0x75, 0x77, 0x81, 0x02, 0x80] }
    /// ATQA `44 03` in arrival order (libnfc prints it MSB first: `03 44`), SAK `20` (ISO-DEP),
    /// the ATS.
    /// On type B: the PUPI, ``typeBApplicationData`` and ``typeBProtocolInfo`` of the ATQB.
    public var targetInfo: TargetInfo {
        switch airInterface {
        case .typeA:
            .iso14443A(ISO14443ATarget(uid: Bytes(uid), atqa: [0x44, 0x03], sak: 0x20, ats: Bytes(ats)))
        case .typeB:
            .iso14443B(ISO14443BTarget(
                pupi: Bytes(uid), applicationData: Bytes(Self.typeBApplicationData), protocolInfo: Bytes(Self.typeBProtocolInfo)))
        }
    }

    /// Raw (non-ISO-DEP) frames: this model answers none.
    public func respond(to frame: [UInt8]) -> TagAnswer { .silence }
    /// Entering the field: no application or file selected.
    public func powerOn() {
        application.deselect()
    }
    /// DESELECT: selection is lost.
    public func halt() {
        powerOn()
    }

    /// The state a tag file stores: the NDEF file and the read-only flag.
    public var tagState: TagState {
        TagState(
            model: Self.modelName(airInterface), uid: Hex.encode(uid), memory: Hex.encode(ndefFile), readOnly: isReadOnly,
            attributes: attributes)
    }

    private var attributes: [String: String]? {
        var result: [String: String] = [:]
        if let capabilityContainerOverride { result[Self.capabilityContainerAttribute] = Hex.encode(capabilityContainerOverride) }
        if let signature { result[Self.signatureAttribute] = Hex.encode(signature) }
        return result.isEmpty ? nil : result
    }

    /// The 56-byte originality signature Read_Sig (`90 3C 00 00 01 00 00`) answers, as an NTAG
    /// 424 DNA or DESFire EV2 would; with nil (the default) the tag knows no native command, and
    /// class `90` is answered `6E 00` as before. A value of another length is ignored.
    public var originalitySignature: [UInt8]? {
        get { signature }
        set {
            guard newValue == nil || newValue?.count == NXPNativeCommand.signatureLength else { return }
            signature = newValue
            stateRevision += 1
        }
    }
    private var signature: [UInt8]?
    /// The tag-file attribute holding the signature, in hex.
    static let signatureAttribute = "signature"

    /// Answers one command APDU (data + SW1 SW2).
    public func respond(toAPDU apdu: [UInt8]) -> [UInt8] {
        guard apdu.count >= 4 else { return sw(StatusWord.wrongLength) }
        if apdu[0] == NXPNativeCommand.wrappedClass, apdu[1] == NXPNativeCommand.readSignature, let signature {
            guard Array(apdu[2...]).starts(with: [0x00, 0x00, 0x01, NXPNativeCommand.signatureAddress]) else {
                return [NXPNativeCommand.statusPrefix, NXPNativeCommand.lengthError]
            }
            return signature + [NXPNativeCommand.statusPrefix, NXPNativeCommand.readSignatureOK]
        }
        guard apdu[0] == 0x00 else { return sw(StatusWord.classNotSupported) }
        // Short APDUs only: Lc and the data (and Le) for SELECT and UPDATE BINARY, Le alone for READ BINARY.
        let body = Array(apdu[4...])
        let answer = application.respond(
            instruction: apdu[1], p1: apdu[2], p2: apdu[3], data: commandData(body),
            expectedLength: body.count == 1 ? (body[0] == 0 ? 256 : Int(body[0])) : nil)
        if apdu[1] == Type4Command.updateBinary, Array(answer.suffix(2)) == Type4NDEFApplication.answer(.success) { stateRevision += 1 }
        return answer
    }

    private func sw(_ word: UInt16) -> [UInt8] { [UInt8(word >> 8), UInt8(word & 0xFF)] }

    /// The command data of a short-APDU body (Lc + data, then maybe Le); nil when Lc is 0 or
    /// disagrees with the length.
    private func commandData(_ body: [UInt8]) -> [UInt8]? {
        guard let lc = body.first, lc != 0 else { return nil }
        let n = Int(lc)
        guard body.count == 1 + n || body.count == 2 + n else { return nil }
        return Array(body[1..<(1 + n)])
    }
}
