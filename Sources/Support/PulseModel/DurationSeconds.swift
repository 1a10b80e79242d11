extension Duration {
    /// Seconds as a Double (attosecond precision is more than schedules, leases and logs need).
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
