import Testing

@testable import Observability

/// The WebSub series exist from the start (rate() needs a zero) and count what they say.
@Suite struct WebSubMetricsTests {
    @Test func seriesAndCounts() {
        let metrics = PulseMetrics()
        let websub = WebSubMetrics(registry: metrics.registry)
        var text = metrics.exposition()
        #expect(text.contains("pulse_websub_pushes_rejected_total{reason=\"bad_signature\"} 0"))
        #expect(text.contains("pulse_websub_subscriptions{state=\"subscribed\"} 0"))
        websub.pushReceived()
        websub.pushRejected(reason: "missing_signature")
        websub.pushRejected(reason: "something new")
        websub.pushStored(inserted: 3, latency: .milliseconds(12))
        websub.setSubscriptions(["subscribed": 2, "failed": 1])
        websub.verification(mode: "subscribe", accepted: true)
        text = metrics.exposition()
        #expect(text.contains("pulse_websub_pushes_received_total 1"))
        #expect(text.contains("pulse_websub_pushes_rejected_total{reason=\"missing_signature\"} 1"))
        #expect(text.contains("pulse_websub_pushes_rejected_total{reason=\"other\"} 1"))
        #expect(text.contains("pulse_websub_pushes_stored_total 1"))
        #expect(text.contains("pulse_websub_push_rows_total 3"))
        #expect(text.contains("pulse_websub_push_to_row_seconds_count 1"))
        #expect(text.contains("pulse_websub_subscriptions{state=\"subscribed\"} 2"))
        #expect(text.contains("pulse_websub_subscriptions{state=\"failed\"} 1"))
        #expect(text.contains("pulse_websub_verifications_total{mode=\"subscribe\",accepted=\"true\"} 1"))
    }
}
