#if canImport(CAvahi)
    import CAvahi
    import SystemSupport

    /// Avahi's client libraries' functions, found once when the first browse starts (Sources/CAvahi/shim.h
    /// says why the libraries are opened, not linked). A process that never browses never maps them.
    ///
    /// An owner of C function pointers: `@unchecked Sendable` because the table is filled once, before it
    /// is shared, and only read after; the functions are called as Avahi allows (`AvahiSession`).
    final class AvahiLibrary: @unchecked Sendable {
        /// The libraries' file names: Debian's `libavahi-client3` installs the first and depends on
        /// `libavahi-common3`, which installs the second (the `libavahi-client-dev` the build needs depends
        /// on both).
        static let clientLibrary = "libavahi-client.so.3"
        static let commonLibrary = "libavahi-common.so.3"
        /// The package that installs both, for the error message.
        static let package = "libavahi-client3"

        /// The functions, each non-null.
        let functions: cavahi_functions

        private init(functions: cavahi_functions) {
            self.functions = functions
        }

        private static let loaded = OpenedOnce<AvahiLibrary>()

        /// The libraries' functions, opened on the first call. A failed attempt is not kept: installing
        /// the libraries lets the next browse succeed.
        /// - Throws: `DiscoveryError.libraryMissing` when a library cannot be opened or lacks a function.
        static func shared() throws(DiscoveryError) -> AvahiLibrary {
            try loaded.value { () throws(DiscoveryError) -> AvahiLibrary in
                var functions = cavahi_functions()
                var library: UnsafePointer<CChar>?
                var error: UnsafePointer<CChar>?
                let status = cavahi_open(clientLibrary, commonLibrary, &functions, &library, &error)
                guard status == 0 else {
                    let said = error.map { String(cString: $0) } ?? "no reason given"
                    throw .libraryMissing(
                        library: library.map { String(cString: $0) } ?? clientLibrary, package: package,
                        reason: status == 1 ? said : "an older version: \(said)")
                }
                return AvahiLibrary(functions: functions)
            }
        }
    }
#endif
