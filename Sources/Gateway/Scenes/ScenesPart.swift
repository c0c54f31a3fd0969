import HomeModel
import Logging
import SystemSupport

/// The scenes-and-groups part's state (docs/ARCHITECTURE.md "The Gateway's parts"): the stored scenes and
/// groups, their file, and what the groups' state topics show (`Scenes/`). Nothing outside `Scenes/`
/// reads or changes it.
struct ScenesPart {
    /// `scenes.json`; nil without a state directory (scenes then last until the process ends).
    let file: ScenesFile?
    /// The scenes, in the order stored.
    var scenes: [Scene] = []
    /// The groups, in the order added.
    var groups: [DeviceGroup] = []
    /// Why `scenes.json` could not be read: changes are refused until it is fixed, so that it is never
    /// overwritten.
    var damage: String?
    /// The save in progress: changes run one at a time, each on the state its predecessor saved.
    var saving: Task<Void, Never>?
    /// The last values of the group members' On, Brightness and Current Position, by address; only
    /// reachable accessories' values are kept.
    var memberValues: [CharacteristicAddress: CharacteristicValue] = [:]
    /// The group members' On, Brightness and Current Position characteristics, reachable or not.
    var watched: Set<CharacteristicAddress> = []
    /// The state payload last queued on each group's topic, by group slug.
    var shownStates: [String: String] = [:]
    /// A refresh of the members' values is under way (`refreshGroups()`); another one is wanted after it.
    var refresh = GroupRefresh()

    /// The part with the scenes and groups of `directory`'s `scenes.json` (a short read, at start).
    init(directory: StateDirectory?, logger: Logger) {
        file = directory.map(ScenesFile.init(directory:))
        guard let file else { return }
        do throws(GatewayError) {
            (scenes, groups) = try file.load()
        } catch {
            damage = error.description
            logger.error("\(error)")
        }
    }
}

/// Whether a refresh of the group members' values runs, and whether another is wanted after it.
struct GroupRefresh {
    var running = false
    var again = false
}
