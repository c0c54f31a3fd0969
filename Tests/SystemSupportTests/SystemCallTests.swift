import Foundation
import SystemSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("System calls")
struct SystemCallTests {
    @Test("a call interrupted by a signal is made again, and its result returned")
    func interrupted() throws {
        var calls = 0
        let result = try SystemCall.retryingInterrupts("read") { () -> Int in
            calls += 1
            guard calls > 2 else {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7)
        #expect(calls == 3)
    }

    @Test("any other failure is an error with the call's name and the system's reason")
    func failure() {
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(throws: SystemCallError(call: "read", code: EBADF)) {
            try SystemCall.retryingInterrupts("read") {
                buffer.withUnsafeMutableBytes { read(-1, $0.baseAddress, $0.count) }
            }
        }
        #expect(SystemCallError(call: "read", code: EBADF).description == "read: Bad file descriptor")
    }

    @Test("writeAll writes every byte, and a descriptor not open for writing fails with write's error")
    func writeAll() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let text = Array(String(repeating: "hap2mqtt ", count: 1000).utf8)
        try text.withUnsafeBytes { raw in try SystemCall.writeAll(raw, to: ends[1]) }
        close(ends[1])
        let back = FileHandle(fileDescriptor: ends[0], closeOnDealloc: false).readDataToEndOfFile()
        #expect(Array(back) == text)

        #expect(throws: SystemCallError(call: "write", code: EBADF)) {
            try text.withUnsafeBytes { raw in try SystemCall.writeAll(raw, to: ends[0]) }
        }
    }
}
