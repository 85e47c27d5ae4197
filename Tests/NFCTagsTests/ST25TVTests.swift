import Foundation
import NFCCore
import NFCTags
import Testing
import VirtualTags

/// ST25TV02K passwords and configuration on the in-process simulator. Frames are checked against
/// the layouts of ST's ST25 SDK written out here (flags 22, code, 02, UID LSB first; GET RANDOM
/// NUMBER B4 answered by 2 bytes; PRESENT PASSWORD B3 with the password number and the 4 bytes
/// XOR the random number byte by byte, R0 R1 R0 R1; WRITE PASSWORD B1 with 4 clear bytes;
/// READ/WRITE CONFIGURATION A0/A1 with a 1-byte register), state read from the tag file.
@Suite("ST25TV02K passwords and configuration", .timeLimit(.minutes(3)))
struct ST25TVTests {
    static let uid = ST25Tests.uid(.st25tv02k)
    static let new = ST25TVPassword(bytes: [0xC0, 0xFF, 0xEE, 0x42])!

    static func answer(_ exchange: FieldExchange) -> [UInt8]? {
        if case .frame(.data(let bytes)) = exchange.answer { return bytes }
        return nil
    }

    @Test("PRESENT PASSWORD: GET RANDOM NUMBER, then B3 03 and the password XOR R0 R1 R0 R1; a changed password (WRITE PASSWORD B1 03, 4 clear bytes) is checked with a fresh random number")
    func presentFrames() async throws {
        let (reader, tag) = try await ST25Tests.open(ST25VirtualTag(.st25tv02k, uid: Self.uid))
        #expect(tag.hasST25TVConfiguration && !tag.hasST25DVPasswords)
        try await tag.st25tvChangePassword(3, to: Self.new, current: .factoryDefault)
        let air = Array(Self.uid.reversed())
        let exchanges = await reader.withField { $0.trace }.filter { $0.command.count > 2 && $0.command[2] == 0x02 }
        try #require(exchanges.count == 5)
        let first = try #require(Self.answer(exchanges[0])), second = try #require(Self.answer(exchanges[3]))
        #expect(first.count == 3 && second.count == 3 && first[0] == 0 && second[0] == 0)
        let r1 = Array(first[1...]), r2 = Array(second[1...])
        #expect(exchanges.map(\.command) == [
            [0x22, 0xB4, 0x02] + air,
            [0x22, 0xB3, 0x02] + air + [0x03, r1[0], r1[1], r1[0], r1[1]],
            [0x22, 0xB1, 0x02] + air + [0x03, 0xC0, 0xFF, 0xEE, 0x42],
            [0x22, 0xB4, 0x02] + air,
            [0x22, 0xB3, 0x02] + air + [0x03, 0xC0 ^ r2[0], 0xFF ^ r2[1], 0xEE ^ r2[0], 0x42 ^ r2[1]],
        ])
        let chip = try #require(await ST25Tests.chip(reader))
        #expect(Array(chip.passwords[3].prefix(4)) == [0xC0, 0xFF, 0xEE, 0x42])
    }

    @Test("a wrong password is authenticationFailed with nothing written; WRITE CONFIGURATION needs password 3; LOCK_CFG bit 0 then refuses every change; info's summary reads the registers")
    func configuration() async throws {
        let (reader, tag) = try await ST25Tests.open(ST25VirtualTag(.st25tv02k, uid: Self.uid))
        await #expect { try await tag.st25tvChangePassword(3, to: Self.new, current: ST25TVPassword(bytes: [1, 2, 3, 4])!) }
            throws: { ($0 as? NFCTagError)?.code == .authenticationFailed }
        await #expect(throws: NFCTagError.self) { try await tag.st25WriteConfiguration(ST25TVRegister.area2Security, 0x01) }
        #expect(try #require(await ST25Tests.chip(reader)).areaRegisters == [0, 0, 0, 0, 0, 0, 0])
        try await tag.st25tvWriteConfiguration(ST25TVRegister.area2Security, 0x02, password: .factoryDefault)
        #expect(try await tag.st25tvConfigurationSummary()
            == "area 1 attribute 00: two areas; area 1 (blocks 0–31): open; area 2 (blocks 32 on): read and write need password 2; configuration writable with password 3")
        try await tag.st25tvWriteConfiguration(ST25TVRegister.lockConfiguration, 0x01, password: .factoryDefault)
        await #expect(throws: NFCTagError.self) { try await tag.st25tvWriteConfiguration(ST25TVRegister.area2Security, 0x00, password: .factoryDefault) }
        let chip = try #require(await ST25Tests.chip(reader))
        #expect(chip.areaRegisters == [0, 0x02, 0, 0, 0, 0, 0x01])
        #expect(try await tag.st25tvConfigurationSummary().hasSuffix("configuration locked for good"))
    }

    @Test("the register summary is total: every value of each register has a text naming area 1's byte")
    func summaryTotal() {
        for value in 0...255 {
            let byte = UInt8(value)
            let text = ST25TVRegister.summary(area1: byte, area2: byte, lockConfiguration: byte)
            #expect(text.hasPrefix("area 1 attribute \(String(format: "%02X", value))"))
        }
    }

    @Test("an ST25DV is not taken for an ST25TV02K; a 3-byte password and a 1-byte random number are refused")
    func otherChips() async throws {
        let (_, dv) = try await ST25Tests.open(ST25VirtualTag(.st25dv04k, uid: ST25Tests.uid(.st25dv04k)))
        #expect(!dv.hasST25TVConfiguration)
        #expect(throws: NFCTagError.self) { try ST25TVPassword(bytes: [1, 2, 3]).map { _ in () } ?? { throw NFCTagError(.invalidParameter, "3 bytes") }() }
        #expect(ST25TVPassword(bytes: [1, 2, 3, 4])?.covered(by: [9]) == nil)
    }
}

extension ST25TVTests {
    @Test("traces redact the 4 bytes of an ST25TV02K PRESENT PASSWORD, WRITE PASSWORD, KILL and ENABLE UNTRACEABLE; GET RANDOM NUMBER and its answer stay")
    func traceRedaction() {
        var redactor = ReaderTraceRedactor()
        _ = redactor.redact(.poll([.iso15693]), .found(.iso15693(ISO15693Target(uid: Bytes(Self.uid)))))
        let air = Array(Self.uid.reversed())
        for (code, parameter) in [(UInt8(0xB3), UInt8(0x03)), (0xB1, 0x01), (0xA6, 0x00), (0xBA, 0x00)] {
            let frame = [0x22, code, 0x02] + air + [parameter, 0xDE, 0xAD, 0xBE, 0xEF]
            let (sent, _) = redactor.redact(.transceive(TraceBytes(frame), .standard), .answer(TraceBytes([0x00])))
            #expect(sent == .transceive(TraceBytes(values: frame.prefix(12).map { Optional($0) } + [UInt8?](repeating: nil, count: 4)), .standard))
        }
        let random = [0x22, 0xB4, 0x02] + air
        #expect(redactor.redact(.transceive(TraceBytes(random), .standard), .answer(TraceBytes([0x00, 0x12, 0x34]))).0 == .transceive(TraceBytes(random), .standard))
    }
}

extension ST25ProtectTearingTests {
    /// The ST25TV02K the password and configuration sweeps run on.
    static let tvIdentity = TearingSweep.type5Identity("ST25TV02K", family: .st25, blockCount: 64, icReference: 0x23)

    static func tvTag(_ reader: SimulatedReader, _ target: TargetInfo) throws -> ISO15693Tag {
        try TearingSweep.iso15693Tag(reader, target, identity: tvIdentity)
    }

    /// Runs `operation` on an ST25TV02K from `initial` cut after and inside every command.
    static func tvSweep(_ initial: TagState, _ operation: (ISO15693Tag) async throws(NFCTagError) -> Void) async throws -> [ST25VirtualTag] {
        try await TearingSweep.iso15693States(initial, identity: tvIdentity, operation).map { try #require(ST25VirtualTag(state: $0)) }
    }

    @Test("ST25TV02K password change and configuration write torn anywhere: the password old or new, the register old or new; a rerun with the same files finishes")
    func tvPasswordAndConfiguration() async throws {
        let fresh = ST25VirtualTag(.st25tv02k, uid: [0xE0, 0x02, 0x23, 0x10, 0x53, 0x49, 0x4D, 0x0B]).tagState
        let new = ST25TVPassword(bytes: [0xAB, 0xCD, 0xEF, 0x01])!
        let passwordChips = try await Self.tvSweep(fresh) { tag throws(NFCTagError) in try await tag.st25tvChangePassword(3, to: new, current: .factoryDefault) }
        for chip in passwordChips { #expect([[0, 0, 0, 0], new.bytes].contains(Array(chip.passwords[3].prefix(4))), "\(chip.passwords)") }
        #expect(passwordChips.contains { Array($0.passwords[3].prefix(4)) == new.bytes })
        for chip in passwordChips {
            let (reader, target) = try await TearingSweep.open(chip.tagState, modulations: [.iso15693])
            try await Self.tvTag(reader, target).st25tvChangePassword(3, to: new, current: .factoryDefault)
        }
        let registerChips = try await Self.tvSweep(fresh) { tag throws(NFCTagError) in
            try await tag.st25tvWriteConfiguration(ST25TVRegister.area2Security, 0x01, password: .factoryDefault)
        }
        for chip in registerChips { #expect(chip.areaRegisters == [0, 0, 0, 0, 0, 0, 0] || chip.areaRegisters == [0, 1, 0, 0, 0, 0, 0], "\(chip.areaRegisters)") }
        #expect(registerChips.contains { $0.areaRegisters[1] == 1 })
    }
}
