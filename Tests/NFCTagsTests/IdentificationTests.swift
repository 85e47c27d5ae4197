import NFCCore
import NFCTestSupport
import Testing
@testable import NFCTags

@Suite("Target information and chip identification", .timeLimit(.minutes(5)))
struct IdentificationTests {
    static let ntagTarget = TargetInfo.iso14443A(ISO14443ATarget(uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6], atqa: [0x44, 0x00], sak: 0x00))

    @Test("historical bytes follow TL, T0 and the interface bytes T0 announces")
    func historicalBytes() {
        // TL=06, T0=75 (TA, TB, TC present, FSCI 5), TA TB TC, then 80 (one historical byte).
        let ats: Bytes = [0x06, 0x75, 0x77, 0x81, 0x02, 0x80]
        #expect(ISO14443ATarget(uid: [1, 2, 3, 4], atqa: [0, 4], sak: 0x20, ats: ats).historicalBytes == [0x80])
        #expect(ISO14443ATarget(uid: [1, 2, 3, 4], atqa: [0, 4], sak: 0x20, ats: [0x05, 0x00, 0xC1, 0xC2, 0xC3]).historicalBytes == [0xC1, 0xC2, 0xC3])
        #expect(ISO14443ATarget(uid: [1, 2, 3, 4], atqa: [0, 4], sak: 0x20, ats: [0x01]).historicalBytes.isEmpty)
        #expect(ISO14443ATarget(uid: [1, 2, 3, 4], atqa: [0, 4], sak: 0x20, ats: [0x02, 0x70]).historicalBytes.isEmpty)
    }

    @Test("NTAG and Ultralight EV1 are told apart by GET_VERSION", arguments: [
        ([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03], "NTAG213", 144),
        ([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03], "NTAG215", 504),
        ([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03], "NTAG216", 888),
        ([0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03], "MIFARE Ultralight EV1 (MF0UL11)", 48),
    ] as [([UInt8], String, Int)])
    func type2(version: [UInt8], model: String, memory: Int) async {
        let reader = ScriptedReader(answers: [[0x60]: version, [0x30, 0x03]: [0xE1, 0x10, 0x3E, 0x00] + [UInt8](repeating: 0, count: 12)], otherwise: .timeout)
        let identity = await ChipIdentification.identify(Self.ntagTarget, on: reader)
        #expect(identity == ChipIdentity(model: model, platform: .type2, family: model.hasPrefix("NTAG") ? .ntag21x : .ultralightEV1, memoryBytes: memory, hasNDEF: true))
    }

    /// GET_VERSION answers from Proxmark3's `client/src/cmdhfmfu.c` version table (NTAG I2C plus,
    /// NTAG213F, a Mikron Ultralight EV1 clone) and ones no chip is known to give.
    @Test("GET_VERSION's subtype, minor version and vendor tell chips of one type and size apart", arguments: [
        ([0x00, 0x04, 0x04, 0x05, 0x02, 0x02, 0x13, 0x03], "NTAG I2C plus 1K (NT3H2111)", ChipFamily.ultralight, 888),
        ([0x00, 0x04, 0x04, 0x05, 0x02, 0x02, 0x15, 0x03], "NTAG I2C plus 2K (NT3H2211)", .ultralight, 1904),
        ([0x00, 0x04, 0x04, 0x05, 0x02, 0x00, 0x13, 0x03], "NTAG I2C 1K (NT3H1101)", .ultralight, 888),
        ([0x00, 0x04, 0x04, 0x04, 0x01, 0x00, 0x0F, 0x03], "NTAG213", .ntag21x, 144),
        ([0x00, 0x34, 0x21, 0x01, 0x01, 0x00, 0x0E, 0x03], "Type 2 tag (version 0034210101000e03)", .ultralight, nil),
        ([0x00, 0x04, 0x04, 0x09, 0x01, 0x00, 0x11, 0x03], "NXP Type 2 tag (version 0004040901001103)", .ultralight, nil),
        ([0x00, 0x53, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03], "Type 2 tag (version 0053030101000b03)", .ultralight, nil),
        ([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11], "MIFARE Ultralight", .ultralight, 48),
    ] as [([UInt8], String, ChipFamily, Int?)])
    func type2VersionFields(version: [UInt8], model: String, family: ChipFamily, memory: Int?) {
        let identity = ChipIdentification.type2Identity(version: version)
        #expect(identity.model == model)
        #expect(identity.family == family)
        #expect(identity.memoryBytes == memory)
        #expect(identity.platform == .type2)
        // No NTAG21x profile (configuration pages, password) for a chip that is not one.
        #expect((Type2ChipProfile.named(identity: identity) != nil) == (family == .ntag21x))
    }

    @Test("any GET_VERSION answer, of any length, names a Type 2 tag without trapping; a memory size only with a known model")
    func type2VersionIsTotal() {
        var random = SeededGenerator(seed: 29)
        for _ in 0..<20_000 {
            let version = (0..<Int.random(in: 0...10, using: &random)).map { _ in
                // Mostly near real answers (NXP, NTAG/Ultralight types), sometimes anything.
                [0x00, 0x04, 0x04, 0x03, 0x53].randomElement(using: &random) ?? 0
            }.enumerated().map { $0.offset == 6 ? UInt8.random(in: 0x0A...0x16, using: &random) : $0.element }
            let identity = ChipIdentification.type2Identity(version: version)
            #expect(identity.platform == .type2)
            if identity.model.contains("version") { #expect(identity.memoryBytes == nil) }
        }
    }

    @Test("a Type 2 tag without GET_VERSION is an original Ultralight; a blank CC means no NDEF")
    func ultralight() async {
        let reader = ScriptedReader(answers: [[0x30, 0x03]: [UInt8](repeating: 0, count: 16)], otherwise: .timeout)
        let identity = await ChipIdentification.identify(Self.ntagTarget, on: reader)
        #expect(identity.model == "MIFARE Ultralight")
        #expect(identity.hasNDEF == false)
    }

    @Test("SAK names MIFARE Classic without sending anything")
    func classic() async {
        let reader = ScriptedReader(script: [])
        let target = TargetInfo.iso14443A(ISO14443ATarget(uid: [1, 2, 3, 4], atqa: [0x00, 0x04], sak: 0x08))
        #expect(await ChipIdentification.identify(target, on: reader).model == "MIFARE Classic 1K")
        #expect(await reader.sent.isEmpty)
    }

    @Test("an ISO-DEP tag that selects the NDEF application is a Type 4 tag")
    func type4() async {
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
        let target = TargetInfo.iso14443A(ISO14443ATarget(uid: [1, 2, 3, 4, 5, 6, 7], atqa: [0x03, 0x44], sak: 0x20, ats: [0x05, 0x78, 0x80, 0x70, 0x02]))
        let yes = await ChipIdentification.identify(target, on: ScriptedReader(answers: [select: [0x90, 0x00]], otherwise: .timeout))
        #expect(yes == ChipIdentity(model: "NFC Forum Type 4 tag", platform: .type4, hasNDEF: true))
        let no = await ChipIdentification.identify(target, on: ScriptedReader(answers: [select: [0x6A, 0x82]], otherwise: .timeout))
        #expect(no.hasNDEF == false)
    }

    @Test("FeliCa Lite-S by the PMm IC type; ICODE SLIX2 by its UID", arguments: [0xF1, 0xF0, 0x01] as [UInt8])
    func felica(icType: UInt8) async {
        let target = TargetInfo.felica(FeliCaTarget(idm: [1, 2, 3, 4, 5, 6, 7, 8], pmm: [0x00, icType, 0, 0, 0, 0, 0, 0], systemCode: 0x12FC))
        let model = await ChipIdentification.identify(target, on: ScriptedReader(answers: [:], otherwise: .timeout)).model
        #expect(model == [0xF1: "FeliCa Lite-S", 0xF0: "FeliCa Lite"][icType, default: "FeliCa (IC type 0x01)"])
    }

    @Test("ICODE SLIX2 is named from its UID and its CC checked")
    func slix2() async {
        let target = TargetInfo.iso15693(ISO15693Target(uid: [0xE0, 0x04, 0x01, 0x08, 0x01, 0x02, 0x03, 0x04]))
        // GET SYSTEM INFORMATION: flags 0F, UID, DSFID, AFI, 4F 03 (80 blocks of 4), IC reference 01.
        let systemInfo: [UInt8] = [0x00, 0x0F, 0x04, 0x03, 0x02, 0x01, 0x08, 0x01, 0x04, 0xE0, 0x00, 0x00, 0x4F, 0x03, 0x01]
        let reader = ScriptedReader(answers: [[0x02, 0x20, 0x00]: [0x00, 0xE1, 0x40, 0x28, 0x01], [0x02, 0x2B]: systemInfo], otherwise: .timeout)
        let identity = await ChipIdentification.identify(target, on: reader)
        var expected = ChipIdentity(model: "ICODE SLIX2", platform: .type5, family: .icode, memoryBytes: 320, hasNDEF: true)
        expected.manufacturer = "NXP"
        expected.icReference = 0x01
        expected.blockCount = 80
        expected.blockSize = 4
        expected.identificationSource = "SL2S2602 UID (type 01, indicator 01b); AN10787"
        #expect(identity == expected)
    }

    /// The ICODE type indicator is UID bits 37–36 (NXP AN10787; Flipper Zero's `SlixUidLayout`
    /// reads the same two bits): byte 3 & 18h, 08h SLIX2, 10h SLIX, 00h SLI, 18h NTAG 5 or ICODE DNA
    /// (Proxmark3 cmdhf15.c and tools/recover_pk.py; no memory size answered here, so not told apart). Bits 39–38 and
    /// 35–33 are serial number and must not matter.
    @Test("ICODE type indicator: UID bits 37–36 tell SLI, SLIX and SLIX2 apart", arguments: [
        (0x08, "ICODE SLIX2"), (0xC8, "ICODE SLIX2"), (0x0F, "ICODE SLIX2"),
        (0x10, "ICODE SLIX"), (0x37, "ICODE SLIX"), (0xD3, "ICODE SLIX"),
        (0x00, "ICODE SLI"), (0xE7, "ICODE SLI"),
        (0x18, "ICODE DNA or NTAG 5"), (0x5F, "ICODE DNA or NTAG 5"),
    ] as [(UInt8, String)])
    func icodeTypeIndicator(byte3: UInt8, model: String) async {
        let target = TargetInfo.iso15693(ISO15693Target(uid: [0xE0, 0x04, 0x01, byte3, 0x53, 0x49, 0x4D, 0x01]))
        let identity = await ChipIdentification.identify(target, on: ScriptedReader(answers: [:], otherwise: .timeout), probesNDEF: false)
        #expect(identity.model == model)
    }}

@Suite("ISO-DEP chips named by GetVersion", .timeLimit(.minutes(5)))
struct ISODEPIdentificationTests {
    static let target = TargetInfo.iso14443A(ISO14443ATarget(
        uid: [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06], atqa: [0x44, 0x03], sak: 0x20, ats: [0x06, 0x75, 0x77, 0x81, 0x02, 0x80]))
    static let getVersion: [UInt8] = [0x90, 0x60, 0x00, 0x00, 0x00]
    static let selectNDEF: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]

    @Test("a DESFire EV1 4K holding the NDEF application is a Type 4 tag named by its version, carrying GetVersion's hardware part")
    func desfireEV1() async {
        let reader = ScriptedReader(answers: [
            Self.getVersion: [0x04, 0x01, 0x01, 0x01, 0x00, 0x18, 0x05, 0x91, 0xAF],
            Self.selectNDEF: [0x90, 0x00],
        ], otherwise: .timeout)
        let identity = await ChipIdentification.identify(Self.target, on: reader)
        var expected = ChipIdentity(model: "MIFARE DESFire EV1 4K", platform: .type4, family: .desfire, memoryBytes: 4096, hasNDEF: true)
        expected.hardwareVersion = DESFireVersion.Part(bytes: [0x04, 0x01, 0x01, 0x01, 0x00, 0x18, 0x05])
        #expect(identity == expected)
        #expect(identity.hardwareVersion?.major == 0x01 && identity.hardwareVersion.map(DESFireEV2Messaging.takesEV2Authentication) == false)
    }

    @Test("GetVersion bytes name DESFire generations, Plus and NTAG DNA", arguments: [
        (UInt8(0x01), UInt8(0x00), UInt8(0x16), "MIFARE DESFire 2K"),
        (0x01, 0x12, 0x1A, "MIFARE DESFire EV2 8K"),
        (0x01, 0x33, 0x18, "MIFARE DESFire EV3 4K"),
        (0x02, 0x11, 0x18, "MIFARE Plus 4K"),
        (0x04, 0x30, 0x11, "NTAG 424 DNA"),
        (0x04, 0x10, 0x0F, "NTAG 413 DNA"),
    ])
    func names(type: UInt8, major: UInt8, storage: UInt8, model: String) {
        #expect(ChipIdentification.nxpISODEPModel(type: type, major: major, storage: storage).0 == model)
    }

    @Test("a chip that answers no GetVersion and no NDEF application is a plain ISO 14443-4 tag")
    func unknown() async {
        let identity = await ChipIdentification.identify(Self.target, on: ScriptedReader(answers: [:], otherwise: .timeout))
        #expect(identity.model == "ISO 14443-4 tag" && identity.platform == .unknown && identity.hasNDEF == false)
    }
}

@Suite("DESFire as CoreNFC shows it", .timeLimit(.minutes(5)))
struct DESFireConnectTests {
    @Test("a DESFire is a MIFARE tag of the desfire family whose NDEF is Type 4")
    func desfireIsMiFare() async throws {
        let reader = ScriptedReader(answers: [
            ISODEPIdentificationTests.getVersion: [0x04, 0x01, 0x01, 0x12, 0x00, 0x18, 0x05, 0x91, 0xAF],
            ISODEPIdentificationTests.selectNDEF: [0x90, 0x00],
        ], otherwise: .timeout)
        let tag = try await NFCTag.connect(to: ISODEPIdentificationTests.target, on: reader)
        guard case .miFare(let mifare) = tag else {
            Issue.record("DESFire not reported as miFare")
            return
        }
        #expect(mifare.mifareFamily == .desfire)
        #expect(mifare.identity.model == "MIFARE DESFire EV2 4K")
        // The Type 4 mapping, with AN11004's formatting for a blank card.
        #expect(mifare.ndefPlatform is DESFireNDEFTag)
        #expect(mifare.type2 == nil)
    }
}
