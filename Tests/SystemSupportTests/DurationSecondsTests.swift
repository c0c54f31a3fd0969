import SystemSupport
import Testing

@Suite("Durations in seconds and milliseconds")
struct DurationSecondsTests {
    @Test("seconds keep the fraction")
    func seconds() {
        #expect(Duration.milliseconds(2500).inSeconds == 2.5)
        #expect(Duration.seconds(30).inSeconds == 30)
        #expect(Duration.zero.inSeconds == 0)
        #expect(Duration.milliseconds(-1500).inSeconds == -1.5)
    }

    @Test("milliseconds are whole, the rest dropped, and a duration beyond Int64 milliseconds is clamped")
    func milliseconds() {
        #expect(Duration.microseconds(1999).inMilliseconds == 1)
        #expect(Duration.seconds(3).inMilliseconds == 3000)
        #expect(Duration.milliseconds(-1500).inMilliseconds == -1500)
        #expect(Duration.seconds(Int64.max).inMilliseconds == .max)
        #expect(Duration.seconds(Int64.min).inMilliseconds == .min)
    }
}
