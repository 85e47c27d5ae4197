import NFCCore
import Testing

/// The one wrapper of the dynamic loader (`dlopen`, `dlsym`, `dlclose`) that libpq, SQLite,
/// libcrypto, libnfc and pcsc-lite are loaded through: typed errors naming the library and the
/// symbol.
@Suite("DynamicLibrary: loading a C library at run time", .timeLimit(.minutes(1)))
struct DynamicLibraryTests {
    @Test("a library that is not installed: notLoadable, naming it, with the loader's reason")
    func missingLibrary() {
        #expect {
            _ = try DynamicLibrary.open("libnfckit-not-installed.so.9")
        } throws: { error in
            guard let error = error as? DynamicLibraryError, case .notLoadable(let reason) = error.kind else { return false }
            return error.library == "libnfckit-not-installed.so.9" && reason.contains("libnfckit-not-installed.so.9")
                && error.description.hasPrefix("libnfckit-not-installed.so.9 cannot be loaded: ")
        }
    }

    @Test("a function the library has is resolved and called with its C signature")
    func resolvesAFunction() throws {
        let libc = try DynamicLibrary.open("libc.so.6")
        let strlen = try libc.function("strlen", as: (@convention(c) (UnsafePointer<CChar>?) -> Int).self)
        #expect("nfctool".withCString { strlen($0) } == 7)
        #expect(libc.name == "libc.so.6")
    }

    @Test("a symbol the library lacks: missingSymbol, naming the library and the symbol")
    func missingSymbol() throws {
        let libc = try DynamicLibrary.open("libc.so.6")
        #expect(throws: DynamicLibraryError(library: "libc.so.6", .missingSymbol("PQconnectdbParams"))) {
            _ = try libc.function("PQconnectdbParams", as: (@convention(c) () -> Void).self)
        }
        #expect(DynamicLibraryError(library: "libc.so.6", .missingSymbol("PQconnectdbParams")).description
            == "libc.so.6 has no PQconnectdbParams")
    }

    @Test("a data object is resolved to its address")
    func resolvesData() throws {
        let libc = try DynamicLibrary.open("libc.so.6")
        // glibc's `environ`: the environment of this process, a pointer that is never null.
        let environ = try libc.data("environ", as: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?.self)
        #expect(environ.pointee != nil)
    }
}
