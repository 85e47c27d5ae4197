import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// NXP AN12196 ("NTAG 424 DNA and NTAG 424 DNA TagTamper features and hints", rev. 2.0; the
/// table numbers of rev. 1.8 in brackets): its worked examples, value by value. Every literal
/// below is a value the application note prints (its keys, randoms, intermediate values and
/// APDUs), not one computed by this code; the tests reproduce them from the inputs the note
/// gives, on the host side and on the chip side.
enum AN12196 {
    static let zeroKey = [UInt8](repeating: 0, count: 16)

    /// Table 14 [14], 5.6: AuthenticateEV2First with key 0x00 (all zero).
    enum T14 {
        static let part1APDU = hex("90 71 00 00 02 00 00 00")
        static let encryptedRndB = hex("A04C124213C186F22399D33AC2A30215")  // step 7
        static let rndB = hex("B9E2FC789B64BF237CCCAA20EC7E6E48")  // step 9
        static let rndA = hex("13C5DB8A5930439FC3DEF9A4C675360F")  // step 10
        static let rndBRotated = hex("E2FC789B64BF237CCCAA20EC7E6E48B9")  // step 11
        static let part2APDU = hex("90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00")  // step 14
        static let part2Answer = hex("3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663")  // step 16
        static let ti = hex("9D00C4DF")  // step 19
        static let sv1 = hex("A55A00010080 13C5 6268A548D8FB BF237CCCAA20EC7E6E48 C3DEF9A4C675360F")  // step 25
        static let sv2 = hex("5AA500010080 13C5 6268A548D8FB BF237CCCAA20EC7E6E48 C3DEF9A4C675360F")  // step 26
        static let encKey = hex("1309C877509E5A215007FF0ED19CA564")  // step 27
        static let macKey = hex("4C6626F5E72EA694202139295C7A7FC7")  // step 28
    }

    /// Table 19 [20], 5.10: AuthenticateEV2First with key 0x03 (all zero).
    enum T19 {
        static let encryptedRndB = hex("B875CEB0E66A6C5CD00898DC371F92D1")
        static let rndB = hex("91517975190DCEA6104948EFA3085C1B")
        static let rndA = hex("B98F4C50CF1C2E084FD150E33992B048")
        static let part2 = hex("FF0306E47DFBC50087C4D8A78E88E62DE1E8BE457AA477C707E2F0874916A8B1")
        static let part2Answer = hex("0CC9A8094A8EEA683ECAAC5C7BF20584206D0608D477110FC6B3D5D3F65C3A6A")
        static let ti = hex("7614281A")
        static let sv1 = hex("A55A00010080 B98F DD01B6693705 CEA6104948EFA3085C1B 4FD150E33992B048")
        static let encKey = hex("7A93D6571E4B180FCA6AC90C9A7488D4")
        static let macKey = hex("FC4AF159B62E549B5812394CAB1918CC")
    }

    /// Table 23 [24], 5.14: AuthenticateEV2NonFirst with key 0x00.
    enum T23 {
        static let part1APDU = hex("90 77 00 00 01 00 00")
        static let encryptedRndB = hex("A6A2B3C572D06C097BB8DB70463E22DC")
        static let rndB = hex("6924E8D09722659A2E7DEC68E66312B8")
        static let rndA = hex("60BE759EDA560250AC57CDDC11743CF6")
        static let part2 = hex("BE7D45753F2CAB85F34BC60CE58B940763FE969658A532DF6D95EA2773F6E991")
        static let part2Answer = hex("B888349C24B315EAB5B589E279C8263E")
        static let sv1 = hex("A55A00010080 60BE 1CBA32869572 659A2E7DEC68E66312B8 AC57CDDC11743CF6")
        static let encKey = hex("4CF3CB41A22583A61E89B158D252FC53")
        static let macKey = hex("5529860B2FC5FB6154B7F28361D30BF9")
    }

    /// Table 17 [18], 5.8.2: WriteData to the NDEF file in CommMode.Full, CmdCtr 0 of Table 14's
    /// session. (Steps 4 and 12 print a length of 53h; the C-APDU and its MAC use 80h, the
    /// length actually written.)
    enum T17 {
        static let ndef = hex("0051D1014D550463686F6F73652E75726C2E636F6D2F6E7461673432343F653D")
            + [UInt8](repeating: 0x30, count: 32) + hex("26633D") + [UInt8](repeating: 0x30, count: 16)
        static let data = ndef + [UInt8](repeating: 0, count: 0x80 - ndef.count)
        static let iv = hex("D2CB7277A17841A06654A48188C1F8F5")  // step 9
        static let apdu = hex("""
            908D00009F 02000000800000
            421C73A27D827658AF481FDFF20A5025B559D0E3AA21E58D347F343CFFC768BFE596C706BC00F2176781D4B0242642
            A0FF5A42C461AAF894D9A1284B8C76BCFA658ACD40555D362E08DB15CF421B51283F9064BCBE20E96CAE545B40
            7C9D651A3315B27373772E5DA2367D2064AE054AF996C6F1F669170FA88CE8C4E3A4A7BBBEF0FD971FF532C3A802
            AF745660F2B4 D1D9A8499661EBF3 00
            """)
        static let answer = hex("FC222E5F7A542452 9100")
    }

    /// Table 18 [19], 5.9: ChangeFileSettings of the NDEF file (SDM, encrypted PICC data at 20h,
    /// SDMMAC at 43h), CmdCtr 1 of Table 14's session.
    enum T18 {
        static let data = hex("40 00E0 C1 F121 200000 430000 430000")  // step 7
        static let iv = hex("3E27082AB2ACC1EF55C57547934E9962")  // step 9
        static let apdu = hex("905F000019 02 61B6D97903566E84C3AE5274467E89EA D799B7C1A0EF7A04 00")
        static let answer = hex("57BFF87B1241E93D 9100")
    }

    /// Table 7 [7]: GetFileSettings in CommMode.MAC (KSesAuthMAC and TI given, CmdCtr 0).
    enum T7 {
        static let macKey = hex("8248134A386E86EB7FAF54A52E536CB6")
        static let ti = hex("7A21085E")
        static let apdu = hex("90F5000009 02 6597A457C8CD442C 00")
        static let settings = hex("0040EEEE000100D1FE001F00004400004400002000006A0000")
        static let answer = settings + hex("2A474282E7A47986 9100")
    }

    /// Tables 25 and 26 [26, 27], 5.16: ChangeKey in the session of Table 19's TI and Table 23's
    /// keys, CmdCtr 2 (key 2, old key zero) and 3 (key 0, the authenticated one).
    enum T25 {
        static let newKey = hex("F3847D627727ED3BC9C4CC050489B966")
        static let crc = hex("789DFADC")
        static let iv = hex("307EDE1814707F30CFE603DD6CA62353")
        static let apdu = hex("90C4000029 02 2CF362B7BF4311FF3BE1DAA295E8C68DE09050560D19B9E16C2393AE9CD1FAC7 5D0CE20BCD1D06E6 00")
        static let answer = hex("203BB55D1089D587 9100")
    }
    enum T26 {
        static let newKey = hex("5004BF991F408672B1EF00F08F9E8647")
        static let iv = hex("01602D579423B2797BE8B478B0B4D27B")
        static let apdu = hex("90C4000029 00 C0EB4DEEFEDDF0B513A03A95A75491818580503190D4D05053FF75668A01D6FD A6610234BDED6432 00")
        static let answer = hex("9100")
    }

    /// Table 28 [29], 6.3: GetCardUID in CommMode.Full (session keys and TI given, CmdCtr 0).
    enum T28 {
        static let encKey = hex("2B4D963C014DC36F24F69A50A394F875")
        static let macKey = hex("379D32130CE61705DD5FD8C36B95D764")
        static let ti = hex("DF055522")
        static let apdu = hex("9051000008 8E2C155ADDA99BE3 00")
        static let responseIV = hex("7F6BB0B278EA054CBD238C5D9E9E342B")
        static let answer = hex("70756055688505B52A5E26E59E329CD6 595F672298EA41B7 9100")
        static let uid = hex("04958CAA5C5E80")
    }

    static func sessionT14(counter: UInt16) throws -> NTAG424Session {
        try NTAG424Session(keyNumber: 0, transactionIdentifier: T14.ti, encryptionKey: T14.encKey, macKey: T14.macKey, commandCounter: counter)
    }
    static func sessionB(counter: UInt16) throws -> NTAG424Session {
        try NTAG424Session(keyNumber: 0, transactionIdentifier: T19.ti, encryptionKey: T23.encKey, macKey: T23.macKey, commandCounter: counter)
    }
}

/// The body of a wrapped APDU `90 INS 00 00 Lc body 00`.
private func body(_ apdu: [UInt8]) -> [UInt8] { Array(apdu[5..<(apdu.count - 1)]) }

private let isoDEPTarget = TargetInfo.iso14443A(
    ISO14443ATarget(uid: Bytes(hex("04 95 8C AA 5C 5E 80")), atqa: [0x44, 0x03], sak: 0x20, ats: Bytes(hex("06 77 77 71 02 80"))))

@Suite("NTAG 424 DNA secure messaging against NXP AN12196's worked examples", .timeLimit(.minutes(1)))
struct NTAG424AN12196Tests {
    @Test("Table 14: AuthenticateEV2First key 0: RndB, RndB', part 2, TI, SV1/SV2 and both session keys")
    func table14() throws {
        let (part2, rndB) = try NTAG424Authentication.answerChallenge(key: AN12196.zeroKey, encryptedRndB: AN12196.T14.encryptedRndB, rndA: AN12196.T14.rndA)
        #expect(rndB == AN12196.T14.rndB)
        #expect(NTAG424Authentication.rotateLeft(rndB) == AN12196.T14.rndBRotated)
        #expect(part2 == body(AN12196.T14.part2APDU))
        let vectors = NTAG424Session.sessionVectors(rndA: AN12196.T14.rndA, rndB: rndB)
        #expect(vectors.sv1 == AN12196.T14.sv1)
        #expect(vectors.sv2 == AN12196.T14.sv2)
        let done = try NTAG424Authentication.finishFirst(
            key: AN12196.zeroKey, keyNumber: 0, rndA: AN12196.T14.rndA, rndB: rndB, response: AN12196.T14.part2Answer)
        #expect(done.session.transactionIdentifier == AN12196.T14.ti)
        #expect(done.session.encryptionKey == AN12196.T14.encKey)
        #expect(done.session.macKey == AN12196.T14.macKey)
        #expect(done.session.commandCounter == 0)
        #expect(done.pdCap2 == [UInt8](repeating: 0, count: 6) && done.pcdCap2 == [UInt8](repeating: 0, count: 6))
    }

    @Test("Table 14 from the chip's side: given the note's RndB and TI it answers the note's E(K, RndB) and part 2 answer")
    func table14ChipSide() throws {
        #expect(try NTAG424Authentication.challenge(key: AN12196.zeroKey, rndB: AN12196.T14.rndB) == AN12196.T14.encryptedRndB)
        let rndA = try NTAG424Authentication.checkAnswer(key: AN12196.zeroKey, rndB: AN12196.T14.rndB, part2: body(AN12196.T14.part2APDU))
        #expect(rndA == AN12196.T14.rndA)
        #expect(try NTAG424Authentication.confirmation(key: AN12196.zeroKey, rndA: rndA, transactionIdentifier: AN12196.T14.ti) == AN12196.T14.part2Answer)
        // A PCD with another key sends another RndB': AUTHENTICATION_ERROR.
        var wrong = body(AN12196.T14.part2APDU)
        wrong[31] ^= 1
        #expect(throws: NTAG424Status.authenticationError) { try NTAG424Authentication.checkAnswer(key: AN12196.zeroKey, rndB: AN12196.T14.rndB, part2: wrong) }
    }

    @Test("a chip answer whose RndA' is not ours fails with authenticationFailed, no session")
    func wrongRndA() throws {
        var rndA = AN12196.T14.rndA
        rndA[0] ^= 1
        #expect { try NTAG424Authentication.finishFirst(key: AN12196.zeroKey, keyNumber: 0, rndA: rndA, rndB: AN12196.T14.rndB, response: AN12196.T14.part2Answer) }
            throws: { ($0 as? NTAG424Error)?.code == .authenticationFailed }
    }

    @Test("Table 19: AuthenticateEV2First key 3: RndB, part 2, TI, SV1 and session keys")
    func table19() throws {
        let (part2, rndB) = try NTAG424Authentication.answerChallenge(key: AN12196.zeroKey, encryptedRndB: AN12196.T19.encryptedRndB, rndA: AN12196.T19.rndA)
        #expect(rndB == AN12196.T19.rndB)
        #expect(part2 == AN12196.T19.part2)
        #expect(NTAG424Session.sessionVectors(rndA: AN12196.T19.rndA, rndB: rndB).sv1 == AN12196.T19.sv1)
        let done = try NTAG424Authentication.finishFirst(key: AN12196.zeroKey, keyNumber: 3, rndA: AN12196.T19.rndA, rndB: rndB, response: AN12196.T19.part2Answer)
        #expect(done.session.transactionIdentifier == AN12196.T19.ti)
        #expect(done.session.encryptionKey == AN12196.T19.encKey && done.session.macKey == AN12196.T19.macKey)
        #expect(NTAG424Authentication.part1Data(keyNumber: 3, first: true) == [0x03, 0x00])
    }

    @Test("Table 23: AuthenticateEV2NonFirst key 0: part 1, part 2, SV1, session keys; TI and CmdCtr kept")
    func table23() throws {
        let (part2, rndB) = try NTAG424Authentication.answerChallenge(key: AN12196.zeroKey, encryptedRndB: AN12196.T23.encryptedRndB, rndA: AN12196.T23.rndA)
        #expect(rndB == AN12196.T23.rndB)
        #expect(part2 == AN12196.T23.part2)
        #expect(NTAG424Session.sessionVectors(rndA: AN12196.T23.rndA, rndB: rndB).sv1 == AN12196.T23.sv1)
        let previous = try NTAG424Session(keyNumber: 3, transactionIdentifier: AN12196.T19.ti, encryptionKey: AN12196.T19.encKey, macKey: AN12196.T19.macKey, commandCounter: 1)
        let session = try NTAG424Authentication.finishNonFirst(
            key: AN12196.zeroKey, keyNumber: 0, rndA: AN12196.T23.rndA, rndB: rndB, response: AN12196.T23.part2Answer, previous: previous)
        #expect(session.encryptionKey == AN12196.T23.encKey && session.macKey == AN12196.T23.macKey)
        #expect(session.transactionIdentifier == AN12196.T19.ti && session.commandCounter == 1)
        // The chip's answer for the same exchange.
        #expect(try NTAG424Authentication.challenge(key: AN12196.zeroKey, rndB: AN12196.T23.rndB) == AN12196.T23.encryptedRndB)
        #expect(try NTAG424Authentication.confirmation(key: AN12196.zeroKey, rndA: AN12196.T23.rndA, transactionIdentifier: nil) == AN12196.T23.part2Answer)
    }

    @Test("Table 17: WriteData CommMode.Full: IV, ciphertext with an extra padding block, MACt, the response MAC")
    func table17() throws {
        var session = try AN12196.sessionT14(counter: 0)
        #expect(try session.commandIV() == AN12196.T17.iv)
        let header = hex("02 000000 800000")
        #expect(try session.sealCommand(0x8D, header: header, data: AN12196.T17.data, mode: .full) == body(AN12196.T17.apdu))
        // The chip reads the note's command back to the data, and answers the note's response.
        var chip = session
        let opened = try chip.openCommand(0x8D, headerLength: 7, body: body(AN12196.T17.apdu), mode: .full)
        #expect(opened.header == header && opened.data == AN12196.T17.data)
        #expect(chip.sealResponse(data: [], mode: .mac) == AN12196.T17.answer)
        #expect(try session.openResponse(status: 0x00, body: Array(AN12196.T17.answer.dropLast(2)), mode: .mac) == [])
        #expect(session.commandCounter == 1)
    }

    @Test("Table 18: ChangeFileSettings CommMode.Full at CmdCtr 1: IV, APDU, response MAC with CmdCtr 2")
    func table18() throws {
        var session = try AN12196.sessionT14(counter: 1)
        #expect(try session.commandIV() == AN12196.T18.iv)
        #expect(try session.sealCommand(0x5F, header: [0x02], data: AN12196.T18.data, mode: .full) == body(AN12196.T18.apdu))
        var chip = session
        #expect(try chip.openCommand(0x5F, headerLength: 1, body: body(AN12196.T18.apdu), mode: .full).data == AN12196.T18.data)
        #expect(chip.sealResponse(data: [], mode: .mac) == AN12196.T18.answer)
        _ = try session.openResponse(status: 0x00, body: Array(AN12196.T18.answer.dropLast(2)), mode: .mac)
        #expect(session.commandCounter == 2)
        // A response MAC with one bit changed, or checked at the wrong counter, is refused.
        var tampered = try AN12196.sessionT14(counter: 1)
        var answer = Array(AN12196.T18.answer.dropLast(2))
        answer[0] ^= 1
        #expect { try tampered.openResponse(status: 0x00, body: answer, mode: .mac) } throws: { ($0 as? NTAG424Error)?.code == .integrity }
        #expect(tampered.commandCounter == 1)
        var stale = try AN12196.sessionT14(counter: 0)
        #expect { try stale.openResponse(status: 0x00, body: Array(AN12196.T18.answer.dropLast(2)), mode: .mac) } throws: { _ in true }
        // The chip refuses the note's command with one bit changed: INTEGRITY_ERROR.
        var forged = body(AN12196.T18.apdu)
        forged[3] ^= 1
        #expect(throws: NTAG424Status.integrityError) { try chip.openCommand(0x5F, headerLength: 1, body: forged, mode: .full) }
    }

    @Test("Table 18's settings decode: SDM on, plain, encrypted PICC data (key 2) at 20h, SDMMAC (key 1) input and offset 43h; and encode back")
    func table18Settings() throws {
        let settings = try NTAG424FileSettings(parsingChange: AN12196.T18.data, fileSize: 256)
        #expect(settings.commMode == .plain)
        #expect(settings.accessRights == NTAG424AccessRights(read: .free, write: .key(0), readWrite: .key(0), change: .key(0)))
        let sdm = try #require(settings.sdm)
        #expect(sdm.mirrorsUID && sdm.mirrorsReadCounter && sdm.asciiEncoding && !sdm.encryptsFileData && !sdm.hasReadCounterLimit)
        #expect(sdm.metaRead == .key(2) && sdm.fileRead == .key(1) && sdm.counterRetrieval == .key(1))
        #expect(sdm.piccDataOffset == 0x20 && sdm.macInputOffset == 0x43 && sdm.macOffset == 0x43)
        #expect(try settings.changeData() == AN12196.T18.data)
    }

    @Test("Table 7: GetFileSettings CommMode.MAC: the command MAC, the response MAC and the settings it carries")
    func table7() throws {
        var session = try NTAG424Session(keyNumber: 0, transactionIdentifier: AN12196.T7.ti, encryptionKey: AN12196.zeroKey, macKey: AN12196.T7.macKey)
        #expect(try session.sealCommand(0xF5, header: [0x02], data: [], mode: .mac) == body(AN12196.T7.apdu))
        var chip = session
        let encodedSettings = try NTAG424FileSettings(parsing: AN12196.T7.settings)
        #expect(chip.sealResponse(data: try encodedSettings.encoded(), mode: .mac) == AN12196.T7.answer)
        let data = try session.openResponse(status: 0x00, body: Array(AN12196.T7.answer.dropLast(2)), mode: .mac)
        let settings = try NTAG424FileSettings(parsing: data)
        #expect(settings.fileSize == 256 && settings.commMode == .plain)
        #expect(settings.accessRights == NTAG424AccessRights(read: .free, write: .free, readWrite: .free, change: .free))
        let sdm = try #require(settings.sdm)
        #expect(sdm.optionsByte == 0xD1 && sdm.encryptsFileData)
        #expect(sdm.metaRead == .key(0) && sdm.fileRead == .key(0) && sdm.counterRetrieval == .free)
        #expect(sdm.piccDataOffset == 0x1F && sdm.macInputOffset == 0x44 && sdm.encryptedDataOffset == 0x44)
        #expect(sdm.encryptedDataLength == 0x20 && sdm.macOffset == 0x6A)
        #expect(try settings.encoded() == AN12196.T7.settings)
    }

    @Test("Table 25: ChangeKey of key 2 (not the session's): CRC32 of the new key, IV, APDU, response MAC")
    func table25() throws {
        #expect(NTAG424.keyChecksum(AN12196.T25.newKey) == AN12196.T25.crc)
        var session = try AN12196.sessionB(counter: 2)
        #expect(try session.commandIV() == AN12196.T25.iv)
        let data = AN12196.T25.newKey + [0x01] + AN12196.T25.crc  // old key is zero: NewKey ⊕ OldKey = NewKey
        #expect(try session.sealCommand(0xC4, header: [0x02], data: data, mode: .full) == body(AN12196.T25.apdu))
        _ = try session.openResponse(status: 0x00, body: Array(AN12196.T25.answer.dropLast(2)), mode: .mac)
        #expect(session.commandCounter == 3)
    }

    @Test("Table 26: ChangeKey of key 0 (the session's): IV, APDU; the answer carries no MAC")
    func table26() throws {
        let session = try AN12196.sessionB(counter: 3)
        #expect(try session.commandIV() == AN12196.T26.iv)
        #expect(try session.sealCommand(0xC4, header: [0x00], data: AN12196.T26.newKey + [0x01], mode: .full) == body(AN12196.T26.apdu))
        var chip = session
        #expect(try chip.openCommand(0xC4, headerLength: 1, body: body(AN12196.T26.apdu), mode: .full).data == AN12196.T26.newKey + [0x01])
        #expect(chip.sealResponse(data: [], mode: .plain) == AN12196.T26.answer)
    }

    @Test("Table 28: GetCardUID CommMode.Full: a MAC-only command, the response IV, the decrypted UID; the chip encrypts the same answer")
    func table28() throws {
        var session = try NTAG424Session(keyNumber: 0, transactionIdentifier: AN12196.T28.ti, encryptionKey: AN12196.T28.encKey, macKey: AN12196.T28.macKey)
        #expect(try session.sealCommand(0x51, header: [], data: [], mode: .full) == body(AN12196.T28.apdu))
        #expect(try session.responseIV() == AN12196.T28.responseIV)
        var chip = session
        #expect(chip.sealResponse(data: AN12196.T28.uid, mode: .full) == AN12196.T28.answer)
        #expect(try session.openResponse(status: 0x00, body: Array(AN12196.T28.answer.dropLast(2)), mode: .full) == AN12196.T28.uid)
    }

    @Test("the host side end to end on a scripted chip: Table 14's authentication, then Table 17's WriteData and Table 18's ChangeFileSettings, byte for byte")
    func hostSession() async throws {
        let reader = ScriptedReader(script: [
            ScriptedExchange(AN12196.T14.part1APDU, answer: AN12196.T14.encryptedRndB + [0x91, 0xAF]),
            ScriptedExchange(AN12196.T14.part2APDU, answer: AN12196.T14.part2Answer + [0x91, 0x00]),
            ScriptedExchange(AN12196.T17.apdu, answer: AN12196.T17.answer),
            ScriptedExchange(AN12196.T18.apdu, answer: AN12196.T18.answer),
        ])
        let iso = ISO7816Tag(reader: reader, target: isoDEPTarget, identity: ChipIdentity(model: "NTAG 4xx DNA", platform: .type4))
        var tag = NTAG424Tag(iso, random: { _ in AN12196.T14.rndA })
        try await tag.authenticateEV2First(keyNumber: 0, key: AN12196.zeroKey)
        #expect(tag.session?.transactionIdentifier == AN12196.T14.ti)
        try await tag.writeData(.ndef, offset: 0, data: AN12196.T17.data, mode: .full)
        try await tag.changeFileSettings(.ndef, to: try NTAG424FileSettings(parsingChange: AN12196.T18.data, fileSize: 256))
        #expect(tag.session?.commandCounter == 2)
        await reader.expectScriptFinished()
        #expect(!String(describing: try #require(tag.session)).contains("1309"))
    }

    @Test("91 AE in part 2 is authenticationFailed naming AUTHENTICATION_ERROR; no session is left")
    func authenticationError() async throws {
        let reader = ScriptedReader(script: [
            ScriptedExchange(AN12196.T14.part1APDU, answer: AN12196.T14.encryptedRndB + [0x91, 0xAF]),
            ScriptedExchange(AN12196.T14.part2APDU, answer: [0x91, 0xAE]),
        ])
        let iso = ISO7816Tag(reader: reader, target: isoDEPTarget, identity: ChipIdentity(model: "NTAG 4xx DNA", platform: .type4))
        var tag = NTAG424Tag(iso, random: { _ in AN12196.T14.rndA })
        await #expect { try await tag.authenticateEV2First(keyNumber: 0, key: AN12196.zeroKey) } throws: {
            guard let error = $0 as? NTAG424Error else { return false }
            return error.code == .authenticationFailed && error.status == .authenticationError && error.reason.contains("91 AE (AUTHENTICATION_ERROR)")
        }
        #expect(tag.session == nil)
    }

    @Test("hostile answers: a short challenge is malformed at its end, 91 7E names LENGTH_ERROR, a wrong response MAC is an integrity error and drops the session, a short GetVersion is malformed")
    func hostileAnswers() async throws {
        func tag(_ script: [ScriptedExchange]) -> (NTAG424Tag, ScriptedReader) {
            let reader = ScriptedReader(script: script)
            let iso = ISO7816Tag(reader: reader, target: isoDEPTarget, identity: ChipIdentity(model: "NTAG 4xx DNA", platform: .type4))
            return (NTAG424Tag(iso, random: { _ in AN12196.T14.rndA }), reader)
        }
        var (short, _) = tag([ScriptedExchange(AN12196.T14.part1APDU, answer: Array(AN12196.T14.encryptedRndB.prefix(15)) + [0x91, 0xAF])])
        await #expect { try await short.authenticateEV2First(keyNumber: 0, key: AN12196.zeroKey) } throws: {
            ($0 as? NTAG424Error)?.code == .malformed && ($0 as? NTAG424Error)?.offset == 15
        }
        var (forged, _) = tag([
            ScriptedExchange(AN12196.T14.part1APDU, answer: AN12196.T14.encryptedRndB + [0x91, 0xAF]),
            ScriptedExchange(AN12196.T14.part2APDU, answer: AN12196.T14.part2Answer + [0x91, 0x00]),
            ScriptedExchange(AN12196.T17.apdu, answer: hex("FC222E5F7A542453 9100")),
        ])
        try await forged.authenticateEV2First(keyNumber: 0, key: AN12196.zeroKey)
        await #expect { try await forged.writeData(.ndef, data: AN12196.T17.data, mode: .full) } throws: { ($0 as? NTAG424Error)?.code == .integrity }
        #expect(forged.session == nil)
        var (length, _) = tag([ScriptedExchange(hex("90 AD 00 00 07 02 000000 100000 00"), answer: [0x91, 0x7E])])
        await #expect { try await length.readData(.ndef, length: 16, mode: .plain) } throws: {
            ($0 as? NTAG424Error)?.status == .lengthError && ($0 as? NTAG424Error)?.reason == "ReadData answered 91 7E (LENGTH_ERROR)"
        }
        var (version, _) = tag([
            ScriptedExchange(hex("90 60 00 00 00"), answer: hex("04 04 02 30 00 11 05 91 AF")),
            ScriptedExchange(hex("90 AF 00 00 00"), answer: hex("04 04 02 01 02 91 AF")),
            ScriptedExchange(hex("90 AF 00 00 00"), answer: hex("04 95 8C AA 5C 5E 80 CF 39 41 14 00 26 26 91 00")),
        ])
        await #expect { try await version.getVersion() } throws: { ($0 as? NTAG424Error)?.code == .malformed && ($0 as? NTAG424Error)?.offset == 12 }
    }

    @Test("padding is ISO/IEC 9797-1 method 2 with a whole extra block for whole blocks; unpadding is total")
    func padding() {
        #expect(NTAG424Session.pad([1, 2]).count == 16 && NTAG424Session.pad([1, 2])[2] == 0x80)
        #expect(NTAG424Session.pad([UInt8](repeating: 1, count: 16)).count == 32)
        #expect(NTAG424Session.unpad([1, 0x80] + [UInt8](repeating: 0, count: 14)) == [1])
        #expect(NTAG424Session.unpad([UInt8](repeating: 0, count: 16)) == nil)
        #expect(NTAG424Session.unpad([1, 2, 3]) == nil)
        #expect(NTAG424Session.unpad([]) == nil)
        #expect(NTAG424Session.truncate(Array(0..<16)) == [1, 3, 5, 7, 9, 11, 13, 15])
    }

    @Test("file settings parsing is total: short, reserved bits, missing SDM offsets and leftovers fail with the offset at fault")
    func settingsParsing() {
        func offset(_ bytes: [UInt8]) -> Int? {
            do { _ = try NTAG424FileSettings(parsing: bytes); return nil } catch { return error.offset }
        }
        #expect(offset([0x00, 0x00]) == 2)
        #expect(offset(hex("00 80 E0EE 000100")) == 1)
        #expect(offset(hex("00 00 E0 5E 000100")) == 2)
        #expect(offset(hex("00 00 E0EE 000100 00")) == 7)
        #expect(offset(hex("00 40 E0EE 000100 C1 F121 200000 4300")) == 15)
        #expect(offset(Array(AN12196.T7.settings.prefix(20))) == 20)
    }
}
