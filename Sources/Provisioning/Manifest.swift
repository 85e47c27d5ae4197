import Foundation

/// One row of a provisioning manifest: the fields in the order they were written (the order of
/// the records they build), where it came from, and the UID it is meant for, if any.
public struct ManifestRow: Sendable, Hashable {
    /// 1-based position among the data rows: the first row under the CSV header (or the first
    /// JSONL object) is row 1. The ledger's `row` and the dry run's `row N` use this number.
    public var index: Int
    /// The 1-based line of the manifest it starts on.
    public var line: Int
    /// Field name and value pairs, in manifest order, empty values left out.
    public var fields: [(name: String, value: String)]

    /// The value of `name` (case-insensitive), if present.
    public func value(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Creates a row.
    public init(index: Int, line: Int, fields: [(name: String, value: String)]) {
        self.index = index
        self.line = line
        self.fields = fields
    }

    /// Rows are equal when position, line and fields are.
    public static func == (lhs: ManifestRow, rhs: ManifestRow) -> Bool {
        lhs.index == rhs.index && lhs.line == rhs.line && lhs.fields.map(\.name) == rhs.fields.map(\.name)
            && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }

    /// Hashes position and fields.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(index)
        for field in fields { hasher.combine(field.name); hasher.combine(field.value) }
    }
}

/// Manifests: CSV (RFC 4180, a header row naming the fields) or JSONL (one flat JSON object per
/// line). Both parsers are total: any fault is a ``ProvisioningInputError`` with line and column.
public enum Manifest {
    /// Parses `text` as CSV when `format` is `.csv`, JSONL when `.jsonl`.
    public static func parse(_ text: String, format: Format) throws(ProvisioningInputError) -> [ManifestRow] {
        switch format {
        case .csv: try parseCSV(text)
        case .jsonl: try parseJSONL(text)
        }
    }

    /// A manifest's format.
    public enum Format: String, Sendable, Hashable {
        /// Comma-separated values with a header row.
        case csv
        /// One JSON object per line.
        case jsonl
    }

    /// The format a file name suggests: `.jsonl`/`.ndjson` → JSONL, else CSV.
    public static func format(forPath path: String) -> Format {
        let lower = path.lowercased()
        return lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") ? .jsonl : .csv
    }

    // MARK: - CSV

    /// RFC 4180: fields separated by commas, records by CRLF or LF; a field in double quotes may
    /// hold commas, line breaks and `""` for a quote. The first record names the fields.
    public static func parseCSV(_ text: String) throws(ProvisioningInputError) -> [ManifestRow] {
        var records: [(line: Int, fields: [String])] = []
        var fields: [String] = []
        var field = ""
        var line = 1, column = 0
        var recordLine = 1
        var inQuotes = false, wasQuoted = false, fieldStarted = false
        var iterator = Array(text.unicodeScalars).makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let p = pending { pending = nil; return p }
            return iterator.next()
        }
        func endRecord() {
            fields.append(field)
            if !(fields.count == 1 && fields[0].isEmpty && !wasQuoted) { records.append((recordLine, fields)) }
            fields = []; field = ""; wasQuoted = false; fieldStarted = false
        }
        while let c = next() {
            column += 1
            if inQuotes {
                if c == "\"" {
                    if let following = next() {
                        if following == "\"" { field.unicodeScalars.append("\""); column += 1; continue }
                        pending = following
                    }
                    inQuotes = false
                } else {
                    if c == "\n" { line += 1; column = 0 }
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case "\"":
                guard !fieldStarted else {
                    throw ProvisioningInputError("a quote inside an unquoted field (quote the whole field)", line: line, offset: column)
                }
                inQuotes = true; wasQuoted = true; fieldStarted = true
            case ",":
                fields.append(field); field = ""; wasQuoted = false; fieldStarted = false
            case "\r":
                continue
            case "\n":
                endRecord(); line += 1; column = 0; recordLine = line
            default:
                if wasQuoted {
                    throw ProvisioningInputError("text after a closing quote", line: line, offset: column)
                }
                field.unicodeScalars.append(c); fieldStarted = true
            }
        }
        if inQuotes { throw ProvisioningInputError("a quoted field is never closed", line: line, offset: column) }
        if !field.isEmpty || !fields.isEmpty || wasQuoted { endRecord() }
        guard let header = records.first else { throw ProvisioningInputError("the manifest is empty: a header row is needed", line: 1) }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        for (i, name) in names.enumerated() where name.isEmpty {
            throw ProvisioningInputError("header column \(i + 1) has no name", line: header.line)
        }
        if let duplicate = names.enumerated().first(where: { i, name in names[..<i].contains { $0.lowercased() == name.lowercased() } }) {
            throw ProvisioningInputError("header names '\(duplicate.element)' twice", line: header.line, offset: duplicate.offset + 1)
        }
        var rows: [ManifestRow] = []
        for record in records.dropFirst() {
            guard record.fields.count == names.count else {
                throw ProvisioningInputError("\(record.fields.count) fields where the header has \(names.count)", line: record.line)
            }
            let pairs = zip(names, record.fields).filter { !$0.1.isEmpty }.map { (name: $0.0, value: $0.1) }
            rows.append(ManifestRow(index: rows.count + 1, line: record.line, fields: pairs))
        }
        return rows
    }

    // MARK: - JSONL

    /// One flat JSON object per non-blank line: string, number, `true`/`false` values (kept as
    /// their text); `null` leaves the field out; nested objects and arrays are refused.
    public static func parseJSONL(_ text: String) throws(ProvisioningInputError) -> [ManifestRow] {
        var rows: [ManifestRow] = []
        for (number, lineText) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = lineText.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            var parser = FlatJSONParser(Array(trimmed.unicodeScalars), line: number + 1)
            rows.append(ManifestRow(index: rows.count + 1, line: number + 1, fields: try parser.object()))
        }
        return rows
    }
}

/// A total parser for one flat JSON object, keeping key order.
private struct FlatJSONParser {
    let scalars: [Unicode.Scalar]
    let line: Int
    var i = 0

    init(_ scalars: [Unicode.Scalar], line: Int) {
        self.scalars = scalars
        self.line = line
    }

    func fail(_ reason: String) -> ProvisioningInputError { ProvisioningInputError(reason, line: line, offset: i + 1) }

    mutating func skipSpace() { while i < scalars.count, [" ", "\t", "\r"].contains(scalars[i]) { i += 1 } }

    mutating func expect(_ c: Unicode.Scalar) throws(ProvisioningInputError) {
        skipSpace()
        guard i < scalars.count, scalars[i] == c else { throw fail("expected '\(c)'") }
        i += 1
    }

    mutating func object() throws(ProvisioningInputError) -> [(name: String, value: String)] {
        try expect("{")
        var pairs: [(name: String, value: String)] = []
        skipSpace()
        if i < scalars.count, scalars[i] == "}" { i += 1; return try end(pairs) }
        while true {
            skipSpace()
            let key = try string()
            if pairs.contains(where: { $0.name.lowercased() == key.lowercased() }) { throw fail("key '\(key)' appears twice") }
            try expect(":")
            if let value = try value() { pairs.append((key, value)) }
            skipSpace()
            guard i < scalars.count else { throw fail("the object is never closed") }
            if scalars[i] == "," { i += 1; continue }
            if scalars[i] == "}" { i += 1; return try end(pairs) }
            throw fail("expected ',' or '}'")
        }
    }

    mutating func end(_ pairs: [(name: String, value: String)]) throws(ProvisioningInputError) -> [(name: String, value: String)] {
        skipSpace()
        guard i == scalars.count else { throw fail("text after the object") }
        return pairs
    }

    mutating func value() throws(ProvisioningInputError) -> String? {
        skipSpace()
        guard i < scalars.count else { throw fail("a value is missing") }
        switch scalars[i] {
        case "\"": return try string()
        case "{", "[": throw fail("nested objects and arrays are not allowed in a manifest row")
        default:
            let start = i
            while i < scalars.count, !([",", "}", " ", "\t"] as [Unicode.Scalar]).contains(scalars[i]) { i += 1 }
            let word = String(String.UnicodeScalarView(scalars[start..<i]))
            if word == "null" { return nil }
            if word == "true" || word == "false" || Double(word) != nil { return word }
            i = start
            throw fail("'\(word)' is not a JSON value")
        }
    }

    mutating func string() throws(ProvisioningInputError) -> String {
        guard i < scalars.count, scalars[i] == "\"" else { throw fail("expected a string") }
        i += 1
        var out = String.UnicodeScalarView()
        while i < scalars.count {
            let c = scalars[i]
            i += 1
            if c == "\"" { return String(out) }
            guard c == "\\" else {
                guard c.value >= 0x20 else { throw fail("a control character inside a string") }
                out.append(c); continue
            }
            guard i < scalars.count else { break }
            let e = scalars[i]
            i += 1
            switch e {
            case "\"": out.append("\"")
            case "\\": out.append("\\")
            case "/": out.append("/")
            case "b": out.append("\u{08}")
            case "f": out.append("\u{0C}")
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "u":
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard i + 1 < scalars.count, scalars[i] == "\\", scalars[i + 1] == "u" else { throw fail("a lone high surrogate") }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("a high surrogate without its low half") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("\\u escape is not a character") }
                out.append(scalar)
            default: throw fail("unknown escape '\\\(e)'")
            }
        }
        throw fail("the string is never closed")
    }

    mutating func hex4() throws(ProvisioningInputError) -> UInt32 {
        guard i + 4 <= scalars.count, let v = UInt32(String(String.UnicodeScalarView(scalars[i..<(i + 4)])), radix: 16) else {
            throw fail("\\u needs 4 hex digits")
        }
        i += 4
        return v
    }
}
