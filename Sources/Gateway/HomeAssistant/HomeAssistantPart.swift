import Logging
import SystemSupport

/// The Home Assistant part's state (docs/ARCHITECTURE.md "The Gateway's parts"): discovery configs, the
/// answers to Home Assistant's birth message and the `hs` commands (`HomeAssistant/`).
struct HomeAssistantPart {
    /// Builds the discovery configs from the options in use.
    var discovery: HomeAssistantDiscovery
    /// Discovery config topics cleared this run because discovery is off or an exclusion applies.
    var clearedDiscoveryTopics: Set<String> = []
    /// Whether an answer to Home Assistant's birth message is waiting for its delay.
    var births = BirthAnswers()
    /// The discovery format published, and the migration to the other one when one is under way.
    var migration: DiscoveryMigration
    /// What the migration is to do once the home is published (a start that resumes or starts one).
    var migrationStart: [DiscoveryMigration.Action]
    /// The migration's steps running now, which the next ones wait for.
    var migrationTask: Task<Void, Never>?
}

/// What the other parts may ask of this one.
extension Gateway {
    /// The `node_id` of the gateway's own device in Home Assistant (`HomeAssistantDiscovery.bridgeIdentifier`).
    var bridgeDiscoveryIdentifier: String { parts.homeAssistant.discovery.bridgeIdentifier }

    /// Whether a discovery migration is under way: it holds both formats' configs on purpose.
    var isMigratingDiscovery: Bool { parts.homeAssistant.migration.isMigrating }
}

extension HomeAssistantPart {
    /// The part at a start: the discovery format from the record in `directory`
    /// (`DiscoveryMigration.fileName`) and the configuration. A damaged record is moved aside (logged) and
    /// read as none. Without a state directory nothing is recorded, and the start is a new installation's.
    init(
        discovery: HomeAssistantDiscovery, startingIn directory: StateDirectory?, isNewInstallation: Bool,
        logger: Logger
    ) {
        var recorded: DiscoveryMigration.State?
        if let directory {
            do throws(StateDirectoryError) {
                if let data = try directory.read(DiscoveryMigration.fileName, maximumSize: 4096) {
                    recorded = DiscoveryMigration.state(fromRecord: Array(data))
                    if recorded == nil {
                        let aside = (try? directory.moveAside(DiscoveryMigration.fileName)) ?? "(left in place)"
                        logger.warning(
                            "\(directory.url(DiscoveryMigration.fileName).path) is no discovery format record; moved aside to \(aside)"
                        )
                    }
                }
            } catch {
                logger.warning("cannot read the discovery format record: \(error)")
            }
        }
        let (migration, actions) = DiscoveryMigration.starting(
            recorded: recorded, isNewInstallation: directory == nil || isNewInstallation,
            asked: discovery.configuration.format)
        self.init(discovery: discovery, migration: migration, migrationStart: actions)
    }
}
