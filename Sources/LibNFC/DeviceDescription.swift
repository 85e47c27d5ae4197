/// A reader libnfc found: what `nfc-list` and `nfc-scan-device` show for each device.
public struct DeviceDescription: Sendable, Hashable {
    /// The name its driver reports once opened, e.g. `ACS / ACR122U PICC Interface`; `nil`
    /// when the device could not be opened to ask (busy, no permission, gone since the scan).
    public var name: String?
    /// The connection string that opens it again, e.g. `pn532_uart:/dev/ttyUSB0` or
    /// `acr122_usb:001:004`.
    public var connectionString: String

    /// Creates a description.
    public init(name: String?, connectionString: String) {
        self.name = name
        self.connectionString = connectionString
    }
}
