/// NTAG 424 DNA's names for the EV2 secure messaging it shares with MIFARE DESFire EV2/EV3
/// (`EV2/EV2SecureMessaging.swift`).

/// The communication mode of an NTAG 424 DNA file or command: ``EV2CommMode``.
public typealias NTAG424CommMode = EV2CommMode
/// An NTAG 424 DNA secure-messaging session: ``EV2Session``.
public typealias NTAG424Session = EV2Session
/// NTAG 424 DNA's AuthenticateEV2First / NonFirst: ``EV2Authentication``.
public typealias NTAG424Authentication = EV2Authentication
