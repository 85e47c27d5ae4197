import NFCTags
import VirtualTags

extension ReaderConnection {
    /// The in-process simulator for a `sim:` connection string (docs/simulator.md). `sim:empty`
    /// is a reader with nothing in its field: a poll waits its whole timeout, or at most
    /// `poll-wait=MS` (`sim:empty?poll-wait=0` answers at once), then finds nothing.
    static func openSimulator(_ connectionString: String) async throws(NFCReaderError) -> any NFCReader {
        if let wait = try emptyFieldWait(connectionString) {
            return SimulatedReader(tags: [], name: "simulator (empty field)", connectionString: connectionString,
                                   emptyFieldWait: wait)
        }
        return try SimulatorConfiguration.makeReader(connectionString)
    }

    /// For `sim:empty[?poll-wait=MS]`, the longest an empty poll waits (the poll's own timeout
    /// when no poll-wait is given); nil for other strings.
    /// - Throws: ``NFCReaderError`` `invalidArgument` for an option other than poll-wait or a bad value.
    static func emptyFieldWait(_ connectionString: String) throws(NFCReaderError) -> Duration? {
        let prefix = "sim:empty"
        guard connectionString.hasPrefix(prefix) else { return nil }
        let rest = connectionString.dropFirst(prefix.count)
        // No poll-wait: every poll waits its whole timeout, as an empty reader does.
        var wait = Duration.seconds(Int64(Int32.max))
        if rest.isEmpty { return wait }
        guard rest.first == "?" else { return nil }
        for item in rest.dropFirst().split(separator: "&") {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "poll-wait" else {
                throw NFCReaderError(.invalidArgument, "sim:empty takes one option, poll-wait=MS; got '\(item)'")
            }
            guard let milliseconds = Int(parts[1]), (0...600_000).contains(milliseconds) else {
                throw NFCReaderError(.invalidArgument, "poll-wait (ms) must be a whole number from 0 to 600000, got '\(parts[1])'")
            }
            wait = .milliseconds(milliseconds)
        }
        return wait
    }
}
