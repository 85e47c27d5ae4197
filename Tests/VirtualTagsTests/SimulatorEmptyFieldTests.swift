import NFCTags
import Testing
import VirtualTags

/// `sim:empty` is part of the one simulator grammar (it used to be parsed apart, in NFCKit).
@Suite("sim:empty in the simulator grammar", .timeLimit(.minutes(1)))
struct SimulatorEmptyFieldTests {
    @Test("sim:empty is a reader with no tag whose poll waits poll-wait ms (default 50)")
    func empty() async throws {
        let configuration = try SimulatorConfiguration(parsing: "sim:empty")
        #expect(configuration.isEmptyField && configuration.count == 0)
        #expect(configuration.pollWait == .milliseconds(50))
        let reader = try SimulatorConfiguration.makeReader("sim:empty?poll-wait=0")
        #expect(await reader.name == "simulator (empty field)")
        let clock = ContinuousClock()
        let started = clock.now
        #expect(try await reader.poll(for: [.iso14443A], timeout: .seconds(5)) == nil)
        #expect(clock.now - started < .seconds(5), "poll-wait=0 answers before the poll's own timeout")
    }

    @Test("sim:empty takes poll-wait only; the emulators' --tag form refuses the same")
    func options() {
        for string in ["sim:empty?uid=04000000000001", "sim:empty?count=2"] {
            #expect(throws: NFCReaderDeviceError.self) { try SimulatorConfiguration(parsing: string) }
        }
        #expect(throws: NFCReaderDeviceError.self) { try SimulatorConfiguration(parsing: "sim:empty?poll-wait=-1") }
        #expect((try? SimulatorConfiguration(tagSpecification: "empty?poll-wait=10"))?.isEmptyField == true)
    }
}
