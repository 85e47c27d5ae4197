enum PN532EmulatorPlaceholder {}
