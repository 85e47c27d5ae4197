import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE DESFire EV2/EV3 commands in EV2 secure messaging, on the session code NTAG 424 DNA
/// uses (``EV2Session``): the host (``DESFireTag``) against NXP AN12196's worked examples where
/// the command codes are the same (AuthenticateEV2First `71`, GetFileSettings `F5`, ChangeKey
/// `C4`, GetCardUID `51`), the virtual chip answering as AN12196's chip does, and openssl
/// judging every cryptogram of a session the two run together.
@Suite("MIFARE DESFire EV2 secure messaging (shared with NTAG 424 DNA)", .timeLimit(.minutes(2)))
struct DESFireEV2MessagingTests {
    static let uid = hex("04DE5F00000001")
    static let aid: [UInt8] = [0x11, 0x22, 0x33]

    /// The body of a wrapped APDU `90 INS 00 00 Lc body 00`.
    static func body(_ apdu: [UInt8]) -> [UInt8] { Array(apdu[5..<(apdu.count - 1)]) }

    /// An AES application `112233` with key 0 `key` and files 1 (plain), 2 (MAC) and 3 (Full),
    /// 64 bytes each, every access right key 0.
    static func image(key: [UInt8] = AN12196.zeroKey, files: [UInt8: UInt8] = [1: 0x00, 2: 0x01, 3: 0x03]) -> DESFireImage {
        let made = files.keys.sorted().map { number in
            DESFireImage.File(number: number, isoFileID: nil, communication: files[number] ?? 0, accessRights: 0x0000, data: [UInt8](repeating: 0, count: 64))
        }
        let application = DESFireImage.Application(
            aid: aid, keySettings: 0x0F, keyCount: DESFire.KeyCount.aes | 0x02, isoFileID: nil, dfName: [], keys: [key, [UInt8](repeating: 0x22, count: 16)], files: made)
        return DESFireImage(applications: [application])
    }

    // MARK: AN12196 through the DESFire host

    @Test("the DESFire host sends AN12196's bytes: Table 14's AuthenticateEV2First, Table 7's MAC-ed GetFileSettings, Tables 25/26's ChangeKey (other key, then the authenticated one), Table 28's GetCardUID")
    func hostAgainstAN12196() async throws {
        let reader = ScriptedReader(script: [
            ScriptedExchange(AN12196.T14.part1APDU, answer: AN12196.T14.encryptedRndB + [0x91, 0xAF]),
            ScriptedExchange(AN12196.T14.part2APDU, answer: AN12196.T14.part2Answer + [0x91, 0x00]),
            ScriptedExchange(AN12196.T7.apdu, answer: AN12196.T7.answer),
            ScriptedExchange(AN12196.T25.apdu, answer: AN12196.T25.answer),
            ScriptedExchange(AN12196.T26.apdu, answer: AN12196.T26.answer),
            ScriptedExchange(AN12196.T28.apdu, answer: AN12196.T28.answer),
        ])
        let desfire = DESFireTag(reader: reader)
        let session = try await desfire.authenticateEV2First(keyNumber: 0, key: AN12196.zeroKey, random: AN12196.T14.rndA)
        #expect(session.transactionIdentifier == AN12196.T14.ti && session.encryptionKey == AN12196.T14.encKey && session.macKey == AN12196.T14.macKey)

        var t7: DESFireSession? = .ev2(try EV2Session(keyNumber: 0, transactionIdentifier: AN12196.T7.ti, encryptionKey: AN12196.zeroKey, macKey: AN12196.T7.macKey))
        #expect(try await desfire.command(DESFire.Command.getFileSettings, [0x02], session: &t7, answerLimit: 32) == AN12196.T7.settings)
        guard case .ev2(let afterT7, _)? = t7 else { Issue.record("the session ended"); return }
        #expect(afterT7.commandCounter == 1)

        var b: DESFireSession? = .ev2(try AN12196.sessionB(counter: 2))
        try await desfire.changeKey(0x02, to: try DESFireKey(.aes, AN12196.T25.newKey), from: try DESFireKey(.aes, AN12196.zeroKey), version: 0x01, piccLevel: false, session: &b)
        try await desfire.changeKey(0x00, to: try DESFireKey(.aes, AN12196.T26.newKey), version: 0x01, piccLevel: false, session: &b)
        #expect(b == nil, "changing the authenticated key ends the session")

        var t28: DESFireSession? = .ev2(try EV2Session(keyNumber: 0, transactionIdentifier: AN12196.T28.ti, encryptionKey: AN12196.T28.encKey, macKey: AN12196.T28.macKey))
        #expect(try await desfire.cardUID(session: &t28) == AN12196.T28.uid)
        await reader.expectScriptFinished()
    }

    @Test("an answer whose MAC does not verify ends the DESFire EV2 session: authenticationFailed, session nil")
    func forgedAnswerMAC() async throws {
        var forged = AN12196.T7.answer
        forged[forged.count - 3] ^= 0x01
        let reader = ScriptedReader(script: [ScriptedExchange(AN12196.T7.apdu, answer: forged)])
        var session: DESFireSession? = .ev2(try EV2Session(keyNumber: 0, transactionIdentifier: AN12196.T7.ti, encryptionKey: AN12196.zeroKey, macKey: AN12196.T7.macKey))
        do {
            _ = try await DESFireTag(reader: reader).command(DESFire.Command.getFileSettings, [0x02], session: &session, answerLimit: 32)
            Issue.record("a forged MAC was taken")
        } catch {
            #expect(error.code == .authenticationFailed)
        }
        #expect(session == nil)
    }

    // MARK: AN12196 on the virtual chip

    @Test("the virtual DESFire EV2 answers Table 14's AuthenticateEV2First with AN12196's bytes (its RndB and TI injected), then answers a Full WriteData at CmdCtr 0 and a Full ChangeFileSettings at CmdCtr 1 with Tables 17's and 18's MACs; the image holds the data")
    func chipAgainstAN12196() throws {
        let chip = DESFireVirtualTag(uid: Self.uid, image: Self.image(), generation: .ev2)
        chip.random = { count in count == 16 ? AN12196.T14.rndB : AN12196.T14.ti }
        chip.powerOn()
        #expect(chip.respond(toAPDU: DESFireTag.wrap(DESFire.Command.selectApplication, Self.aid)) == [0x91, 0x00])
        #expect(chip.respond(toAPDU: AN12196.T14.part1APDU) == AN12196.T14.encryptedRndB + [0x91, 0xAF])
        #expect(chip.respond(toAPDU: AN12196.T14.part2APDU) == AN12196.T14.part2Answer + [0x91, 0x00])
        #expect(chip.ev2Session == (try AN12196.sessionT14(counter: 0)))

        // The host's side of the same session, sealed here by the shared code; the answers are
        // AN12196's printed bytes (a MAC over 00 ‖ CmdCtr+1 ‖ TI, no data).
        var host = try AN12196.sessionT14(counter: 0)
        let data = Array(0..<40).map { UInt8($0) }
        let write = try host.sealCommand(DESFire.Command.writeData, header: [0x03, 0x00, 0x00, 0x00, 40, 0x00, 0x00], data: data, mode: .full)
        var answer = chip.respond(toAPDU: DESFireTag.wrap(DESFire.Command.writeData, Array(write.prefix(DESFire.maximumCommandFrameData))))
        #expect(answer == [0x91, 0xAF])
        answer = chip.respond(toAPDU: DESFireTag.wrap(DESFire.Command.additionalFrame, Array(write.dropFirst(DESFire.maximumCommandFrameData))))
        #expect(answer == AN12196.T17.answer)
        _ = try host.openResponse(status: 0x00, body: Array(answer.dropLast(2)), mode: .mac)
        let change = try host.sealCommand(DESFire.Command.changeFileSettings, header: [0x03], data: [0x03, 0x00, 0x00], mode: .full)
        #expect(chip.respond(toAPDU: DESFireTag.wrap(DESFire.Command.changeFileSettings, change)) == AN12196.T18.answer)
        #expect(chip.image.applications[0].files.first { $0.number == 3 }?.data.prefix(40).elementsEqual(data) == true)
        // A command with a wrong MAC: INTEGRITY_ERROR, the session gone.
        var wrong = try host.sealCommand(DESFire.Command.getKeySettings, header: [], data: [], mode: .mac)
        wrong[0] ^= 0x80
        #expect(chip.respond(toAPDU: DESFireTag.wrap(DESFire.Command.getKeySettings, wrong)) == [0x91, 0x1E])
        #expect(chip.ev2Session == nil)
    }

    // MARK: host and chip together, openssl judging

    /// AES-128 ECB of one block, by openssl (CBC from a zero IV over one block).
    static func ecb(_ key: [UInt8], _ block: [UInt8]) async throws -> [UInt8] {
        try await OpenSSLCipherOracle.encryptCBC(cipher: "aes-128-cbc", key: key, iv: [UInt8](repeating: 0, count: 16), block)
    }

    /// MACt by openssl: the odd-indexed bytes of the CMAC.
    static func macT(_ key: [UInt8], _ message: [UInt8]) async throws -> [UInt8] {
        let cmac = try await OpenSSLCipherOracle.cmac(cipher: "aes-128-cbc", key: key, message)
        return stride(from: 1, to: cmac.count, by: 2).map { cmac[$0] }
    }

    @Test("a DESFire EV2 session run by host and virtual chip, every cryptogram recomputed by openssl from the key and the randoms: the session keys, MACt of GetKeySettings and its answer, the IV and ciphertext of a Full WriteData, ChangeKey's cryptogram; the chip's files and keys hold what was sent")
    func judgedByOpenSSL() async throws {
        let key = hex("00112233445566778899AABBCCDDEEFF")
        let rndA = hex("0F1E2D3C4B5A69788796A5B4C3D2E1F0"), rndB = hex("A1B2C3D4E5F60718293A4B5C6D7E8F90"), ti = hex("C0FFEE01")
        let chip = DESFireVirtualTag(uid: Self.uid, image: Self.image(key: key), generation: .ev3)
        chip.random = { count in count == 16 ? rndB : ti }
        let base = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        let reader = await TracingReader(base)
        _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        let desfire = DESFireTag(reader: reader)
        try await desfire.selectApplication(Self.aid)
        await reader.reset()
        var session: DESFireSession? = try await desfire.authenticate(keyNumber: 0, key: try DESFireKey(.aes, key), ev2: true, random: rndA)
        let settings = try await desfire.keySettings(session: &session)
        #expect(settings.settings == 0x0F && settings.keyCount == 0x82)
        let payload = Array(repeating: UInt8(0xA5), count: 20) + Array(0..<13).map { UInt8($0) }
        try await desfire.writeData(3, offset: 4, payload, mode: .full, session: &session)
        #expect(try await desfire.readData(3, offset: 4, length: payload.count, mode: .full, session: &session) == payload)
        #expect(try await desfire.readData(2, offset: 0, length: 8, mode: .mac, session: &session) == [UInt8](repeating: 0, count: 8))
        let newKey = hex("F0E1D2C3B4A5968778695A4B3C2D1E0F")
        try await desfire.changeKey(1, to: try DESFireKey(.aes, newKey), from: try DESFireKey(.aes, [UInt8](repeating: 0x22, count: 16)), version: 0x10, piccLevel: false, session: &session)
        #expect(try await desfire.cardUID(session: &session) == Self.uid)
        let traced = await reader.commands
        let commands = traced.map(\.command.array)

        // openssl: SV1/SV2 as the NTAG 424 DNA datasheet (9.1.7) lays them out, then CMAC.
        let mixed = (0..<6).map { rndA[2 + $0] ^ rndB[$0] }
        let tail = Array(rndA[0..<2]) + mixed + Array(rndB[6..<16]) + Array(rndA[8..<16])
        let encKey = try await OpenSSLCipherOracle.cmac(cipher: "aes-128-cbc", key: key, hex("A55A00010080") + tail)
        let macKey = try await OpenSSLCipherOracle.cmac(cipher: "aes-128-cbc", key: key, hex("5AA500010080") + tail)
        guard case .ev2(let now, _)? = session else { Issue.record("the session ended"); return }
        #expect(now.encryptionKey == encKey && now.macKey == macKey && now.transactionIdentifier == ti)

        // Command 2 (after the two authentication frames): GetKeySettings, MACt over 45 ‖ CmdCtr 0 ‖ TI.
        #expect(commands[2] == DESFireTag.wrap(0x45, try await Self.macT(macKey, [0x45, 0x00, 0x00] + ti)))
        // Its answer: the settings and MACt over 00 ‖ CmdCtr 1 ‖ TI ‖ settings.
        let settingsAnswer = try traced[2].result.get().array
        #expect(settingsAnswer == [0x0F, 0x82] + (try await Self.macT(macKey, [0x00, 0x01, 0x00] + ti + [0x0F, 0x82])) + [0x91, 0x00])
        // Command 3: WriteData Full at CmdCtr 1, in two frames: header, E(K, IV, data ‖ 80 00…), MACt.
        let iv = try await Self.ecb(encKey, hex("A55A") + ti + [0x01, 0x00] + [UInt8](repeating: 0, count: 8))
        let padded = payload + [0x80] + [UInt8](repeating: 0, count: 48 - payload.count - 1)
        let cipher = try await OpenSSLCipherOracle.encryptCBC(cipher: "aes-128-cbc", key: encKey, iv: iv, padded)
        let header: [UInt8] = [0x03, 0x04, 0x00, 0x00, UInt8(payload.count), 0x00, 0x00]
        let sent = header + cipher + (try await Self.macT(macKey, [0x3D, 0x01, 0x00] + ti + header + cipher))
        #expect(Self.body(commands[3]) + Self.body(commands[4]) == sent)
        #expect(commands[3][1] == 0x3D && commands[4][1] == 0xAF)
        // ChangeKey of key 1 at CmdCtr 4: (new ⊕ old) ‖ version ‖ CRC32(new), Full.
        let crc = NTAG424.keyChecksum(newKey)
        let changeIV = try await Self.ecb(encKey, hex("A55A") + ti + [0x04, 0x00] + [UInt8](repeating: 0, count: 8))
        let plain = zip(newKey, [UInt8](repeating: 0x22, count: 16)).map { $0 ^ $1 } + [0x10] + crc
        let changeCipher = try await OpenSSLCipherOracle.encryptCBC(cipher: "aes-128-cbc", key: encKey, iv: changeIV, plain + [0x80] + [UInt8](repeating: 0, count: 32 - plain.count - 1))
        let change = [0x01] + changeCipher + (try await Self.macT(macKey, [0xC4, 0x04, 0x00] + ti + [0x01] + changeCipher))
        #expect(commands[7] == DESFireTag.wrap(0xC4, change))
        // The chip's state, read from it (not through the host): the Full data and the new key.
        let image = try #require(await base.withField { ($0.currentTag as? DESFireVirtualTag)?.image })
        #expect(image.applications[0].files.first { $0.number == 3 }?.data[4..<(4 + payload.count)].elementsEqual(payload) == true)
        #expect(image.applications[0].keys[1] == newKey)
    }

    @Test("format on a DESFire EV2 with an AES PICC key authenticates with AuthenticateEV2First (GetVersion first) and runs the PICC commands MAC-ed; on an EV1 the same key takes AuthenticateAES; a wrong AES key is refused with nothing created")
    func formatChoosesEV2() async throws {
        let key = try DESFireKey(.aes, hex("00112233445566778899AABBCCDDEEFF"))
        for generation in [DESFireVirtualTag.Generation.ev1, .ev2, .ev3] {
            let image = DESFireImage(piccKeySettings: 0x09, piccMasterKey: key.bytes, piccKeyTypeBits: DESFire.KeyCount.aes)
            let base = SimulatedReader(tags: [DESFireVirtualTag(uid: Self.uid, image: image, generation: generation)], emptyFieldWait: .zero)
            let reader = await TracingReader(base)
            _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
            let desfire = DESFireTag(reader: reader)
            do {
                try await desfire.formatTypeFour(DESFireFormatOptions(piccKey: try DESFireKey(.aes, [UInt8](repeating: 0x55, count: 16)), ndefFileSize: 128))
                Issue.record("a wrong key formatted")
            } catch {
                #expect(error.code == .authenticationFailed)
            }
            #expect(await base.withField { ($0.currentTag as? DESFireVirtualTag)?.image.applications.isEmpty } == true)
            await reader.reset()
            try await desfire.formatTypeFour(DESFireFormatOptions(piccKey: key, ndefFileSize: 128))
            let codes = await reader.commands.map { $0.command.array[1] }
            let ev2 = generation != .ev1
            #expect(codes.contains(0x71) == ev2 && codes.contains(0xAA) == !ev2, "\(generation): \(codes)")
            #expect(await base.withField { ($0.currentTag as? DESFireVirtualTag)?.image.applications.map(\.aid) } == [DESFire.TypeFourMapping.applicationID])
            if ev2 {
                // GetApplicationIDs after AuthenticateEV2First carries 8 bytes of MACt.
                let listing = try #require(await reader.commands.first { $0.command.array[1] == DESFire.Command.getApplicationIDs })
                #expect(listing.command.count == 5 + 8 + 1)
            }
        }
    }

    // MARK: tearing

    /// The NDEF platform of a tag on `reader` with `options` for format and lock.
    static func ndef(_ reader: any NFCReader, _ target: TargetInfo, _ options: DESFireFormatOptions) async throws -> any NFCNDEFTag {
        guard case .miFare(var mifare) = try await NFCTag.connect(to: target, on: reader) else { throw DESFireError(.malformed, "not MIFARE") }
        mifare.desfireFormat = options
        return NFCTag.miFare(mifare).ndef
    }

    @Test("tearing sweep of lock in an EV2 session (DESFire EV2, AES application key): cut after or inside any command, the tag is writable or read-only for good, never read-only while writable, and a re-run completes it")
    func lockTearingSweep() async throws {
        let initial = DESFireVirtualTag(uid: Self.uid, image: try DESFireEV1Tests.aesApplicationImage(), generation: .ev2).tagState
        let options = DESFireFormatOptions(applicationKey: DESFireEV1Tests.aesKey)
        let outcomes = try await TearingSweep.run(
            "DESFire EV2 lock", initial: initial,
            makeTag: { reader, target in try await Self.ndef(reader, target, options) },
            operation: { tag throws(NFCTagError) in try await tag.writeLock() },
            classify: { tag in
                let query = try await tag.queryNDEFStatus()
                let gaps = try await tag.readOnlyGaps()
                if query.status == .readOnly { return gaps.isEmpty ? "locked" : "corrupt: read-only reported with \(gaps)" }
                try await tag.writeLock()
                let again = try await tag.readOnlyGaps()
                let status = try await tag.queryNDEFStatus().status
                return again.isEmpty && status == .readOnly ? "not locked, completed by a re-run" : "corrupt: re-run left \(again)"
            })
        #expect(outcomes.keys.allSatisfy { !$0.hasPrefix("corrupt") }, "\(outcomes)")
        #expect(outcomes["not locked, completed by a re-run", default: 0] > 0)
        #expect(outcomes["locked", default: 0] > 0)
    }

    @Test("tearing sweep of format in an EV2 session (DESFire EV3, AES PICC key): cut after or inside any command, the tag reads as not formatted or formatted, never corrupt, and a re-run completes it")
    func formatTearingSweep() async throws {
        let key = try DESFireKey(.aes, hex("00112233445566778899AABBCCDDEEFF"))
        let initial = DESFireVirtualTag(
            uid: Self.uid, image: DESFireImage(piccKeySettings: 0x09, piccMasterKey: key.bytes, piccKeyTypeBits: DESFire.KeyCount.aes), generation: .ev3).tagState
        let options = DESFireFormatOptions(piccKey: key, ndefFileSize: 256)
        let outcomes = try await TearingSweep.run(
            "DESFire EV2 format", initial: initial,
            makeTag: { reader, target in try await Self.ndef(reader, target, options) },
            operation: { tag throws(NFCTagError) in try await tag.format(force: false) },
            classify: { tag in
                let query = try await tag.queryNDEFStatus()
                if query.status == .readWrite, query.messageLength == 0 { return "formatted" }
                guard query.status == .notSupported else { return "corrupt: \(query)" }
                try await tag.format(force: false)
                let again = try await tag.queryNDEFStatus()
                return again.status == .readWrite && again.messageLength == 0 ? "not formatted, completed by a re-run" : "corrupt: re-run gave \(again)"
            })
        #expect(outcomes.keys.allSatisfy { !$0.hasPrefix("corrupt") }, "\(outcomes)")
        #expect(outcomes["not formatted, completed by a re-run", default: 0] > 0)
        #expect(outcomes["formatted", default: 0] > 0)
    }

    // MARK: hostile frames

    @Test("10 000 seeded random native APDUs at a DESFire EV2, most inside an EV2 session (some sealed by the session, some frames of a sealed WriteData): every answer ends 91 xx, nothing traps, the image still parses")
    func randomAPDUs() throws {
        var generator = SeededGenerator(seed: 0xDE5F_0E02)
        let chip = DESFireVirtualTag(uid: Self.uid, image: Self.image(), generation: .ev2)
        chip.random = { count in count == 16 ? AN12196.T14.rndB : AN12196.T14.ti }
        let instructions: [UInt8] = [0x45, 0xF5, 0xBD, 0x3D, 0x5F, 0x54, 0xC4, 0x51, 0x6A, 0x6E, 0x6F, 0xCA, 0xCD, 0xFC, 0xAF, 0x60, 0x3C, 0x71]
        var host: EV2Session?
        for round in 0..<10_000 {
            if round % 50 == 0 {
                chip.powerOn()
                _ = chip.respond(toAPDU: DESFireTag.wrap(DESFire.Command.selectApplication, Self.aid))
                _ = chip.respond(toAPDU: AN12196.T14.part1APDU)
                _ = chip.respond(toAPDU: AN12196.T14.part2APDU)
                host = chip.ev2Session
            }
            let code = instructions.randomElement(using: &generator) ?? 0x45
            var data = (0..<Int.random(in: 0...70, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if var session = host, Bool.random(using: &generator) {
                // Sealed by the right session (as a host would), header and data random.
                let modes = DESFireEV2Messaging.modes(for: code, dataLength: data.count)
                data = (try? session.sealCommand(code, header: Array(data.prefix(modes.headerLength)), data: Array(data.dropFirst(modes.headerLength)), mode: modes.command)) ?? data
                session.commandCounter &+= 1
                host = session
            }
            var frames = [Array(data.prefix(DESFire.maximumCommandFrameData))]
            if data.count > DESFire.maximumCommandFrameData { frames.append(Array(data.dropFirst(DESFire.maximumCommandFrameData))) }
            for (index, frame) in frames.enumerated() {
                let answer = chip.respond(toAPDU: DESFireTag.wrap(index == 0 ? code : DESFire.Command.additionalFrame, frame))
                #expect(answer.count >= 2 && answer[answer.count - 2] == DESFire.statusPrefix, "\(Hex.encode([code] + data))")
            }
            if chip.ev2Session == nil { host = nil }
        }
        #expect((try? DESFireImage(parsing: chip.image.encoded)) == chip.image)
    }
}
