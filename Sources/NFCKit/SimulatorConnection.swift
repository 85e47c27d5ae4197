import NFCTags
import VirtualTags

extension ReaderConnection {
    /// The in-process simulator for a `sim:` connection string (docs/simulator.md).
    static func openSimulator(_ connectionString: String) async throws(NFCReaderError) -> any NFCReader {
        try SimulatorConfiguration.makeReader(connectionString)
    }
}
