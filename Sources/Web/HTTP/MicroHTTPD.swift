import CMicroHTTPD
import SystemSupport

/// libmicrohttpd's functions, found once when the first `HTTPServer` starts (Sources/CMicroHTTPD/shim.h
/// says why the library is opened, not linked). A process that never serves the page never maps it.
///
/// An owner of C function pointers: `@unchecked Sendable` because the table is filled once, before it is
/// shared, and only read after; the functions themselves may be called from any thread.
final class MicroHTTPD: @unchecked Sendable {
    /// The library's file name: Debian's `libmicrohttpd12` installs it (the `libmicrohttpd-dev` the build
    /// needs depends on that package). On macOS the Web target links the library (Package.swift), and its
    /// functions are looked up in the program.
    #if os(Linux)
        static let library: String? = "libmicrohttpd.so.12"
    #else
        static let library: String? = nil
    #endif
    /// The package that installs `library`, for the error message.
    static let package = "libmicrohttpd12"

    /// The functions, each non-null.
    let functions: cmhd_functions

    private init(functions: cmhd_functions) {
        self.functions = functions
    }

    private static let loaded = OpenedOnce<MicroHTTPD>()

    /// The library's functions, opened on the first call. A failed attempt is not kept: installing the
    /// library lets the next start succeed.
    /// - Throws: `WebPageError.libraryMissing` when the library cannot be opened or lacks a function.
    static func shared() throws(WebPageError) -> MicroHTTPD {
        try loaded.value { () throws(WebPageError) -> MicroHTTPD in
            var functions = cmhd_functions()
            var error: UnsafePointer<CChar>?
            let status = cmhd_open(library, &functions, &error)
            guard status == 0 else {
                let said = error.map { String(cString: $0) } ?? "no reason given"
                throw .libraryMissing(
                    library: library ?? "libmicrohttpd", package: package,
                    reason: status == 1 ? said : "an older version: \(said)")
            }
            return MicroHTTPD(functions: functions)
        }
    }
}
