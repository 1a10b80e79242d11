import Glibc

/// Calls `body` with a C array of C strings that lives for the duration of the call.
func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    var pointers: [UnsafePointer<CChar>?] = strings.map { UnsafePointer(strdup($0)) }
    pointers.append(nil)
    defer { for pointer in pointers { free(UnsafeMutablePointer(mutating: pointer)) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

/// Like `withCStringArray`, with NULL entries for nil (SQL NULL parameters).
func withOptionalCStringArray<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    let pointers: [UnsafePointer<CChar>?] = strings.map { $0.map { UnsafePointer(strdup($0)) } ?? nil }
    defer { for pointer in pointers { free(UnsafeMutablePointer(mutating: pointer)) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}
