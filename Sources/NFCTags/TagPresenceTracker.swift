public import NFCCore

/// Tells a tag that comes into the field from one that stays, out of a reader's polls: the one
/// place that decides what an arrival is, shared by everything that waits for "the next tag"
/// (`TagWatcher` in NFCKit, the batch workers in Provisioning).
///
/// Readers differ in how a tag that stays looks. A PN532 finds a deselected tag again at the
/// next poll and can then check it with ``NFCReader/isTargetPresent()``; a PC/SC reader
/// re-detects the card at every poll, and its presence check may say "there" or "not there"
/// whatever happens. While a tag stays, the tracker waits in
/// ``NFCReader/waitForRemoval(timeout:checkInterval:)``: an event on readers that have one
/// (PC/SC), a check every ``Options/presenceInterval`` on the others. The tracker turns all of
/// these into the same answers:
///
/// - A tag is an **arrival** when it is found and no tag was known to be in the field, or when
///   a different tag is found (the known one then departs first).
/// - A tag found again while it is known to be in the field is **no** new arrival, however
///   often the reader re-detects it. It is a new arrival only after the reader has found an
///   empty field for at least ``Options/debounce`` (an absence shorter than that is flaky
///   placement, not a departure).
/// - Nothing spins: a tag that stays is waited for (or checked every
///   ``Options/presenceInterval`` where the reader must be asked); when the
///   reader cannot tell presence (it says "gone" right after finding the tag again), the wait
///   before the next poll doubles up to ``Options/maximumPresenceInterval``; a poll that finds
///   an empty field at once is followed by a short pause.
///
/// One ``step(on:for:)`` lasts about ``Options/pollSlice`` (plus at most one pause): callers
/// check their own stop conditions and deadlines between steps. Its times (the debounce, the
/// pauses, arrivals and departures) are read on the clock it is given, `ContinuousClock` by
/// default: a test hands in a clock it advances itself.
///
/// ```swift
/// var tracker = TagPresenceTracker()
/// while !Task.isCancelled {
///     let seen = try await tracker.step(on: reader, for: [.iso14443A])
///     guard let target = seen.arrival else { continue }
///     // … work with the selected tag …
///     await tracker.release(on: reader)
/// }
/// ```
public struct TagPresenceTracker: Sendable {
    /// How the tracker polls and decides.
    public struct Options: Sendable, Hashable {
        /// A tag missing for less than this has not left: no departure, and its return is no new
        /// arrival.
        public var debounce: Duration
        /// How long one poll waits for a tag.
        public var pollSlice: Duration
        /// How often a tag in the field is checked for still being there; also the first pause
        /// before polling again for a tag the reader re-detects.
        public var presenceInterval: Duration
        /// The longest pause before polling again for a tag that the reader keeps re-detecting
        /// but cannot check for presence (the pause doubles from ``presenceInterval``).
        public var maximumPresenceInterval: Duration
        /// The shortest time one poll of an empty field takes: a reader that answers "no tag"
        /// at once is not polled in a busy loop.
        public var minimumPollInterval: Duration

        /// Options; the defaults suit a person placing tags by hand.
        public init(
            debounce: Duration = .zero, pollSlice: Duration = .milliseconds(250), presenceInterval: Duration = .milliseconds(100),
            maximumPresenceInterval: Duration = .milliseconds(500), minimumPollInterval: Duration = .milliseconds(50)
        ) {
            self.debounce = debounce
            self.pollSlice = pollSlice
            self.presenceInterval = presenceInterval
            self.maximumPresenceInterval = maximumPresenceInterval
            self.minimumPollInterval = minimumPollInterval
        }
    }

    /// The tag the tracker holds to be in the field.
    public struct Present: Sendable, Hashable {
        /// Its identifier (UID, IDm, PUPI).
        public var identifier: Bytes
        /// When it was first found: the time on the tracker's clock since the tracker was made.
        public var arrived: Duration
        /// When it was last seen, while it is missing; nil while it is there.
        public var missingSince: Duration?
    }

    /// A tag that left the field.
    public struct Departure: Sendable, Hashable {
        /// Its identifier.
        public var identifier: Bytes
        /// When it was first found: the time on the tracker's clock since the tracker was made.
        public var arrived: Duration
        /// When it was last seen, on the same clock.
        public var lastSeen: Duration
        /// How long it stayed: from its arrival to the moment it was last seen.
        public var duration: Duration { lastSeen - arrived }
    }

    /// What one ``TagPresenceTracker/step(on:for:)`` found. A different tag replacing the one in
    /// the field gives both, the departure first.
    public struct Observation: Sendable {
        /// The tag that left, if one did.
        public var departure: Departure?
        /// A new tag, selected on the reader, if one came.
        public var arrival: TargetInfo?
    }

    /// How the tracker polls and decides.
    public let options: Options
    /// The tag held to be in the field, if any.
    public private(set) var present: Present?
    /// The current tag was found and checked present at the end of the last step: the next
    /// step goes on checking it instead of polling again.
    private var selectedAndPresent = false
    /// The pause before polling again for a re-detected tag the reader cannot check.
    private var recheckPause: Duration
    /// The clock the tracker reads and sleeps on.
    private let clock: ElapsedClock

    /// A tracker with no tag in the field, measuring its windows and pauses on `clock`.
    public init(options: Options = Options(), clock: any Clock<Duration> = ContinuousClock()) {
        self.options = options
        self.clock = ElapsedClock(clock)
        recheckPause = options.presenceInterval
    }

    /// Polls `reader` once (or, for a tag known to stay, checks its presence for up to one poll
    /// slice) and says what changed.
    /// - Throws: the reader's ``NFCReaderDeviceError`` (a failed reader, a modulation it lacks).
    public mutating func step(on reader: any NFCReader, for modulations: [Modulation]) async throws(NFCReaderDeviceError) -> Observation {
        let started = clock.now
        if selectedAndPresent, present != nil {
            // The tag stays: check it, no poll.
            await waitWhilePresent(on: reader, until: started + options.pollSlice)
            return Observation()
        }
        let target = try await reader.poll(for: modulations, timeout: options.pollSlice)
        let now = clock.now
        if let target, var current = present, current.identifier == target.identifier {
            // Found again while held present (or back within the debounce time): no arrival.
            current.missingSince = nil
            present = current
            if await reader.isTargetPresent() {
                await waitWhilePresent(on: reader, until: now + options.pollSlice)
            } else {
                // The reader cannot tell whether it stays: poll again later, and later still.
                present?.missingSince = clock.now
                await pause(recheckPause)
                recheckPause = min(recheckPause * 2, options.maximumPresenceInterval)
            }
            return Observation()
        }
        var observation = Observation()
        if var current = present {
            // Not seen since this poll began, at the latest.
            let missing = current.missingSince ?? started
            current.missingSince = missing
            present = current
            if target != nil || now - missing >= options.debounce {
                observation.departure = Departure(identifier: current.identifier, arrived: current.arrived, lastSeen: missing)
                present = nil
                recheckPause = options.presenceInterval
            }
        }
        guard let target else {
            // A reader that answers an empty field at once is not spun on.
            let elapsed = clock.now - started
            let floor = max(options.minimumPollInterval, Self.shortestPause)
            if elapsed < floor { await pause(floor - elapsed) }
            return observation
        }
        observation.arrival = target
        present = Present(identifier: target.identifier, arrived: now)
        recheckPause = options.presenceInterval
        return observation
    }

    /// Releases the tag the caller has finished with (deselects it: a stack that hands out on
    /// deselect presents its next tag). It stays the tag in the field until a step finds it gone.
    public mutating func release(on reader: any NFCReader) async {
        selectedAndPresent = false
        try? await reader.deselect()
    }

    /// Forgets the tag in the field (its reader was lost) and returns its departure, if any.
    public mutating func forget() -> Departure? {
        defer {
            present = nil
            selectedAndPresent = false
            recheckPause = options.presenceInterval
        }
        guard let present else { return nil }
        return Departure(identifier: present.identifier, arrived: present.arrived, lastSeen: present.missingSince ?? clock.now)
    }

    /// Waits until the selected tag is gone or `deadline` has passed: the reader's
    /// ``NFCReader/waitForRemoval(timeout:checkInterval:)``, which waits for the reader's own
    /// event where it has one (PC/SC's `SCardGetStatusChange`: nothing is sent to the card
    /// meanwhile) and otherwise checks every ``Options/presenceInterval`` (a pause first).
    private mutating func waitWhilePresent(on reader: any NFCReader, until deadline: Duration) async {
        selectedAndPresent = false
        let remaining = max(.zero, deadline - clock.now)
        switch await reader.waitForRemoval(timeout: remaining, checkInterval: max(options.presenceInterval, Self.shortestPause)) {
        case .removed: present?.missingSince = clock.now
        case .stillPresent: selectedAndPresent = true
        case .cancelled: break
        }
    }

    /// Sleeps, at least ``shortestPause`` whatever the options say: a zero interval set by a
    /// caller must not turn the waits into a busy loop.
    private func pause(_ duration: Duration) async {
        try? await clock.sleep(for: max(duration, Self.shortestPause))
    }

    /// The shortest pause between two reader commands of the tracker.
    public static let shortestPause = Duration.milliseconds(1)
}
