// A failure as scripts read it: one JSON object on standard output, besides `Error: …` on
// standard error.

extension CommandError {
    /// The name of the flag that asks a command for JSON (`--json`): a command that declares
    /// it and was given it prints its failures as ``jsonObject(statusName:)`` too.
    public static let jsonFlagName = "json"

    /// The error as one line of JSON, terminal-safe as the tool's other JSON (``toolJSON(_:pretty:)``):
    /// `{"error":{"code":"noTag","exitStatus":2,"message":"…","offset":12}}` and a newline.
    /// `code` is ``code`` when the error has one, else `statusName` (the exit status's name);
    /// `offset` is left out when there is none.
    public func jsonObject(statusName: String) -> String {
        let body = JSONErrorObject(error: .init(code: code ?? statusName, exitStatus: exitCode.rawValue, message: message, offset: offset))
        // Strings and integers always encode; the literal is never reached in practice.
        return (try? toolJSON(body, pretty: false)) ?? "{\"error\":{\"code\":\"failure\",\"exitStatus\":\(exitCode.rawValue)}}\n"
    }
}

/// `{"error": {...}}`: the object a failing command run with `--json` prints.
private struct JSONErrorObject: Encodable {
    /// The error's fields.
    struct Body: Encodable {
        var code: String
        var exitStatus: Int32
        var message: String
        var offset: Int?
    }

    var error: Body
}
