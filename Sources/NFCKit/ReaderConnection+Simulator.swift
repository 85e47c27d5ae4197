import NFCTags
import VirtualTags

extension ReaderConnection {
    /// The in-process simulator for a `sim:` connection string (docs/simulator.md, parsed by
    /// ``VirtualTags/SimulatorConfiguration``). `sim:empty` is a reader with nothing in its field:
    /// a poll waits at most `poll-wait=MS` (default 50 ms, so sessions and watchers notice their
    /// own deadlines; `sim:empty?poll-wait=0` answers at once), then finds nothing. Commands poll
    /// again until their `--timeout` is over.
    static func openSimulator(_ connectionString: String) async throws(NFCReaderDeviceError) -> any NFCReader {
        try SimulatorConfiguration.makeReader(connectionString)
    }
}
