import NFCTags
import VirtualTags

extension ReaderConnection {
    /// The in-process simulator for a `sim:` connection string (docs/simulator.md); `sim:empty`
    /// is a reader with nothing in its field (every poll times out).
    static func openSimulator(_ connectionString: String) async throws(NFCReaderError) -> any NFCReader {
        if connectionString == "sim:empty" {
            return SimulatedReader(tags: [], name: "simulator (empty field)", connectionString: connectionString,
                                   emptyFieldWait: .milliseconds(50))
        }
        return try SimulatorConfiguration.makeReader(connectionString)
    }
}
