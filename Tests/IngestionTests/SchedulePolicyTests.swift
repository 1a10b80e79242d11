import Foundation
@testable import Ingestion
import Testing

struct SchedulePolicyTests {
    let policy = SchedulePolicy()
    let hour = 3600.0

    @Test func firstIntervalIsTheConfiguredOne() {
        #expect(policy.interval(configuredHours: 2, itemsLastWeek: nil) == .seconds(2 * 3600))
        #expect(policy.interval(configuredHours: 6, itemsLastWeek: nil) == .seconds(6 * 3600))
        #expect(policy.interval(configuredHours: 168, itemsLastWeek: nil) == .seconds(24 * 3600))
    }

    @Test func adaptsToThePublishingRateWithinBounds() {
        // 14 items a week: one every 12 h, fetched twice per gap.
        #expect(policy.interval(configuredHours: 2, itemsLastWeek: 14) == .seconds(6 * 3600))
        // 336 a week: one every 30 min -> every 15 min (the floor).
        #expect(policy.interval(configuredHours: 2, itemsLastWeek: 336) == .seconds(15 * 60))
        #expect(policy.interval(configuredHours: 2, itemsLastWeek: 10_000) == .seconds(15 * 60))
        // Silent or nearly silent feeds: the ceiling.
        #expect(policy.interval(configuredHours: 2, itemsLastWeek: 0) == .seconds(24 * 3600))
        #expect(policy.interval(configuredHours: 2, itemsLastWeek: 1) == .seconds(24 * 3600))
    }

    @Test func hintsLengthenButNeverPassTheCeilingOrShorten() {
        let base = policy.interval(configuredHours: 2, itemsLastWeek: 336)
        #expect(policy.interval(configuredHours: 2, itemsLastWeek: 336,
                                hints: .init(retryAfter: .seconds(3600))) == .seconds(3600))
        #expect(policy.interval(configuredHours: 2, itemsLastWeek: 336,
                                hints: .init(cacheMaxAge: .seconds(60))) == base)
        #expect(policy.interval(configuredHours: 2, itemsLastWeek: 336,
                                hints: .init(ttlMinutes: 120)) == .seconds(7200))
        #expect(policy.interval(configuredHours: 2, itemsLastWeek: 336,
                                hints: .init(retryAfter: .seconds(7 * 86_400))) == .seconds(24 * 3600))
    }

    @Test func jitterStaysWithinTenPercentAndAboveTheFloor() {
        let interval = Duration.seconds(2 * 3600)
        #expect(policy.jittered(interval, unit: 0) == interval * 0.9)
        #expect(policy.jittered(interval, unit: 1) == interval * 1.1)
        #expect(policy.jittered(interval, unit: 0.5) == interval)
        #expect(policy.jittered(.seconds(15 * 60), unit: 0) == .seconds(15 * 60))
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        for _ in 0..<200 {
            let due = policy.nextDue(after: now, configuredHours: 2, itemsLastWeek: nil).timeIntervalSince(now)
            #expect(due >= 0.9 * 2 * hour - 0.001 && due <= 1.1 * 2 * hour + 0.001)
        }
    }

    @Test func configurableBounds() {
        let tight = SchedulePolicy(minimumInterval: .seconds(60), maximumInterval: .seconds(600))
        #expect(tight.interval(configuredHours: 2, itemsLastWeek: nil) == .seconds(600))
        #expect(tight.interval(configuredHours: 2, itemsLastWeek: 100_000) == .seconds(60))
        let now = Date(timeIntervalSince1970: 0)
        #expect(tight.retryAfterFailure(now: now) == Date(timeIntervalSince1970: 60))
    }
}
