import Testing

@testable import Gateway

/// The discovery format's state and its migration by Home Assistant's protocol, as transitions and the
/// actions they ask for; and the record in the state directory.
@Suite("Home Assistant: discovery format migration (state and record)")
struct DiscoveryMigrationTests {
    typealias M = DiscoveryMigration

    @Test("a new installation takes device configs, or the format asked for, and records it")
    func newInstallation() {
        let (plain, plainActions) = M.starting(recorded: nil, isNewInstallation: true, asked: nil)
        #expect(plain.state == .settled(.device) && plainActions == [.save])
        let (entity, entityActions) = M.starting(recorded: nil, isNewInstallation: true, asked: .entity)
        #expect(entity.state == .settled(.entity) && entityActions == [.save])
    }

    @Test("an earlier installation without a record published per entity: it keeps that, or migrates when asked")
    func earlierInstallation() {
        let (kept, keptActions) = M.starting(recorded: nil, isNewInstallation: false, asked: nil)
        #expect(kept.state == .settled(.entity) && keptActions == [.save])
        #expect(kept.publishingFormat == .entity)
        let (moving, movingActions) = M.starting(recorded: nil, isNewInstallation: false, asked: .device)
        #expect(moving.state == .migrating(from: .entity, to: .device, step: .announce))
        #expect(movingActions == [.save, .run(.announce)])
        #expect(moving.publishingFormat == nil, "nothing is published while the old configs are announced")
    }

    @Test("the steps run announce, clear, publish, each recorded before it goes out, then settle")
    func steps() {
        var (m, _) = M.starting(recorded: .settled(.entity), isNewInstallation: false, asked: .device)
        #expect(m.stepDone() == [.save, .run(.clear)])
        #expect(m.state == .migrating(from: .entity, to: .device, step: .clear) && m.publishingFormat == nil)
        #expect(m.stepDone() == [.save, .run(.publish)])
        #expect(m.publishingFormat == .device)
        #expect(m.stepDone() == [.save])
        #expect(m.state == .settled(.device) && !m.isMigrating)
        #expect(m.stepDone() == [], "a settled format has no step")
    }

    @Test("a recorded migration goes on from its step; a settled record stays unless the setting differs")
    func resume() {
        let (m, actions) = M.starting(
            recorded: .migrating(from: .device, to: .entity, step: .publish), isNewInstallation: false, asked: nil)
        #expect(m.state == .migrating(from: .device, to: .entity, step: .publish) && actions == [.run(.publish)])
        let (settled, none) = M.starting(recorded: .settled(.device), isNewInstallation: false, asked: .device)
        #expect(settled.state == .settled(.device) && none.isEmpty)
        let (back, backActions) = M.starting(recorded: .settled(.device), isNewInstallation: false, asked: .entity)
        #expect(back.state == .migrating(from: .device, to: .entity, step: .announce))
        #expect(backActions == [.save, .run(.announce)])
    }

    @Test("a request while a migration runs, or against the configured format, is refused and changes nothing")
    func refusals() throws {
        var (m, _) = M.starting(recorded: .settled(.entity), isNewInstallation: false, asked: nil)
        #expect(try m.request(.entity) == [], "already in that format")
        #expect(try m.request(.device) == [.save, .run(.announce)])
        let before = m
        #expect(throws: M.Refusal.underWay(from: .entity, to: .device, step: .announce)) { try m.request(.entity) }
        #expect(m == before)
        var (configured, _) = M.starting(recorded: .settled(.entity), isNewInstallation: false, asked: .entity)
        #expect(throws: M.Refusal.configured(.entity)) { try configured.request(.device) }
        #expect(configured.state == .settled(.entity))
        #expect(M.Refusal.configured(.entity).description.contains("homeassistant.discovery_format is entity"))
    }

    @Test("a setting changed during a migration takes effect after it: the move back follows")
    func configureDuringMigration() {
        var (m, _) = M.starting(recorded: .settled(.entity), isNewInstallation: false, asked: .device)
        #expect(m.configure(.entity) == [], "the migration under way finishes first")
        _ = m.stepDone()
        _ = m.stepDone()
        #expect(m.stepDone() == [.save, .run(.announce)])
        #expect(m.state == .migrating(from: .device, to: .entity, step: .announce))
    }

    @Test("the record reads back as the state it was written from; anything else is no record")
    func record() {
        let states: [M.State] = [
            .settled(.device), .settled(.entity), .migrating(from: .entity, to: .device, step: .publish),
            .migrating(from: .device, to: .entity, step: .clear),
        ]
        for state in states {
            let m = M.starting(recorded: state, isNewInstallation: false, asked: nil).0
            #expect(M.state(fromRecord: m.record.encoded(sortingKeys: true)) == state)
        }
        let written = M.starting(
            recorded: .migrating(from: .entity, to: .device, step: .announce), isNewInstallation: false, asked: nil
        ).0.record
        #expect(
            String(decoding: written.encoded(sortingKeys: true), as: UTF8.self)
                == #"{"format":"entity","migrating_to":"device","step":"announce"}"#)
        for bad in [
            "", "[]", #"{"format":"both"}"#, #"{"format":"entity","migrating_to":"entity","step":"clear"}"#,
            #"{"format":"entity","migrating_to":"device"}"#, #"{"format":"entity","migrating_to":7,"step":"clear"}"#,
            "{\"format\":", String(repeating: "[", count: 500),
        ] {
            #expect(M.state(fromRecord: Array(bad.utf8)) == nil, "\(bad.prefix(40))")
        }
    }
}
