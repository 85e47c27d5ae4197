import Foundation
import NDEF
import NFCCore
import NFCKit
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// `TagWatcher` on the simulator: a tag reported once while it stays, departures, stacks,
/// debounce, unreadable tags, and a reader lost and opened again.
@Suite("Tag watcher on the simulator", .timeLimit(.minutes(10)))
struct TagWatcherTests {
    /// `https://www.example.com` as an encoded message.
    static let exampleNDEF = "D1010C55026578616D706C652E636F6D"

    /// Events in a compact form tests compare: `+UID`, `-UID`, `lost`, `back`.
    static func summary(_ event: TagWatchEvent) -> String {
        switch event {
        case .arrived(let tag): "+" + Hex.encode(tag.identifier)
        case .departed(let tag): "-" + Hex.encode(tag.identifier)
        case .readerLost: "lost"
        case .readerReconnected: "back"
        }
    }

    @Test("a tag that stays is reported once, with its identity and message; taking it away reports its departure")
    func arriveOnceThenLeave() async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=20&ndef=\(Self.exampleNDEF)")
        let events = WatchCollector(TagWatcher(reader: reader))
        #expect(await events.wait(forCount: 1))
        try await Task.sleep(for: .milliseconds(200))
        // Read once: while it stays, the tag gets no more commands.
        let commands = await reader.commandCount
        try await Task.sleep(for: .milliseconds(400))
        #expect(await reader.commandCount == commands)
        #expect(events.summaries == ["+0453494d000001"])
        guard case .arrived(let arrival) = events.elements.first else { Issue.record("no arrival"); return }
        #expect(arrival.identity.model == "NTAG215")
        #expect(arrival.technology == .iso14443A)
        let message = try arrival.message.get()
        #expect(message.records.count == 1)
        #expect(Hex.encode(try message.encoded()) == Self.exampleNDEF.lowercased())

        await reader.withField { $0.removeTag() }
        #expect(await events.wait(forCount: 2))
        guard case .departed(let departure) = events.elements.last else { Issue.record("no departure"); return }
        #expect(departure.identifier == arrival.identifier)
        #expect(departure.duration >= .milliseconds(500))
        events.stop()
    }

    @Test("the same tag taken away and brought back is a new arrival")
    func sameTagTwice() async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag213?poll-wait=20")
        let events = WatchCollector(TagWatcher(reader: reader))
        #expect(await events.wait(forCount: 1))
        await reader.withField { $0.removeTag() }
        #expect(await events.wait(forCount: 2))
        await reader.withField { field in if let tag = field.removedTags.last { field.present(tag) } }
        #expect(await events.wait(forCount: 3))
        #expect(events.summaries == ["+0453494d000001", "-0453494d000001", "+0453494d000001"])
        events.stop()
    }

    @Test("a stack handed out on deselect arrives and leaves tag by tag")
    func stack() async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215*3?poll-wait=20")
        let events = WatchCollector(TagWatcher(reader: reader))
        #expect(await events.wait(forCount: 6))
        #expect(events.summaries == [
            "+0453494d000001", "-0453494d000001", "+0453494d000002", "-0453494d000002",
            "+0453494d000003", "-0453494d000003",
        ])
        events.stop()
    }

    @Test("an absence shorter than the debounce time is neither a departure nor a new arrival")
    func debounce() async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=20")
        // 5 s of debounce on a clock the test moves: the absence below lasts one empty poll and
        // 50 ms on the clock; the departure comes once the clock has passed 5 s, without waiting them.
        let clock = ManualClock()
        let events = WatchCollector(TagWatcher(reader: reader, options: .init(debounce: .seconds(5), clock: clock)))
        #expect(await events.wait(forCount: 1))
        let emptyBefore = await reader.emptyPollCount
        await reader.withField { $0.removeTag() }
        #expect(await eventuallyAsync(within: .seconds(30)) { await reader.emptyPollCount > emptyBefore }, "the watcher never saw the field empty")
        // After the empty poll the watcher pauses on the clock: the tag comes back meanwhile.
        #expect(await eventuallyAsync(within: .seconds(30)) { clock.sleeperCount > 0 }, "the watcher never paused")
        let selectedBefore = await reader.selectingPollCount
        await reader.withField { field in if let tag = field.removedTags.last { field.present(tag) } }
        clock.advance(by: .milliseconds(50))
        #expect(await eventuallyAsync(within: .seconds(30)) { await reader.selectingPollCount > selectedBefore }, "the watcher never saw the tag back")
        #expect(events.summaries == ["+0453494d000001"])
        // Gone for good: the departure comes once the debounce time has passed on the clock,
        // moved a second at a time whenever the watcher pauses.
        await reader.withField { $0.removeTag() }
        #expect(await eventuallyAsync(within: .seconds(30)) {
            if events.elements.count >= 2 { return true }
            if clock.sleeperCount > 0 { clock.advance(by: .seconds(1)) }
            return false
        })
        #expect(await events.wait(forCount: 2))
        #expect(events.summaries == ["+0453494d000001", "-0453494d000001"])
        events.stop()
    }

    @Test(
        "a tag the reader keeps re-detecting (PC/SC-like presence, or none) is reported once, polled ever less often, and leaves when taken away",
        arguments: ["field", "none"])
    func redetectingReader(presence: String) async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=20&presence=\(presence)")
        let events = WatchCollector(TagWatcher(reader: reader))
        #expect(await events.wait(forCount: 1))
        let clock = ContinuousClock()
        let polledBefore = await reader.pollCount
        let started = clock.now
        try await Task.sleep(for: .seconds(1))
        let polls = await reader.pollCount - polledBefore
        let elapsed = clock.now - started
        // At most one poll per presence interval (100 ms) while it stays; the pauses grow to 500 ms.
        #expect(polls <= Int(elapsed / .milliseconds(100)) + 2, "\(polls) polls in \(elapsed)")
        #expect(events.summaries == ["+0453494d000001"])
        await reader.withField { $0.removeTag() }
        #expect(await events.wait(forCount: 2))
        #expect(events.summaries == ["+0453494d000001", "-0453494d000001"])
        events.stop()
    }

    @Test("a tag whose NDEF area is broken arrives with a typed read error; the watch goes on")
    func malformedTag() async throws {
        // A record header announcing more payload than the TLV holds.
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215*2?poll-wait=20&ndef=D1010C5502")
        let events = WatchCollector(TagWatcher(reader: reader))
        #expect(await events.wait(forCount: 3))
        guard case .arrived(let arrival) = events.elements.first else { Issue.record("no arrival"); return }
        guard case .failure(let error) = arrival.message else { Issue.record("read a broken message"); return }
        #expect([.malformedMessage, .malformedTag].contains(error.code))
        #expect(events.summaries.prefix(3) == ["+0453494d000001", "-0453494d000001", "+0453494d000002"])
        events.stop()
    }

    @Test("a reader that fails is reported lost, opened again with back-off, and the next tag is reported")
    func reconnect() async throws {
        let opened = Locked<[SimulatedReader]>([])
        let attempts = Locked(0)
        let watcher = TagWatcher(options: .init(reconnectDelay: .milliseconds(20))) { () async throws(NFCReaderDeviceError) -> any NFCReader in
            let attempt = attempts.withLock { $0 += 1; return $0 }
            // The second opening fails as an unplugged reader would.
            if attempt == 2 { throw NFCReaderDeviceError(.deviceNotFound, "unplugged") }
            let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=20&uid=04A0000000000\(attempt)")
            opened.withLock { $0.append(reader) }
            return reader
        }
        let events = WatchCollector(watcher)
        #expect(await events.wait(forCount: 1))
        let first = try #require(opened.withLock { $0.first })
        await first.close()
        #expect(await events.wait(forCount: 5))
        #expect(events.summaries == ["+04a00000000001", "lost", "-04a00000000001", "back", "+04a00000000003"])
        #expect(attempts.withLock { $0 } == 3)
        events.stop()
    }

    @Test("a reader handed in that fails ends the sequence with its error")
    func givenReaderFails() async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=20")
        let events = WatchCollector(TagWatcher(reader: reader))
        #expect(await events.wait(forCount: 1))
        await reader.close()
        #expect(await events.waitForEnd() != nil)
        #expect(events.endError?.code == .closed)
    }

    @Test("a connection string that cannot be opened ends the sequence at once")
    func cannotOpen() async {
        let events = WatchCollector(TagWatcher(connection: "sim:nosuchmodel"))
        #expect(await events.waitForEnd() != nil)
        #expect(events.endError?.code == .invalidArgument)
    }
}

/// A watcher's events, collected in a task of their own.
typealias WatchCollector = EventCollector<TagWatcher>

extension EventCollector where Events == TagWatcher {
    /// The events as `+uid`/`-uid` lines.
    var summaries: [String] { elements.map(TagWatcherTests.summary) }
}

/// The tracker under options a caller set to zero: still no busy loop.
@Suite("TagPresenceTracker with zero intervals", .timeLimit(.minutes(1)))
struct TagPresenceTrackerZeroOptionsTests {
    @Test("zero presence and poll intervals on a reader that answers an empty field at once: at most one poll per millisecond")
    func zeroIntervalsDoNotSpin() async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=0")
        await reader.withField { $0.removeTag() }
        var tracker = TagPresenceTracker(options: .init(pollSlice: .zero, presenceInterval: .zero, maximumPresenceInterval: .zero, minimumPollInterval: .zero))
        let clock = ContinuousClock()
        let started = clock.now
        for _ in 0..<50 { _ = try await tracker.step(on: reader, for: [.iso14443A]) }
        let elapsed = clock.now - started
        // 50 polls took at least 50 pauses of 1 ms.
        #expect(elapsed >= .milliseconds(50), "\(elapsed)")
        #expect(await reader.pollCount == 50)
    }
}
