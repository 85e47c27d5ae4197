print("pn532-emulator: not built yet")
