/// When the gateway answers Home Assistant's birth message (`online` on its status topic, docs/DESIGN.md
/// "Home Assistant"): once per delay, however many births arrive while an answer waits, since Home
/// Assistant and its MQTT integration may announce themselves several times while starting.
struct BirthAnswers {
    /// An answer is scheduled and has not gone out yet.
    private(set) var isPending = false

    /// A message arrived on Home Assistant's status topic. Returns true when an answer is to be scheduled:
    /// the payload is `online` (surrounding white space aside) and no answer is waiting.
    mutating func received(_ payload: String?) -> Bool {
        guard payload?.trimmingSpaces == "online", !isPending else { return false }
        isPending = true
        return true
    }

    /// The scheduled answer goes out now; the next birth is answered again.
    mutating func answering() {
        isPending = false
    }
}
