import NFCTags

/// A MIFARE DESFire Light GetFileSettings answer: parses to settings that encode back to the same
/// bytes, or is refused as `malformed` with an offset inside the input; the ChangeFileSettings
/// data built from parsed settings has three bytes.
func checkDESFireLightSettings(_ bytes: [UInt8]) {
    do {
        let settings = try DESFireLightFileSettings(parsing: bytes)
        if settings.encoded != bytes { fail("settings encode as \(settings.encoded)", bytes) }
        guard let again = try? DESFireLightFileSettings(parsing: settings.encoded), again == settings else { fail("encoded settings do not parse back", bytes) }
        if DESFireLightFileSettings.changeData(commMode: settings.commMode, rights: settings.accessRights).count != 3 { fail("change data is not 3 bytes", bytes) }
        if settings.fileType == 0x00, settings.dataFileSize == nil { fail("a standard data file without size", bytes) }
    } catch {
        if error.code != .malformed { fail("file settings refused as \(error.code)", bytes) }
        guard let offset = error.offset else { fail("file settings refused without an offset: \(error)", bytes) }
        checkOffset(offset, within: bytes.count, "file settings", bytes)
    }
}
