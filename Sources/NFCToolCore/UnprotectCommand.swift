import NFCCore
import NFCTags

/// `nfctool unprotect`: removes an NTAG21x / Ultralight EV1 password.
struct UnprotectCommand: ToolCommand {
    static let passwordFile = CommandOption.option(
        "password-file", valueName: "file",
        help: "The current password PWD[:PACK] in hex, read from this file (or set NFCTOOL_PASSWORD).")

    static let configuration = CommandConfiguration(
        name: "unprotect",
        abstract: "Remove the password of an NTAG21x or Ultralight EV1.",
        discussion: """
            Needs the current password (--password-file or NFCTOOL_PASSWORD; never in \
            arguments). AUTH0 is cleared first, so the tag is open from the first write on; then \
            PROT and AUTHLIM are cleared and the password set back to the factory FFFFFFFF. A \
            wrong password exits 9 with nothing written. --plan lists the writes and sends none.

            Examples:
              NFCTOOL_PASSWORD=12345678:ABCD nfctool unprotect
              nfctool unprotect --password-file pwd.txt --device pn532_uart:/dev/ttyUSB0
            """,
        options: [TagCommandSupport.device, TagCommandSupport.timeout, TagCommandSupport.json, passwordFile,
                  TagWriteSupport.plan, TagWriteSupport.dryRun]
    )

    let arguments: ParsedArguments
    let seconds: Double
    let printsJSON: Bool
    let planning: Bool

    init(_ arguments: ParsedArguments) throws(CommandError) {
        self.arguments = arguments
        seconds = try TagCommandSupport.timeoutSeconds(arguments)
        printsJSON = arguments.contains(TagCommandSupport.json)
        planning = TagWriteSupport.isPlan(arguments)
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let current = try TagWriteSupport.password(
            file: arguments.value(of: Self.passwordFile), option: Self.passwordFile,
            environment: context.environment, variable: "NFCTOOL_PASSWORD")
        let connection = TagCommandSupport.connection(arguments, context.environment)
        let ((tag, planned), reader) = try await TagWriteSupport.withLabelledTag(connection: connection, seconds: seconds, planning: planning) {
            (found, _, planner) async throws(CommandError) -> (NFCTag, [PlannedWrite]?) in
            let type2 = try TagWriteSupport.type2(TagWriteSupport.tag(found, password: current), for: "a password")
            do throws(NFCTagError) {
                try await type2.removePassword()
            } catch {
                if !(planner != nil && error.code == .verificationFailed) { throw TagCommandSupport.map(error) }
            }
            return (found, await planner?.writes)
        }
        if let planned {
            try TagWriteSupport.printPlan(planned, of: tag, operation: "unprotect", json: printsJSON, reader: reader, context)
        } else if printsJSON {
            context.io.write(try taggedJSON(reader, ProtectReport(uid: Hex.encode(tag.identifier, uppercase: true), model: tag.identity.model, protected: false)))
        } else {
            TagWriteSupport.say("Unprotected \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)): no password is needed any more.", context)
            TagWriteSupport.sayReader(reader, arguments, context)
        }
    }
}
