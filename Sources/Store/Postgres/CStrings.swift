import Glibc

/// Calls `body` with a NULL-terminated C array of C strings (NULL for nil: an SQL NULL parameter)
/// that lives for the duration of the call.
func withCStringArray<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    var pointers: [UnsafePointer<CChar>?] = strings.map { $0.map { UnsafePointer(strdup($0)) } ?? nil }
    pointers.append(nil)
    defer { for pointer in pointers { free(UnsafeMutablePointer(mutating: pointer)) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
