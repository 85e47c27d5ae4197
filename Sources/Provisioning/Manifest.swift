import Foundation
import NFCCore

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
    /// hold commas, line breaks and `""` for a quote. The first record names the fields. A
    /// carriage return outside quotes must start a CRLF: CR-only line endings are refused, as
    /// they would make the whole file one header row.
    public static func parseCSV(_ text: String) throws(ProvisioningInputError) -> [ManifestRow] {
        try csvTable(text).rows.map(\.row)
    }

    /// A CSV manifest with where each cell starts: the header's names and columns, and each
    /// row with the column (1-based) of each of its named cells (lower-cased names).
    struct CSVTable {
        var headerLine: Int
        var header: [(name: String, column: Int)]
        var rows: [(row: ManifestRow, columns: [String: Int])]
        /// The line after the last record.
        var endLine: Int
    }

    /// Parses CSV into a ``CSVTable`` (see ``parseCSV(_:)``).
    static func csvTable(_ text: String) throws(ProvisioningInputError) -> CSVTable {
        var records: [(line: Int, fields: [String], columns: [Int])] = []
        var fields: [String] = []
        var columns: [Int] = []
        var field = ""
        var line = 1, column = 0
        var recordLine = 1
        var fieldColumn = 1
        var inQuotes = false, wasQuoted = false, fieldStarted = false
        var iterator = Array(text.unicodeScalars).makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let p = pending { pending = nil; return p }
            return iterator.next()
        }
        func endField() {
            fields.append(field); columns.append(fieldColumn)
            field = ""; wasQuoted = false; fieldStarted = false
            fieldColumn = column + 1
        }
        func endRecord() {
            let quoted = wasQuoted
            endField()
            if !(fields.count == 1 && fields[0].isEmpty && !quoted) { records.append((recordLine, fields, columns)) }
            fields = []; columns = []
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
                endField()
            case "\r":
                guard let following = next(), following == "\n" else {
                    throw ProvisioningInputError(
                        "a carriage return that does not end a CRLF line: CR-only line endings are not read; save the manifest with LF or CRLF line endings",
                        line: line, offset: column)
                }
                pending = following
            case "\n":
                endRecord(); line += 1; column = 0; recordLine = line; fieldColumn = 1
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
        var rows: [(row: ManifestRow, columns: [String: Int])] = []
        for record in records.dropFirst() {
            guard record.fields.count == names.count else {
                throw ProvisioningInputError("\(record.fields.count) fields where the header has \(names.count)", line: record.line)
            }
            let pairs = zip(names, record.fields).filter { !$0.1.isEmpty }.map { (name: $0.0, value: $0.1) }
            var cellColumns: [String: Int] = [:]
            for (name, cellColumn) in zip(names, record.columns) { cellColumns[name.lowercased()] = cellColumn }
            rows.append((ManifestRow(index: rows.count + 1, line: record.line, fields: pairs), cellColumns))
        }
        return CSVTable(headerLine: header.line, header: Array(zip(names, header.columns)).map { (name: $0.0, column: $0.1) },
                        rows: rows, endLine: line + (column > 0 ? 1 : 0))
    }

    // MARK: - JSONL

    /// One flat JSON object per non-blank line: string, number, `true`/`false` values (kept as
    /// their text); `null` leaves the field out; nested objects and arrays are refused.
    public static func parseJSONL(_ text: String) throws(ProvisioningInputError) -> [ManifestRow] {
        try jsonlRows(text).map(\.row)
    }

    /// JSONL rows with the column (1-based) of each key (lower-cased).
    static func jsonlRows(_ text: String) throws(ProvisioningInputError) -> [(row: ManifestRow, columns: [String: Int])] {
        var rows: [(row: ManifestRow, columns: [String: Int])] = []
        for (number, lineText) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let scalars = Array(lineText.unicodeScalars)
            let isSpace: (Unicode.Scalar) -> Bool = { $0.properties.isWhitespace }
            guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else { continue }
            var parser = FlatJSONParser(Array(scalars[first...last]), line: number + 1, columnOffset: first)
            let fields = try parser.object()
            rows.append((ManifestRow(index: rows.count + 1, line: number + 1, fields: fields), parser.keyColumns))
        }
        return rows
    }

    // MARK: - A manifest file

    /// The most rows a manifest may hold, so that every row number and counter stays far from
    /// overflow.
    public static let rowLimit = 10_000_000

    /// The UID lengths a `uid` column may give, in bytes: ISO 14443-A single, double and triple
    /// size; ISO 15693 and FeliCa IDm.
    public static let uidLengths: Set<Int> = [4, 7, 8, 10]

    /// Reads a manifest file's bytes as batch and `ledger load` use it: the one place a
    /// manifest is checked, before the first tag.
    ///
    /// - A UTF-8 byte order mark at the start is dropped; any other byte that is not UTF-8 (a
    ///   Latin-1 "Caf\u{E9}" from a spreadsheet) is an error, never U+FFFD written to a tag.
    /// - Every column (a CSV header name, a JSONL key) is `uid` or one of
    ///   ``MessageTemplate/columns``: a misspelt header such as `txt` is an error even when
    ///   its cells are empty.
    /// - There is at least one row: a header alone produces nothing and is an error.
    /// - A `uid` value is the UID in hex digits without separators (4, 7, 8 or 10 bytes, any
    ///   case) and names one row only; with `matchByUID` every row has one (and a CSV manifest
    ///   has the column).
    /// - Throws: ``ProvisioningInputError`` naming the line and column at fault.
    public static func load(_ bytes: [UInt8], format: Format, matchByUID: Bool = false) throws(ProvisioningInputError) -> [ManifestRow] {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        let text: String
        switch UnicodeValidation.decodeUTF8(body) {
        case .success(let decoded): text = decoded
        case .failure(let invalid):
            let (line, column) = position(ofByte: invalid.offset, in: body)
            throw ProvisioningInputError(
                String(format: "byte 0x%02X is not UTF-8 text (save the manifest as UTF-8, not Latin-1 or another code page)", body[invalid.offset]),
                line: line, offset: column)
        }
        let rows: [(row: ManifestRow, columns: [String: Int])]
        switch format {
        case .csv:
            let table = try csvTable(text)
            for (name, column) in table.header where !isKnownColumn(name) {
                throw unknownColumn(name, line: table.headerLine, column: column)
            }
            if matchByUID, !table.header.contains(where: { $0.name.lowercased() == "uid" }) {
                throw ProvisioningInputError("--match-uid needs a 'uid' column naming each row's tag; the header has none", line: table.headerLine, offset: 1)
            }
            guard !table.rows.isEmpty else {
                throw ProvisioningInputError("the manifest has a header but no rows: nothing to write", line: table.endLine)
            }
            rows = table.rows
        case .jsonl:
            rows = try jsonlRows(text)
            // Every key, a null one too (as an empty CSV cell under its header).
            for (row, columns) in rows {
                for (name, column) in columns.sorted(by: { $0.value < $1.value }) where !isKnownColumn(name) {
                    throw unknownColumn(name, line: row.line, column: column)
                }
            }
            guard !rows.isEmpty else { throw ProvisioningInputError("the manifest has no rows: nothing to write", line: 1) }
        }
        guard rows.count <= rowLimit else {
            throw ProvisioningInputError("the manifest has more than \(rowLimit) rows", line: rows[rowLimit].row.line)
        }
        var seen: [String: Int] = [:]
        for (row, columns) in rows {
            let column = columns["uid"]
            guard let uid = row.value("uid") else {
                if matchByUID { throw ProvisioningInputError("--match-uid: this row has no uid", line: row.line, offset: column ?? 1) }
                continue
            }
            let normalized = try checkedUID(uid, line: row.line, column: column)
            if let first = seen[normalized] {
                throw ProvisioningInputError("UID \(normalized) names a second row (the first is on line \(first)); a tag gets one row", line: row.line, offset: column)
            }
            seen[normalized] = row.line
        }
        return rows.map(\.row)
    }

    /// Whether `name` may head a manifest column: `uid` or a record field.
    public static func isKnownColumn(_ name: String) -> Bool {
        name.lowercased() == "uid" || MessageTemplate.columns[name.lowercased()] != nil
    }

    private static func unknownColumn(_ name: String, line: Int, column: Int?) -> ProvisioningInputError {
        ProvisioningInputError(
            "column '\(name)' is neither uid nor a record option (\(MessageTemplate.columns.keys.sorted().joined(separator: ", ")))",
            line: line, offset: column)
    }

    /// The UID in upper-case hex, or an error saying what is wrong with it.
    private static func checkedUID(_ text: String, line: Int, column: Int?) throws(ProvisioningInputError) -> String {
        if text.contains(where: { $0 == ":" || $0 == "-" || $0 == " " }) {
            throw ProvisioningInputError("UID '\(text)' has separators: write it as hex digits only (04A1B2C3D4E5F6)", line: line, offset: column)
        }
        guard text.allSatisfy(\.isHexDigit), text.count % 2 == 0 else {
            throw ProvisioningInputError("UID '\(text)' is not hex digits (two per byte: 04A1B2C3D4E5F6)", line: line, offset: column)
        }
        guard uidLengths.contains(text.count / 2) else {
            throw ProvisioningInputError(
                "UID '\(text)' has \(text.count / 2) bytes; a UID has \(uidLengths.sorted().map(String.init).joined(separator: ", ")) bytes",
                line: line, offset: column)
        }
        return text.uppercased()
    }

    /// The 1-based line and column (in characters) of byte `offset` of UTF-8 `bytes`, counting
    /// only the valid text before it.
    static func position(ofByte offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }
}

/// A total parser for one flat JSON object, keeping key order.
private struct FlatJSONParser {
    let scalars: [Unicode.Scalar]
    let line: Int
    /// Characters before `scalars` on the line (leading blanks), for the columns reported.
    let columnOffset: Int
    var i = 0
    /// The 1-based column of each key read (lower-cased).
    var keyColumns: [String: Int] = [:]

    init(_ scalars: [Unicode.Scalar], line: Int, columnOffset: Int = 0) {
        self.scalars = scalars
        self.line = line
        self.columnOffset = columnOffset
    }

    func fail(_ reason: String) -> ProvisioningInputError { ProvisioningInputError(reason, line: line, offset: columnOffset + i + 1) }

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
            let keyColumn = columnOffset + i + 1
            let key = try string()
            keyColumns[key.lowercased()] = keyColumn
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
