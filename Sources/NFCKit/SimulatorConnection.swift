import NFCTags
extension ReaderConnection {
    /// The simulator, once VirtualTags provides it.
    static func openSimulator(_ connectionString: String) async throws(NFCReaderError) -> any NFCReader {
        throw NFCReaderError(.notSupported, "the simulator is not built yet")
    }
}
