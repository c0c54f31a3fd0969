/// The hap2mqtt program's entry point.
@main
struct Hap2mqtt {
    static let version = "0.1.0"

    static func main() async {
        print("hap2mqtt \(version)")
    }
}
