// Type 2: writeLock and format (to be completed in this issue).
extension Type2Tag {
    /// Not yet implemented: throws `notSupported` and sends nothing.
    public func writeLock() async throws(NFCTagError) {
        throw NFCTagError(.notSupported, "Type 2 locking is not implemented yet")
    }

    /// Not yet implemented: throws `notSupported` and sends nothing.
    public func format(force: Bool) async throws(NFCTagError) {
        throw NFCTagError(.notSupported, "Type 2 formatting is not implemented yet")
    }
}
