import Foundation
import NFCCore
import NFCTags
import NFCTestSupport
@testable import PCSC
import Testing

extension PCSCEndToEnd {
    /// Tag removal through pcscd's own events: `PCSCReader.waitForRemoval` blocks in
    /// `SCardGetStatusChange` instead of asking (`SCardStatus`) again and again. Judged by pcscd's
    /// debug log, which names every command a client sends it, and by the virtual reader taking
    /// the card away (vpcd, then pcscd, see it go).
    @Suite(
        "tag removal through pcscd's events (SCardGetStatusChange), not polling", .tags(.pcsc, .endToEnd), .serialized, .timeLimit(.minutes(3)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct RemovalEventsThroughPCSCTests {
        /// The UID of the simulator's NTAG215 model (the first of a stack).
        static let ntagUID = Bytes([0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01])


        /// Waits (up to 15 s) until pcscd's log holds `count` cards in the reader.
        static func waitUntil(_ daemon: PrivatePCSCDaemon, holds count: Int) async -> Bool {
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                if daemon.cardsPresent == count { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }

        /// Waits (up to `seconds`) until pcscd's log shows the command `name` from byte `offset` on.
        static func waitUntil(_ daemon: PrivatePCSCDaemon, received name: String, from offset: Int, within seconds: Double = 15) async -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if daemon.clientCommands(from: offset).contains(name) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }

        @Test("while the card lies there the wait sends nothing (pcscd receives no SCardStatus, no transmit, only waits for a state change); taking it away ends the wait with removed")
        func waitSendsNothingAndSeesRemoval() async throws {
            let daemon = try await PrivatePCSCDaemon(debugLog: true)
            defer { daemon.stop() }
            let emulator = try await VirtualReaderProcess(tag: "sim:ntag215", daemon: daemon)
            defer { emulator.stop() }
            try InProcessPCSC.use(daemon)
            let reader = try await PCSCReader.open("pcsc")
            let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(5)))
            #expect(target.identifier == Self.ntagUID)
            // The log names what identification sent (SCardStatus for the ATR, GET DATA): the
            // judge sees such commands when they come.
            let identification = daemon.clientCommands()
            #expect(identification.contains("STATUS") && identification.contains("TRANSMIT"), "\(identification)")
            let mark = daemon.logLength
            // The timeout is the quiet time observed: with a presence check every 100 ms (the
            // polling default) pcscd would receive some 20 STATUS (SCardStatus) here.
            #expect(await reader.waitForRemoval(timeout: .seconds(2), checkInterval: .milliseconds(100)) == .stillPresent)
            let quiet = daemon.clientCommands(from: mark)
            #expect(!quiet.contains("STATUS"), "\(quiet)")
            #expect(!quiet.contains("TRANSMIT"), "\(quiet)")
            #expect(quiet.contains("CMD_WAIT_READER_STATE_CHANGE"), "the wait is pcscd's: \(quiet)")
            async let removal = reader.waitForRemoval(timeout: .seconds(60), checkInterval: .milliseconds(100))
            try await emulator.send("remove")
            #expect(await removal == .removed)
            await reader.close()
        }

        @Test("cancelling the waiting task, or closing the reader, ends a blocked wait with cancelled through SCardCancel")
        func cancelAndCloseEndTheWait() async throws {
            let daemon = try await PrivatePCSCDaemon(debugLog: true)
            defer { daemon.stop() }
            let emulator = try await VirtualReaderProcess(tag: "sim:ntag215", daemon: daemon)
            defer { emulator.stop() }
            try InProcessPCSC.use(daemon)
            // A cancellation that lands between two status waits (each at most
            // PCSCReader.longestStatusWait) has nothing to cancel and sends no CANCEL: every try
            // must end cancelled, and some try must go through SCardCancel.
            var cancelledThroughPCSCD = false
            for _ in 0..<5 where !cancelledThroughPCSCD {
                let reader = try await PCSCReader.open("pcsc")
                _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(5)))
                let mark = daemon.logLength
                let waiting = Task { await reader.waitForRemoval(timeout: .seconds(60), checkInterval: .milliseconds(100)) }
                #expect(await Self.waitUntil(daemon, received: "CMD_WAIT_READER_STATE_CHANGE", from: mark))
                waiting.cancel()
                #expect(await waiting.value == .cancelled)
                cancelledThroughPCSCD = await Self.waitUntil(daemon, received: "CANCEL", from: mark, within: 3)
                await reader.close()
            }
            #expect(cancelledThroughPCSCD, "no cancelled wait reached pcscd as CANCEL")

            var closedThroughPCSCD = false
            for _ in 0..<5 where !closedThroughPCSCD {
                let reader = try await PCSCReader.open("pcsc")
                _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(5)))
                let mark = daemon.logLength
                let closing = Task { await reader.waitForRemoval(timeout: .seconds(60), checkInterval: .milliseconds(100)) }
                #expect(await Self.waitUntil(daemon, received: "CMD_WAIT_READER_STATE_CHANGE", from: mark))
                await reader.close()
                #expect(await closing.value == .cancelled)
                closedThroughPCSCD = await Self.waitUntil(daemon, received: "CANCEL", from: mark, within: 3)
            }
            #expect(closedThroughPCSCD, "no close reached pcscd as CANCEL")
        }

        @Test("a card swapped for another while nobody waited is a removal though the reader holds a card again (pcscd's event counter moved); the presence tracker reports the departure, then the new card's arrival")
        func swapIsRemovalThenArrival() async throws {
            let daemon = try await PrivatePCSCDaemon()
            defer { daemon.stop() }
            let emulator = try await VirtualReaderProcess(tag: "sim:ntag215*2", daemon: daemon)
            defer { emulator.stop() }
            try InProcessPCSC.use(daemon)
            let reader = try await PCSCReader.open("pcsc")
            var tracker = TagPresenceTracker(options: .init(pollSlice: .milliseconds(250)))
            let first = try await tracker.step(on: reader, for: [.iso14443A])
            let arrived = try #require(first.arrival)
            #expect(arrived.identifier == Self.ntagUID)
            await tracker.release(on: reader)
            // Found again and staying: no event.
            let staying = try await tracker.step(on: reader, for: [.iso14443A])
            #expect(staying.arrival == nil && staying.departure == nil)

            // The swap, while nobody waits: pcscd sees the first card go and the second come.
            try await emulator.send("remove")
            #expect(await Self.waitUntil(daemon, holds: 0))
            try await emulator.send("next")
            #expect(await Self.waitUntil(daemon, holds: 1))

            #expect(await reader.waitForRemoval(timeout: .seconds(10), checkInterval: .milliseconds(100)) == .removed)
            var departures: [Bytes] = []
            var arrivals: [Bytes] = []
            for _ in 0..<20 where arrivals.isEmpty {
                let seen = try await tracker.step(on: reader, for: [.iso14443A])
                if let gone = seen.departure { departures.append(gone.identifier) }
                if let new = seen.arrival { arrivals.append(new.identifier) }
            }
            #expect(departures == [Self.ntagUID])
            #expect(arrivals.count == 1)
            #expect(arrivals.first != Self.ntagUID, "the second sticker of the stack has its own UID")
            await reader.close()
        }

        @Test("nfctool watch --device pcsc: arrival, then no SCardStatus or transmit reaches pcscd while the tag lies still, then its removal is reported")
        func watchWaitsOnEvents() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(debugLog: true)
            defer { daemon.stop() }
            let emulator = try await VirtualReaderProcess(tag: "sim:ntag215", daemon: daemon)
            defer { emulator.stop() }
            let start = daemon.logLength
            let watch = try PCSCWatchProcess(tool: tool, daemon: daemon)
            defer { watch.stop() }
            func printed() -> String { watch.printed }
            // A line such as `left    0453494D000001 Type 2 tag…` (the event name padded).
            func waitFor(_ event: String) async -> Bool {
                await watch.waitUntil { $0.split(separator: "\n").contains(where: { $0.hasPrefix(event) && $0.contains("0453494D000001") }) }
            }
            #expect(await waitFor("arrived"), "\(printed())")
            // Settled: the watch waits in SCardGetStatusChange, one wait after another with no
            // card command between (the arrival's identification and reading are done).
            let settled = Date().addingTimeInterval(20)
            var quietFrom: Int?
            while Date() < settled, quietFrom == nil {
                let commands = daemon.clientCommands(from: start)
                let waits = commands.enumerated().filter { $0.element == "CMD_WAIT_READER_STATE_CHANGE" }.map(\.offset)
                if zip(waits, waits.dropFirst()).contains(where: { pair in
                    commands[(pair.0 + 1)..<pair.1].allSatisfy { $0 == "CMD_STOP_WAITING_READER_STATE_CHANGE" }
                }) {
                    quietFrom = daemon.logLength
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
            let mark = try #require(quietFrom, "the watch never waited on pcscd's events while the tag lay there: \(daemon.clientCommands(from: start))")
            let before = daemon.clientCommands(from: start)
            #expect(before.contains("STATUS") && before.contains("TRANSMIT"), "identification and reading, as the log names them: \(before)")
            // The window observed: two seconds of a tag lying still.
            try await Task.sleep(for: .seconds(2))
            let quiet = daemon.clientCommands(from: mark)
            #expect(!quiet.contains("STATUS"), "\(quiet)")
            #expect(!quiet.contains("TRANSMIT"), "\(quiet)")
            #expect(!quiet.contains("CONNECT"), "\(quiet)")
            try await emulator.send("remove")
            #expect(await waitFor("left"), "\(printed())")
        }
    }
}

/// What counts as the card leaving, from the reader states `SCardGetStatusChange` reports
/// (`SCARD_STATE_*` values of pcsc-lite's pcsclite.h; pcscd's card event counter in the high 16
/// bits, counting each insertion and removal).
@Suite("PC/SC removal: which reader states mean the card left", .tags(.pcsc, .endToEnd), .timeLimit(.minutes(1)))
struct PCSCRemovalStateTests {
    static let present: UInt = 0x0020, empty: UInt = 0x0010, inUse: UInt = 0x0100, mute: UInt = 0x0200
    static let unavailable: UInt = 0x0008, unknown: UInt = 0x0004

    static func counter(_ n: UInt) -> UInt { n << 16 }

    @Test("the same card, in use or not: stays")
    func sameCardStays() {
        let baseline = Self.present | Self.counter(3)
        #expect(!PCSCReader.cardLeft(baseline, since: baseline))
        #expect(!PCSCReader.cardLeft(Self.present | Self.inUse | Self.counter(3), since: baseline))
    }

    @Test("an empty, unavailable or unknown reader, or a mute card: left")
    func emptyOrBrokenLeft() {
        let baseline = Self.present | Self.counter(3)
        for state in [Self.empty | Self.counter(4), Self.unavailable, Self.unknown | Self.unavailable, Self.present | Self.mute | Self.counter(3), Self.counter(3)] {
            #expect(PCSCReader.cardLeft(state, since: baseline), "state \(String(state, radix: 16))")
        }
    }

    @Test("a card present again after two events (removal, insertion): left, though the reader holds a card")
    func swappedCardLeft() {
        #expect(PCSCReader.cardLeft(Self.present | Self.inUse | Self.counter(5), since: Self.present | Self.counter(3)))
        // The counter wraps at 16 bits.
        #expect(PCSCReader.cardLeft(Self.present | Self.counter(1), since: Self.present | Self.counter(0xFFFF)))
    }

    @Test("milliseconds for SCardGetStatusChange: whole, never negative")
    func millisecondsConversion() {
        #expect(PCSCReader.milliseconds(.milliseconds(250)) == 250)
        #expect(PCSCReader.milliseconds(.seconds(2)) == 2000)
        #expect(PCSCReader.milliseconds(.zero - .seconds(1)) == 0)
    }
}
