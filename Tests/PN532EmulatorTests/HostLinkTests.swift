import NFCTestSupport
import Foundation
import Testing
@testable import PN532Emulator
#if canImport(Glibc)
import Glibc
#endif

/// Waits (at most `timeout` seconds) until a line of `emulator`'s trace ends with `suffix`: the
/// event itself, not an assumed duration, on a loaded machine.
private func waitForTrace(_ emulator: EmulatorProcess, endingWith suffix: String, timeout: Double = 10) async -> Bool {
    await eventually(within: .milliseconds(Int(timeout * 1000))) {
        emulator.trace.contains(where: { $0.hasSuffix(suffix) || $0.contains(suffix) })
    }
}

/// A raw serial client on the emulator's pty: writes bytes, reads what arrives within a time.
private final class SerialClient: @unchecked Sendable {
    let descriptor: Int32

    init(path: String) throws {
        descriptor = open(path, O_RDWR | O_NOCTTY)
        guard descriptor >= 0 else { throw POSIXError(.ENOENT) }
        var settings = termios()
        tcgetattr(descriptor, &settings)
        cfmakeraw(&settings)
        tcsetattr(descriptor, TCSANOW, &settings)
    }

    deinit { close(descriptor) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Reads until `count` bytes came or `timeout` seconds passed, waiting on a thread of its own.
    func receive(_ count: Int, timeout: Double = 10) async -> [UInt8] {
        (try? await runBlocking { self.receiveBlocking(count, timeout: timeout) }) ?? []
    }

    private func receiveBlocking(_ count: Int, timeout: Double) -> [UInt8] {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while received.count < count {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { break }
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            guard poll(&descriptors, 1, Int32(remaining * 1000) + 1) > 0 else { break }
            var chunk = [UInt8](repeating: 0, count: count - received.count)
            let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            received += chunk[0..<n]
        }
        return received
    }
}

@Suite("The host link on the pty: ACK, NACK, abort, wake-up, checksum errors (UM0701 §6.2)", .timeLimit(.minutes(5)))
struct HostLinkTests {
    static let getFirmwareVersion = PN532Frame.command([0x02]).encoded
    static let firmwareResponse = PN532Frame.response([0x03, 0x32, 0x01, 0x06, 0x07]).encoded

    @Test("After the HSU wake-up, a command gets ACK then its response; a NACK gets the response again")
    func ackResponseAndNack() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let client = try SerialClient(path: emulator.ptyPath)
        client.send([0x55, 0x55] + [UInt8](repeating: 0, count: 14) + Self.getFirmwareVersion)
        #expect(await client.receive(6) == PN532Frame.ackBytes)
        #expect(await client.receive(Self.firmwareResponse.count) == Self.firmwareResponse)
        client.send(PN532Frame.nackBytes)
        #expect(await client.receive(Self.firmwareResponse.count) == Self.firmwareResponse)
    }

    @Test("Trace lines are UTC timestamps with microseconds, a direction and the frame")
    func traceFormat() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let client = try SerialClient(path: emulator.ptyPath)
        client.send(Self.getFirmwareVersion)
        _ = await client.receive(6 + Self.firmwareResponse.count)
        try await emulator.control("status")
        let trace = emulator.trace
        #expect(trace.count == 4)
        let pattern = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z [<>#] .+$/#
        for line in trace { #expect(line.wholeMatch(of: pattern) != nil, "\(line)") }
        #expect(trace.map { String($0.dropFirst(28)) } == [
            "> D4 02", "< ACK", "< D5 03 32 01 06 07", "# status: NTAG215 0453494d000001 present, 0 waiting",
        ])
        #expect(trace.map { String($0.prefix(26)) } == trace.map { String($0.prefix(26)) }.sorted())
    }

    @Test("A frame with a bad checksum is not acknowledged; the next good one is")
    func badChecksumIgnored() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let client = try SerialClient(path: emulator.ptyPath)
        var bad = Self.getFirmwareVersion
        bad[7] &+= 1
        client.send(bad)
        // The emulator has judged the frame once it traced it; nothing may have come back.
        #expect(await waitForTrace(emulator, endingWith: "> BAD dataChecksumMismatch at byte 7"))
        #expect(await client.receive(1, timeout: 0.05).isEmpty)
        client.send(Self.getFirmwareVersion)
        #expect(await client.receive(6 + Self.firmwareResponse.count) == PN532Frame.ackBytes + Self.firmwareResponse)
        #expect(emulator.trace.contains { $0.hasSuffix("> BAD dataChecksumMismatch at byte 7") })
    }

    @Test("A frame cut off by silence is dropped; the next client's wake-up and command work")
    func partialFrameDropped() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let client = try SerialClient(path: emulator.ptyPath)
        client.send(Array(PN532Frame.command([UInt8](repeating: 0x06, count: 40)).encoded.prefix(12)))
        // The emulator notices the silence when the next bytes come: make sure it has read the
        // partial frame (a control round trip runs its loop), then stay quiet for longer than
        // its 100 ms inter-byte timeout, however slowly this machine runs.
        try await Task.sleep(for: .milliseconds(150))
        _ = try await emulator.control("status")
        try await Task.sleep(for: .milliseconds(Int(PN532Host.interByteTimeout * 2_000)))
        client.send([0x55, 0x55] + [UInt8](repeating: 0, count: 14) + Self.getFirmwareVersion)
        #expect(await client.receive(6 + Self.firmwareResponse.count) == PN532Frame.ackBytes + Self.firmwareResponse)
        #expect(await waitForTrace(emulator, endingWith: "BAD partial frame dropped"))
    }

    @Test("An unknown command gets ACK and the error frame")
    func unknownCommand() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let client = try SerialClient(path: emulator.ptyPath)
        client.send(PN532Frame.command([0x03]).encoded)
        #expect(await client.receive(14) == PN532Frame.ackBytes + PN532Frame.errorBytes)
    }

    @Test("A poll waiting for a tag is aborted by the host's ACK: no response follows")
    func ackAbortsWaitingPoll() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        try await emulator.control("remove")
        let client = try SerialClient(path: emulator.ptyPath)
        client.send(PN532Frame.command([0x4A, 0x01, 0x00]).encoded)
        #expect(await client.receive(6) == PN532Frame.ackBytes)
        #expect(await client.receive(1, timeout: 0.1).isEmpty)
        client.send(PN532Frame.ackBytes)
        // Present the tag only once the emulator has taken the ACK as an abort.
        #expect(await waitForTrace(emulator, endingWith: "# aborted by host ACK"))
        try await emulator.control("present")
        #expect(await client.receive(1, timeout: 0.1).isEmpty)
        client.send(Self.getFirmwareVersion)
        #expect(await client.receive(6 + Self.firmwareResponse.count) == PN532Frame.ackBytes + Self.firmwareResponse)
        #expect(emulator.trace.contains { $0.hasSuffix("# aborted by host ACK") })
    }

    @Test("A waiting poll completes when a tag is presented")
    func presentCompletesPoll() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        try await emulator.control("remove")
        let client = try SerialClient(path: emulator.ptyPath)
        client.send(PN532Frame.command([0x4A, 0x01, 0x00]).encoded)
        #expect(await client.receive(6, timeout: 10) == PN532Frame.ackBytes)
        try await emulator.control("present")
        let expected = PN532Frame.response([0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, 0x07, 0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01]).encoded
        #expect(await client.receive(expected.count, timeout: 10) == expected)
    }

    @Test("The datasheet delay model answers no sooner than the link time at 115200 baud")
    func datasheetDelay() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215", "--delay-model", "datasheet"])
        defer { emulator.stop() }
        let client = try SerialClient(path: emulator.ptyPath)
        let start = Date()
        client.send(Self.getFirmwareVersion)
        #expect(await client.receive(6 + Self.firmwareResponse.count) == PN532Frame.ackBytes + Self.firmwareResponse)
        // 9 + 13 bytes at 87 µs each.
        #expect(Date().timeIntervalSince(start) >= 22 * PN532Host.linkSecondsPerByte)
    }

    @Test("Extended frames both ways: an 86-register WriteRegister, a 262-byte Diagnose echo")
    func extendedFrames() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let client = try SerialClient(path: emulator.ptyPath)
        let addresses = (0..<86).map { UInt16(0x0100 + $0) }
        let write: [UInt8] = [0x08] + addresses.flatMap { address -> [UInt8] in
            [UInt8(address >> 8), UInt8(address & 0xFF), UInt8(address & 0xFF)]
        }
        let writeFrame = PN532Frame.command(write).encoded
        #expect(writeFrame[3] == 0xFF && writeFrame[4] == 0xFF)
        client.send(writeFrame)
        #expect(await client.receive(6 + 9) == PN532Frame.ackBytes + PN532Frame.response([0x09]).encoded)
        client.send(PN532Frame.command([0x06, 0x01, 0x55]).encoded)
        #expect(await client.receive(6 + 10) == PN532Frame.ackBytes + PN532Frame.response([0x07, 0x55]).encoded)
        let payload = (0..<261).map { UInt8(truncatingIfNeeded: $0) }
        client.send(PN532Frame.command([0x00, 0x00] + payload).encoded)
        let expected = PN532Frame.response([0x01, 0x00] + payload).encoded
        #expect(expected[3] == 0xFF && expected[4] == 0xFF)
        #expect(await client.receive(6 + expected.count) == PN532Frame.ackBytes + expected)
    }
}
