import Testing
extension Tag { @Tag static var integration: Self }
