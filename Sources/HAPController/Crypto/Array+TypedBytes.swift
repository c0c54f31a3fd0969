extension Array where Element == UInt8 {
    /// `withUnsafeBytes` keeping the body's error type (the standard library's only rethrows, as `any Error`).
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes { raw in Result { () throws(E) in try body(raw) } }.get()
    }

    /// `withUnsafeMutableBytes` keeping the body's error type.
    mutating func withMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeMutableBytes { raw in Result { () throws(E) in try body(raw) } }.get()
    }
}
