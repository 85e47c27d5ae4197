// The dynamic loader's calls (`dlopen`, `dlsym`, `dlclose`), each wrapped exactly once, for the
// C libraries nfctool loads when a command first needs them rather than at every start (libpq,
// SQLite, libcrypto, libnfc, pcsc-lite: docs/benchmarks.md, "Cold start"). Each of those
// libraries' `…Calls.swift` opens its library here and resolves its functions into a struct of
// typed function pointers; nothing else in the package calls the loader.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A shared library loaded at run time (`dlopen`), from which C functions and data are resolved
/// by name (`dlsym`).
///
/// The handle is the loader's: it may be used from any thread. A library loaded for the life of
/// the process is simply never closed; ``close()`` is for one that turned out not to be the
/// library wanted (a function missing).
public struct DynamicLibrary: @unchecked Sendable {
    /// The file name it was opened by: a soname such as `libpq.so.5`, or a path.
    public let name: String
    /// The `dlopen` handle.
    private let handle: UnsafeMutableRawPointer

    /// `dlopen(name, RTLD_NOW | RTLD_LOCAL)`: loads the library and everything it needs, binding
    /// every symbol now (a missing one fails here, not at the first call) and keeping its symbols
    /// out of the global scope (they are reached through ``function(_:as:)`` only).
    /// - Throws: ``DynamicLibraryError`` `notLoadable` with the loader's reason (`dlerror`):
    ///   the file is missing, not a shared object, or needs a library that is missing.
    public static func open(_ name: String) throws(DynamicLibraryError) -> DynamicLibrary {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            throw DynamicLibraryError(library: name, .notLoadable(reason: lastError() ?? "\(name) cannot be loaded"))
        }
        return DynamicLibrary(name: name, handle: handle)
    }

    /// `dlsym`: the function (or data object) `symbol`, as the C function pointer type
    /// `Function` — which must be the symbol's exact C signature, typically a typedef of the C
    /// module's (`ccrypto_fn_NAME`, `csqlite_fn_NAME`).
    /// - Throws: ``DynamicLibraryError`` `missingSymbol` naming the library and the symbol (an
    ///   older or different library under the same file name).
    public func function<Function>(_ symbol: String, as type: Function.Type = Function.self) throws(DynamicLibraryError) -> Function {
        guard let address = dlsym(handle, symbol) else {
            throw DynamicLibraryError(library: name, .missingSymbol(symbol))
        }
        return unsafeBitCast(address, to: Function.self)
    }

    /// `dlsym` for a data object: the address of `symbol` (a C global such as pcsc-lite's
    /// `g_rgSCardT1Pci`), as a pointer to `Value`.
    /// - Throws: ``DynamicLibraryError`` `missingSymbol` naming the library and the symbol.
    public func data<Value>(_ symbol: String, as type: Value.Type) throws(DynamicLibraryError) -> UnsafePointer<Value> {
        guard let address = dlsym(handle, symbol) else {
            throw DynamicLibraryError(library: name, .missingSymbol(symbol))
        }
        return UnsafePointer(address.assumingMemoryBound(to: Value.self))
    }

    /// `dlclose`: drops this reference to the library; the loader unmaps it when none is left.
    /// No function or data resolved from it may be used afterwards.
    public func close() {
        _ = dlclose(handle)
    }

    /// `dlerror`: the loader's description of its last failure on this thread, if any.
    private static func lastError() -> String? {
        dlerror().map { String(cString: $0) }
    }
}

/// Why a library could not be loaded at run time, naming the library (and the symbol).
public struct DynamicLibraryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// `dlopen` failed; `reason` is the loader's words (`dlerror`), e.g. "libpq.so.5: cannot
        /// open shared object file: No such file or directory".
        case notLoadable(reason: String)
        /// The library loaded but has no symbol of this name (`dlsym` returned nil): it is not
        /// the library wanted, or too old.
        case missingSymbol(String)
    }

    /// The library's file name, as it was opened (`libpq.so.5`).
    public let library: String
    /// What went wrong.
    public let kind: Kind

    /// Creates an error.
    public init(library: String, _ kind: Kind) {
        self.library = library
        self.kind = kind
    }

    /// "libpq.so.5 cannot be loaded: …" or "libpq.so.5 has no PQconnectdbParams".
    public var description: String {
        switch kind {
        case .notLoadable(let reason): return "\(library) cannot be loaded: \(reason)"
        case .missingSymbol(let symbol): return "\(library) has no \(symbol)"
        }
    }
}
