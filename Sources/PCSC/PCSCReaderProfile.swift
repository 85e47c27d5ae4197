public import NFCTags

/// The kinds of card a PC/SC reader reports, as the reader profile tells them apart.
public enum PCSCCardKind: String, Sendable, Hashable, CaseIterable {
    /// ISO 14443-A part 3 storage card with Type 2 commands (NTAG21x, MIFARE Ultralight).
    case type2
    /// MIFARE Classic 1K/4K/Mini.
    case mifareClassic
    /// ISO 15693 (ICODE SLIX/SLIX2…).
    case iso15693
    /// ISO-DEP (ISO 14443-4) card: Type 4 tags, DESFire.
    case isoDEP
    /// NFC Forum Type 1 (Innovision Jewel, Broadcom Topaz 96/512): the ATR's card name `002F`,
    /// `0030` or the ACR122U's `F004`.
    case type1
}

/// What the tag platforms ask a PC/SC reader to do, per card.
public enum PCSCOperation: String, Sendable, Hashable, CaseIterable {
    /// READ / FAST_READ / READ SINGLE or MULTIPLE BLOCKS.
    case read
    /// WRITE of one page / WRITE SINGLE BLOCK.
    case write
    /// Every other tag command: GET_VERSION, READ_SIG, PWD_AUTH, LOCK BLOCK, GET SYSTEM
    /// INFORMATION…, and every command of a Type 1 tag (RID, RALL, READ, WRITE-E…), which
    /// has no storage pseudo-APDU.
    case tagCommand = "tag command"
    /// An APDU to an ISO-DEP card.
    case apdu
    /// MIFARE Classic key load and authentication.
    case classicAuthentication = "Classic authentication"
}

/// How an operation reaches the card.
public enum PCSCPath: String, Sendable, Hashable {
    /// Storage-card pseudo-APDUs of PC/SC Part 3: READ BINARY `FF B0`, UPDATE BINARY `FF D6`.
    case storage = "FF B0 / FF D6"
    /// The APDU as it is (SCardTransmit; the reader frames it in ISO-DEP blocks).
    case apdu = "APDU"
    /// The PC/SC Part 3 transparent session (`FF C2`: start, switch protocol, transceive, end).
    case transparentSession = "FF C2 transparent session"
    /// ACR122U direct transmit (`FF 00 00 00`) of PN532 InCommunicateThru (Type 2), or of
    /// InDataExchange (Type 1: the PN532's firmware frames the commands it knows).
    case directTransmit = "FF 00 00 00 direct transmit"
    /// LOAD KEYS `FF 82` and GENERAL AUTHENTICATE `FF 86`.
    case classicAuthenticate = "FF 82 / FF 86"
}

/// A reader family and, per card kind and operation, the path NFCKit takes through it (from
/// the family's reference manual). ``matching(readerName:)`` picks the profile by the name pcscd
/// gives the reader; an unknown reader gets ``generic``, which sends nothing beyond PC/SC Part
/// 3's GET DATA / READ BINARY / UPDATE BINARY and plain APDUs.
public struct PCSCReaderProfile: Sendable, Hashable {
    /// A short name: `generic PC/SC Part 3`, `ACS ACR1552U`.
    public let title: String
    /// Reader names (as pcscd lists them) starting with one of these get the profile.
    public let namePrefixes: [String]
    /// The path of raw tag commands, if the family has one.
    public let rawPath: PCSCPath?
    /// The card kinds the raw path reaches.
    public let rawKinds: Set<PCSCCardKind>
    /// Whether MIFARE Classic authentication (`FF 82` / `FF 86`) is offered.
    public let classicAuthentication: Bool
    /// The operator feedback (buzzer and LEDs) NFCKit drives on the family, if any
    /// (docs/hardware.md, "Reader feedback").
    public let feedback: PCSCReaderFeedback?

    /// The path of `operation` on a card of `kind`, or nil when the profile cannot do it.
    /// Reads and writes take the storage pseudo-APDUs until the card's first raw tag command
    /// opens a transparent session; from then on, until the card is deselected, every command
    /// of the card goes through the session (what PWD_AUTH opened lasts only that long).
    public func path(for operation: PCSCOperation, on kind: PCSCCardKind) -> PCSCPath? {
        switch (operation, kind) {
        case (.apdu, .isoDEP): return .apdu
        case (.read, .type2), (.write, .type2), (.read, .iso15693), (.write, .iso15693): return .storage
        case (.read, .mifareClassic), (.write, .mifareClassic): return classicAuthentication ? .storage : nil
        case (.classicAuthentication, .mifareClassic): return classicAuthentication ? .classicAuthenticate : nil
        case (.tagCommand, .type2), (.tagCommand, .iso15693), (.tagCommand, .type1): return rawKinds.contains(kind) ? rawPath : nil
        default: return nil
        }
    }

    /// Any PC/SC Part 3 reader: storage pseudo-APDUs, APDUs and MIFARE Classic key load and
    /// authentication (Part 3 §3.2.2.1.4–5).
    public static let generic = PCSCReaderProfile(
        title: "generic PC/SC Part 3", namePrefixes: [], rawPath: nil, rawKinds: [], classicAuthentication: true, feedback: nil)
    /// ACS ACR1552U: transparent session with ISO 14443-A and ISO 15693 layer 3 (ACR1552U
    /// reference manual, "PC/SC 2.0 Part 3" commands); Type 1 frames through the same ISO
    /// 14443-A layer 3 session (NFCKit's assumption, not confirmed on the reader:
    /// docs/hardware.md, "Type 1 through PC/SC"). No feedback: NFCKit has found no
    /// description of its LED and buzzer commands to send.
    public static let acr1552u = PCSCReaderProfile(
        title: "ACS ACR1552U", namePrefixes: ["ACS ACR1552"], rawPath: .transparentSession, rawKinds: [.type2, .iso15693, .type1],
        classicAuthentication: true, feedback: nil)
    /// ACS ACR1252U: transparent session, ISO 14443 only (no ISO 15693 front end); the ACR122U's
    /// LED and buzzer command among its "ACR122U Compatible Commands".
    public static let acr1252u = PCSCReaderProfile(
        title: "ACS ACR1252U", namePrefixes: ["ACS ACR1252"], rawPath: .transparentSession, rawKinds: [.type2],
        classicAuthentication: true, feedback: .acr122uLEDBuzzer)
    /// Identiv uTrust / CLOUD 3700 F: transparent session with ISO 14443-A and ISO 15693.
    public static let utrust3700F = PCSCReaderProfile(
        title: "Identiv uTrust 3700 F", namePrefixes: ["Identiv uTrust 3700 F", "Identive CLOUD 3700 F", "Identiv CLOUD 3700 F"],
        rawPath: .transparentSession, rawKinds: [.type2, .iso15693], classicAuthentication: true, feedback: nil)
    /// ACS ACR122U (PN532 inside): direct transmit to the PN532, ISO 14443-A only (Type 2
    /// through InCommunicateThru; Type 1 through InDataExchange, as ACS's ACR122 manuals show
    /// it, without READ8, WRITE-E8, WRITE-NE8 and RSEG, which the PN532's firmware lacks); its
    /// bi-color LED and buzzer.
    public static let acr122u = PCSCReaderProfile(
        title: "ACS ACR122U", namePrefixes: ["ACS ACR122"], rawPath: .directTransmit, rawKinds: [.type2, .type1], classicAuthentication: true,
        feedback: .acr122uLEDBuzzer)

    /// Every family with a profile of its own.
    public static let table: [PCSCReaderProfile] = [acr1552u, acr1252u, utrust3700F, acr122u]

    /// The profile of the reader pcscd calls `readerName`: the first whose prefix it starts
    /// with, else ``generic``.
    public static func matching(readerName: String) -> PCSCReaderProfile {
        table.first { profile in profile.namePrefixes.contains { readerName.hasPrefix($0) } } ?? generic
    }

    /// What the profile cannot do, for error messages: "it offers only …".
    public var limit: String {
        switch rawPath {
        case nil:
            "it offers only GET DATA, READ BINARY and UPDATE BINARY; raw tag commands need a reader with a PC/SC Part 3 transparent session (ACR1552U, uTrust 3700 F) or the ACR122U's direct transmit"
        case .some(let path):
            "its \(path.rawValue) reaches only \(rawKinds.map(\.rawValue).sorted().joined(separator: " and ")) cards"
        }
    }
}

/// The operator feedback a reader family has and NFCKit drives: the command built once, here.
public enum PCSCReaderFeedback: String, Sendable, Hashable, CaseIterable {
    /// The ACR122U's Bi-color LED and Buzzer Control pseudo-APDU (`FF 00 40`), sent through the
    /// card's connection (SCardTransmit); the ACR1252U has it among its "ACR122U Compatible
    /// Commands". See ``NFCTags/ACR122ULEDBuzzerControl``.
    case acr122uLEDBuzzer = "the bi-color LED and buzzer (FF 00 40)"

    /// The command APDU that shows `signal`.
    public func command(for signal: ReaderSignal) -> [UInt8] {
        switch self {
        case .acr122uLEDBuzzer: ACR122ULEDBuzzerControl.command(for: signal).apdu
        }
    }

    /// Whether `response` (data and status word) says the reader did it.
    public func accepts(_ response: [UInt8]) -> Bool {
        switch self {
        case .acr122uLEDBuzzer: ACR122ULEDBuzzerControl.accepts(response)
        }
    }
}
