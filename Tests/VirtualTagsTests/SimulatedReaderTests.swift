import NFCCore
import NFCTags
import NFCTestSupport
import Testing

@testable import VirtualTags

func simulatedReader(_ tags: sending [any VirtualTag], faults: FaultPlan = .none, handOut: Bool = false) -> SimulatedReader {
    SimulatedReader(tags: tags, faultPlan: faults, removesTagOnDeselect: handOut, emptyFieldWait: .zero)
}

/// The reader error `body` throws, or nil when it throws none.
func readerError(_ body: () async throws -> Void) async -> NFCReaderDeviceError? {
    await thrownError(NFCReaderDeviceError.self, by: body)
}

@Suite("Simulated reader", .timeLimit(.minutes(5)))
struct SimulatedReaderTests {
    @Test("poll returns the tag's target info, transceive reaches the tag")
    func pollAndTransceive() async throws {
        let r = simulatedReader([NTAG21xTag(.ntag215, uid: sampleUID7)])
        let info = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        #expect(info?.identifier == Bytes(sampleUID7))
        #expect(try await r.transceive(Bytes([0x60])) == Bytes([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]))
        #expect(try await r.transceive(Bytes([0xA2, 0x04, 1, 2, 3, 4])) == Bytes([0x0A]))
        #expect(await r.commandCount == 2)
    }

    @Test("poll for a modulation the tag does not answer returns nil")
    func pollOtherModulation() async throws {
        let r = simulatedReader([NTAG21xTag(.ntag213, uid: sampleUID7)])
        #expect(try await r.poll(for: [.felica212, .iso15693], timeout: .seconds(5)) == nil)
    }

    @Test("poll on an empty field returns nil without waiting the whole timeout")
    func pollEmpty() async throws {
        let r = simulatedReader([])
        let clock = ContinuousClock()
        let start = clock.now
        #expect(try await r.poll(for: [.iso14443A], timeout: .seconds(30)) == nil)
        #expect(clock.now - start < .seconds(5))
    }

    @Test("NAK, silence and no tag map to nak (with the nibble), timeout and tagLost")
    func errorMapping() async throws {
        let r = simulatedReader([NTAG21xTag(.ntag213, uid: sampleUID7)])
        let noTagYet = await readerError { _ = try await r.transceive(Bytes([0x60])) }
        #expect(noTagYet?.code == .tagLost)
        _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        let nak = await readerError { _ = try await r.transceive(Bytes([0x30, 0xFF])) }
        #expect(nak?.code == .nak)
        #expect(nak?.detail == 0)
        let silence = await readerError { _ = try await r.transceive(Bytes([0x99])) }
        #expect(silence?.code == .timeout)
    }

    @Test("after a NAK commands time out until the next poll re-selects the tag")
    func reselectAfterNAK() async throws {
        let r = simulatedReader([NTAG21xTag(.ntag213, uid: sampleUID7)])
        _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        let nak = await readerError { _ = try await r.transceive(Bytes([0xA2, 0x00, 0, 0, 0, 0])) }
        #expect(nak?.code == .nak)
        let timeout = await readerError { _ = try await r.transceive(Bytes([0x60])) }
        #expect(timeout?.code == .timeout)
        _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        #expect(try await r.transceive(Bytes([0x60])).count == 8)
    }

    @Test("re-polling a tag still in the field keeps the NFC counter's once-per-power-on count")
    func counterAcrossReselection() async throws {
        let tag = NTAG21xTag(.ntag213, uid: sampleUID7)
        _ = tag.respond(to: [0xA2, 0x2A, 0x10, 0x05, 0x00, 0x00])  // NFC_CNT_EN
        let r = simulatedReader([tag])
        for _ in 0..<3 {
            _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
            _ = try await r.transceive(Bytes([0x30, 0x04]))
            try await r.deselect()
        }
        #expect(await r.withField { ($0.currentTag as? NTAG21xTag)?.nfcCounter } == 1)
        await r.withField { field in
            field.removeTag()
            if let first = field.removedTags.first { field.present(first) }
        }
        _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        _ = try await r.transceive(Bytes([0x30, 0x04]))
        #expect(await r.withField { ($0.currentTag as? NTAG21xTag)?.nfcCounter } == 2)
    }

    @Test("ISO-DEP tags get APDUs in standard mode, raw frames in raw mode")
    func isoDEP() async throws {
        let r = simulatedReader([Type4VirtualTag(uid: sampleUID7)])
        let info = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        guard case .iso14443A(let target) = info else {
            Issue.record("not type A")
            return
        }
        #expect(target.ats == Bytes([0x06, 0x75, 0x77, 0x81, 0x02, 0x80]))
        let apdu = Bytes([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00])
        #expect(try await r.transceive(apdu) == Bytes([0x90, 0x00]))
        let raw = await readerError { _ = try await r.transceive(Bytes([0x60]), mode: .raw, timeout: .seconds(1)) }
        #expect(raw?.code == .timeout)
    }

    @Test("the tag leaving after command k: presence turns false, commands fail with tagLost")
    func tagLeaves() async throws {
        let r = simulatedReader([NTAG21xTag(.ntag213, uid: sampleUID7)], faults: FaultPlan(leaveAfterCommand: 2))
        _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        _ = try await r.transceive(Bytes([0x60]))
        #expect(await r.isTargetPresent())
        _ = try await r.transceive(Bytes([0x60]))
        #expect(await !r.isTargetPresent())
        let lost = await readerError { _ = try await r.transceive(Bytes([0x60])) }
        #expect(lost?.code == .tagLost)
    }

    @Test("an RF error on command k throws rfError once")
    func rfError() async throws {
        let r = simulatedReader([NTAG21xTag(.ntag213, uid: sampleUID7)], faults: FaultPlan(rfErrorOnCommands: [1]))
        _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        let error = await readerError { _ = try await r.transceive(Bytes([0x60])) }
        #expect(error?.code == .rfError)
        #expect(try await r.transceive(Bytes([0x60])).count == 8)
    }

    @Test("a stack is handed out in order when deselect takes each tag away")
    func stackOrder() async throws {
        let uids: [[UInt8]] = (1...3).map { [0x04, 0, 0, 0, 0, 0, UInt8($0)] }
        let r = simulatedReader(uids.map { NTAG21xTag(.ntag213, uid: $0) }, handOut: true)
        for uid in uids {
            let info = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
            #expect(info?.identifier == Bytes(uid))
            try await r.deselect()
            #expect(await !r.isTargetPresent())
        }
        #expect(try await r.poll(for: [.iso14443A], timeout: .seconds(1)) == nil)
    }

    @Test("without hand-out, deselect halts the tag and poll selects it again")
    func deselectKeepsTag() async throws {
        let r = simulatedReader([NTAG21xTag(.ntag213, uid: sampleUID7)])
        _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        try await r.deselect()
        let again = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        #expect(again?.identifier == Bytes(sampleUID7))
    }

    @Test("a closed reader fails every call with closed")
    func closed() async {
        let r = simulatedReader([NTAG21xTag(.ntag213, uid: sampleUID7)])
        await r.close()
        let error = await readerError { _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1)) }
        #expect(error?.code == .closed)
        #expect(await !r.isTargetPresent())
    }

    @Test("Classic authentication on a tag that is not Classic fails")
    func classicOnNTAG() async throws {
        let r = simulatedReader([NTAG21xTag(.ntag213, uid: sampleUID7)])
        _ = try await r.poll(for: [.iso14443A], timeout: .seconds(1))
        let error = await readerError {
            try await r.authenticateClassic(block: 4, keyType: .a, key: Bytes([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]), uid: Bytes(sampleUID7))
        }
        #expect(error?.code == .authenticationFailed)
    }

    @Test("all modulations are supported, ISO 15693 included")
    func modulations() {
        #expect(simulatedReader([]).supportedModulations.contains(.iso15693))
    }
}
