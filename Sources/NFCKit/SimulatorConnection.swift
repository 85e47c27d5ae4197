import NFCTags
import VirtualTags

extension ReaderConnection {
    /// The in-process simulator for a `sim:` connection string (docs/simulator.md). `sim:empty`
    /// is a reader with nothing in its field: a poll waits at most `poll-wait=MS` (default 50 ms,
    /// so sessions and watchers notice their own deadlines; `sim:empty?poll-wait=0` answers at
    /// once), then finds nothing. Commands poll again until their `--timeout` is over.
    static func openSimulator(_ connectionString: String) async throws(NFCReaderDeviceError) -> any NFCReader {
        if let wait = try emptyFieldWait(connectionString) {
            return SimulatedReader(tags: [], name: "simulator (empty field)", connectionString: connectionString,
                                   emptyFieldWait: wait)
        }
        return try SimulatorConfiguration.makeReader(connectionString)
    }

    /// For `sim:empty[?poll-wait=MS]`, the longest an empty poll waits; nil for other strings.
    /// - Throws: ``NFCReaderDeviceError`` `invalidArgument` for an option other than poll-wait or a bad value.
    static func emptyFieldWait(_ connectionString: String) throws(NFCReaderDeviceError) -> Duration? {
        let prefix = "sim:empty"
        guard connectionString.hasPrefix(prefix) else { return nil }
        let rest = connectionString.dropFirst(prefix.count)
        var wait = Duration.milliseconds(50)
        if rest.isEmpty { return wait }
        guard rest.first == "?" else { return nil }
        for item in rest.dropFirst().split(separator: "&") {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "poll-wait" else {
                throw NFCReaderDeviceError(.invalidArgument, "sim:empty takes one option, poll-wait=MS; got '\(item)'")
            }
            guard let milliseconds = Int(parts[1]), (0...600_000).contains(milliseconds) else {
                throw NFCReaderDeviceError(.invalidArgument, "poll-wait (ms) must be a whole number from 0 to 600000, got '\(parts[1])'")
            }
            wait = .milliseconds(milliseconds)
        }
        return wait
    }
}
