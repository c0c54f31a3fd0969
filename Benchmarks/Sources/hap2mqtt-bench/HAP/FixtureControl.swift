import Dispatch
import Foundation
import JSON
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// hap2mqtt's side of the fixture's control channel in scenario 4 (`set_value` and `ping`), made like
/// aiohomekit's side makes it (`control()` in Benchmarks/hap/aiohomekit_bench.py): per command a new TCP
/// connection, one JSON line out, one line back, closed.
///
/// The commands run on one thread kept for the scenario. The tests' `HAPPythonAccessory` control client
/// starts three threads per command and reads its answer a byte per `recv`; in the event rows that cost
/// about as much CPU as the event itself, and its noise (a thread started while the event arrives) stayed
/// in the figure after the pings were subtracted.
final class FixtureControl: Sendable {
    private typealias Waiter = CheckedContinuation<Result<JSONValue, BenchmarkError>, Never>

    private let port: UInt16
    private let pending = Mutex<[(line: [UInt8], waiter: Waiter)]>([])
    private let wake = DispatchSemaphore(value: 0)

    /// A client of the control channel on 127.0.0.1:`port`; its thread starts now and waits for commands.
    init(port: UInt16) {
        self.port = port
        let thread = Thread { [self] in run() }
        thread.name = "bench.control"
        thread.start()
    }

    /// Asks the fixture to change `characteristic` of `accessory` to `value`; its CLOCK_MONOTONIC time
    /// stamp (ns) taken just before the change.
    /// - Throws: `BenchmarkError.process` when the fixture refuses or does not answer.
    func setValue(accessory: String, characteristic: String, value: Int64) async throws -> UInt64 {
        let answer = try await command(
            #"{"cmd":"set_value","accessory":"\#(accessory)","characteristic":"\#(characteristic)","value":\#(value)}"#)
        guard let stamp = answer["changed_ns"]?.int64Value, stamp > 0 else {
            throw BenchmarkError.process("the fixture's set_value gave no time stamp")
        }
        return UInt64(stamp)
    }

    /// A command that does nothing: the channel's own cost.
    func ping() async throws { _ = try await command(#"{"cmd":"ping"}"#) }

    /// One command (a JSON object in one line, as the fixture's docstring lists them) and its answer.
    /// - Throws: `BenchmarkError.process` when the fixture refuses or does not answer.
    func command(_ json: String) async throws -> JSONValue {
        let line = Array(json.utf8) + [0x0A]
        let result = await withCheckedContinuation { (waiter: Waiter) in
            pending.withLock { $0.append((line, waiter)) }
            wake.signal()
        }
        return try result.get()
    }

    private func run() {
        while true {
            wake.wait()
            guard let next = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            next.waiter.resume(returning: exchange(next.line))
        }
    }

    /// One connection: the line out, the answer's line back, parsed.
    private func exchange(_ line: [UInt8]) -> Result<JSONValue, BenchmarkError> {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return .failure(.process("control channel: socket failed")) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return .failure(.process("control channel: connect to \(port) failed")) }
        let sent = line.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        guard sent == line.count else { return .failure(.process("control channel: send failed")) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !answer.contains(0x0A) {
            let n = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return .failure(.process("control channel: no answer")) }
            answer += buffer[0..<n]
        }
        let text = answer.prefix { $0 != 0x0A }
        guard let json = try? JSONValue(parsing: text), json["ok"]?.boolValue == true else {
            return .failure(.process("the fixture refused a command: \(String(decoding: text, as: UTF8.self))"))
        }
        return .success(json)
    }
}
